/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tprof-read: an output format, behind one small interface. A format
 * encodes a resolved, named profile and its summary into bytes; it changes
 * nothing of either. output/write.c runs the passes around it (resolve,
 * symbolize, encode, compress where the format asks, write).
 *
 * To add one: a file output/NAME.c defining a `struct output_format`,
 * its line in write.c's table, and a line in docs/tprof-read.1 (--format).
 */
#ifndef _TPROF_OUTPUT_FORMAT_H
#define _TPROF_OUTPUT_FORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analyze/resolve.h"
#include "model/profile.h"

struct summary;

/* A window of a live session (an agent's request), output__encode()'s. */
struct output_window {
	uint64_t t0_ns, t1_ns;	/* [t0, t1), CLOCK_MONOTONIC (records' time) */
	uint64_t realtime_ns;	/* CLOCK_REALTIME at t0: time_nanos */
};

struct output_ctx {
	const struct profile *p;
	const struct resolved *r;
	const struct summary *s;
	uint64_t default_period_ns;	/* when the stream has no session */
	const char *value;	/* "NAME:VALUE"'s VALUE, else values[0] */
	/* NULL: the whole session; else the window s is of */
	const struct output_window *window;
};

struct output_format {
	const char *name;
	/* the values a "NAME:VALUE" spec may select, NULL-terminated, the
	 * default first; NULL: the format takes none */
	const char *const *values;
	bool gzip;		/* compressed before it is written */
	/* the bytes, in a malloc'd *out; 0 or -errno */
	int (*encode)(const struct output_ctx *c, uint8_t **out,
		      size_t *outlen);
};

/*
 * The format a --format spec names ("NAME" or "NAME:VALUE"; NULL: pprof),
 * with its value in *value (may be NULL); NULL for an unknown name or
 * value.
 */
const struct output_format *output__format(const char *spec,
					   const char **value);

/* Every spec output__format() takes, for --help and errors. */
const char *output__format_list(void);

#endif /* _TPROF_OUTPUT_FORMAT_H */
