/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tprof-read: the facts every output states about a profile, computed in
 * one place: totals, what was lost, each thread's period, sampled CPU
 * against the module's exact CPU per thread and per process. The pprof
 * comments and `[lost]` samples, the folded stacks' `[lost]` lines,
 * --report and the live progress line all read them from here, so they
 * cannot disagree.
 *
 * The one rule for "lost" (kmod/uapi/tprof.h documents the counters):
 *
 * - The module drops a sample when its CPU's ring is full. It counts the
 *   drop twice: in the ring's counters, which the STATS ioctl returns
 *   (tprof-read saves them as the STATS record at the end of a session),
 *   and as pending drops it reports in a LOST record written before the
 *   next record that fits. Both count the same drops, but drops still
 *   pending when the session ends never get their LOST record, so STATS is
 *   the complete count and the LOST records a part of it. The session's
 *   ring drops are therefore STATS when the stream has it (count and
 *   weight both, never one from each), else the sum of the LOST records.
 * - THREAD_EXIT/THREAD_STAT say which thread lost how many on-CPU samples
 *   and THREAD_OFF how many off-CPU ones; the latter also counts off-CPU
 *   samples the session was not allowed to take, which are no ring drop.
 *   These records are themselves lost with a full ring.
 * - So each thread's own loss is a `[lost]` sample of that thread, and
 *   what the ring drops leave unexplained (ring minus the threads' sum,
 *   per count and per weight, never below 0) is one `[lost]` sample of
 *   no thread. The total lost is their sum: per count and per weight, the
 *   larger of the ring drops and the threads' sum.
 *
 * A thread's period is the one its THREAD_EXIT/THREAD_STAT record gives
 * (the period at its end), else that of its last delivered sample; 0 when
 * neither is known.
 *
 * A window (an agg that is not the whole session, model/agg.h) is told
 * from its own samples and LOST records alone: STATS, THREAD_EXIT/STAT
 * and THREAD_OFF are cumulative since ENABLE (the module writes
 * THREAD_STAT only at DISABLE), so a window has no exact CPU and no
 * per-thread loss; its ring loss is the LOST records in it.
 */
#ifndef _TPROF_OUTPUT_SUMMARY_H
#define _TPROF_OUTPUT_SUMMARY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/agg.h"
#include "model/profile.h"

struct lost_count {
	uint64_t samples, weight_ns;
};

/* One `[lost]` sample: a thread's on- or off-CPU loss, or the rest. */
struct lost_entry {
	const struct thread_info *t;	/* NULL: no thread claims it */
	bool off_cpu;		/* the off-CPU column, state unknown */
	uint64_t period_ns;		/* 0: none (the unattributed rest) */
	struct lost_count n;
};

struct thread_summary {
	const struct thread_info *t;
	/* its delivered samples in the agg (on-CPU, then off-CPU) */
	uint64_t samples, weight_ns, off_samples, off_weight_ns;
	uint64_t period_ns;	/* the rule above; 0: unknown */
	bool exact;		/* THREAD_EXIT/STAT gave its exact CPU */
	uint64_t on_cpu_ns;	/* exact, when exact */
	struct lost_count lost;	/* on-CPU, from THREAD_EXIT/STAT */
};

/* A process's threads summed, from the thread summaries. */
struct proc_totals {
	uint64_t threads, samples, weight_ns;
	uint64_t on_cpu_ns;	/* the kernel's exact total (THREAD_EXIT/STAT) */
	uint64_t lost_weight_ns;
	bool exact;		/* every thread had its exact total */
};

struct proc_summary {
	const struct proc_info *pi;
	struct proc_totals t;
};

struct summary {
	bool window;		/* of a window, not the whole session */
	/* delivered SAMPLE records: all, and the on-CPU ones */
	uint64_t records;
	uint64_t samples, weight_ns;
	uint64_t off_samples, off_weight_ns;

	struct lost_count ring;	/* STATS, else the LOST records */
	struct lost_count by_threads;	/* THREAD_EXIT/STAT + THREAD_OFF */
	struct lost_count lost;		/* the total: the rule above */
	/* the `[lost]` samples, summing to lost: each thread's on-CPU loss
	 * in thread order, then each off-CPU loss, then the rest */
	struct lost_entry *lost_entries;
	size_t nlost_entries;

	/* the whole session: parallel to profile.threads and
	 * profile.procs; a window: those with samples in it, in the
	 * agg's order and the profile's */
	struct thread_summary *threads;
	size_t nthreads;
	struct proc_summary *procs;
	size_t nprocs;
};

/*
 * Compute everything once, for the samples of a (p->whole, or a window's
 * agg of p): O(threads + processes).
 */
void summary__compute(struct summary *s, const struct profile *p,
		      const struct agg *a);
void summary__free(struct summary *s);

/*
 * The total lost alone, by the same rule, without the tables: for the live
 * progress line, while the stream is still being read.
 */
struct lost_count summary__lost(const struct profile *p);

/* The period rule above, for one thread (at: its counts, or NULL). */
uint64_t summary__thread_period(const struct thread_info *t,
				const struct agg_thread *at);

/*
 * Sampled against exact, in percent: (sampled + lost - exact) / exact.
 * false (nothing to say) when exact is 0.
 */
bool summary__error_pct(uint64_t sampled_ns, uint64_t lost_ns,
			uint64_t exact_ns, double *pct);

#endif /* _TPROF_OUTPUT_SUMMARY_H */
