/* SPDX-License-Identifier: GPL-2.0 */
/* tprof: a session's thread table (see threads.c); a leaf. */
#ifndef _TPROF_THREADS_H
#define _TPROF_THREADS_H

#include <linux/atomic.h>
#include <linux/sched.h>
#include <linux/spinlock.h>
#include <linux/types.h>

struct task_struct;
struct tprof_proc;

/**
 * struct tprof_waker - who woke a thread (wakers.c): a WAKER record's
 *	content.
 * @kind: TPROF_WAKER_*, 0 for none.
 * @pid: the waker's tgid in the session's pid namespace, 0 if not told.
 * @tid: its tid there, 0 if not told.
 * @comm: its comm when @tid is told, else empty.
 * @seq: the wait's number whose waker's stack was written at the wakeup
 *	(TPROF_F_WAKER_STACKS), or 0.
 */
struct tprof_waker {
	u32 kind;
	u32 pid;
	u32 tid;
	u32 seq;
	char comm[TASK_COMM_LEN];
};

/**
 * struct tprof_off - a thread's off-CPU clock (TPROF_F_OFF_CPU).
 * @since: the scheduler's clock where its runtime last stopped;
 *	0 while it is on a CPU or before its first switch-in.
 * @state: TPROF_OFF_* of that switch-out.
 * @begin_ns: CLOCK_MONOTONIC: where its time in the session began.
 * @ns: off-CPU time by state, [TPROF_OFF_* - 1].
 * @irq_ns: irq and steal time in its on-CPU slices (tprof_cpu_untask_ns()).
 * @clock: their sum: the clock the sample points are on.
 * @next_point: @clock of the next sample point.
 * @period_ns: its period.
 * @samples: off-CPU samples taken (delivered or lost).
 * @weight_ns: their weight.
 * @lost_samples: of @samples, dropped or not allowed.
 * @lost_weight_ns: of @weight_ns, dropped or not allowed.
 * @unsampled_ns: a wait still going on at the end (tprof_off_close()).
 * @waker: the latest wakeup's waker (wakers.c), kept from sched_waking to
 *	the switch-in that ends the wait, which takes and clears it. Written
 *	by the waker's CPU under the thread's pi_lock, while the thread is
 *	in a sleeping state (no switch-in can read it then), so never by two
 *	at once.
 * @wait_seq: the last wait number given (from 1), at a wakeup (@waker)
 *	or at the switch-in after a wait an interrupt ended.
 * @wait_ip: with TPROF_F_WAKER_STACKS, the user return address of the
 *	syscall the thread waits in now (or last waited in), 0 if none.
 * @wait_sp: its user stack pointer then.
 * @site_ip: the call site of its open chain of timed-out waits (offcpu.c).
 * @site_sp: ditto, the stack pointer.
 * @in_rt: its runtime at the chain's last timeout (its switch-in).
 * @in_clk: local_clock() then.
 * @timer_seq: the open chain's number, 0 if none.
 * @cont_seq: the wait it is in continues that chain: its number, else 0.
 * @unchained: the wait it is in neither continues nor ends a chain (a
 *	preemption, an uninterruptible wait).
 * All but @waker and @wait_seq belong to the thread's CPU.
 */
struct tprof_off {
	u64 since;
	u32 state;
	u64 begin_ns;
	u64 ns[3];
	u64 irq_ns;
	u64 clock;
	u64 next_point;
	u64 period_ns;
	u64 samples;
	u64 weight_ns;
	u64 lost_samples;
	u64 lost_weight_ns;
	u64 unsampled_ns;
	struct tprof_waker waker;
	u32 wait_seq;
	u32 timer_seq;
	u32 cont_seq;
	bool unchained;
	u64 wait_ip;
	u64 wait_sp;
	u64 site_ip;
	u64 site_sp;
	u64 in_rt;
	u64 in_clk;
};

/* Key bit of a slot whose thread exited (reusable). */
#define TPROF_TID_DEAD		0x80000000U
/* Key of a slot being (re)initialized for a new thread. */
#define TPROF_TID_CLAIMING	0xffffffffU
/*
 * Key of a slot whose thread passed its exit probe and is still accounted
 * on its CPU until its final switch-out: neither found by tid (an exec may
 * hand the tid to another thread meanwhile) nor reusable.
 */
#define TPROF_TID_EXITING	0xfffffffeU
/* tprof_thread.req: periods fit below (TPROF_MAX_PERIOD_NS < 2^40), tids above. */
#define TPROF_REQ_TID_SHIFT	40
#define TPROF_REQ_PERIOD_MASK	((1ULL << TPROF_REQ_TID_SHIFT) - 1)
/* SET_THREAD_PERIOD requests for threads that have not run yet. */
#define TPROF_MAX_PENDING	64
/* Threads parked on their way out at once (more end their accounting). */
#define TPROF_MAX_PARKED	64

