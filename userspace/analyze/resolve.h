/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tprof-read: the resolve pass. Each aggregated sample's frames, looked up
 * at the sample's own time, become locations keyed by (mapping, address):
 * the mapping names one file (path, inode, build-id), so the same address
 * before and after an exec or a dlclose/dlopen is two locations. Samples
 * that resolve alike merge. Names come later (analyze/symbolize.c), encoding last
 * (pprof.c).
 */
#ifndef _TPROF_RESOLVE_H
#define _TPROF_RESOLVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/profile.h"
#include "object/symbols.h"
#include "lib/util.h"

/*
 * RLOC_PYTHON: a Python frame (model/pyrecords.h), one location per
 * (function, line) whatever code object or process ran it: no mapping, no
 * address; its one line is set by the resolve pass (named from the
 * stream, so also with --no-symbolize).
 */
enum rloc_kind { RLOC_USER, RLOC_KERNEL, RLOC_PSEUDO, RLOC_PYTHON };

struct rloc {
	enum rloc_kind kind;
	uint32_t map;		/* RLOC_USER: index into maps.all + 1; 0 none;
				 * RLOC_PYTHON: into py.funcs + 1; 0 code
				 * of no known name */
	uint64_t addr;		/* lookup address: callers at return addr - 1;
				 * RLOC_PYTHON: the line */
	const char *pseudo;	/* RLOC_PSEUDO: "[unknown]", "[no stack]" */
	/* from the symbolize pass (analyze/symbolize.c); strings outlive the encoder */
	struct sym_frame *lines;	/* innermost first */
	int nlines;
};

struct rsample {
	int pid, tid;
	uint64_t period_ns;
	uint32_t off_state;	/* TPROF_OFF_* of off-CPU samples, else 0 */
	struct agg_waker waker;	/* who ended the wait (agg.h) */
	/* its wait's waker stack in resolved.wakes (agg.h); 0: none */
	uint64_t wake_id;
	const char *comm;	/* at the sample's time; "" if unknown */
	const char *pcomm;	/* its process's name then; "" if unknown */
	/* its process's cgroup then (the profile's); NULL if unknown */
	const struct cgroup_change *cgroup;
	uint64_t weight_ns, count;
	uint32_t *locs;		/* indexes into resolved.locs, leaf first */
	uint32_t nlocs;
};

/* Per maps.all entry: what the symbolize pass made of its file. */
struct rmap {
	bool used;
	bool loaded;		/* symbolized from a file with the right id */
	bool has_functions, has_filenames, has_line_numbers, has_inline_frames;
	const char *build_id;	/* recorded, else read at write time; "" */
};

struct resolved {
	struct rloc *locs;
	size_t nlocs, caplocs;
	struct hindex loc_idx;
	struct rsample *samples;
	size_t nsamples, capsamples;
	struct hindex sample_idx;
	/*
	 * Waker stacks (agg.h wake_stack): one each, apart from samples[]
	 * (no time: the outputs that do not join them never see them),
	 * found by their wait's wake_id (resolve__wake()).
	 */
	struct rsample *wakes;
	size_t nwakes, capwakes;
	struct hindex wake_idx;
	struct rmap *maps;	/* parallel to profile.maps.all */
	size_t nmaps;
	bool kernel_used;
	bool kernel_named;	/* kallsyms were read */
	char **strs;		/* strings made by the symbolize pass */
	size_t nstrs, capstrs;
};

struct ksyms;

/*
 * Resolve n aggregated samples of p, taken from an agg with
 * agg__take_samples() (the whole session's once p is finished, a window's
 * while the stream goes on): resolve owns them and frees each stack once
 * it has made it locations, then the array. p is only read.
 * ksyms (or NULL): the kernel's symbols, which tell an arm64 kernel link
 * register that is the caller from a stale one (TPROF_RF_KERNEL_LR).
 */
void resolve__run(struct resolved *r, const struct profile *p,
		  struct agg_sample *samples, size_t n,
		  const struct ksyms *ksyms);
void resolve__free(struct resolved *r);
/* The waker stack of wake id id (an rsample's wake_id), or NULL. */
const struct rsample *resolve__wake(const struct resolved *r, uint64_t id);
/* Keep a copy of str as long as r; returns it. */
const char *resolve__strdup(struct resolved *r, const char *str);

#endif /* _TPROF_RESOLVE_H */
