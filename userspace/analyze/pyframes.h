/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tprof-read: names and lines of the Python frames merged into aggregated
 * stacks (model/pymerge.c), from the stream's PYCODE records, looked up
 * once the stream is whole: a PYCODE record is written after the samples
 * that first showed its code object.
 */
#ifndef _TPROF_ANALYZE_PYFRAMES_H
#define _TPROF_ANALYZE_PYFRAMES_H

#include <stdint.h>

#include "model/profile.h"

/* The location frames an unknown or stale code object gets. */
#define PY_UNKNOWN_CODE	"[unknown python code]"

struct pyframes;

struct pyframes *pyframes__new(const struct profile *p);
void pyframes__free(struct pyframes *pf);

/*
 * The Python frame of tagged word ip in sample a: *func its function,
 * 1-based into p->py.funcs, 0 when no PYCODE record of the sample's
 * program names its (code, check) pair, or only a stale one (never a
 * name read of another code object); *line its line (0 unknown).
 * Line tables are decoded once per code object.
 */
void pyframes__frame(struct pyframes *pf, const struct agg_sample *a,
		     uint64_t ip, uint32_t *func, int32_t *line);

#endif /* _TPROF_ANALYZE_PYFRAMES_H */
