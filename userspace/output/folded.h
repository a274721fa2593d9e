/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tprof-read: --format folded, collapsed stacks for flame graphs
 * (flamegraph.pl, inferno, speedscope); output/folded.c says what each
 * line holds.
 */
#ifndef _TPROF_OUTPUT_FOLDED_H
#define _TPROF_OUTPUT_FOLDED_H

#include <stddef.h>

#include "output/format.h"

/* "folded" (CPU nanoseconds), "folded:off_cpu" (off-CPU nanoseconds) */
extern const struct output_format folded_format;

/*
 * A function name as a frame of a folded line, malloc'd: ';' as ':', no
 * control characters, a C++ parameter list and its qualifiers dropped;
 * "[unknown]" for none.
 */
char *folded__frame_name(const char *name);

#endif /* _TPROF_OUTPUT_FOLDED_H */
