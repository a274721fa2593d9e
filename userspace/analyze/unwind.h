/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tprof-read: unwind a sample's user stack from its USTACK snapshot (user
 * registers and the top of the stack) with the CFI of the objects mapped
 * at the sample's time (.eh_frame, else .debug_frame: Go), and splice the
 * kernel's frame-pointer chain where the snapshot ends (hybrid).
 */
#ifndef _TPROF_UNWIND_H
#define _TPROF_UNWIND_H

#include <stdbool.h>
#include <stdint.h>

struct maps;
struct objects;
struct profile;
struct tprof_record;

enum unwind_mode {
	UNWIND_FP,	/* the kernel's frame-pointer chain only */
	UNWIND_HYBRID,	/* CFI over the snapshot, then the FP chain; else FP */
	UNWIND_DWARF,	/* CFI over the snapshot; a cut stack is marked */
};

/* What became of the samples with a snapshot (and of those without). */
struct unwind_stats {
	uint64_t samples;	/* unwound from a snapshot */
	uint64_t complete;	/* CFI reached the outermost frame */
	uint64_t spliced;	/* CFI, then the FP chain */
	/* ... the chain cut where a link was not proven (a function
	 * without a frame pointer) or it ended short of a root */
	uint64_t unproven;
	uint64_t fp_fallback;	/* no CFI at the pc: the FP chain as is */
	uint64_t truncated;	/* CFI only, cut short: "[truncated]" */
	uint64_t rules, rule_hits;	/* CFI rows computed / reused */
	uint64_t rows_held, row_resets;	/* cached now; bound reached */
	/* TPROF_RF_USER_LR samples' FP frames: the link register kept as
	 * the caller, or dropped as stale */
	uint64_t lr_kept, lr_dropped;
	/* FP chains checked (fp_checked()): cut where a link skips a
	 * caller */
	uint64_t fp_checked, fp_cut;
	uint64_t ns;		/* time spent in unwinder__sample() */
};

struct unwinder;

/*
 * Files are objs' (object/object.h), shared with the symbolize pass; objs
 * outlives u. NULL: u makes objects of its own. live: the target may
 * still run (its /proc/PID/map_files are worth a try).
 */
struct unwinder *unwinder__new(struct objects *objs, bool live);
void unwinder__free(struct unwinder *u);
/*
 * A live agent's eviction: the model's maps.all was rebuilt
 * (maps__forget()), so the unwinder's cache of it goes; with objects,
 * objects__trim() freed some, so the CFI rows cached by object go too.
 */
void unwinder__forget(struct unwinder *u, bool objects);
/*
 * The CFI rows cached at most (a process of months: the agent); 0, the
 * default, keeps every row (tprof-read's one pass over a stream).
 */
void unwinder__bound_rows(struct unwinder *u, size_t rows);
void unwinder__set_live(struct unwinder *u, bool live);
struct unwind_stats *unwinder__stats(struct unwinder *u);

/*
 * Unwind p's snapshots with u from now on: forced_mode is the mode
 * --call-graph forced (enum unwind_mode), or -1 for the one the stream's
 * SESSION record says. u outlives p's aggregation.
 */
void unwinder__attach(struct unwinder *u, struct profile *p, int forced_mode);

/*
 * One sample to unwind (as perf's struct unwind_info): SAMPLE s and its
 * USTACK record us (NULL: none), in mode, with maps at the sample's time
 * (never a snapshot before since_ns, the process's exec). root_pid: the
 * session's pid, whose /proc/PID/root holds the target's files.
 * pac_bits: profile__pac_bits().
 */
struct unwind_request {
	enum unwind_mode mode;
	struct maps *maps;
	int root_pid;
	uint64_t since_ns;
	uint64_t pac_bits;
	const struct tprof_record *s, *us;
};

/*
 * The user frames of the request's sample, in the SAMPLE's user-ip
 * convention (out[0] the pc, then return addresses; IA32 values are
 * 32-bit), at most max. Sets *truncated when the stack is known to go on
 * past out[n-1]: where the walk could not go on and no proven
 * frame-pointer join took over, or at the cap. Returns the number of
 * frames; 0 when the snapshot is of no use (then the caller keeps the FP
 * chain). A sample with TPROF_RF_USER_LR (arm64) always gets its frames
 * here, us NULL or not: whether its link register is its caller needs the
 * objects.
 */
unsigned int unwinder__sample(struct unwinder *u,
			      const struct unwind_request *rq, uint64_t *out,
			      unsigned int max, bool *truncated);

#endif /* _TPROF_UNWIND_H */
