/* SPDX-License-Identifier: GPL-2.0 */
/* tprof-read: aggregate a record stream into per-thread samples. */
#ifndef _TPROF_PROFILE_H
#define _TPROF_PROFILE_H

#include <stdbool.h>
#include <stdint.h>

#include "model/agg.h"
#include "model/maps.h"
#include "model/perfmap.h"
#include "model/pyrecords.h"
#include "model/wakejoin.h"
#include "stream/records.h"
#include "lib/util.h"

struct profile;

/*
 * A sample's user frames from its USTACK snapshot us, as the unwinder
 * (analyze/unwind.c) gives them: at most max into out, *truncated when the
 * stack goes on; 0 keeps the FP chain. The model only calls it: for every
 * sample with a snapshot, and for one with TPROF_RF_USER_LR (us NULL
 * without a snapshot), whose link register the unwinder keeps or drops.
 */
typedef unsigned int (*profile_unwind_fn)(void *ctx, struct profile *p,
					  const struct tprof_record *s,
					  const struct tprof_record *us,
					  uint64_t *out, unsigned int max,
					  bool *truncated);

struct comm_change {
	uint64_t time_ns;
	char comm[17];
	bool exec;		/* from an EXEC record: a new program from here */
};

/* A thread's comm changes by time: threads that rename often (see
 * profile.c's COMM_SCAN) are looked up per sample without a scan. */
struct comm_index;

struct thread_info {
	int pid, tid;
	struct comm_change *comms;	/* in arrival order */
	uint32_t ncomms, capcomms;
	struct comm_index *cidx;	/* NULL while there are few */
	/* its delivered samples are counted in an agg (model/agg.h) */
	bool have_stat, exited, have_off;
	uint64_t exit_ns;	/* its THREAD_EXIT record's stamp */
	struct tprof_rec_thread_stat stat;
	/* off-CPU (TPROF_F_OFF_CPU): the exact totals */
	struct tprof_rec_thread_off off;
};

/*
 * A process's cgroup from a CGROUP record on (its cgroup, systemd_unit and
 * container_id labels): the "0::" line's path and the names in it
 * (lib/cgroup_names.h), "" where none; one allocation, path first.
 */
struct cgroup_change {
	uint64_t time_ns;
	char *path;
	const char *unit, *container_id;	/* into path's block */
};

/*
 * A process of the stream: the target, and with TPROF_F_CHILDREN each
 * descendant the module followed (PROC records).
 */
struct proc_info {
	int pid, ppid;
	bool joined;		/* a PROC record: a descendant (or the root) */
	bool dropped;		/* forked, not followed (TPROF_MAX_PROCS) */
	bool exited;		/* PROC_EXIT */
	bool denied;		/* DENIED: nothing more of it */
	int exit_code;
	uint64_t exit_ns;	/* its PROC_EXIT record's stamp */
	uint32_t denied_reason;
	uint64_t denied_ns;	/* CLOCK_MONOTONIC of the DENIED record */
	/* its cgroups by time, in arrival order, a change each (a process
	 * moved into a cgroup session's subtree is read again) */
	struct cgroup_change *cgroups;
	uint32_t ncgroups;
};

/*
 * Where a live agent's samples go instead of the whole session's agg: each
 * open window's own (model/agg.h), while pairing, unwinding and the maps
 * stay one.
 */
struct profile_sink {
	void *ctx;
	/* each sample once, as the whole-session aggregation would get it:
	 * s->ips valid during the call only */
	void (*sample)(void *ctx, const struct profile *p,
		       const struct agg_sample *s, uint64_t time_ns);
	/* each LOST record (NULL: not wanted) */
	void (*lost)(void *ctx, const struct profile *p, uint64_t time_ns,
		     uint64_t samples, uint64_t weight_ns);
};

struct profile {
	bool have_session;
	struct tprof_urec_session session;
	bool have_machine;	/* a MACHINE record: e_machine, PAC mask */
	struct tprof_urec_machine machine;
	uint64_t first_time_ns, last_time_ns;	/* CLOCK_MONOTONIC span */

	struct thread_info *threads;
	size_t nthreads, capthreads;
	struct hindex thread_idx;

	/* in order of first appearance; the target first when known */
	struct proc_info *procs;
	size_t nprocs, capprocs;
	struct hindex proc_idx;
	uint64_t procs_dropped;		/* PROC records with DROPPED */
	/* the module's own totals (PROC with TPROF_RF_PROC_TOTALS) */
	bool have_proc_totals;
	uint64_t procs_followed_k, procs_dropped_k;
	uint64_t procs_denied;		/* DENIED records (any process) */
	/* THROTTLE records: the module stretched the periods (their last) */
	uint64_t throttles;
	struct tprof_rec_throttle throttle;

	/* the whole session's samples, unless a sink takes them */
	struct agg whole;
	struct profile_sink sink;	/* sink.sample NULL: none */
	/* the stream ended (profile__finish()): no more samples */
	bool finished;

