// SPDX-License-Identifier: GPL-2.0
/*
 * tprof: who ended each wait (TPROF_F_OFF_CPU). The kernel's sched_waking
 * tracepoint fires in try_to_wake_up(), in the waker's context (current
 * is the waker, or the task an interrupt interrupted), once the wakee's
 * state matched the wakeup and before it is queued to run; sched_wakeup
 * may fire later on the wakee's CPU (the wake list's IPI), where current
 * is no longer the waker. The probe keeps the latest waker in the wakee's
 * off-CPU state (struct tprof_off.waker); the switch-in that ends the wait
 * takes it, and the off-CPU sample it owes, if any, carries it as a WAKER
 * record (sample.c).
 *
 * The trust rule is the samples': the waker's ids and comm are told only
 * when the session may sample the waker (a thread of a process it follows
 * and is allowed to read now, or any task for a privileged session);
 * otherwise only its kind. An interrupt's current is not the waker: kind
 * only. Wakeups cancelled before the wakee left the CPU (ttwu_runnable())
 * are kept too, and overwritten by the next real wait's waker; the wait
 * they did not end left in TPROF_OFF_RUNNABLE, whose samples carry none.
 *
 * The probe is registered only while an off-CPU session exists, since
 * sched_waking fires at every wakeup of the machine; a wakeup of a task
 * of no followed process costs one load of the filter word, as the
 * switch probe's.
 *
 * With TPROF_F_WAKER_STACKS, a waker that is a thread the session
 * follows (accounted on this CPU: this CPU's sampler state is its) also
 * gives its user stack. It can only be read here, in the waker's context
 * (its mm, its task_pt_regs(); the copies are pagefault-disabled, as in
 * the timer's hardirq), so it is a sample of the waker, written to this
 * CPU's ring at once (sample.c, tprof_take_waker_stack()): a WAKER record
 * naming the wait (the woken thread and its wait number, which its own
 * WAKER record repeats at the switch-in) and the SAMPLE, snapshot and
 * user-memory walk of the waker; the reader joins the two. No per-thread
 * buffer of frames. It is taken at most once per wait that will be
 * sampled: when the woken thread's off-CPU clock plus the time since it
 * left reaches its next sample point, less a sixteenth of a period for
 * the wakeup's latency; a wait that crosses its point later still (a
 * long wait for a CPU after the wakeup) has a waker and no stack (its
 * WAKER record's seq is 0).
 */
#include <linux/lockdep.h>
#include <linux/pid.h>
#include <linux/preempt.h>
#include <linux/printk.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <linux/string.h>
#include <linux/tracepoint.h>

#include "compat.h"
#include "offcpu.h"
#include "policy.h"
#include "procs.h"
#include "ring.h"
#include "sampler_cpu.h"
#include "session.h"
#include "threads.h"
#include "tprof.h"
#include "wakers.h"

/* sched_waking, if this kernel has it (else no session has wakers) */
static struct tracepoint *tprof_tp_waking;
/* off-CPU sessions published; tprof_sessions_mutex */
static unsigned int tprof_waking_users;
static bool tprof_waking_on;

/*
 * What @s may know of current as @p's waker (@pr: @p's process in @s).
 * A waker of @p's own process (a lock's release, a pipe's other end) is
 * in @pr, with no second lookup; its comm is copied whole: the kernel
 * pads a comm with NULs when it sets one (__set_task_comm()'s
 * strscpy_pad()). Both cut the probe's cost at a followed wakeup by 40%
 * (bench, 6.12 exact guest: a ping-pong of two threads in --mode wall,
 * 452.3 ms against 409.4 without the probe, 434.8 with these).
 * Context: sched_waking (IRQs off, @p's pi_lock held); current is the
 * waker.
 */
static void tprof_waker_of(struct tprof_session *s, struct tprof_proc *pr,
			   struct task_struct *p, struct tprof_waker *w)
{
	struct tprof_session *ws;
	struct tprof_proc *wpr;
	bool trusted;

	memset(w, 0, sizeof(*w));
	/* a hard interrupt that interrupted a softirq is both: hardirq */
	if (in_hardirq() && !in_nmi()) {
		w->kind = TPROF_WAKER_HARDIRQ;
		return;
	}
	if (in_nmi() || in_serving_softirq()) {
		w->kind = TPROF_WAKER_SOFTIRQ;
		return;
	}
	/* a thread of the wakee's process is in the wakee's session */
	if (current->tgid == p->tgid) {
		ws = s;
		wpr = pr;
	} else {
		ws = tprof_procs_anywhere(current->tgid) ?
		     tprof_session_find(current, &wpr) : NULL;
	}
	if (current->flags & PF_KTHREAD)
		w->kind = TPROF_WAKER_KTHREAD;
	else if (current->tgid == p->tgid)
		w->kind = TPROF_WAKER_TASK;
	else if (ws == s)
		w->kind = TPROF_WAKER_SESSION;
	else
		w->kind = TPROF_WAKER_OTHER;
	/* the samples' rule: followed, neither denied nor pending, readable */
	trusted = s->grant.privileged ||
		  (ws == s && !(READ_ONCE(wpr->bits) &
				(BIT(TPROF_P_DENIED) | BIT(TPROF_P_PENDING))) &&
		   !tprof_policy_check(&s->grant, current));
	if (!trusted)
		return;
	w->tid = __task_pid_nr_ns(current, PIDTYPE_PID, s->pid_ns);
	w->pid = __task_pid_nr_ns(current, PIDTYPE_TGID, s->pid_ns);
	if (!w->tid)	/* not in the session's namespace: nothing to name */
		w->pid = 0;
	else
		memcpy(w->comm, current->comm, sizeof(w->comm));
}

