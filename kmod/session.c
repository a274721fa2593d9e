// SPDX-License-Identifier: GPL-2.0
/*
 * tprof: the session object's state machine (session.h) and the table of
 * published sessions the probes look targets up in (RCU-sched readers),
 * with its limits: one session per target, max_user_sessions per user,
 * TPROF_MAX_UNPRIV_SESSIONS unprivileged ones in all.
 */
#include <linux/lockdep.h>
#include <linux/pid.h>
#include <linux/rcupdate.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/timekeeping.h>

#include "session.h"
#include "tprof.h"

/* Serializes publish and unpublish, and what must not race them. */
DEFINE_MUTEX(tprof_sessions_mutex);
/* Read by probes (preemption or IRQs off: RCU-sched readers). */
static struct tprof_session __rcu *tprof_active[TPROF_MAX_SESSIONS];
/*
 * The slots of tprof_active[] that hold a session, a bit each: the
 * lookups at every context switch of the system visit those alone (one,
 * usually), not all TPROF_MAX_SESSIONS slots. A bit may outlive its
 * slot's pointer for an RCU grace period, or come before it: readers
 * check the pointer.
 */
static unsigned long tprof_active_mask;
static_assert(TPROF_MAX_SESSIONS <= BITS_PER_LONG);

static struct tprof_session *tprof_slot(unsigned int i)
{
	return rcu_dereference_protected(tprof_active[i],
					 lockdep_is_held(&tprof_sessions_mutex));
}

/**
 * tprof_session_next() - the next active session that has @p's process.
 * @p: any task.
 * @pp: set to the process's slot (valid until the RCU-sched section ends).
 * @denied_too: also a process that was denied. A denied process is
 *	nobody's to sample any more, so another session may take it
 *	(tprof_session_follows()): it can be in two sessions, denied in one,
 *	and the lookups that account its exit visit both.
 * @i: the session index to start at; set past the one returned.
 *
 * A task of no followed process is turned away with one load and a
 * compare (tprof_procs_anywhere()), the cost at every context switch of
 * the system; sessions without TPROF_F_CHILDREN have one process, their
 * target: one compare each.
 * Context: preemption or IRQs off (probes).
 * Return: the session or NULL.
 */
struct tprof_session *tprof_session_next(struct task_struct *p,
					 struct tprof_proc **pp,
					 bool denied_too, unsigned int *i)
{
	unsigned long mask = READ_ONCE(tprof_active_mask);
	struct pid *tgid = task_tgid(p);

	if (!tprof_procs_anywhere(p->tgid))
		return NULL;
	for (; (*i = find_next_bit(&mask, TPROF_MAX_SESSIONS, *i)) <
	     TPROF_MAX_SESSIONS; (*i)++) {
		struct tprof_session *s = rcu_dereference_sched(tprof_active[*i]);
		struct tprof_proc *pr;

		if (!s || (s->tgid != tgid && !(s->flags & TPROF_F_CHILDREN)) ||
		    tprof_session_state(s) != TPROF_ACTIVE)
			continue;
		pr = tprof_procs_find(&s->procs, tgid);
		if (!pr || (!denied_too && test_bit(TPROF_P_DENIED, &pr->bits)))
			continue;
		*pp = pr;
		(*i)++;
		return s;
	}
	return NULL;
}

/**
 * tprof_session_next_cgroup() - the next active TPROF_F_CGROUP session.
 * @i: the session index to start at; set past the one returned.
 *
 * Context: preemption or IRQs off (fork and attach probes).
 * Return: the session or NULL.
 */
struct tprof_session *tprof_session_next_cgroup(unsigned int *i)
{
	unsigned long mask = READ_ONCE(tprof_active_mask);

	for (; (*i = find_next_bit(&mask, TPROF_MAX_SESSIONS, *i)) <
	     TPROF_MAX_SESSIONS; (*i)++) {
		struct tprof_session *s = rcu_dereference_sched(tprof_active[*i]);

		if (!s || !s->cgrp || tprof_session_state(s) != TPROF_ACTIVE)
			continue;
		(*i)++;
		return s;
	}
	return NULL;
}

/**
 * tprof_session_find_parked() - the active session that parked @p, which
 *	gives its slot back (tprof_thread_unpark()).
 * @p: a thread past its exit probe (PF_EXITING), being switched in.
 * @tp: set to its slot.
 *
 * By slot, not by process: a parent may have reaped @p's process already
 * (its tgid pid is gone), and @p still has its final stretch to run.
 * Context: sched_switch probe (IRQs off); rare: exiting threads only.
 * Return: the session or NULL.
 */