	struct maps maps;
	/* an MMAP record reused code addresses (maps__add_mmap()): the live
	 * reader reads the maps now and clears it */
	bool maps_reused;
	struct perfmap jit;	/* PERFMAP records: JIT code's names */
	struct python py;	/* PYPROC, PYCODE, merged Python frames */
	/* a KALLSYMS record: the kernel's symbols of the session (copies) */
	char *kallsyms, *modules;
	size_t kallsyms_len, modules_len;

	/* from LOST records, the whole session's (a sink's too) */
	uint64_t lost_samples, lost_weight_ns, lost_records;
	bool have_stats;
	struct tprof_ioc_stats stats;
	uint64_t end_time_ns;		/* CLOCK_MONOTONIC at DISABLE */
	bool proc_exited;		/* the target's PROC_EXIT */
	int exit_code;
	/* the module ended the session: the target became non-profilable
	 * (a descendant's denial is in its proc_info) */
	bool denied;
	struct tprof_rec_denied denied_rec;	/* the target's DENIED record */

	/*
	 * User stack snapshots: a SAMPLE with TPROF_RF_GROUP waits here (a
	 * copy) for the USTACK record right after it. unwind: NULL keeps
	 * the FP chains (unwinder__attach() sets it).
	 */
	profile_unwind_fn unwind;
	void *unwind_ctx;
	unsigned char *pending;		/* its bytes */
	size_t pending_cap;
	struct tprof_record pending_rec;	/* decoded, into pending */
	bool have_pending;
	/*
	 * A USTACK with TPROF_RF_GROUP: its UWALK record comes next (the
	 * group is SAMPLE, USTACK, UWALK); the USTACK waits here.
	 */
	unsigned char *pending_us;
	size_t pending_us_cap;
	struct tprof_record pending_us_rec;
	bool have_pending_us;
	/*
	 * A forked child's first samples may be read before its PROC record:
	 * each CPU's ring is read in turn, the record is in its parent's
	 * CPU's, the samples in the child's. Until that record the maps do
	 * not know whose copy the child's address space is
	 * (maps__set_parent()). Such a sample (copies of its group's
	 * records, back to back) waits for it, or for profile__finish().
	 */
	struct waiting_sample *waiting;
	size_t nwaiting, capwaiting, waiting_bytes;
	uint64_t ustack_paired;		/* USTACK records joined to a SAMPLE */
	uint64_t ustack_missing;	/* SAMPLEs whose USTACK did not follow */
	uint64_t ustack_orphans;	/* USTACKs with no SAMPLE before them */
	/* a WAKER record waits here for its SAMPLE, right after it */
	struct tprof_rec_waker waker;
	bool have_waker;
	uint64_t wakers_paired;		/* WAKERs joined to their SAMPLE */
	uint64_t waker_orphans;		/* WAKERs with no SAMPLE after them */
	/*
	 * Waker stacks (TPROF_F_WAKER_STACKS): join_wakes (set before the
	 * first record by an output that shows them: --mode wakers) joins
	 * each to its wait (wakejoin.h) and keeps it in the agg marked
	 * wake_stack; otherwise they are counted here and dropped, and no
	 * output changes by a byte.
	 */
	bool join_wakes;
	struct wakejoin wakes;
	uint64_t wake_stacks;		/* SAMPLEs with TPROF_RF_WAKE_STACK */
	uint64_t wake_stack_orphans;	/* of them, with no wakeup WAKER */

	/* the session's counts, a sink's samples too (the progress line,
	 * an agent's metrics); what the outputs say comes from an agg */
	uint64_t nrecords, nunknown, sample_records, sample_weight_ns;
	/* of them, off-CPU samples (TPROF_RF_OFF_CPU) */
	uint64_t off_records, off_weight_ns;
	/* addresses outside every known mapping (triggers a re-snapshot) */
	uint64_t unmapped;
	/* profile__forget()'s counts */
	uint64_t procs_forgotten, threads_forgotten;
	/* a process's cgroup changed (a second path): part of the key */
	bool cgroup_moves;
};

void profile__init(struct profile *p);
void profile__free(struct profile *p);
/* Account one decoded record. Returns 0 or -EINVAL (inconsistent record). */
int profile__add(struct profile *p, const struct tprof_record *r);
/*
 * The end of the stream, said once by whoever owns it (the replay at the
 * input's end, the live loop after DISABLE): a SAMPLE still waiting for
 * its USTACK record is added with its FP chain (one with its USTACK,
 * waiting for its UWALK, with its snapshot); samples waiting for their
 * process's PROC record are added as they are. From then on the profile
 * is whole: SAMPLE, USTACK and UWALK records are refused (-EINVAL), while
 * the others still count (a launch's exit stop reads the maps after it).
 * The analysis passes read a finished profile and change nothing in it
 * but what they take (profile__take_samples()). Idempotent.
 */
void profile__finish(struct profile *p);
/*
 * NULL (the default): the profile aggregates the whole session itself
 * (p->whole). Set (a copy is kept): samples go to the sink only, nothing
 * of them accumulates in the profile (an agent runs for months); set it
 * before the first sample, or whole holds what came before.
 */