/*
 * Will the wait @o's thread is in be sampled at its switch-in (offcpu.c)?
 * Its clock plus the time since it left, with a sixteenth of a period for
 * the wakeup's latency, against its next point. Racy reads of a thread
 * that is not running: at worst a stack too many or one not taken.
 * Context: sched_waking (IRQs off).
 */
static bool tprof_wait_due(const struct tprof_off *o)
{
	u64 since = READ_ONCE(o->since), now, period = READ_ONCE(o->period_ns);

	if (!period)	/* waiting since before ENABLE: its clock starts now */
		return true;
	if (!since)	/* on a CPU: a wakeup that ends no wait */
		return false;
	now = local_clock();
	return READ_ONCE(o->clock) + (now > since ? now - since : 0) +
	       (period >> 4) >= READ_ONCE(o->next_point);
}

/*
 * The waker's stack for @t's wait @o (TPROF_F_WAKER_STACKS), when current
 * is a thread of @s accounted on this CPU (followed and running: its slot
 * is this CPU's sampler state) and the wait will be sampled. The wait's
 * number goes in both WAKER records, this one's and the switch-in's; a
 * stack that was dropped keeps it, so the reader can tell lost from not
 * taken.
 * Context: sched_waking (IRQs off); current is the waker.
 */
static void tprof_waker_stack(struct tprof_session *s, struct tprof_thread *t,
			      struct tprof_off *o)
{
	struct tprof_cpu *c = this_cpu_ptr(tprof_cpus);

	if (c->sess != s || c->task != current ||
	    (current->flags & PF_EXITING) || !tprof_is_user_task(current))
		return;
	/* a chain of timed-out waits (offcpu.c) ends here: its number */
	o->waker.seq = READ_ONCE(o->cont_seq);
	if (!o->waker.seq) {
		if (!tprof_wait_due(o))
			return;
		o->waker.seq = tprof_off_next_seq(o);
	}
	tprof_take_waker_stack(c, t, &o->waker);
}

/*
 * sched_waking: try_to_wake_up() of @p, on the waker's CPU, with @p's
 * pi_lock held and IRQs off; current is the waker (or what an interrupt
 * interrupted). No allocation, no lock, no printk.
 */
static void tprof_probe_waking(void *data, struct task_struct *p)
{
	struct tprof_session *s;
	struct tprof_thread *t;
	struct tprof_proc *pr;
	struct tprof_off *o;

	if (likely(!tprof_procs_anywhere(p->tgid)))
		return;
	lockdep_assert_irqs_disabled();
	s = tprof_session_find(p, &pr);
	if (!s || !s->off_period_ns)
		return;
	t = tprof_thread_get(&s->threads, p->pid, false);
	if (!t || !READ_ONCE(t->started))
		return;
	o = tprof_thread_off(&s->threads, t);
	tprof_waker_of(s, pr, p, &o->waker);
	s->rings.ring[smp_processor_id()]->st.wakers++;
	if ((s->flags & TPROF_F_WAKER_STACKS) && o->waker.tid)
		tprof_waker_stack(s, t, o);
}

/* for_each_kernel_tracepoint()'s visit (probes.c): is it sched_waking? */
void tprof_wakers_lookup(struct tracepoint *tp)
{
	if (!strcmp(tp->name, "sched_waking"))
		tprof_tp_waking = tp;
}

/*
 * An off-CPU session is published: the probe is on while one is. Without
 * the tracepoint, or if it cannot be registered, its samples carry no
 * WAKER records (said once in the kernel log).
 * Context: process, tprof_sessions_mutex held.
 */
void tprof_wakers_get(void)
{
	int ret;

	lockdep_assert_held(&tprof_sessions_mutex);
	if (tprof_waking_users++)
		return;
	ret = tprof_tp_waking ?
	      tracepoint_probe_register(tprof_tp_waking, tprof_probe_waking,
					NULL) : -ENOENT;
	tprof_waking_on = !ret;
	if (ret)
		pr_warn_once("sched_waking: %d: no wakers\n", ret);
}

/*
 * The session was unpublished (no probe can find it any more).
 * Context: process, tprof_sessions_mutex held; waits for the probe.
 */
void tprof_wakers_put(void)
{
	lockdep_assert_held(&tprof_sessions_mutex);
	if (--tprof_waking_users || !tprof_waking_on)
		return;
	tracepoint_probe_unregister(tprof_tp_waking, tprof_probe_waking, NULL);
	tracepoint_synchronize_unregister();
	tprof_waking_on = false;
}