struct tprof_session *tprof_session_find_parked(struct task_struct *p,
						struct tprof_thread **tp)
{
	unsigned long mask = READ_ONCE(tprof_active_mask);
	unsigned int i;

	for_each_set_bit(i, &mask, TPROF_MAX_SESSIONS) {
		struct tprof_session *s = rcu_dereference_sched(tprof_active[i]);

		if (!s || tprof_session_state(s) != TPROF_ACTIVE)
			continue;
		*tp = tprof_thread_unpark(&s->threads, p);
		if (*tp)
			return s;
	}
	return NULL;
}

/**
 * tprof_session_find() - the active session that reports @p's process.
 * @p: any task.
 * @pp: set to the process's slot (valid until the RCU-sched section ends).
 *
 * Nothing of a denied process; a process that one session holds pending
 * (waiting for a proof it may never get) and another has proven is the
 * latter's: a pending descendant blocks no one (tprof_session_other_has()).
 * The first session found is the answer unless its slot is pending, so a
 * task of one session costs what it did.
 * Context: preemption or IRQs off (probes).
 * Return: the session or NULL.
 */
struct tprof_session *tprof_session_find(struct task_struct *p,
					 struct tprof_proc **pp)
{
	struct tprof_session *s, *first = NULL;
	struct tprof_proc *pr, *first_pr = NULL;
	unsigned int i = 0;

	while ((s = tprof_session_next(p, &pr, false, &i))) {
		if (!test_bit(TPROF_P_PENDING, &pr->bits)) {
			*pp = pr;
			return s;
		}
		if (!first) {
			first = s;
			first_pr = pr;
		}
	}
	if (first)
		*pp = first_pr;
	return first;
}

/*
 * Does @s hold the process of @tgid as its own: followed, neither denied
 * nor pending (a pending process is not proven yet, and may never be: it
 * holds nothing). Context: any.
 */
bool tprof_session_follows(struct tprof_session *s, struct pid *tgid)
{
	struct tprof_proc *pr;
	bool ret;

	rcu_read_lock_sched();
	pr = tprof_procs_find(&s->procs, tgid);
	ret = pr && tprof_proc_owned(pr);
	rcu_read_unlock_sched();
	return ret;
}

/**
 * tprof_session_other_has() - does a published session other than @s
 *	hold the process of @tgid? One process, one session: the probes
 *	report a process to the session that proved it. A process another
 *	session denied is free (a denied child must not lock root out), and
 *	so is one another session holds pending (under Yama
 *	a user's CHILDREN session holds a child it may not attach to pending
 *	for as long as it lives); that session may not admit it while
 *	another holds it (tprof_children_prove()).
 * @s: a session.
 * @tgid: a thread-group pid.
 *
 * Context: process, tprof_sessions_mutex held.
 * Return: true if one does.
 */
bool tprof_session_other_has(struct tprof_session *s, struct pid *tgid)
{
	unsigned int i;

	lockdep_assert_held(&tprof_sessions_mutex);
	for (i = 0; i < TPROF_MAX_SESSIONS; i++) {
		struct tprof_session *o = tprof_slot(i);

		if (o && o != s && tprof_session_follows(o, tgid))
			return true;
	}
	return false;
}

/* Does @s follow the process of @tgid (denied or not)? Context: any. */
bool tprof_session_has(struct tprof_session *s, struct pid *tgid)
{
	bool ret;

	rcu_read_lock_sched();
	ret = !!tprof_procs_find(&s->procs, tgid);
	rcu_read_unlock_sched();
	return ret;
}

/*
 * The task numbered @nr in @ns, pinned (put_task_struct()): the leader
 * of its thread group (PIDTYPE_TGID) or that thread (PIDTYPE_PID); NULL
 * if there is none. Context: process.
 */
struct task_struct *tprof_task_get(struct pid_namespace *ns, pid_t nr,
				   enum pid_type type)
{
	struct task_struct *task;

	rcu_read_lock();
	task = pid_task(find_pid_ns(nr, ns), type);
	if (task)
		get_task_struct(task);
	rcu_read_unlock();
	return task;
}

/**
 * tprof_sessions_of_user() - unprivileged sessions @user holds now.
 * @user: a user.
 *
 * Context: process; takes tprof_sessions_mutex.
 * Return: the count.
 */
