/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tprof-read: the one pass order from an aggregated profile to the written
 * file: resolve, symbolize, encode, compress, write. The CLI, the fuzzer
 * and the tests all call it.
 */
#ifndef _TPROF_OUTPUT_WRITE_H
#define _TPROF_OUTPUT_WRITE_H

#include <stdbool.h>

#include "model/profile.h"
#include "output/format.h"

struct objects;

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
};

/*
 * Write the finished profile p (profile__finish()), once: the passes take
 * its samples. 0, or -errno after one line on stderr saying what failed.
 */
int output__write(struct profile *p, const struct output_opts *o);

#endif /* _TPROF_OUTPUT_WRITE_H */
