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

void names__run(struct resolved *r, struct profile *p,
		const struct names_opts *o);

#endif /* _TPROF_NAMES_H */
