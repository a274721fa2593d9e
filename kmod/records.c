// SPDX-License-Identifier: GPL-2.0
/*
 * tprof: the lifecycle records, PROC, THREAD, THREAD_EXIT, THREAD_STAT,
 * THREAD_OFF and PROC_EXIT, and the process table's joins: what the probes
 * (probes.c) and the session's start and stop (lifetime.c, children.c)
 * emit about a target's processes and threads. Samples are sampler.c's.
 */
#include <linux/cgroup.h>
#include <linux/errno.h>
#include <linux/irqflags.h>
#include <linux/kernel.h>
#include <linux/lockdep.h>
#include <linux/pid.h>
#include <linux/rcupdate.h>
#include <linux/sched/clock.h>
#include <linux/sched/signal.h>
#include <linux/string.h>
#include <linux/timekeeping.h>

#include "offcpu.h"
#include "records.h"
#include "sampler.h"
#include "session.h"
#include "threads.h"
#include "tprof.h"
#include "uwalk.h"

/* A task's comm into a record's field, NUL-terminated. */
void tprof_fill_comm(void *dst, const char *src)
{
	memcpy(dst, src, TASK_COMM_LEN);
	((char *)dst)[TASK_COMM_LEN - 1] = 0;
}

/* Context: IRQs off (this CPU's ring). */
void tprof_emit_thread(struct tprof_session *s, u32 vpid, u32 vtid,
		       const char *comm, u16 flags)
{
	struct tprof_rec_thread rec = {
		.hdr.type = TPROF_REC_THREAD,
		.hdr.flags = flags,
		.hdr.size = sizeof(rec),
		.hdr.time_ns = ktime_get_mono_fast_ns(),
		.pid = vpid,
		.tid = vtid,
	};

	lockdep_assert_irqs_disabled();
	tprof_fill_comm(rec.comm, comm);
	tprof_rings_emit(&s->rings, &rec, sizeof(rec));
}

static void tprof_fill_stat(struct tprof_session *s, struct tprof_thread *t,
			    u16 type, struct tprof_rec_thread_stat *rec)
{
	u64 req = tprof_thread_req_period(t);

	memset(rec, 0, sizeof(*rec));
	rec->hdr.type = type;
	rec->hdr.size = sizeof(*rec);
	rec->hdr.time_ns = ktime_get_mono_fast_ns();
	rec->pid = t->vpid;
	rec->tid = t->vtid;
	rec->on_cpu_ns = t->on_cpu_ns;
	rec->samples = t->samples;
	rec->weight_ns = t->weight_ns;
	rec->lost_samples = t->lost_samples;
	rec->lost_weight_ns = t->lost_weight_ns;
	rec->period_ns = req ? req : t->period_ns;
	memcpy(rec->comm, t->comm, sizeof(rec->comm));
}

/* A THREAD_OFF record (TPROF_F_OFF_CPU), into this CPU's ring or @any. */
static void tprof_emit_off(struct tprof_session *s, const struct tprof_off *o,
			   u32 vpid, u32 vtid, bool any)
{
	struct tprof_rec_thread_off rec;

	tprof_off_fill(o, vpid, vtid, &rec);
	rec.hdr.time_ns = ktime_get_mono_fast_ns();
	if (any)
		tprof_rings_emit_any(&s->rings, &rec, sizeof(rec));
	else
		tprof_rings_emit(&s->rings, &rec, sizeof(rec));
}

/* Context: IRQs off; @t's thread is current (or gone). */
void tprof_thread_emit_exit(struct tprof_session *s, struct tprof_thread *t,
			    u16 type)
{
	struct tprof_rec_thread_stat rec;

	if (s->off_period_ns)
		tprof_emit_off(s, tprof_thread_off(&s->threads, t), t->vpid,
			       t->vtid, false);
	tprof_fill_stat(s, t, type, &rec);
	tprof_rings_emit(&s->rings, &rec, sizeof(rec));
}

/*
 * @pr is gone and every THREAD_EXIT of it written: PROC_EXIT (none for a
 * denied process), it leaves the session, and stop_work frees its slot.
 * Context: IRQs off (this CPU's ring).
 */
void tprof_emit_proc_exit(struct tprof_session *s, struct tprof_proc *pr)
{
	struct tprof_rec_proc_exit rec = {
		.hdr.type = TPROF_REC_PROC_EXIT,
		.hdr.size = sizeof(rec),
		.hdr.time_ns = ktime_get_mono_fast_ns(),
		.pid = pr->vpid,
		.exit_code = READ_ONCE(pr->exit_code),
	};

	lockdep_assert_irqs_disabled();
	if (test_and_set_bit(TPROF_P_EXITED, &pr->bits))
		return;
	/* an exit status is what ptrace may see: not of a pending one */
	if (!test_bit(TPROF_P_DENIED, &pr->bits) &&
	    !test_bit(TPROF_P_PENDING, &pr->bits))
		tprof_rings_emit(&s->rings, &rec, sizeof(rec));
	tprof_session_leave(s, pr);
	set_bit(TPROF_S_EXIT_PENDING, &s->bits);
	tprof_rings_kick(&s->rings);
}

