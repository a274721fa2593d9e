// SPDX-License-Identifier: GPL-2.0
/* tprof-read: Python frames of aggregated stacks named from PYCODE records. */
#include <stdlib.h>

#include "analyze/pyframes.h"
#include "analyze/pylines.h"

struct pyframes {
	const struct profile *p;
	struct pylines *lines;	/* per p->py.codes, decoded on first use */
	unsigned char *decoded;
	size_t n;
};

struct pyframes *pyframes__new(const struct profile *p)
{
	struct pyframes *pf = xcalloc(1, sizeof(*pf));

	pf->p = p;
	pf->n = p->py.ncodes;
	pf->lines = xcalloc(pf->n + 1, sizeof(*pf->lines));
	pf->decoded = xcalloc(pf->n + 1, 1);
	return pf;
}

void pyframes__free(struct pyframes *pf)
{
	size_t i;

	if (!pf)
		return;
	for (i = 0; i < pf->n; i++)
		pylines__free(&pf->lines[i]);
	free(pf->lines);
	free(pf->decoded);
	free(pf);
}

/*
 * The PYCODE record naming (code, check) of pid in the program it ran at
 * the sample's time: read after the exec before the sample, and before
 * the next (the same address may be another program's code by then).
 * Of those with names, the one read nearest the sample in time (code
 * freed and another at its address with the same words is named by the
 * read of its own time); a stale one only if none has names; NULL if
 * none.
 */
static const struct py_code *code_of(const struct profile *p,
				     const struct agg_sample *a,
				     const struct py_frame *f)
{
	uint64_t t = a->first_time_ns, best_d = UINT64_MAX, d;
	uint64_t since = profile__exec_before(p, a->pid, t);
	const struct py_code *c, *best = NULL, *stale = NULL;

	for (c = python__code(&p->py, f->pid, f->code, f->check); c;
	     c = python__code_next(&p->py, c)) {
		if (profile__exec_before(p, a->pid, c->time_ns) != since)
			continue;
		if (c->stale) {
			stale = c;
			continue;
		}
		d = c->time_ns > t ? c->time_ns - t : t - c->time_ns;
		if (d < best_d) {
			best = c;
			best_d = d;
		}
	}
	return best ? best : stale;
}

void pyframes__frame(struct pyframes *pf, const struct agg_sample *a,
		     uint64_t ip, uint32_t *func, int32_t *line)
{
	const struct python *py = &pf->p->py;
	const struct py_frame *f = python__frame_of(py, ip);
	const struct py_code *c = f && f->code ? code_of(pf->p, a, f) : NULL;
	size_t ci;

	*func = 0;
	*line = 0;
	if (f && !f->code) {	/* where a walk was cut */
		*func = py->cut_func;
		return;
	}
	if (!c || c->stale)
		return;
	*func = c->func;
	ci = (size_t)(c - py->codes);
	if (!pf->decoded[ci]) {
		/* a table that stops parsing keeps the lines before */
		pylines__decode(&pf->lines[ci], c->linetable,
				c->linetable_len,
				(int32_t)py->funcs[c->func - 1].first_line);
		pf->decoded[ci] = 1;
	}
	*line = pylines__line(&pf->lines[ci], f->off);
	if (*line < 0)
		*line = 0;
}
