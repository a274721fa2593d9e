// SPDX-License-Identifier: GPL-2.0
/*
 * tprof: exact per-thread CPU-time sampling: per-CPU accounting of the
 * target thread running there, and the timer: when a sample is taken and
 * what it weighs (sample.c writes it). Its callers (probes.c,
 * lifetime.c) hand it the session and the thread.
 *
 * Each target thread has sample points in its own CPU time, at b, b + P,
 * b + 2P, ... with the first budget b uniform in (0, P] (golang/go#40435).
 * The sched_switch probe arms this CPU's hrtimer with the remaining budget
 * of the incoming target thread; the timer (and a switch-out that finds a
 * point already passed) takes one sample for every point passed, weighted
 * with all of them, so a late timer never loses CPU time: per thread, the
 * sum of weights is within one period of its on-CPU time.
 *
 * On-CPU time is the scheduler's own: at sched_switch the outgoing task's
 * se.sum_exec_runtime is up to date (put_prev_task() ran update_curr()), so
 * each slice adds exactly what /proc/PID/task/TID/schedstat shows. Within
 * a slice (timer) it is extrapolated with local_clock() from a stamp taken
 * at sched-in: the scheduler's own, se.exec_start, where that is in
 * local_clock()'s terms (tprof_sched_stamp(): also no clock read at a
 * switch), else local_clock() in the probe: with
 * CONFIG_IRQ_TIME_ACCOUNTING or CONFIG_PARAVIRT_TIME_ACCOUNTING
 * exec_start is rq_clock_task(), which lags local_clock() by all irq and
 * steal time since boot. Those
 * kernels also leave the irq and steal time of the slice out of the
 * task's runtime, so the estimate subtracts what this CPU's kcpustat
 * counted of them since the stamp (tprof_cpu_untask_ns()); otherwise a
 * long slice would pass sample points the thread never reaches. The
 * estimate only times the timer and mid-slice events; each switch-out
 * resynchronizes with the scheduler's exact figure.
 *
 * Unprivileged sessions sample only what tprof_session_may_sample()
 * allows, checked here, on the sampled thread itself; a point passed while
 * it cannot decide (an exec in progress) stays pending, weight and all.
 *
 * All per-CPU state is touched only on its CPU with IRQs off (the probe
 * runs under rq->lock, the timer in hardirq, the rest via local_irq_save()
 * or IPIs), so it needs no lock.
 */
#include <linux/cpu.h>
#include <linux/hash.h>
#include <linux/hrtimer.h>
#include <linux/irq_work.h>
#include <linux/kernel_stat.h>
#include <linux/lockdep.h>
#include <linux/percpu.h>
#include <linux/prandom.h>
#include <linux/random.h>
#include <linux/sched/clock.h>
#include <linux/sched/signal.h>
#include <linux/smp.h>
#include <linux/timekeeping.h>
#include <asm/irq_regs.h>

#include "budget.h"
#include "offcpu.h"
#include "procs.h"
#include "sampler.h"
#include "sampler_cpu.h"
#include "session.h"
#include "threads.h"
#include "tprof.h"

/* Never re-arm closer than this (clock skew between timer and accounting). */
#define TPROF_MIN_REARM_NS	2000

struct tprof_cpu __percpu *tprof_cpus;

/* The scheduler leaves irq or steal time out of task runtime here. */
#define TPROF_UNTASKED_TIME	(IS_ENABLED(CONFIG_IRQ_TIME_ACCOUNTING) || \
				 IS_ENABLED(CONFIG_PARAVIRT_TIME_ACCOUNTING))

/*
 * Time this CPU spent, since boot, that the scheduler leaves out of task
 * runtime: irq time with CONFIG_IRQ_TIME_ACCOUNTING (kcpustat counts it at
 * each irq exit, as rq_clock_task() subtracts it), steal time with
 * CONFIG_PARAVIRT_TIME_ACCOUNTING (counted at the tick). Always 0 on
 * Debian's configs. Where the kernel counts otherwise (irq time turned off
 * at boot for an unstable TSC) the estimate only runs a little slow: the
 * timer then fires again, and the switch-out is exact anyway.
 * Context: IRQs off.
 */
static u64 tprof_cpu_untask_ns(void)
{
	u64 *st = kcpustat_this_cpu->cpustat;
	u64 ns = 0;

	if (IS_ENABLED(CONFIG_IRQ_TIME_ACCOUNTING))
		ns += READ_ONCE(st[CPUTIME_IRQ]) + READ_ONCE(st[CPUTIME_SOFTIRQ]);
	if (IS_ENABLED(CONFIG_PARAVIRT_TIME_ACCOUNTING))
		ns += READ_ONCE(st[CPUTIME_STEAL]);
	return ns;
}

/*
 * Runtime of c's thread now, extrapolated from its sched-in stamp, and
 * the clock it was read at (@clk). With @until (a local_clock() time, else
 * U64_MAX) before now, the extrapolation stops there: see
 * tprof_timer_until().
 * Context: IRQs off, c's thread current.
 */