/*
 * The final switch-out of a thread that passed its exit probe (or the
 * final accounting of a stopping session): THREAD_EXIT with all its
 * on-CPU time, then PROC_EXIT if it was the last one after group dead.
 * Context: IRQs off (sched_switch probe under rq->lock, or IPI): no
 * sleeping lock, no allocation; wakeups only via irq_work.
 */
void tprof_thread_exited(struct tprof_session *s, struct tprof_thread *t)
{
	/* Held by its exiting count: the slot may be claimed after burial. */
	struct tprof_proc *pr = t->proc;

	tprof_thread_emit_exit(s, t, TPROF_REC_THREAD_EXIT);
	tprof_thread_bury(&s->threads, t);
	/* Full barrier: orders the THREAD_EXIT before a PROC_EXIT elsewhere. */
	if (atomic_dec_and_test(&pr->exiting))
		tprof_emit_proc_exit(s, pr);
}

/*
 * The PROC record of @task (TPROF_F_CHILDREN, TPROF_F_CGROUP); NULL: no
 * name, no cgroup. Context: IRQs off.
 */
void tprof_emit_proc(struct tprof_session *s, struct task_struct *task,
		     u32 vpid, u32 ppid, u16 flags)
{
	struct tprof_rec_proc rec = {
		.hdr.type = TPROF_REC_PROC,
		.hdr.flags = flags,
		.hdr.size = sizeof(rec),
		.hdr.time_ns = ktime_get_mono_fast_ns(),
		.pid = vpid,
		.ppid = ppid,
	};

	if (task) {
		tprof_fill_comm(rec.comm, task->comm);
		/* its css_set holds the cgroup; RCU holds the css_set */
		rcu_read_lock();
		rec.cgroup_id = cgroup_id(task_dfl_cgroup(task));
		rcu_read_unlock();
	}
	tprof_rings_emit(&s->rings, &rec, sizeof(rec));
}

/* @task's parent's tgid in @s's namespace. Context: RCU read side. */
u32 tprof_vppid(struct tprof_session *s, struct task_struct *task)
{
	return __task_pid_nr_ns(rcu_dereference(task->real_parent),
				PIDTYPE_TGID, s->pid_ns);
}

/**
 * tprof_proc_join() - a process joins @s (TPROF_F_CHILDREN): its slot,
 *	then its PROC record; past TPROF_MAX_PROCS a PROC record that says
 *	it is not followed.
 * @s: session.
 * @task: the process's leader (pids attached).
 * @ppid: the PROC record's ppid.
 * @flags: TPROF_RF_PROC_* of the record.
 * @pending: it joins pending (TPROF_RF_PROC_PENDING): nothing of it is
 *	reported until the caller proves it may ptrace it.
 *
 * Context: IRQs off (this CPU's ring).
 * Return: its slot, or NULL if it was followed already or is not now.
 */
struct tprof_proc *tprof_proc_join(struct tprof_session *s,
				   struct task_struct *task, u32 ppid,
				   u16 flags, bool pending)
{
	u32 vpid = __task_pid_nr_ns(task, PIDTYPE_TGID, s->pid_ns);
	struct tprof_proc *pr;
	bool existed;

	lockdep_assert_irqs_disabled();
	pr = tprof_procs_claim(&s->procs, task_tgid(task), vpid,
			       tprof_policy_label_of(task),
			       pending ? BIT(TPROF_P_PENDING) : 0, &existed);
	if (existed)
		return NULL;
	if (!pr)
		flags = TPROF_RF_PROC_DROPPED;
	else if (pending)
		flags |= TPROF_RF_PROC_PENDING;
	/* a pid and a parent, no name, until the caller proves it */
	tprof_emit_proc(s, pr && pending ? NULL : task, vpid, ppid, flags);
	return pr;
}

/* Context: process, RCU read side; THREAD records of @leader's threads. */
void tprof_emit_threads_of(struct tprof_session *s, struct task_struct *leader,
			   u32 vpid)
{
	struct task_struct *t;
	unsigned long flags;

	for_each_thread(leader, t) {
		u32 vtid = __task_pid_nr_ns(t, PIDTYPE_PID, s->pid_ns);

		local_irq_save(flags);
		tprof_emit_thread(s, vpid, vtid, t->comm,
				  TPROF_RF_THREAD_EXISTING);
		local_irq_restore(flags);
	}
}

