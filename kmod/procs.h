/* SPDX-License-Identifier: GPL-2.0 */
/* tprof: a session's process table (see procs.c); a leaf. */
#ifndef _TPROF_PROCS_H
#define _TPROF_PROCS_H

#include <linux/atomic.h>
#include <linux/bits.h>
#include <linux/spinlock.h>
#include <linux/types.h>

struct cred;
struct pid;
struct tprof_uwalk;

/* Slot states (tprof_proc.state). */
#define TPROF_PROC_FREE		0	/* never used: ends probe sequences */
#define TPROF_PROC_LIVE		1	/* found by its tgid */
#define TPROF_PROC_RETIRED	2	/* not found; reusable after a grace period */
#define TPROF_PROC_DEAD		3	/* reusable */

/* One-shot events of a process, in tprof_proc.bits. */
#define TPROF_P_GROUP_DEAD	0	/* an exit probe saw signal->live == 0 */
#define TPROF_P_GROUP_GONE	1	/* every thread passed exit_notify() */
#define TPROF_P_EXITED		2	/* PROC_EXIT emitted (or due, if denied) */
#define TPROF_P_DENIED		3	/* DENIED emitted: nothing more of it */
#define TPROF_P_LEFT		4	/* no longer counted in tprof_procs.live */
#define TPROF_P_PENDING		5	/* not reported until proven (PROVE) */
/*
 * Its memory may hold what ptrace's access refuses (memfd_secret, device
 * mappings): each page a sample reads is looked up first (stack.c). Set
 * when it joins, until a look at its mappings finds none (the target, at
 * ENABLE) or its parent had none (a fork); set by a mapping of that kind
 * (the mmap kprobe); cleared at an exec's commit of its credentials (the
 * creds kprobe: a new mm, nothing of the new image mapped yet).
 */
#define TPROF_P_GUARDED		6

/**
 * struct tprof_proc - one process of a session: its target, and with
 *	TPROF_F_CHILDREN each descendant it follows.
 * @tgid: its thread-group pid (a reference held while LIVE or RETIRED).
 * @state: TPROF_PROC_*; LIVE published with release.
 * @vpid: its tgid in the session's pid namespace.
 * @tgid_nr: its global tgid (a released task has no tgid pid any more).
 * @bits: TPROF_P_* events.
 * @exiting: 1 until the group is gone, plus one per thread between its
 *	exit probe and its final switch-out; PROC_EXIT when it drops to 0, so
 *	it comes after every THREAD_EXIT of the process.
 * @exit_code: for PROC_EXIT: the wait(2) status, as the leader reports it.
 * @uwalk: its user-memory walk (TPROF_IOC_SET_UWALK), or NULL: set with
 *	xchg() (uwalk.c), read by samples as RCU-sched readers; freed with
 *	the slot.
 * @label: its LSM security label when it joined (tprof_policy_label_of()):
 *	an unprivileged session's rule holds every thread of it to that.
 * @label_cred: the credentials a thread of it last had with @label (a
 *	reference), so that the check costs one compare until a thread's
 *	credentials change (tprof_policy_label()); put with the slot.
 */
struct tprof_proc {
	struct pid *tgid;
	u32 state;
	u32 vpid;
	u32 tgid_nr;
	unsigned long bits;
	atomic_t exiting;
	s32 exit_code;
	struct tprof_uwalk __rcu *uwalk;
	u32 label;
	const struct cred *label_cred;
};

/*
 * Every table counts its live processes in one filter shared by all
 * sessions, per bucket of global tgid numbers, so that the probes turn
 * away a task of no followed process with one load and a compare, however
 * many sessions there are and whatever their tables hold (tombstones
 * lengthen their probe sequences): the sched_switch probe's cost at every
 * switch of the system. A bucket holds PID_MAX_LIMIT >>
 * TPROF_PROCS_FILTER_BITS = 128 tgids, each in at most TPROF_MAX_SESSIONS
 * tables. 1024 processes take at most 3% of the buckets (a cgroup
 * session of the whole machine fills more: then most switches concern it).
 */
#define TPROF_PROCS_FILTER_BITS	15

/**
 * struct tprof_procs - a session's processes.
 * @slots: open addressing by tgid pointer, linear probing; the first FREE
 *	slot ends every probe sequence.
 * @bits: log2 of the number of slots.
 * @max: processes held at once (LIVE or RETIRED) at most.
 * @used: processes held now.
 * @live: processes still in the session (not exited, not denied): the
 *	session stops when the last one leaves.
 * @joined: processes that had a slot, in all.
 * @not_followed: forks and descendants found past @max, in all.
 * @lock: serializes claims and sweeps (lookups are lock-free, RCU-sched).
 * @uread: per CPU, the user reads of the session's samples (stack.c), for
 *	STATS: here because every session allocates its table at ENABLE and
 *	frees it at its end, after the last sample.
 */
struct tprof_uread_stats;

struct tprof_procs {
	struct tprof_proc *slots;
	struct tprof_uread_stats __percpu *uread;
	u32 bits;
	u32 max;
	u32 used;
	atomic_t live;
	atomic_t joined;
	atomic_t not_followed;
	raw_spinlock_t lock;
};

extern atomic_t tprof_procs_filter[1U << TPROF_PROCS_FILTER_BITS];

/*
 * Might a session follow the process of global tgid @nr? false is
 * certain: a task of no followed process costs the probes this, and at
 * every context switch of the system. Context: any.
 */
static inline bool tprof_procs_anywhere(u32 nr)
{
	return atomic_read(&tprof_procs_filter[nr &
				((1U << TPROF_PROCS_FILTER_BITS) - 1)]);
}

/*
 * Is @p its session's own: neither denied nor pending (a pending process
 * is not proven yet, and may never be)? Context: any.
 */
static inline bool tprof_proc_owned(const struct tprof_proc *p)
{
	return !(READ_ONCE(p->bits) & (BIT(TPROF_P_DENIED) |
				       BIT(TPROF_P_PENDING)));
}

/*
 * What a session follows, which sizes its table: its target alone, a
 * process tree (TPROF_MAX_PROCS at once), or a cgroup's processes (the
 * cgroup_procs_bits module parameter: a cgroup can be the whole machine).
 */
enum tprof_procs_kind {
	TPROF_PROCS_ONE,
	TPROF_PROCS_TREE,
	TPROF_PROCS_CGROUP,
};

unsigned long tprof_procs_bytes(enum tprof_procs_kind kind);
int tprof_procs_alloc(struct tprof_procs *pt, enum tprof_procs_kind kind);
void tprof_procs_free(struct tprof_procs *pt);
struct tprof_proc *tprof_procs_find(struct tprof_procs *pt, struct pid *tgid);
struct tprof_proc *tprof_procs_claim(struct tprof_procs *pt, struct pid *tgid,
				     u32 vpid, u32 label, unsigned long bits,
				     bool *existed);
bool tprof_proc_leave(struct tprof_procs *pt, struct tprof_proc *p);
void tprof_procs_sweep(struct tprof_procs *pt);

#endif /* _TPROF_PROCS_H */
