/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tprof-read: the symbolize pass. Names for resolved locations, per
 * mapping's file as the target saw it (its /proc/PID/root, then
 * /proc/PID/map_files while it runs), and only from a file whose GNU
 * build-id is the one recorded when the mapping was first seen.
 */
#ifndef _TPROF_ANALYZE_SYMBOLIZE_H
#define _TPROF_ANALYZE_SYMBOLIZE_H

#include <stdbool.h>

#include "model/profile.h"
#include "analyze/resolve.h"
#include "object/locate.h"
#include "object/object.h"
#include "object/symbols.h"

struct symbolize_opts {
	struct objects *objs;	/* the files (the unwinder's too) */
	struct symbolizer *sym;	/* of objs; NULL: no names (build-ids
				 * still kept) */
	struct ksyms *ksyms;	/* NULL: kernel frames stay addresses */
	struct file_view view;	/* where the target's files are */
};

void symbolize__run(struct resolved *r, const struct profile *p,
		    const struct symbolize_opts *o);

#endif /* _TPROF_ANALYZE_SYMBOLIZE_H */
