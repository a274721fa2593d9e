/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tprof-read: the one pass order from an aggregated profile to the written
 * file: resolve, symbolize, summary, encode, compress, write. The CLI, the
 * fuzzer and the tests call output__write(); a live agent calls the same
 * passes on each window's aggregation (output__encode()).
 */
#ifndef _TPROF_OUTPUT_WRITE_H
#define _TPROF_OUTPUT_WRITE_H

#include <stdbool.h>

#include "model/profile.h"
#include "output/format.h"

struct objects;
struct symbolizer;
struct ksyms;

/*
 * What the passes read besides the profile, owned by the caller and kept
 * across windows: an agent opens its files, symbol tables and kallsyms
 * once, not per request.
 */
struct output_env {
	struct objects *objects;	/* required (the unwinder's) */
	struct symbolizer *sym;		/* of objects; NULL: no symbols */
	struct ksyms *ksyms;		/* NULL: kernel frames stay addresses */
	/* the target's files: its root (NULL: none), and whether it may
	 * still run (its map_files are worth a try) */
	const char *root;
	bool live;
	const char *format;	/* --format's spec; NULL: pprof */
	/* --report --mode wakers: report__wakers() once named */
	bool report_wakers;
};

struct output_opts {
	bool no_symbolize;	/* --no-symbolize: build-ids only */
	/* kernel names: the stream's KALLSYMS record unless kallsyms_given,
	 * else the file kallsyms (/proc/kallsyms) */
	const char *kallsyms;
	bool kallsyms_given;
	/* the target's files: its root (NULL: none), and whether it may
	 * still run (its map_files are worth a try) */
	const char *root;
	bool live;
	/* the files, shared with the unwinder (NULL: objects of its own) */
	struct objects *objects;
	const char *path;	/* -o; NULL or "-": fd */
	int fd;
	/* --format: "pprof" (NULL), "folded", "folded:off_cpu"
	 * (output/format.h: output__format()) */
	const char *format;
	bool report_wakers;	/* as output_env's */
};

/*
 * Write the finished profile p (profile__finish()), once: the passes take
 * its samples. 0, or -errno after one line on stderr saying what failed.
 */
int output__write(struct profile *p, const struct output_opts *o);

/*
 * The pprof (or other --format) bytes of window w's aggregation a (w
 * NULL: a is p->whole, as output__write() encodes it), from a profile
 * that may still be fed (not finished): call profile__index(p) first, so
 * that JIT names added since are found. Consumes a's stacks (resolve
 * frees them); the caller still calls agg__free(a). 0 or -errno, after
 * one line on stderr.
 */
int output__encode(const struct profile *p, struct agg *a,
		   const struct output_window *w,
		   const struct output_env *env, uint8_t **bytes, size_t *len);

/*
 * The kernel's symbols for p's samples: its KALLSYMS record's, unless
 * given (the file path, NULL: /proc/kallsyms); NULL if none could be
 * read. Loaded once by the caller (ksyms__free()).
 */
struct ksyms *output__ksyms(const struct profile *p, const char *path,
			    bool given);

#endif /* _TPROF_OUTPUT_WRITE_H */
