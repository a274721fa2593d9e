/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tprof-read: encode a resolved, symbolized profile as a gzipped pprof
 * protobuf. Names come from the passes before (analyze/resolve.c,
 * analyze/symbolize.c), lost samples and totals from the summary
 * (output/summary.h); the encoder only writes them, and changes nothing
 * of the profile.
 */
#ifndef _TPROF_PPROF_H
#define _TPROF_PPROF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analyze/resolve.h"
#include "model/profile.h"
#include "output/format.h"

struct summary;

struct pprof_opts {
	uint64_t default_period_ns;	/* used when the stream has no session */
	const struct summary *summary;	/* NULL: computed here, of p->whole */
	/* NULL: the whole session; else the window the summary is of:
	 * its span and start (time_nanos, duration_nanos, comments) */
	const struct output_window *window;
	/*
	 * --mode wakers ("pprof:wakers"): wait time by the wakers' stacks
	 * (the release sites), [wait/nanoseconds, samples/count]: each
	 * off-CPU sample that has a waker, its value its weight, its
	 * locations its waker's stack (resolve__wake()) or one pseudo-frame
	 * saying why there is none (pprof__waker_pseudo()).
	 */
	bool wakers;
};

/* The "pprof" format (output/format.h): gzipped by the caller. */
extern const struct output_format pprof_format;

/* The "state" label of a sample: "running" (CPU), "sleeping", ... */
const char *pprof__state_name(uint32_t off_state);
const char *pprof__waker_kind_name(uint32_t kind);
/*
 * Why the off-CPU sample rs (its waker told: waker.kind != 0) has no
 * waker stack, as the one frame that stands for it: "[interrupt]",
 * "[kernel thread]", "[other process]", "[waker stack not taken]" (a
 * waker thread, no stack asked or allowed), "[waker stack lost]" (taken,
 * never joined); NULL when r has its stack (*wake set).
 */
const char *pprof__waker_pseudo(const struct resolved *r,
				const struct rsample *rs,
				const struct rsample **wake);
/*
 * Who ended rs's wait, as the wakers' outputs name it: the waker of its
 * stack wake (the wakeup that ended its chain of timed-out waits, if it
 * was one: kmod/offcpu.c), else its own.
 */
const struct agg_waker *pprof__waker_of(const struct rsample *rs,
					const struct rsample *wake);

/*
 * Build the pprof Profile message for p, resolved (and named) as r, and
 * pack it (not compressed) into a malloc'd buffer. Returns 0 or -errno.
 */
int pprof__encode(const struct profile *p, const struct resolved *r,
		  const struct pprof_opts *o, uint8_t **out, size_t *outlen);

#endif /* _TPROF_PPROF_H */