static u64 tprof_runtime_now(struct tprof_cpu *c, u64 until, u64 *clk)
{
	u64 now = local_clock();
	u64 end = min(now, until);
	u64 run = end - c->clk_base - (tprof_cpu_untask_ns() - c->untask_base);
	u64 rt = c->rt_base;

	if (clk)
		*clk = now;
	/*
	 * Not clamped to se.sum_exec_runtime: with irq time accounting the
	 * tick's update counts the irq it runs in as task time, and takes it
	 * back only at a later update.
	 */
	return (s64)run > 0 ? rt + run : rt;
}

/*
 * Where the timer callback's reading of its thread's runtime ends. A timer
 * that fires late stands for the CPU time up to its firing: the thread ran
 * the code it interrupts until then (with IRQs off, or while a host held
 * the vCPU), and the scheduler charges that time to it, this hardirq's
 * included. So the sample weighs it, in the code where it was spent, not
 * the next sample a period later, maybe in another function. Only where
 * the scheduler leaves irq time out of task runtime (TPROF_UNTASKED_TIME:
 * CONFIG_IRQ_TIME_ACCOUNTING) is the time since this hardirq began not the
 * thread's, and kcpustat counts it only at irq exit; nothing a module can
 * read says when the hardirq began, so there the reading stops at the
 * expiry (under emulation the hardirq itself can take milliseconds), and
 * the lateness goes on the next sample.
 * Context: hardirq, the timer callback.
 */
static u64 tprof_timer_until(struct tprof_cpu *c)
{
	return TPROF_UNTASKED_TIME ? c->armed_clk : U64_MAX;
}

/* Thread CPU time of c's thread from a runtime value of its task. */
static u64 tprof_thread_cpu(struct tprof_cpu *c, u64 rt)
{
	return c->thr->on_cpu_ns + (rt > c->rt_base ? rt - c->rt_base : 0);
}

/*
 * Samples once for every sample point the thread has passed by CPU time
 * @cpu, then applies a pending period change to the next budget. Points
 * the session may not decide on yet stay pending (the next chance credits
 * them); points of a denied session pass unsampled.
 * Context: hardirq or IRQs off; c's thread is current.
 */
static void tprof_maybe_sample(struct tprof_cpu *c, struct pt_regs *regs,
			       u64 cpu)
{
	struct tprof_thread *t = c->thr;
	u64 p = t->period_ns, req, n;
	bool may, later;

	lockdep_assert_irqs_disabled();
	if (cpu < t->next_point || (c->sess->flags & TPROF_F_NO_CPU_SAMPLES))
		return;
	/* Also while stopping: the final switch-out/finalize credits too. */
	may = tprof_session_may_sample(c->sess, t->proc, current, &later);
	if (later)
		return;
	n = 1 + div64_u64(cpu - t->next_point, p);
	t->next_point += n * p;
	if (may)
		tprof_take_sample(c, regs, n * p, p, n - 1, 0);
	req = tprof_thread_req_period(t);
	if (req)
		t->base_period = req;
	req = tprof_stretched(t->base_period, tprof_budget_shift(c->sess->budget));
	if (req != p) {
		/* The last passed point stays; the next one is req after it. */
		t->next_point = t->next_point - p + req;
		t->period_ns = req;
	}
}

/*
 * Arms this CPU's timer for c's thread, at CPU time @cpu read at @clk,
 * lazily: a timer still queued (for the thread before) no later than this
 * thread's deadline is left alone, and its callback re-arms from there.
 * Firing early costs one callback; cancelling and restarting at every
 * switch costs two timer reprogrammings (two VM exits under KVM) per
 * switch. Sample weights absorb lateness exactly either way.
 * Context: IRQs off, on @c's CPU.
 */
static __always_inline void tprof_arm(struct tprof_cpu *c, u64 cpu, u64 clk)
{
	struct tprof_thread *t = c->thr;
	u64 rem = TPROF_MIN_REARM_NS, deadline;

	if (c->sess->flags & TPROF_F_NO_CPU_SAMPLES)
		return;
	if (t->next_point > cpu + TPROF_MIN_REARM_NS)
		rem = t->next_point - cpu;
	deadline = clk + rem;
	/* Not if hotplug moved it to another CPU: it would not sample here. */
	if (hrtimer_is_queued(&c->timer) && c->armed_clk <= deadline &&
	    READ_ONCE(c->timer.base)->cpu_base->cpu == smp_processor_id())
		return;
	c->armed_clk = deadline;
	c->sess->rings.ring[smp_processor_id()]->st.timer_arms++;
	hrtimer_start(&c->timer, ns_to_ktime(rem), HRTIMER_MODE_REL_PINNED_HARD);
}

static __always_inline struct tprof_thread *
tprof_sched_out_regs(struct tprof_cpu *c, u64 rt, struct pt_regs *regs,
		     bool last);

/* Context: hardirq (HARD timer, also on PREEMPT_RT). */
static enum hrtimer_restart tprof_timer_fn(struct hrtimer *timer)
{
	struct tprof_cpu *c = container_of(timer, struct tprof_cpu, timer);
	struct tprof_thread *t = c->thr;
	u64 rem = 0, cpu, clk;