void profile__set_sink(struct profile *p, const struct profile_sink *sink);
/*
 * Ready the shared model for a pass over a window while the stream goes
 * on: index what profile__finish() would (the perf maps' JIT names), so
 * the JIT code of the window is named. An agent calls it before each
 * output__encode(); the profile still takes records, and what comes
 * after waits for the next call (a live session's reads sort nothing).
 */
void profile__index(struct profile *p);
/*
 * The whole session's samples of a finished profile, handed over
 * (agg__take_samples() of p->whole): the caller owns the array and each
 * sample's ips (agg__free_samples()). The resolve pass frees each stack
 * once it has made it locations, so the aggregated and the resolved
 * stacks are never whole in memory at once (a million-sample replay's
 * peak).
 */
struct agg_sample *profile__take_samples(struct profile *p, size_t *n);
struct thread_info *profile__thread(struct profile *p, int tid);
/* The thread of tid, or NULL: adds none. */
const struct thread_info *profile__find_thread(const struct profile *p,
					       int tid);
/* The process of pid, added if new. */
struct proc_info *profile__proc(struct profile *p, int pid);
/* The process of pid, or NULL: adds none. */
const struct proc_info *profile__find_proc(const struct profile *p, int pid);
/* The target's pid: the SESSION record's, else the first process seen. */
/*
 * A process tree's counts, the one rule for --report and the comments:
 * processes (followed and not) and those not followed, by the module's
 * totals where the stream has them (a PROC record lost with a full ring
 * leaves the records' own count short), else by the records.
 */
void profile__proc_counts(const struct profile *p, uint64_t *procs,
			  uint64_t *dropped);
/*
 * Is there a process tree to tell of (the tables and comments of each
 * process): more than one process, or one not followed or denied? Sets
 * profile__proc_counts()'s two.
 */
bool profile__has_tree(const struct profile *p, uint64_t *procs,
		       uint64_t *dropped);
int profile__target(const struct profile *p);
/* "exit 0", "killed by SIGKILL", "denied: ...", "not followed", "running" */
const char *profile__proc_end(const struct profile *p,
			      const struct proc_info *pi, char *buf, size_t len);
/*
 * A process's name at time_ns: its main thread's comm then (the program
 * it ran, after an exec), "" if no record named it.
 */
const char *profile__proc_name(const struct profile *p, int pid,
			       uint64_t time_ns);
/*
 * When pid last exec'd at or before time_ns (0: no EXEC record): the code
 * before it was another program's.
 */
uint64_t profile__exec_before(const struct profile *p, int pid,
			      uint64_t time_ns);
/*
 * Process pid's cgroup at time_ns: the newest CGROUP record's at or
 * before it, else its first; NULL if no record gave one.
 */
const struct cgroup_change *profile__cgroup_at(const struct profile *p,
					       int pid, uint64_t time_ns);
/* The thread's comm at time_ns ("" if unknown). */
const char *thread__comm_at(const struct thread_info *t, uint64_t time_ns);
/* With p->denied: how long into the stream the DENIED record came. */
uint64_t profile__denied_after_ns(const struct profile *p);
/*
 * Does a sample of process pid have a user ip no snapshot covers? r: its
 * SAMPLE, or its USTACK record (the chain there, TPROF_RF_USTACK_CHAIN).
 */
bool profile__sample_unmapped(struct profile *p, const struct tprof_record *r,
			      int pid);
/*
 * The bits of an arm64 return address that are no part of it: the PAC
 * the MACHINE record names, else (a stream without it, a module that did
 * not say) everything above a 48-bit user address: Linux maps user code
 * below 2^48 unless a program asks mmap for more (52-bit VA kernels).
 */
uint64_t profile__pac_bits(const struct profile *p);

/* What the model holds now (an agent's /metrics: nothing may grow). */
struct profile_sizes {
	size_t procs, threads;		/* entries, exited ones too */
	size_t snapshots, mappings;	/* maps snapshots, their mappings */
	size_t pycodes, pyframes;	/* PYCODE records, frames in use */
	size_t perfmap;			/* perf map entries */
	uint64_t procs_forgotten, threads_forgotten;
};
void profile__sizes(const struct profile *p, struct profile_sizes *s);

/*
 * A live agent's eviction, never called by tprof-read: forget every
 * process that ended (PROC_EXIT, DENIED) before before_ns (its threads,
 * maps snapshots, perf map entries, Python records; no sample of it
 * waits), the exited threads (THREAD_EXIT before it) of the others, and
 * the others' maps snapshots older than the one in force at before_ns.
 * The caller says no sample stamped before before_ns is still to be
 * aggregated or encoded: every window that could hold one was answered.
 * The thread and process tables are compacted (nothing holds their
 * positions between records), maps.all is rebuilt (the unwinder's cache
 * of it must be reset: unwinder__forget_maps()), Python frames keep their
 * indexes. Returns the pids forgotten (*gone, malloc'd; the caller frees
 * their per-process state elsewhere) and their count.
 */
size_t profile__forget(struct profile *p, uint64_t before_ns, int **gone);

#endif /* _TPROF_PROFILE_H */
