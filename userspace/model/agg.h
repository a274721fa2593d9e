/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tprof-read: one aggregation of unwound samples over a time span. The
 * profile (model/profile.c) pairs, unwinds and merges each sample once;
 * what is counted where is an agg's: the whole session's (profile.whole),
 * or, through a profile sink, each open window of a live agent. One
 * implementation, so a window counts exactly as tprof-read does.
 */
#ifndef _TPROF_AGG_H
#define _TPROF_AGG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/util.h"

/*
 * Who ended an off-CPU sample's wait (its WAKER record): part of the key,
 * so distinct wakers make distinct samples. kind 0: none told (a CPU
 * sample, a preemption, a module without wakers); pid, tid 0 and comm ""
 * where the module told only the kind.
 */
struct agg_waker {
	uint32_t kind;		/* TPROF_WAKER_* */
	int pid, tid;
	char comm[16];
};

/*
 * Aggregation key: (stack, tid, period, epoch, waker, wake id). The epoch (snapshots that
 * dropped or replaced a mapping, comm changes of the thread, and cgroup
 * changes of its process, before the sample) keeps samples of the same
 * addresses apart when they may mean different code or carry other labels:
 * the resolve pass (resolve.c) looks each group up at its own time.
 */
struct agg_sample {
	int pid, tid;
	uint64_t period_ns;
	uint32_t nr_kernel, nr;	/* ips[0..nr_kernel) kernel, then user */
	uint32_t snap_epoch, comm_gen, cgroup_gen;
	uint64_t *ips;
	uint64_t first_time_ns;
	uint64_t weight_ns, count;
	uint32_t abi;
	uint32_t off_state;	/* TPROF_OFF_* of an off-CPU sample, else 0 */
	struct agg_waker waker;
	/*
	 * Waker stacks (TPROF_F_WAKER_STACKS, model/wakejoin.h): an off-CPU
	 * sample's wait and the waker's stack at its wakeup share a wake_id
	 * (0: none; an off-CPU sample whose wait had a stack taken has one
	 * even if the stack was lost). wake_stack: this is that stack, of
	 * the waker's thread, no time of anything: counted in no total
	 * and no thread, only kept for the outputs that join it.
	 */
	uint64_t wake_id;
	bool wake_stack;
	/* unwound from a snapshot and cut short: "[truncated]" at the root */
	bool truncated;
	/* taken in do_exit() (TPROF_RF_EXITING): "[process exit]" at the
	 * root, where the user stack is gone, or "[thread exit]" when only
	 * this thread was leaving (TPROF_RF_THREAD_EXIT) */
	bool exiting, thread_exit;
	/* ips[1] is the interrupted kernel link register (arm64,
	 * TPROF_RF_KERNEL_LR): resolve keeps it where it is the caller */
	bool kernel_lr;
	/* Python frames merged in (model/pymerge.c): user ips with
	 * py_frame_ip() are python.frames; in other stacks nothing is */
	bool python;
};

/*
 * A thread's delivered samples in the agg: the summary's sampled CPU per
 * thread (exact CPU is the profile's THREAD_STAT, cumulative, so no
 * window has it).
 */
struct agg_thread {
	int pid, tid;
	uint64_t samples, weight_ns;		/* on-CPU */
	uint64_t off_samples, off_weight_ns;	/* TPROF_RF_OFF_CPU */
	uint64_t period_ns;	/* of its last on-CPU sample; 0: none */
};

struct agg {
	uint64_t t0_ns, t1_ns;	/* [t0, t1); the whole session: 0, UINT64_MAX */
	struct agg_sample *samples;	/* in order of first appearance */
	size_t nsamples, capsamples;
	struct hindex sample_idx;
	struct agg_thread *threads;	/* in order of first sample */
	size_t nthreads, capthreads;
	struct hindex thread_idx;
	uint64_t sample_records, sample_weight_ns;	/* all samples */
	uint64_t off_records, off_weight_ns;		/* of them off-CPU */
	/* LOST records in it: their drops, and how many records */
	uint64_t lost_samples, lost_weight_ns, lost_records;
	uint64_t first_time_ns, last_time_ns;	/* of its samples */
	/* handed over (agg__take_samples()): samples[] stays empty, its
	 * threads and totals stay for the summary */
	bool taken;
};

void agg__init(struct agg *a, uint64_t t0_ns, uint64_t t1_ns);
/*
 * One sample (s->count 1, s->weight_ns its weight; s->ips copied if its
 * key is new) at time_ns. 0; -ERANGE outside [t0, t1) and -EINVAL once
 * taken: counted nowhere, so a sink may offer every sample to every
 * window.
 */
int agg__add(struct agg *a, const struct agg_sample *s, uint64_t time_ns);
/* One LOST record's drops: a window's only loss (STATS is cumulative). */
void agg__add_lost(struct agg *a, uint64_t samples, uint64_t weight_ns);
/* Is a the whole session's (0, UINT64_MAX), not a window? */
bool agg__whole(const struct agg *a);
/* The thread tid's counts in a, or NULL: it had no sample there. */
const struct agg_thread *agg__find_thread(const struct agg *a, int tid);
/*
 * The samples, handed over for the resolve pass, which frees them
 * (agg__free_samples()): a keeps its threads and totals, and takes no
 * more samples (taken).
 */
struct agg_sample *agg__take_samples(struct agg *a, size_t *n);
/* Free what agg__take_samples() handed over (ips already freed: NULL). */
void agg__free_samples(struct agg_sample *s, size_t n);
void agg__free(struct agg *a);

#endif /* _TPROF_AGG_H */