	/*
	 * Hotplug may migrate the timer; it only ever samples its own CPU.
	 * Switch-outs do not cancel it: it may find another task here.
	 */
	if (c != this_cpu_ptr(tprof_cpus) || !t || c->task != current ||
	    tprof_session_state(c->sess) != TPROF_ACTIVE ||
	    (c->sess->flags & TPROF_F_NO_CPU_SAMPLES))
		return HRTIMER_NORESTART;
	/*
	 * Its process moved out of a cgroup session (cgroup.c): its time
	 * there ended with the move, which another CPU saw; its accounting
	 * ends here, at most a period later, not at its next switch-out.
	 */
	if (unlikely(c->sess->cgrp && !c->exiting &&
		     test_bit(TPROF_P_DENIED, &t->proc->bits))) {
		tprof_sched_out_regs(c, tprof_runtime_now(c, U64_MAX, NULL),
				     get_irq_regs(), false);
		return HRTIMER_NORESTART;
	}
	cpu = tprof_thread_cpu(c, tprof_runtime_now(c, tprof_timer_until(c), &clk));
	/*
	 * With a reschedule pending, the scheduler may end this slice at the
	 * (older) rq clock of the wakeup (rq_clock_skip_update()): leave the
	 * sample to the imminent switch-out, which sees the exact runtime,
	 * but with the kernel stack of the context interrupted here.
	 */
	if (cpu >= t->next_point) {	/* else early: re-armed only */
		if (!test_tsk_need_resched(current))
			tprof_maybe_sample(c, get_irq_regs(), cpu);
		else
			tprof_defer_kstack(c, get_irq_regs());
	}
	if (t->next_point > cpu)
		rem = t->next_point - cpu;
	else	/* deferred: look again a period later unless switched out */
		rem = t->period_ns;
	rem = max_t(u64, rem, TPROF_MIN_REARM_NS);
	c->armed_clk = clk + rem;
	/*
	 * Exactly rem from now. hrtimer_forward_now() would step from the
	 * old expiry in multiples of rem, so anywhere in (now, now + rem]:
	 * early, and one more callback per sample.
	 */
	hrtimer_set_expires(timer, ktime_add_ns(hrtimer_cb_get_time(timer), rem));
	return HRTIMER_RESTART;
}

/*
 * Takes the off-CPU sample a switch-in left for c's thread, if any: on its
 * own CPU, in its own mm, not yet back in user space (its user registers
 * and stack are still those it left the CPU with). @regs: the interrupted
 * context (irq_work: the scheduler, finishing the switch), or NULL (a
 * probe: see c->kfrom).
 * Context: hardirq or IRQs off; c's thread is current.
 */
static void tprof_off_flush(struct tprof_cpu *c, struct pt_regs *regs)
{
	u64 w = c->off_weight;
	struct tprof_thread *t = c->thr;
	bool may, later;

	if (!w)
		return;
	c->off_weight = 0;
	may = tprof_session_may_sample(c->sess, t->proc, current, &later);
	if (may && !later) {
		tprof_take_sample(c, regs, w, c->off_period, 0, c->off_state);
	} else {	/* denied, or an exec deciding: counted, not taken */
		tprof_off_lost(tprof_thread_off(&c->sess->threads, t), w);
		if (c->off_waker.kind)
			c->sess->rings.ring[smp_processor_id()]->st.wakers_dropped++;
	}
	c->off_waker.kind = 0;
}

/*
 * Context: hardirq (IRQ_WORK_HARD_IRQ, also on PREEMPT_RT), queued by a
 * switch-in on this CPU: it runs as soon as the switch enables IRQs again
 * (finish_task_switch()), in the thread that came in. A later switch-out
 * flushes first if it has not (tprof_sched_out_regs()).
 */
static void tprof_off_work(struct irq_work *work)
{
	struct tprof_cpu *c = container_of(work, struct tprof_cpu, off_work);

	if (c != this_cpu_ptr(tprof_cpus) || !c->off_weight)
		return;
	if (c->task != current) {	/* impossible: switched in, not run */
		c->off_weight = 0;
		c->off_waker.kind = 0;
		return;
	}
	tprof_off_flush(c, get_irq_regs());
}

/*
 * Where @p's runtime stopped (its switch-out) or starts again (its
 * switch-in): the scheduler's own stamp, se.exec_start, which
 * pick_next_task() and update_curr() have just set. Not local_clock() in
 * the probe: between the scheduler's clock update and the probe (a vCPU
 * descheduled there, under emulation: ms) it would count time twice or
 * never, since on-CPU time is the scheduler's. exec_start is
 * rq_clock_task(): with irq or steal time accounting that lags each CPU's
 * clock by the CPU's own irq and steal time since boot (not quite what
 * kcpustat shows: ksoftirqd's ticks count there too), so an interval from
 * one CPU to another would be off by their difference. There the probe's
 * local_clock() it is (Debian's kernels have neither).
 * Context: IRQs off, on the CPU @p leaves or comes in on.
 */
static u64 tprof_sched_stamp(struct task_struct *p)
{
	if (TPROF_UNTASKED_TIME)
		return local_clock();
	return READ_ONCE(p->se.exec_start);
}

