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
};

/* The "pprof" format (output/format.h): gzipped by the caller. */
extern const struct output_format pprof_format;

/* The "state" label of a sample: "running" (CPU), "sleeping", ... */
const char *pprof__state_name(uint32_t off_state);
const char *pprof__waker_kind_name(uint32_t kind);

/*
 * Build the pprof Profile message for p, resolved (and named) as r, and
 * pack it (not compressed) into a malloc'd buffer. Returns 0 or -errno.
 */
int pprof__encode(const struct profile *p, const struct resolved *r,
		  const struct pprof_opts *o, uint8_t **out, size_t *outlen);

#endif /* _TPROF_PPROF_H */
