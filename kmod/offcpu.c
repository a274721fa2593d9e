// SPDX-License-Identifier: GPL-2.0
/*
 * tprof: off-CPU time (TPROF_F_OFF_CPU), sampled the way CPU time is.
 *
 * Each thread has an off-CPU clock: the time from each of its switch-outs
 * to its next switch-in, on the scheduler's own stamps (where its runtime
 * stopped and where it starts again: tprof_sched_stamp()), so that on-CPU
 * plus off-CPU time tile its life exactly (with CONFIG_IRQ_TIME_ACCOUNTING
 * on-CPU time leaves irq time out, and the stamps are the probe's clock).
 * The clock has sample points every period, the first one uniform in
 * (0, P], as CPU time has. A switch-in
 * whose time away crossed n points owes one sample of weight n * P; the
 * sampler takes it once the thread is back in its own mm, before it
 * returns to user space (sampler.c). A ping-pong that crosses no point
 * pays two loads, two stores and an add per switch.
 *
 * The state is how the thread left: preempted (or woken again before it
 * was off the runqueue) is runnable; TASK_UNINTERRUPTIBLE without NOLOAD
 * (what ps shows as D: disk I/O, page faults, killable waits) is blocked;
 * any other wait (interruptible sleep, stopped, traced) is sleeping. The
 * wakeup latency of a wait counts with its state, as the wait it ends.
 *
 * Context: all of it runs where its thread's slot is owned (threads.h):
 * the CPU the thread switches in or out on, IRQs off; or the session's
 * stop, when no probe runs any more.
 */
#include <linux/math64.h>
#include <linux/ptrace.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <linux/sched/task_stack.h>
#include <linux/string.h>

#include "compat.h"
#include "offcpu.h"
#include "tprof.h"

/*
 * @preempt, @prev_state: sched_switch's (prev_state is prev->__state
 * as __schedule() read it, before a pending signal kept prev runnable).
 * Context: sched_switch probe; @prev is current.
 */
u32 tprof_off_state(bool preempt, unsigned int prev_state,
		    struct task_struct *prev)
{
	if (preempt || prev_state == TASK_RUNNING ||
	    READ_ONCE(prev->__state) == TASK_RUNNING)
		return TPROF_OFF_RUNNABLE;
	if ((prev_state & TASK_UNINTERRUPTIBLE) && !(prev_state & TASK_NOLOAD))
		return TPROF_OFF_BLOCKED;
	return TPROF_OFF_SLEEPING;
}

/* A thread's off-CPU clock starts, at CLOCK_MONOTONIC @begin_ns. */
void tprof_off_begin(struct tprof_off *o, u64 period, u64 begin_ns,
		     struct rnd_state *rnd)
{
	u64 r = (u64)prandom_u32_state(rnd) << 32 | prandom_u32_state(rnd);
	u64 rem;

	div64_u64_rem(r, period, &rem);
	o->period_ns = period;
	o->next_point = 1 + rem;
	o->begin_ns = begin_ns;
}

/*
 * The period grows to @period (a throttled session, sampler.c): the last
 * point passed stays, the next one is @period after it.
 */
void tprof_off_stretch(struct tprof_off *o, u64 period)
{
	if (period <= o->period_ns)
		return;
	o->next_point += period - o->period_ns;
	o->period_ns = period;
}

/*
 * @away ns off the CPU in @state: returns the weight of the sample it owes
 * (every point crossed), or 0.
 */
u64 tprof_off_add(struct tprof_off *o, u64 away, u32 state)
{
	u64 n;

	o->ns[state - 1] += away;
	o->clock += away;
	if (o->clock < o->next_point)
		return 0;
	n = 1 + div64_u64(o->clock - o->next_point, o->period_ns);
	o->next_point += n * o->period_ns;
	o->samples++;
	o->weight_ns += n * o->period_ns;
	return n * o->period_ns;
}

/* A sample it owed was dropped (ring full) or not allowed then. */
void tprof_off_lost(struct tprof_off *o, u64 weight)
{
	o->lost_samples++;
	o->lost_weight_ns += weight;
}

/*
 * The session ends while the thread is away (@now: the scheduler's clock,
 * local_clock()): the wait is accounted up to now. Its points are not
 * sampled: its stack can only be read from the thread itself.
 */
void tprof_off_close(struct tprof_off *o, u64 now)
{
	u64 away;

	if (!o->since)
		return;
	away = now > o->since ? now - o->since : 0;
	o->ns[o->state - 1] += away;
	o->clock += away;
	o->unsampled_ns += away;
	o->since = 0;
}

/*
 * Waits that a timeout ends (TPROF_F_WAKER_STACKS). A thread in a timed
 * wait loop (CPython's take_gil(), a condition variable's timed wait, a
 * poll with a timeout) wakes at each timeout, finds what it waits for not
 * there yet, and waits again, at the same place; only the last wakeup is
 * the thread that released it. Such a chain is one wait: a wait an
 * interrupt or a kernel thread ended is numbered at its switch-in and its
 * user call site (the syscall's return address and stack pointer) kept;
 * a wait the thread enters at that site again within TPROF_WAIT_CONTINUE_NS
 * of CPU and TPROF_WAIT_CONTINUE_WALL_NS of time of the last timeout
 * continues it, keeping its number, so the reader can join the waker that
 * ends the chain (its WAKER record at the wakeup, with its stack) to
 * every sample of it. Waits elsewhere in between (take_gil() takes the
 * GIL's mutex after each timeout, and waits for it when the holder has
 * it) are their own, and leave the chain be; so does a preemption, or an
 * uninterruptible wait (a mutex inside the syscall; on PREEMPT_RT a
 * spinlock, TASK_RTLOCK_WAIT, which once gave a poll's timeouts to the
 * pipe's writer that held one): only interruptible sleeps chain, as the
 * timed waits a program loops on are (futex, poll, nanosleep).
 *
 * The CPU bound is a millisecond: under emulation (TCG) the way from a
 * poll's timeout back into it took 100 us to 1 ms of guest CPU (with
 * 100 us, half of a test's chains broke: tests/kmod/wakers.c); on
 * hardware it is microseconds, and a loop that does more work between
 * its waits at one call site is still waiting for the same event.
 */