/*
 * @p comes in to slot @t: the time since its switch-out, or for its first
 * switch-in since it was created (runnable: waiting for its first run) or
 * since ENABLE (in the state it waits in now: I/O wait or asleep), goes on
 * its off-CPU clock; a sample owed is taken by c->off_work. A thread that
 * starts running under the session (ENABLE's kick, exec) starts its clock
 * now.
 * Context: IRQs off, on @c's CPU; slot @t is @c's now.
 */
static noinline void tprof_off_in(struct tprof_cpu *c,
				  struct tprof_session *s,
				  struct tprof_thread *t,
				  struct task_struct *p, bool first)
{
	struct tprof_off *o = tprof_thread_off(&s->threads, t);
	u64 w, now, begin, in, clk;
	u32 state;

	if (first) {
		now = ktime_get_ns();
		begin = max(p->start_time, s->start_ns);
		tprof_off_begin(o, tprof_stretched(s->off_period_ns,
						   tprof_budget_shift(s->budget)),
				p == current ? now : begin, &c->rnd);
		if (p == current)
			return;
		/* CLOCK_MONOTONIC when it was picked to run */
		in = tprof_sched_stamp(p);
		clk = local_clock();
		now -= clk > in ? min(clk - in, now) : 0;
		if (p->start_time >= s->start_ns)
			state = TPROF_OFF_RUNNABLE;
		else
			state = p->in_iowait ? TPROF_OFF_BLOCKED :
					       TPROF_OFF_SLEEPING;
		w = tprof_off_add(o, now > begin ? now - begin : 0, state);
	} else if (o->since) {
		tprof_off_stretch(o, tprof_stretched(s->off_period_ns,
						     tprof_budget_shift(s->budget)));
		state = o->state;
		in = tprof_sched_stamp(p);
		w = tprof_off_add(o, in > o->since ? in - o->since : 0, state);
		o->since = 0;
	} else {
		return;
	}
	/*
	 * The wait's waker goes with its sample; a preemption has none (one
	 * kept there is a wakeup that came before the thread left the CPU).
	 * Taken either way: the next wait has its own.
	 */
	c->off_waker.kind = 0;
	if ((s->flags & TPROF_F_WAKER_STACKS) && state != TPROF_OFF_RUNNABLE)
		tprof_off_chain(o, &o->waker, p);
	if (w && state != TPROF_OFF_RUNNABLE && o->waker.kind)
		c->off_waker = o->waker;
	o->waker.kind = 0;
	if (!w)
		return;
	c->off_weight = w;
	c->off_period = o->period_ns;
	c->off_state = state;
	irq_work_queue(&c->off_work);
}

static noinline void tprof_thread_start(struct tprof_cpu *c,
					struct tprof_session *s,
					struct tprof_proc *pr,
					struct tprof_thread *t,
					struct task_struct *p)
{
	u64 period = tprof_threads_take_period(&s->threads, p->pid);
	u64 r, rem;

	if (period)
		WRITE_ONCE(t->req, tprof_req(t->tid, period));
	r = tprof_threads_take_uaddr(&s->threads, p->pid);
	if (r)
		WRITE_ONCE(t->uaddr, r);
	period = tprof_thread_req_period(t);
	if (!period)
		period = s->period_ns;
	t->vtid = __task_pid_nr_ns(p, PIDTYPE_PID, s->pid_ns);
	t->vpid = pr->vpid;
	t->proc = pr;
	memcpy(t->comm, p->comm, sizeof(t->comm));
	t->comm[sizeof(t->comm) - 1] = 0;
	t->base_period = period;
	period = tprof_stretched(period, tprof_budget_shift(s->budget));
	t->period_ns = period;
	r = (u64)prandom_u32_state(&c->rnd) << 32 | prandom_u32_state(&c->rnd);
	/* First budget uniform in (0, P]. */
	div64_u64_rem(r, period, &rem);
	t->next_point = t->on_cpu_ns + 1 + rem;
	t->started = true;
}

/* @p's entry in its set of this CPU's cache, or NULL. */
static struct tprof_slot_cache *tprof_cache_find(struct tprof_slot_cache *set,
						 struct task_struct *p)
{
	if (set[0].task == p)
		return &set[0];
	return set[1].task == p ? &set[1] : NULL;
}

/*
 * @p's slot in @s's table, through this CPU's cache of recent switch-ins:
 * threads that ping-pong here skip the table's hash and probes. An entry
 * is good while its slot still holds @p's tid (a slot buried and claimed
 * again by the same tid is that tid's slot anyway); entries of a session
 * are dropped when it stops (tprof_finalize()), before its table is freed.
 * A thread on its way out (PF_EXITING) gets no new slot: one that passed
 * its exit probe has none by tid any more (tprof_sampler_exiting()).
 * Context: IRQs off, on @c's CPU.
 */
static struct tprof_thread *tprof_slot_of(struct tprof_cpu *c,
					  struct tprof_session *s,
					  struct task_struct *p)
{
	struct tprof_slot_cache *set = c->cache[hash_ptr(p, TPROF_CACHE_BITS)];
	struct tprof_slot_cache *e = tprof_cache_find(set, p);
	struct tprof_thread *t;

