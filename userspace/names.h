/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tprof-read: the symbolize pass. Names for resolved locations, per
 * mapping's file as the target saw it (its /proc/PID/root, then
 * /proc/PID/map_files while it runs), and only from a file whose GNU
 * build-id is the one recorded when the mapping was first seen.
 */
#ifndef _TPROF_NAMES_H
#define _TPROF_NAMES_H

#include <stdbool.h>

#include "profile.h"
#include "resolve.h"
#include "symbolize.h"

struct names_opts {
	struct symbolizer *sym;	/* NULL: no names (build-ids still kept) */
	struct ksyms *ksyms;	/* NULL: kernel frames stay addresses */
	/* the target's root, "/proc/PID/root" (or a directory standing in
	 * for it); NULL: none */
	const char *root;
	bool live;		/* the target may run: try its map_files */
};

#define NAMES_MAX_CANDS 4

/*
 * Where the target's file of mapping m may be, in the order to try
 * (cands[i] may point into bufs): its root, its map_files while live, the
 * host's path, /usr/lib/debug/.build-id. Only a file with m's recorded
 * build-id may be used. The unwinder (unwind.c) opens the same files.
 */
size_t names__candidates(const struct names_opts *o, const struct mapping *m,
			 char bufs[NAMES_MAX_CANDS][4096],
			 const char *cands[NAMES_MAX_CANDS]);

void names__run(struct resolved *r, struct profile *p,
		const struct names_opts *o);

#endif /* _TPROF_NAMES_H */