#define TPROF_WAIT_CONTINUE_NS		(1000 * NSEC_PER_USEC)
#define TPROF_WAIT_CONTINUE_WALL_NS	(10 * NSEC_PER_MSEC)

/* The next wait number of @o's thread (0 means none: 2^32 waits wrap). */
u32 tprof_off_next_seq(struct tprof_off *o)
{
	return ++o->wait_seq ?: ++o->wait_seq;
}

/*
 * @prev leaves the CPU in @state (sched_switch's @prev_state): where does
 * it wait, and does the wait continue its chain of timeouts?
 * Context: sched_switch probe; @prev is current.
 */
void tprof_off_site(struct tprof_off *o, struct task_struct *prev, u32 state,
		    unsigned int prev_state)
{
	struct pt_regs *regs;
	u64 ip = 0, sp = 0;

	o->unchained = state == TPROF_OFF_RUNNABLE ||
		       !(prev_state & TASK_INTERRUPTIBLE);
	if (o->unchained)
		return;
	if (tprof_is_user_task(prev) && !(prev->flags & PF_EXITING)) {
		regs = task_pt_regs(prev);
		ip = instruction_pointer(regs);
		sp = user_stack_pointer(regs);
	}
	o->wait_ip = ip;
	o->wait_sp = sp;
	o->cont_seq = 0;
	if (!o->timer_seq || !ip || ip != o->site_ip || sp != o->site_sp)
		return;		/* no chain, or a wait elsewhere */
	if (READ_ONCE(prev->se.sum_exec_runtime) - o->in_rt <
	    TPROF_WAIT_CONTINUE_NS &&
	    local_clock() - o->in_clk < TPROF_WAIT_CONTINUE_WALL_NS)
		o->cont_seq = o->timer_seq;
	else
		o->timer_seq = 0;	/* back too late: over */
}

/*
 * @p comes back from a wait (not a preemption: nor an uninterruptible
 * one, tprof_off_site()) that @w, its waker, ended: the wait's number for
 * its WAKER record (w->seq), its chain's if it continued one; a timeout
 * (an interrupt's or a kernel thread's wakeup) elsewhere starts one, in
 * place of any open (a thread follows one chain: the last). A wakeup
 * whose waker's stack was taken has its number already (wakers.c); a
 * thread's without one (not allowed, no user context) has none: it ends
 * the chain unjoined.
 * Context: sched_switch probe, @p about to run.
 */
void tprof_off_chain(struct tprof_off *o, struct tprof_waker *w,
		     struct task_struct *p)
{
	bool timeout = w->kind == TPROF_WAKER_HARDIRQ ||
		       w->kind == TPROF_WAKER_SOFTIRQ ||
		       w->kind == TPROF_WAKER_KTHREAD;

	if (o->unchained)
		return;
	if (o->cont_seq) {
		if (!w->seq && timeout)
			w->seq = o->cont_seq;
		if (!timeout)
			o->timer_seq = 0;	/* a thread ended it */
	} else if (timeout && o->wait_ip) {
		/* a timeout elsewhere: the chain is there now */
		w->seq = tprof_off_next_seq(o);
		o->timer_seq = w->seq;
		o->site_ip = o->wait_ip;
		o->site_sp = o->wait_sp;
	} else {
		return;		/* a wait elsewhere: the chain goes on */
	}
	o->cont_seq = 0;
	o->in_rt = READ_ONCE(p->se.sum_exec_runtime);
	o->in_clk = local_clock();
}

/* The THREAD_OFF record of thread @vtid (hdr.time_ns is the caller's). */
void tprof_off_fill(const struct tprof_off *o, u32 vpid, u32 vtid,
		    struct tprof_rec_thread_off *rec)
{
	memset(rec, 0, sizeof(*rec));
	rec->hdr.type = TPROF_REC_THREAD_OFF;
	rec->hdr.size = sizeof(*rec);
	rec->pid = vpid;
	rec->tid = vtid;
	rec->begin_ns = o->begin_ns;
	rec->sleeping_ns = o->ns[TPROF_OFF_SLEEPING - 1];
	rec->blocked_ns = o->ns[TPROF_OFF_BLOCKED - 1];
	rec->runnable_ns = o->ns[TPROF_OFF_RUNNABLE - 1];
	rec->irq_ns = o->irq_ns;
	rec->samples = o->samples;
	rec->weight_ns = o->weight_ns;
	rec->lost_samples = o->lost_samples;
	rec->lost_weight_ns = o->lost_weight_ns;
	rec->unsampled_ns = o->unsampled_ns;
	rec->period_ns = o->period_ns;
}