	if (e && e->sess == s && READ_ONCE(e->thr->key) == p->pid)
		return e->thr;
	t = tprof_thread_get(&s->threads, p->pid, !(p->flags & PF_EXITING));
	if (t) {
		/* the newest first; the other way keeps the one before */
		if (set[0].task != p)
			set[1] = set[0];
		set[0] = (struct tprof_slot_cache){ .task = p, .sess = s,
						    .thr = t };
	}
	return t;
}

/**
 * tprof_sampler_find() - the session that reports @p, and @p's process:
 *	tprof_session_find()'s answer, through this CPU's cache of recent
 *	switch-ins first (tprof_slot_of()). Threads that ping-pong here
 *	skip the sessions' scan and the process table's hash at every
 *	switch, the larger part of the probe's cost between two target
 *	threads.
 * @p: the task about to run here.
 * @pp: set to its process's slot.
 * @tp: set to @p's slot when this CPU's cache answered, else NULL (the
 *	switch-in looks it up: tprof_slot_of()).
 *
 * An entry answers only while it proves what the scan would find: its
 * session active, its slot @p's and started (so its process is the one
 * @p ran under), that process's slot still live, @p's by tgid, neither
 * denied nor pending. A session that holds a process so is the only one
 * that may (tprof_session_other_has()), so the scan would stop at it.
 * Context: sched_switch probe (rq->lock held, IRQs off).
 * Return: the session or NULL.
 */
static struct tprof_session *tprof_sampler_find(struct task_struct *p,
						struct tprof_proc **pp,
						struct tprof_thread **tp)
{
	struct tprof_cpu *c = this_cpu_ptr(tprof_cpus);
	struct tprof_slot_cache *e;
	struct tprof_thread *t;
	struct tprof_proc *pr;

	*tp = NULL;
	if (!tprof_procs_anywhere(p->tgid))
		return NULL;
	e = tprof_cache_find(c->cache[hash_ptr(p, TPROF_CACHE_BITS)], p);
	if (e && tprof_session_state(e->sess) == TPROF_ACTIVE &&
	    READ_ONCE(e->thr->key) == p->pid && READ_ONCE(e->thr->started)) {
		t = e->thr;
		pr = t->proc;
		/* Pairs with the release in tprof_procs_claim(). */
		if (smp_load_acquire(&pr->state) == TPROF_PROC_LIVE &&
		    READ_ONCE(pr->tgid) == task_tgid(p) &&
		    tprof_proc_owned(pr)) {
			*pp = pr;
			*tp = t;
			return e->sess;
		}
	}
	return tprof_session_find(p, pp);
}

/* Context: IRQs off, on @c's CPU (or @c's CPU is offline). */
static void tprof_cache_drop(struct tprof_cpu *c, struct tprof_session *s)
{
	unsigned int i, w;

	for (i = 0; i < ARRAY_SIZE(c->cache); i++)
		for (w = 0; w < TPROF_CACHE_WAYS; w++)
			if (c->cache[i][w].sess == s)
				memset(&c->cache[i][w], 0,
				       sizeof(c->cache[i][w]));
}

/*
 * Accounting of @p in slot @t starts on @c's CPU at runtime @rt (@clk).
 * Context: IRQs off, on @c's CPU; @p is about to run or is current.
 */
static __always_inline void tprof_sched_in_slot(struct tprof_cpu *c,
						struct tprof_session *s,
						struct tprof_proc *pr,
						struct tprof_thread *t,
						struct task_struct *p,
						u64 rt, u64 clk)
{
	bool first = !t->started;

	s->rings.ring[smp_processor_id()]->st.sched_ins++;
	if (first)
		tprof_thread_start(c, s, pr, t, p);
	c->sess = s;
	c->thr = t;
	c->task = p;
	c->rt_base = rt;
	c->clk_base = clk;
	c->untask_base = tprof_cpu_untask_ns();
	c->defer_valid = false;
	if (s->off_period_ns)
		tprof_off_in(c, s, t, p, first);
	tprof_arm(c, t->on_cpu_ns, clk);
}

/*
 * @pr: @p's process in @s.
 * @t: @p's slot if the caller has it, else NULL (tprof_slot_of()).
 * @rt: p's runtime now (exact when it is about to run), read at @clk.
 * Context: IRQs off, on @c's CPU; @p is about to run or is current.
 */
static __always_inline void tprof_sched_in(struct tprof_cpu *c,
					   struct tprof_session *s,
					   struct tprof_proc *pr,
					   struct tprof_thread *t,
					   struct task_struct *p,
					   u64 rt, u64 clk)
{
	lockdep_assert_irqs_disabled();
	if (!t)
		t = tprof_slot_of(c, s, p);
	if (t)
		tprof_sched_in_slot(c, s, pr, t, p, rt, clk);
}

/* Context: IRQs off, on @c's CPU. Forgets what this CPU accounted. */
static void tprof_cpu_clear(struct tprof_cpu *c)
{
	c->task = NULL;
	c->thr = NULL;
	c->sess = NULL;
	c->exiting = false;
	c->defer_valid = false;
	c->off_weight = 0;
	c->off_waker.kind = 0;
}

