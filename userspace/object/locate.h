/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tprof-read: where the target's file of a mapping is, seen as the target
 * saw it. The unwinder and the symbolize pass find files the same way,
 * here, and use only a file with the mapping's recorded GNU build-id.
 */
#ifndef _TPROF_OBJECT_LOCATE_H
#define _TPROF_OBJECT_LOCATE_H

#include <stdbool.h>
#include <stddef.h>

#include "model/maps.h"

/* The target's view of its files. */
struct file_view {
	/* the target's root, "/proc/PID/root" (or a directory standing in
	 * for it); NULL: none */
	const char *root;
	bool live;		/* the target may run: try its map_files */
};

#define LOCATE_MAX_CANDS 4

/*
 * Where the target's file of mapping m may be, in the order to try
 * (cands[i] may point into bufs): its root, its map_files while live, the
 * host's path, /usr/lib/debug/.build-id. Only a file with m's recorded
 * build-id may be used.
 */
size_t locate__candidates(const struct file_view *v, const struct mapping *m,
			  char bufs[LOCATE_MAX_CANDS][4096],
			  const char *cands[LOCATE_MAX_CANDS]);

#endif /* _TPROF_OBJECT_LOCATE_H */