/*
 * Context: process, right after ENABLE published the session: the PROC
 * (TPROF_F_CHILDREN) and THREAD records of the target; its descendants
 * are children.c's.
 */
void tprof_procs_emit_existing(struct tprof_session *s)
{
	struct task_struct *leader;
	unsigned long flags;

	rcu_read_lock();
	leader = pid_task(s->tgid, PIDTYPE_TGID);
	/* the target's slot was claimed before publish (lifetime.c) */
	if (leader && (s->flags & TPROF_F_CHILDREN)) {
		local_irq_save(flags);
		tprof_emit_proc(s, leader, s->vpid, tprof_vppid(s, leader),
				TPROF_RF_PROC_EXISTING);
		local_irq_restore(flags);
	}
	if (leader)
		tprof_emit_threads_of(s, leader, s->vpid);
	rcu_read_unlock();
}

/*
 * TPROF_F_OFF_CPU: THREAD_OFF records for the threads of followed
 * processes that have no slot: they never ran while the session was
 * enabled, so all of it was off-CPU, in the state they are in now.
 * Context: process, session stopped.
 */
static void tprof_emit_never_ran(struct tprof_session *s, u64 end)
{
	u32 i, n = 1U << s->procs.bits;
	struct tprof_off o;

	rcu_read_lock();
	for (i = 0; i < n; i++) {
		struct tprof_proc *pr = &s->procs.slots[i];
		struct task_struct *leader, *p;

		if (READ_ONCE(pr->state) != TPROF_PROC_LIVE ||
		    test_bit(TPROF_P_DENIED, &pr->bits))
			continue;
		leader = pid_task(pr->tgid, PIDTYPE_TGID);
		if (!leader)
			continue;
		for_each_thread(leader, p) {
			unsigned int st = READ_ONCE(p->__state);
			u64 begin = max(p->start_time, s->start_ns);

			if ((p->flags & PF_EXITING) ||
			    tprof_thread_get(&s->threads, p->pid, false))
				continue;
			memset(&o, 0, sizeof(o));
			o.period_ns = s->off_period_ns;
			o.begin_ns = begin;
			/* runnable if TASK_RUNNING: preempted, or woken */
			o.state = tprof_off_state(false, st, p);
			o.ns[o.state - 1] = end > begin ? end - begin : 0;
			o.unsampled_ns = o.ns[o.state - 1];
			tprof_emit_off(s, &o, pr->vpid,
				       __task_pid_nr_ns(p, PIDTYPE_PID, s->pid_ns),
				       true);
		}
	}
	rcu_read_unlock();
}

/*
 * Context: process, session stopped (no producer left): THREAD_STAT for
 * every thread still alive; THREAD_EXIT for one parked on its way out.
 * With TPROF_F_OFF_CPU each comes with its THREAD_OFF, a wait going on
 * now closed at the end. With TPROF_F_CHILDREN, the process totals.
 */
void tprof_threads_emit_stats(struct tprof_session *s)
{
	u32 i, n = 1U << s->threads.bits;
	u64 now = local_clock();

	for (i = 0; i < n; i++) {
		struct tprof_thread *t = &s->threads.slots[i];
		struct tprof_rec_thread_stat rec;
		unsigned long flags;

		if (t->key == TPROF_TID_EXITING && t->parked) {
			/* past its exit probe, not yet at its final switch */
			local_irq_save(flags);
			tprof_thread_unpark(&s->threads, t->parked);
			tprof_thread_exited(s, t);
			local_irq_restore(flags);
			continue;
		}
		if (!t->key || (t->key & TPROF_TID_DEAD) || !t->started)
			continue;	/* CLAIMING has the DEAD bit */
		if (s->off_period_ns) {
			struct tprof_off *o = tprof_thread_off(&s->threads, t);

			tprof_off_close(o, now);
			tprof_emit_off(s, o, t->vpid, t->vtid, true);
		}
		tprof_fill_stat(s, t, TPROF_REC_THREAD_STAT, &rec);
		tprof_rings_emit_any(&s->rings, &rec, sizeof(rec));
		cond_resched();
	}
	if (s->off_period_ns)
		tprof_emit_never_ran(s, ktime_get_ns());
	if (s->flags & TPROF_F_CHILDREN) {
		struct tprof_rec_proc rec = {
			.hdr.type = TPROF_REC_PROC,
			.hdr.flags = TPROF_RF_PROC_TOTALS,
			.hdr.size = sizeof(rec),
			.hdr.time_ns = ktime_get_mono_fast_ns(),
			.pid = atomic_read(&s->procs.joined),
			.ppid = atomic_read(&s->procs.not_followed),
		};

		tprof_rings_emit_any(&s->rings, &rec, sizeof(rec));
	}
}