/*
 * @rt: the runtime of c's thread now (exact at sched_switch).
 * @regs: the interrupted context (IPI), or NULL (probe: see c->kfrom).
 * @last: the thread will not run here again for this session (its final
 *	switch-out, prev_state TASK_DEAD, or the session stops).
 * Context: IRQs off, on @c's CPU; c's thread is current.
 * Return: the thread if this was its final accounting after its exit
 *	probe: the caller reports it (THREAD_EXIT). A thread past its exit
 *	probe that is only blocked or preempted is parked in its slot
 *	(tprof_thread_park()) and resumed at its next switch-in.
 */
static __always_inline struct tprof_thread *
tprof_sched_out_regs(struct tprof_cpu *c, u64 rt, struct pt_regs *regs,
		     bool last)
{
	struct tprof_thread *t = c->thr;
	bool exiting = c->exiting;

	lockdep_assert_irqs_disabled();
	if (c->off_weight)
		tprof_off_flush(c, regs);
	t->on_cpu_ns = tprof_thread_cpu(c, rt);
	/* what its runtime left out of the slice (irq time accounting) */
	if (c->sess->off_period_ns && TPROF_UNTASKED_TIME)
		tprof_thread_off(&c->sess->threads, t)->irq_ns +=
			tprof_cpu_untask_ns() - c->untask_base;
	/* A point passed while the timer could not fire: prev is current. */
	if (t->on_cpu_ns >= t->next_point)
		tprof_maybe_sample(c, regs, t->on_cpu_ns);
	/* Parked, it resumes at its next switch-in (no room: it ends now). */
	if (exiting && !last &&
	    !tprof_thread_park(&c->sess->threads, t, c->task))
		last = true;
	/* The timer stays queued (see tprof_arm()) unless parked. */
	tprof_cpu_clear(c);
	return exiting && last ? t : NULL;
}

/**
 * tprof_sampler_switch_out() - @prev leaves this CPU.
 * @prev: current, about to be switched out.
 * @kfrom: the calling probe's frame: kernel walks start above it.
 * @preempt: sched_switch's: @prev was preempted.
 * @prev_state: sched_switch's: TASK_DEAD for its final switch-out; with
 *	@preempt, how off-CPU time starts (tprof_off_state()).
 * @park: @prev was preempted (it is still runnable) and no target thread
 *	comes in: cancel the timer. It waits for other tasks' slices, so
 *	left queued the timer would likely fire in vain while it is away, or
 *	early (by the time away) when it is back, each an interrupt that
 *	takes no sample; its switch-in re-arms. A thread that blocks (a
 *	ping-pong, often for microseconds, with idle between) keeps it
 *	queued, as do switches between target threads (tprof_arm()): there
 *	a cancel and a restart per switch would cost more than a rare early
 *	expiry.
 * @sp: set to the session of the returned thread.
 *
 * Context: sched_switch probe (rq->lock held, IRQs off).
 * Return: @prev's thread if that was its final accounting (see
 *	tprof_sched_out_regs()), else NULL.
 */
static struct tprof_thread *
tprof_sampler_switch_out(struct task_struct *prev, unsigned long *kfrom,
			 bool preempt, unsigned int prev_state, bool park,
			 struct tprof_session **sp)
{
	struct tprof_cpu *c = this_cpu_ptr(tprof_cpus);
	bool dead = prev_state == TASK_DEAD;
	struct tprof_thread *t, *thr = c->thr;
	struct tprof_session *s = c->sess;

	if (!c->task)
		return NULL;
	if (unlikely(c->task != prev)) {
		/* Impossible: a switch-out was missed. Forget it. */
		hrtimer_try_to_cancel(&c->timer);
		tprof_cpu_clear(c);
		return NULL;
	}
	c->kfrom = kfrom;
	*sp = c->sess;
	/* put_prev_task() has just run update_curr(): exact. */
	t = tprof_sched_out_regs(c, READ_ONCE(prev->se.sum_exec_runtime),
				 NULL, dead);
	if (park)
		hrtimer_try_to_cancel(&c->timer);
	/* Off the CPU from where its runtime stopped (update_curr()). */
	if (s->off_period_ns && !dead && !t) {
		struct tprof_off *o = tprof_thread_off(&s->threads, thr);

		o->since = tprof_sched_stamp(prev);
		o->state = tprof_off_state(preempt, prev_state, prev);
		if (s->flags & TPROF_F_WAKER_STACKS)
			tprof_off_site(o, prev, o->state, prev_state);
	}
	return t;
}

/**
 * tprof_sampler_resume() - @next, parked in @t after its exit probe, comes
 *	in again: the rest of its do_exit() is its CPU time too.
 * @s: its session.
 * @t: its slot (tprof_thread_unpark()).
 * @next: the task about to run here.
 *
 * Context: sched_switch probe (rq->lock held, IRQs off).
 */
static void tprof_sampler_resume(struct tprof_session *s,
				 struct tprof_thread *t,
				 struct task_struct *next)
{
	struct tprof_cpu *c = this_cpu_ptr(tprof_cpus);

	tprof_sched_in_slot(c, s, t->proc, t, next,
			    READ_ONCE(next->se.sum_exec_runtime), local_clock());
	c->exiting = true;
}