unsigned int tprof_sessions_of_user(struct user_struct *user)
{
	unsigned int i, n = 0;

	mutex_lock(&tprof_sessions_mutex);
	for (i = 0; i < TPROF_MAX_SESSIONS; i++) {
		struct tprof_session *o = tprof_slot(i);

		if (o && !o->grant.privileged && o->grant.user == user)
			n++;
	}
	mutex_unlock(&tprof_sessions_mutex);
	return n;
}

/**
 * tprof_session_publish() - IDLE -> ACTIVE: the probes see @s.
 * @s: a session whose rings, table and grant are ready.
 * @refused: set to the TPROF_REFUSED_* of an -EBUSY.
 *
 * One session per target; an unprivileged user holds at most
 * max_user_sessions, and all of them together at most
 * TPROF_MAX_UNPRIV_SESSIONS, so privileged callers always find a slot.
 * Context: process, tprof_sessions_mutex held, probes registered.
 * Return: 0, -EBUSY or -ENOSPC.
 */
int tprof_session_publish(struct tprof_session *s, u32 *refused)
{
	unsigned int nunpriv = 0, nuser = 0;
	int i, free = -1;

	lockdep_assert_held(&tprof_sessions_mutex);
	if (s->tgid && tprof_session_other_has(s, s->tgid)) {
		*refused = TPROF_REFUSED_TARGET_BUSY;
		return -EBUSY;
	}
	for (i = 0; i < TPROF_MAX_SESSIONS; i++) {
		struct tprof_session *o = tprof_slot(i);

		if (!o) {
			if (free < 0)
				free = i;
			continue;
		}
		if (!o->grant.privileged) {
			nunpriv++;
			if (o->grant.user == s->grant.user)
				nuser++;
		}
	}
	if (!s->grant.privileged) {
		if (nuser >= tprof_policy_max_user_sessions()) {
			*refused = TPROF_REFUSED_USER_SESSIONS;
			return -EBUSY;
		}
		if (nunpriv >= TPROF_MAX_UNPRIV_SESSIONS)
			return -ENOSPC;
	}
	if (free < 0)
		return -ENOSPC;
	s->idx = free;
	/* Pairs with the acquire in tprof_poll(): the rings exist. */
	smp_store_release(&s->state, TPROF_ACTIVE);
	rcu_assign_pointer(tprof_active[free], s);
	WRITE_ONCE(tprof_active_mask, tprof_active_mask | BIT(free));
	return 0;
}

/*
 * ACTIVE -> STOPPING: no probe finds @s any more once an RCU
 * grace period has passed (the caller's). Context: process,
 * tprof_sessions_mutex held.
 */
void tprof_session_unpublish(struct tprof_session *s)
{
	lockdep_assert_held(&tprof_sessions_mutex);
	WRITE_ONCE(s->state, TPROF_STOPPING);
	RCU_INIT_POINTER(tprof_active[s->idx], NULL);
	WRITE_ONCE(tprof_active_mask, tprof_active_mask & ~BIT(s->idx));
	s->idx = -1;
}

/* STOPPING -> FINISHED, after every record was written. Context: process. */
void tprof_session_finish(struct tprof_session *s)
{
	/* Pairs with the acquire in tprof_session_finished(). */
	smp_store_release(&s->state, TPROF_FINISHED);
	wake_up_interruptible_all(&s->wq);
}

/* Context: IRQs off (probes): stop_work runs via this CPU's irq_work. */
void tprof_session_request_stop(struct tprof_session *s)
{
	set_bit(TPROF_S_STOP_REQ, &s->bits);
	tprof_rings_kick(&s->rings);
}

/*
 * A thread of a group-dead target was switched out for the last time: the
 * group may be gone now. Context: IRQs off (sched_switch probe).
 */
void tprof_session_kick(struct tprof_session *s)
{
	if (tprof_session_exit_pending(s))
		tprof_rings_kick(&s->rings);
}

/* The DENIED record of process @vpid. Context: IRQs off (this CPU's ring). */
void tprof_session_emit_denied(struct tprof_session *s, u32 vpid, u32 reason)
{
	struct tprof_rec_denied rec = {
		.hdr.type = TPROF_REC_DENIED,
		.hdr.size = sizeof(rec),
		.hdr.time_ns = ktime_get_mono_fast_ns(),
		.pid = vpid,
		.reason = reason,
	};

	tprof_rings_emit(&s->rings, &rec, sizeof(rec));
}

