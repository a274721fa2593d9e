/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tprof-read: encode a resolved, symbolized profile as a gzipped pprof
 * protobuf. Names come from the passes before (resolve.c, analyze/symbolize.c); the
 * encoder only writes them.
 */
#ifndef _TPROF_PPROF_H
#define _TPROF_PPROF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/outfile.h"
#include "model/profile.h"
#include "analyze/resolve.h"

struct pprof_opts {
	uint64_t default_period_ns;	/* used when the stream has no session */
};

/*
 * Build the pprof Profile message for p, resolved (and named) as r, and
 * pack it (not compressed) into a malloc'd buffer. Returns 0 or -errno.
 */
/* The "state" label of a sample: "running" (CPU), "sleeping", ... */
const char *pprof__state_name(uint32_t off_state);
int pprof__encode(struct profile *p, const struct resolved *r,
		  const struct pprof_opts *o, uint8_t **out, size_t *outlen);

/* gzip (RFC 1952) with zlib. 0 or -errno. */
int pprof__gzip(const uint8_t *in, size_t len, uint8_t **out,
		size_t *outlen);

/* gunzip, for tests: 0 or -errno. */
int pprof__gunzip(const uint8_t *in, size_t len, uint8_t **out,
		  size_t *outlen);

#endif /* _TPROF_PPROF_H */