/**
 * tprof_sampler_switch_in() - @next, a thread @s follows, comes in.
 * @s: its session.
 * @pr: its process.
 * @t: its slot if tprof_sampler_find() had it, else NULL.
 * @next: the task about to run here.
 *
 * Its runtime starts at the scheduler's own stamp (tprof_sched_stamp()),
 * which the extrapolation counts from: no clock read at a switch.
 * Context: sched_switch probe (rq->lock held, IRQs off).
 */
static void tprof_sampler_switch_in(struct tprof_session *s,
				    struct tprof_proc *pr,
				    struct tprof_thread *t,
				    struct task_struct *next)
{
	tprof_sched_in(this_cpu_ptr(tprof_cpus), s, pr, t, next,
		       READ_ONCE(next->se.sum_exec_runtime),
		       tprof_sched_stamp(next));
}

/* @prev's final switch-out: its group's end may be a session's. */
static noinline void tprof_sampler_dead(struct task_struct *prev)
{
	struct tprof_session *s;
	struct tprof_proc *pr;
	unsigned int i;

	for (i = 0; (s = tprof_session_next(prev, &pr, true, &i));)
		tprof_session_kick(s);
}

/**
 * tprof_sampler_switch() - @prev leaves this CPU and @next comes in, a
 *	switch that concerns a session (tprof_probe_sched_switch()).
 * @preempt: sched_switch's: @prev was preempted.
 * @prev: current, about to be switched out.
 * @next: the task about to run here.
 * @prev_state: sched_switch's (TASK_DEAD: @prev's final switch-out).
 * @kfrom: the probe's frame, above which kernel walks of samples taken
 *	here start (at the probe's caller).
 * @exited: reports @prev's thread if this was its final accounting after
 *	its exit probe (THREAD_EXIT), as tprof_sampler_stop()'s does.
 *
 * One call for the probe: the finding, the switch-out and the switch-in
 * are inlined here, and the common switch between two followed threads
 * makes no other call than the timer's (tprof_arm()). No stack canary:
 * no array lives here, only pointers that its callees set, and a canary
 * would cost every such switch.
 * Context: the sched_switch probe (rq->lock held, IRQs off).
 */
__no_stack_protector
void tprof_sampler_switch(bool preempt, struct task_struct *prev,
			  struct task_struct *next, unsigned int prev_state,
			  unsigned long *kfrom,
			  void (*exited)(struct tprof_session *s,
					 struct tprof_thread *t))
{
	struct tprof_thread *t, *tn, *tp = NULL;
	struct tprof_session *s, *sn, *spk = NULL;
	struct tprof_proc *pr;

	lockdep_assert_irqs_disabled();
	/*
	 * A thread preempted in do_exit() before its exit probe (in
	 * exit_mm(), the longest part) comes back to its own slot by tid;
	 * one past its exit probe was parked in its slot (its process may
	 * be reaped by now) and resumes there.
	 */
	sn = tprof_sampler_find(next, &pr, &tn);
	if (unlikely(next->flags & PF_EXITING)) {
		spk = tprof_session_find_parked(next, &tp);
		if (spk)
			sn = NULL;
	}
	/*
	 * A thread preempted by a task we do not profile parks the timer
	 * (see tprof_sampler_switch_out()).
	 */
	t = tprof_sampler_switch_out(prev, kfrom, preempt, prev_state,
				     !sn && !spk && prev_state == TASK_RUNNING,
				     &s);
	if (unlikely(t))
		exited(s, t);
	if (sn)
		tprof_sampler_switch_in(sn, pr, tn, next);
	else if (spk)
		tprof_sampler_resume(spk, tp, next);
	if (unlikely(prev_state == TASK_DEAD))
		tprof_sampler_dead(prev);
}

/*
 * IPI (IRQs off): start sampling a thread of a followed process that is
 * already running.
 */
static void tprof_kick(void *info)
{
	struct tprof_cpu *c = this_cpu_ptr(tprof_cpus);
	struct tprof_session *s = info;
	struct tprof_proc *pr;
	u64 rt, clk;

	if (c->task || (current->flags & (PF_EXITING | PF_KTHREAD)) ||
	    tprof_session_state(s) != TPROF_ACTIVE)
		return;
	pr = tprof_procs_find(&s->procs, task_tgid(current));
	if (!pr || test_bit(TPROF_P_DENIED, &pr->bits))
		return;
	clk = local_clock();
	rt = READ_ONCE(current->se.sum_exec_runtime);
	/*
	 * Mid-slice: sum_exec_runtime is as of the scheduler's last update,
	 * up to a tick ago (longer with nohz_full), and what the thread ran
	 * since is before the session: counted from there, its first
	 * switch-out would credit it. exec_start is that update's
	 * rq_clock_task(), local_clock() then where no irq or steal time is
	 * left out of task time; elsewhere the stamp is all there is.
	 */
	if (!TPROF_UNTASKED_TIME) {
		u64 start = READ_ONCE(current->se.exec_start);

		if (clk > start)
			rt += clk - start;
	}
	tprof_sched_in(c, s, pr, NULL, current, rt, clk);
}

/*
 * Without this, a CPU-bound target thread on a quiet CPU might not switch
 * (and so not be sampled) for a long time. Context: process.
 */
void tprof_sampler_start(struct tprof_session *s)
{
	on_each_cpu(tprof_kick, s, 1);
}

