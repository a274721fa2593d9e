// SPDX-License-Identifier: GPL-2.0
/* tprof-read: arrays of structs keyed by one int id (model/idtable.h). */
#include <string.h>

#include "model/grow.h"
#include "model/idtable.h"

void *idtable_get(void **arr, size_t *n, size_t *cap, struct hindex *idx,
		  size_t elsz, size_t id_off, int id, uint64_t h, bool add)
{
	struct hiter it = { 0 };
	unsigned char *e;
	uint32_t item;
	int at;

	while (hindex_next(idx, h, &it, &item)) {
		e = (unsigned char *)*arr + (size_t)(item - 1) * elsz;
		memcpy(&at, e + id_off, sizeof(at));
		if (at == id)
			return e;
	}
	if (!add)
		return NULL;
	grow_untouched(arr, cap, *n + 1, elsz);
	e = (unsigned char *)*arr + *n * elsz;
	memset(e, 0, elsz);
	memcpy(e + id_off, &id, sizeof(id));
	(*n)++;
	hindex_put(idx, h, (uint32_t)*n);
	return e;
}