/*
 * @pr leaves the session (PROC_EXIT or DENIED); the session stops after
 * its last process, unless it follows a cgroup (which may fill again).
 * Context: any.
 */
void tprof_session_leave(struct tprof_session *s, struct tprof_proc *pr)
{
	if (tprof_proc_leave(&s->procs, pr) && !s->cgrp)
		tprof_session_request_stop(s);
}

/**
 * tprof_session_deny() - a process of @s stopped being profilable: a
 *	DENIED record says why, once; nothing more of it is sampled or
 *	reported (tprof_session_find() skips it), and it leaves the session.
 * @s: session.
 * @pr: the process.
 * @reason: TPROF_DENIED_*.
 *
 * Context: IRQs off.
 */
void tprof_session_deny(struct tprof_session *s, struct tprof_proc *pr,
			u32 reason)
{
	lockdep_assert_irqs_disabled();
	if (test_and_set_bit(TPROF_P_DENIED, &pr->bits))
		return;
	tprof_session_emit_denied(s, pr->vpid, reason);
	tprof_session_leave(s, pr);
}

/**
 * tprof_session_may_sample() - may @s record user data of @p now?
 * @s: session.
 * @pr: @p's process, as found when @p came in (a slot the session may
 *	have retired since: then @p's process is not its any more).
 * @p: a thread of a process it follows, current on this CPU.
 * @later: set when nothing can be decided yet (an exec is switching the
 *	target's mm and credentials): the caller keeps the sample for later.
 *
 * The permission rule of unprivileged sessions, applied where samples and
 * records are made, not only in the exec probe: a target that stopped
 * qualifying (tprof_policy_check()) leaves the session with a DENIED record.
 * Context: IRQs off (hrtimer, probes, IPIs).
 * Return: true if it may.
 */
bool tprof_session_may_sample(struct tprof_session *s, struct tprof_proc *pr,
			      struct task_struct *p, bool *later)
{
	int ret;

	lockdep_assert_irqs_disabled();
	*later = false;
	/*
	 * Defensive: a slot is freed only after every thread of its process
	 * was accounted (tprof_proc_over()), so @pr should still be @p's.
	 * By number: @p's tgid pid is gone once a parent reaped it, and its
	 * final stretch is still @p's CPU time.
	 */
	if (test_bit(TPROF_P_DENIED, &pr->bits) ||
	    READ_ONCE(pr->tgid_nr) != (u32)p->tgid)
		return false;
	/* a pending process is held to the rule too: only reports wait */
	ret = tprof_policy_check(&s->grant, p);
	if (!ret)
		ret = tprof_policy_label(&s->grant, pr, p);
	if (ret > 0) {
		tprof_session_deny(s, pr, ret);
		return false;
	}
	if (test_bit(TPROF_P_PENDING, &pr->bits))
		return false;
	if (!ret)
		return true;
	*later = true;
	return false;
}

/**
 * tprof_session_may_report() - may @s report what current, a thread of
 *	@pr, does now (a fork, an exec)? The probes of those events run where
 *	current cannot be inside an exec's switch of mm and credentials
 *	(tprof_policy_check_settled()): the rule decides at once, for a
 *	pending process too, and a process that fails it leaves the session
 *	with a DENIED record.
 * @s: session.
 * @pr: current's process in @s.
 *
 * Context: IRQs off (fork and exec probes).
 * Return: TPROF_REPORT_YES, TPROF_REPORT_PENDING (allowed, not proven:
 *	nothing of it is reported yet), or TPROF_REPORT_NO (denied); one
 *	read of @pr's bits decides between the first two.
 */
int tprof_session_may_report(struct tprof_session *s, struct tprof_proc *pr)
{
	unsigned long bits = READ_ONCE(pr->bits);
	int why;

	lockdep_assert_irqs_disabled();
	if ((bits & BIT(TPROF_P_DENIED)) ||
	    READ_ONCE(pr->tgid_nr) != (u32)current->tgid)
		return TPROF_REPORT_NO;
	why = tprof_policy_check_settled(&s->grant) ?:
	      tprof_policy_label(&s->grant, pr, current);
	if (why) {
		tprof_session_deny(s, pr, why);
		return TPROF_REPORT_NO;
	}
	return bits & BIT(TPROF_P_PENDING) ? TPROF_REPORT_PENDING :
	       TPROF_REPORT_YES;
}