struct tprof_finalize {
	struct tprof_session *s;
	void (*exited)(struct tprof_session *s, struct tprof_thread *t);
};

/* IPI (IRQs off): final accounting of the session's thread running here. */
static void tprof_finalize(void *info)
{
	struct tprof_cpu *c = this_cpu_ptr(tprof_cpus);
	struct pt_regs *regs = get_irq_regs();
	struct tprof_finalize *f = info;
	struct tprof_thread *t;

	tprof_cache_drop(c, f->s);
	if (!c->task || c->sess != f->s)
		return;
	/*
	 * An IPI: samples report the interrupted context. On the calling CPU
	 * (not an interrupt): the walk starts above this frame.
	 */
	c->kfrom = regs ? NULL : __builtin_frame_address(0);
	t = tprof_sched_out_regs(c, tprof_runtime_now(c, U64_MAX, NULL),
				 regs, true);
	if (t)
		f->exited(f->s, t);
}

/**
 * tprof_sampler_stop() - drop every CPU's reference to @s.
 * @s: a session unpublished an RCU grace period ago: no probe can pick it.
 * @exited: reports a thread whose final accounting this was (THREAD_EXIT).
 *
 * Context: process.
 */
void tprof_sampler_stop(struct tprof_session *s,
			void (*exited)(struct tprof_session *s,
				       struct tprof_thread *t))
{
	struct tprof_finalize f = { .s = s, .exited = exited };
	int cpu;

	cpus_read_lock();
	on_each_cpu(tprof_finalize, &f, 1);
	for_each_possible_cpu(cpu) {
		struct tprof_cpu *c = per_cpu_ptr(tprof_cpus, cpu);

		if (cpu_online(cpu))
			continue;
		tprof_cache_drop(c, s);
		if (c->sess != s)
			continue;
		hrtimer_cancel(&c->timer);
		tprof_cpu_clear(c);
	}
	cpus_read_unlock();
}

/**
 * tprof_sampler_detach() - end @p's accounting here (exec changes its tid),
 *	under whichever session it ran.
 * @p: current.
 * @kfrom: the calling probe's frame: kernel walks start above it.
 * @rt: set to @p's runtime now, for tprof_sampler_attach().
 * @clk: set to the clock it was read at.
 *
 * Context: IRQs off (exec probe).
 */
void tprof_sampler_detach(struct task_struct *p, unsigned long *kfrom,
			  u64 *rt, u64 *clk)
{
	struct tprof_cpu *c = this_cpu_ptr(tprof_cpus);

	if (c->task == p) {
		c->kfrom = kfrom;
		*rt = tprof_runtime_now(c, U64_MAX, clk);
		/* An exec'ing thread is not exiting: nothing to report. */
		tprof_sched_out_regs(c, *rt, NULL, false);
	} else {
		*rt = READ_ONCE(p->se.sum_exec_runtime);
		*clk = local_clock();
	}
}

/*
 * Exit probe: if @p is accounted here, it stays so until its switch-out,
 * which emits its THREAD_EXIT (the rest of do_exit() is its CPU time too).
 * Context: IRQs off; @p is current.
 * Return: true if so; else the caller reports the thread now.
 */
bool tprof_sampler_exiting(struct tprof_session *s, struct task_struct *p)
{
	struct tprof_cpu *c = this_cpu_ptr(tprof_cpus);

	if (c->task != p || c->sess != s || c->exiting)
		return false;
	atomic_inc(&c->thr->proc->exiting);
	c->exiting = true;
	/* Not found by tid any more (exec may pass it on), not reusable. */
	WRITE_ONCE(c->thr->key, TPROF_TID_EXITING);
	return true;
}

/*
 * Exec probe (new tid), with what tprof_sampler_detach() read, so that no
 * CPU time falls between the two slots. Context: IRQs off; @p is current.
 */
void tprof_sampler_attach(struct tprof_session *s, struct tprof_proc *pr,
			  struct task_struct *p, u64 rt, u64 clk)
{
	struct tprof_cpu *c = this_cpu_ptr(tprof_cpus);

	if (!c->task && !(p->flags & PF_EXITING))
		tprof_sched_in(c, s, pr, NULL, p, rt, clk);
}

int tprof_sampler_init(void)
{
	int cpu;

	tprof_cpus = alloc_percpu(struct tprof_cpu);
	if (!tprof_cpus)
		return -ENOMEM;
	for_each_possible_cpu(cpu) {
		struct tprof_cpu *c = per_cpu_ptr(tprof_cpus, cpu);

		hrtimer_setup(&c->timer, tprof_timer_fn, CLOCK_MONOTONIC,
			      HRTIMER_MODE_REL_PINNED_HARD);
		c->off_work = IRQ_WORK_INIT_HARD(tprof_off_work);
		prandom_seed_state(&c->rnd, get_random_u64());
	}
	return 0;
}

/* No session exists (each pins the module): the timers are idle. */
void tprof_sampler_exit(void)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		hrtimer_cancel(&per_cpu_ptr(tprof_cpus, cpu)->timer);
		irq_work_sync(&per_cpu_ptr(tprof_cpus, cpu)->off_work);
	}
	free_percpu(tprof_cpus);
}