/**
 * struct tprof_thread - exact accounting of one target thread.
 * @key: 0 never used, the global tid, tid | TPROF_TID_DEAD (exited,
 *	reusable), TPROF_TID_EXITING or TPROF_TID_CLAIMING; claimed (under
 *	claim_lock) only by the CPU the thread is switched in on. All other fields but @req belong
 *	to that CPU (IRQs off), ordered by the scheduler across migrations.
 * @tid: the global tid the slot was claimed for (kept while EXITING).
 * @vtid: tid in the session's pid namespace.
 * @vpid: its process's tgid there.
 * @proc: its process's slot (procs.h), set at first sched-in; held by the
 *	process's exiting count from the thread's exit probe to its
 *	THREAD_EXIT.
 * @started: budget initialized (first sched-in).
 * @on_cpu_ns: exact on-CPU time while the session was active.
 * @next_point: thread CPU time (in @on_cpu_ns terms) of the next sample.
 * @period_ns: the period of the current budget: @base_period, stretched
 *	while the session is throttled (sampler.c).
 * @base_period: the period asked for (the session's, or SET_THREAD_PERIOD).
 * @req: SET_THREAD_PERIOD request, applied at the next budget: the tid it
 *	is for above TPROF_REQ_TID_SHIFT, the period below; 0 = none. One word,
 *	so a request that races the slot's reuse names its own thread
 *	(tprof_thread_req_period()).
 * @samples: samples taken (delivered or lost).
 * @weight_ns: their weight.
 * @lost_samples: of @samples, dropped.
 * @lost_weight_ns: of @weight_ns, dropped.
 * @comm: comm at first sched-in or exec.
 * @uaddr: where its user-memory walks start (TPROF_UWALK_START_TID), or
 *	0; written under claim_lock while the slot is its thread's
 *	(tprof_threads_set_uaddr()), read by the walk on its own CPU.
 * @parked: an EXITING slot's thread, switched out on its way out but not
 *	for the last time (do_exit() may block or be preempted after the
 *	exit probe): its next switch-in resumes the slot
 *	(tprof_thread_unpark()); NULL otherwise. Compared, never followed.
 */
struct tprof_thread {
	u32 key;
	u32 tid;
	u32 vtid;
	u32 vpid;
	bool started;
	struct tprof_proc *proc;
	u64 on_cpu_ns;
	u64 next_point;
	u64 period_ns;
	u64 base_period;
	u64 req;
	u64 samples;
	u64 weight_ns;
	u64 lost_samples;
	u64 lost_weight_ns;
	char comm[TASK_COMM_LEN];
	u64 uaddr;
	struct task_struct *parked;
};

/**
 * struct tprof_threads - a session's thread table.
 * @slots: open addressing, linear probing; the first never-used slot (key
 *	0) ends every probe sequence, and dead slots return to 0 when nothing
 *	lies past them (tprof_thread_bury()).
 * @bits: log2 of the number of slots.
 * @exited_on_cpu: on-CPU time of exited threads (their slots are reused).
 * @seen: slots claimed.
 * @dropped: claims that found the table full.
 * @claim_lock: serializes claims and burials (lookups are lock-free).
 * @pend_lock: protects @pend and @upend; taken in the sched_switch probe.
 * @pend: period requests for threads that have no slot yet.
 * @upend: SET_UWALK_TID addresses for threads that have no slot yet.
 * @nparked: threads in @park (read locklessly: 0 skips the search).
 * @park: slots whose thread is parked (tprof_thread_park()), found by
 *	task, not by tid: an exec may hand a parked leader's tid to another
 *	thread (de_thread()). Protected by @claim_lock.
 * @off: with TPROF_F_OFF_CPU, each slot's off-CPU clock, by slot index
 *	(tprof_thread_off()), owned as the slot is; else NULL (CPU-only
 *	sessions pin no memory for it).
 */
/**
 * struct tprof_pending - values for threads that have no slot yet (not
 *	run since ENABLE), by tid, taken at their first sched-in.
 * @n: entries (read locklessly: 0 skips the search).
 * @e: the entries; @e[i].val is never 0.
 */
struct tprof_pending {
	unsigned int n;
	struct {
		u32 tid;
		u64 val;
	} e[TPROF_MAX_PENDING];
};

struct tprof_threads {
	struct tprof_thread *slots;
	u32 bits;
	atomic64_t exited_on_cpu;
	atomic64_t seen;
	atomic64_t dropped;
	raw_spinlock_t claim_lock;
	raw_spinlock_t pend_lock;
	struct tprof_pending pend;
	struct tprof_pending upend;
	unsigned int nparked;
	struct tprof_thread *park[TPROF_MAX_PARKED];
	struct tprof_off *off;
};

/* @t's off-CPU clock (@tt has them: TPROF_F_OFF_CPU). */
static inline struct tprof_off *tprof_thread_off(struct tprof_threads *tt,
						 const struct tprof_thread *t)
{
	return &tt->off[t - tt->slots];
}

/* The period requested for @t's own thread, or 0. Context: any. */
static inline u64 tprof_thread_req_period(const struct tprof_thread *t)
{
	u64 req = READ_ONCE(t->req);

	return (req >> TPROF_REQ_TID_SHIFT) == READ_ONCE(t->tid) ?
	       req & TPROF_REQ_PERIOD_MASK : 0;
}

static inline u64 tprof_req(u32 tid, u64 period)
{
	return (u64)tid << TPROF_REQ_TID_SHIFT | period;
}

unsigned long tprof_threads_bytes(bool off);
int tprof_threads_alloc(struct tprof_threads *tt, bool off);
void tprof_threads_free(struct tprof_threads *tt);
struct tprof_thread *tprof_thread_get(struct tprof_threads *tt, u32 tid,
				      bool claim);
void tprof_thread_bury(struct tprof_threads *tt, struct tprof_thread *t);
bool tprof_thread_park(struct tprof_threads *tt, struct tprof_thread *t,
		       struct task_struct *p);
struct tprof_thread *tprof_thread_unpark(struct tprof_threads *tt,
					 struct task_struct *p);
int tprof_threads_set_period(struct tprof_threads *tt, u32 tid, u64 period);
u64 tprof_threads_take_period(struct tprof_threads *tt, u32 tid);
int tprof_threads_set_uaddr(struct tprof_threads *tt, u32 tid, u64 addr);
u64 tprof_threads_take_uaddr(struct tprof_threads *tt, u32 tid);
u64 tprof_threads_on_cpu(struct tprof_threads *tt);

#endif /* _TPROF_THREADS_H */
