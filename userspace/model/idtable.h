/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tprof-read: an array of structs keyed by one int id (threads by tid,
 * processes by pid), in order of first appearance, found through a hash
 * index (lib/util.h): the profile's tables and each agg's threads.
 */
#ifndef _TPROF_IDTABLE_H
#define _TPROF_IDTABLE_H

#include <stdbool.h>
#include <stddef.h>

#include "lib/util.h"

/*
 * The element whose int at id_off is id (h: its hash), else, with add,
 * a new one at the end, zeroed but for its id (room grown untouched,
 * model/grow.h), else NULL. Without add nothing is written.
 */
void *idtable_get(void **arr, size_t *n, size_t *cap, struct hindex *idx,
		  size_t elsz, size_t id_off, int id, uint64_t h, bool add);

/* idtable_get() on arr, n, cap and idx, the id in arr's member field. */
#define IDTABLE_GET(arr, n, cap, idx, field, id, h, add)		\
	((__typeof__(arr))idtable_get((void **)&(arr), &(n), &(cap), &(idx), \
				      sizeof(*(arr)),			\
				      offsetof(__typeof__(*(arr)), field), \
				      (id), (h), (add)))

#endif /* _TPROF_IDTABLE_H */
