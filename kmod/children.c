// SPDX-License-Identifier: GPL-2.0
/*
 * tprof: following process trees (TPROF_F_CHILDREN) beyond what the fork
 * probe sees: the descendants that exist at ENABLE, who may follow a
 * forked child without a proof of its own (tprof_session.inherit), and
 * the proofs of pending descendants (TPROF_IOC_PROVE).
 *
 * Who may be sampled: a descendant is profiled only as far as the caller
 * may ptrace it, as the session's own proof stands for (attach for stack
 * snapshots, read otherwise). ptrace_may_access() is not exported, and
 * its answer depends on the tracer as a task (Yama's ptrace_scope 1 asks
 * whether the tracer is an ancestor, or a declared ptracer), so the
 * caller proves each descendant as it proved the target: an open
 * /proc/PID/mem or auxv, which procfs opened only after that very check.
 * A child forked by an admitted process needs none when the caller is an
 * ancestor of the target: the child has its parent's ids, LSM label and
 * dumpability, and is the caller's descendant too.
 */
#include <linux/bitops.h>
#include <linux/lockdep.h>
#include <linux/mm.h>
#include <linux/pid.h>
#include <linux/rcupdate.h>
#include <linux/rwsem.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/threads.h>
#include <linux/uaccess.h>

#include "children.h"
#include "records.h"
#include "session.h"
#include "tprof.h"

/* Parents looked at to tell the caller an ancestor of the target, at most. */
#define TPROF_ANCESTRY_MAX	65536

/*
 * @max: the processes the walk may claim (the session's table's limit).
 * Context: process. Return: 0 or -ENOMEM (charged to the caller).
 */
int tprof_walk_alloc(struct tprof_walk *w, u32 max)
{
	w->seen = kvcalloc(BITS_TO_LONGS(PID_MAX_LIMIT), sizeof(long),
			   GFP_KERNEL_ACCOUNT);
	w->got = kvcalloc(max, sizeof(*w->got), GFP_KERNEL_ACCOUNT);
	if (w->seen && w->got)
		return 0;
	tprof_walk_free(w);
	return -ENOMEM;
}

/* Context: process. */
void tprof_walk_free(struct tprof_walk *w)
{
	kvfree(w->seen);
	kvfree(w->got);
	w->seen = NULL;
	w->got = NULL;
}

/**
 * tprof_children_inherit() - may @s admit what an admitted process forks
 *	without a proof of its own?
 * @s: a session being enabled (its grant and target are set).
 *
 * Yes when it is privileged, or when the caller (current) is the target
 * or an ancestor of it: then it is an ancestor of every child too.
 * Context: process (ENABLE), before publish.
 * Return: true if so.
 */
bool tprof_children_inherit(struct tprof_session *s)
{
	struct task_struct *leader, *q;
	unsigned int n = 0;
	bool ret = false;

	if (s->grant.privileged)
		return true;
	rcu_read_lock();
	leader = pid_task(s->tgid, PIDTYPE_TGID);
	for (q = leader; q && q->pid && n < TPROF_ANCESTRY_MAX;
	     q = rcu_dereference(q->real_parent), n++) {
		if (same_thread_group(q, current)) {
			ret = true;
			break;
		}
	}
	rcu_read_unlock();
	return ret;
}

/*
 * A descendant found by the walk: its slot, pending in an unprivileged
 * session, and its PROC record. Context: RCU read side (process).
 * Return: true if it has a slot now.
 */
static bool tprof_walk_join(struct tprof_session *s, struct task_struct *g)
{
	struct tprof_proc *pr;
	unsigned long flags;

	local_irq_save(flags);
	pr = tprof_proc_join(s, g, tprof_vppid(s, g), TPROF_RF_PROC_EXISTING,
			     !s->grant.privileged);
	local_irq_restore(flags);
	/*
	 * The claim before the rest of the list is read, as a fork links its
	 * child before its probe looks the parent up: one of the two sees
	 * the other (the child joins here or in the fork probe).
	 */
	smp_mb();
	return pr;
}

/*
 * After the walk, outside its RCU section, one process at a time: the
 * THREAD records of an admitted descendant; a pending one that fails the
 * session's rule for good (ids, dumpability) is denied now, the rest wait
 * for their proof (and meet the rule at each of their samples and events,
 * one that could not be decided here, in an exec, included).
 * Context: process, tprof_sessions_mutex held.
 */
static void tprof_walk_settle(struct tprof_session *s, struct pid *tgid)
{
	struct task_struct *g;
	struct tprof_proc *pr;
	unsigned long flags;
	int why;

	rcu_read_lock();
	g = pid_task(tgid, PIDTYPE_TGID);
	if (!g)
		goto out;
	if (s->grant.privileged) {
		tprof_emit_threads_of(s, g,
				      __task_pid_nr_ns(g, PIDTYPE_TGID, s->pid_ns));
		goto out;
	}
	why = tprof_policy_check_other(&s->grant, g);
	if (why <= 0)
		goto out;
	local_irq_save(flags);
	pr = tprof_procs_find(&s->procs, tgid);
	if (pr)
		tprof_session_deny(s, pr, why);
	local_irq_restore(flags);
out:
	rcu_read_unlock();
}

/**
 * tprof_children_join_existing() - the descendants of @s's target that
 *	exist now join it (TPROF_F_CHILDREN), but none another session
 *	follows, nor what descends from one.
 * @s: a session just published.
 * @w: the walk's buffers (tprof_walk_alloc()).
 *
 * One pass over the task list, O(processes): it is in creation order (a
 * fork adds its child at the tail, and an orphan is reparented to an
 * older process, its subreaper or init), so a process's parent comes
 * before it, and it descends from the target if its parent does (a bit
 * per tgid). Each claims its slot there: a process forked later by one
 * already claimed joins in the fork probe, never twice. Past
 * TPROF_MAX_PROCS the rest are only counted (one PROC record). What may
 * take longer (threads, checks, records) comes after, out of the RCU
 * section, a process at a time.
 * Context: process, tprof_sessions_mutex held, after publish.
 */
void tprof_children_join_existing(struct tprof_session *s,
				  struct tprof_walk *w)
{
	pid_t target = pid_nr(s->tgid);
	unsigned int ngot = 0, i;
	struct task_struct *g;
	unsigned long flags;
	u32 dropped = 0;

	lockdep_assert_held(&tprof_sessions_mutex);
	if (target <= 0 || target >= PID_MAX_LIMIT)
		return;
	__set_bit(target, w->seen);
	rcu_read_lock();
	for_each_process(g) {
		struct task_struct *parent = rcu_dereference(g->real_parent);
		pid_t nr = task_tgid_nr(g), pnr = task_tgid_nr(parent);

		if ((g->flags & PF_KTHREAD) || nr <= 0 || nr >= PID_MAX_LIMIT ||
		    nr == target || pnr <= 0 || pnr >= PID_MAX_LIMIT ||
		    !test_bit(pnr, w->seen))
			continue;
		if (tprof_session_other_has(s, task_tgid(g)))
			continue;
		__set_bit(nr, w->seen);
		if (ngot >= s->procs.max ||
		    READ_ONCE(s->procs.used) >= s->procs.max) {
			dropped++;
			continue;
		}
		if (tprof_walk_join(s, g))
			w->got[ngot++] = get_pid(task_tgid(g));
	}
	rcu_read_unlock();
	if (dropped) {
		atomic_add(dropped, &s->procs.not_followed);
		local_irq_save(flags);
		tprof_emit_proc(s, NULL, 0, dropped, TPROF_RF_PROC_EXISTING |
				TPROF_RF_PROC_DROPPED | TPROF_RF_PROC_COUNT);
		local_irq_restore(flags);
	}
	for (i = 0; i < ngot; i++) {
		tprof_walk_settle(s, w->got[i]);
		put_pid(w->got[i]);
		cond_resched();
	}
}

/* Is @pr (or NULL) waiting for its proof, and not denied? */
static bool tprof_proc_pending(struct tprof_proc *pr)
{
	return pr && test_bit(TPROF_P_PENDING, &pr->bits) &&
	       !test_bit(TPROF_P_DENIED, &pr->bits);
}

/*
 * Admit or deny pending @task (@why: 0 or TPROF_DENIED_*): its THREAD
 * records, then its samples. Context: process, @task's exec_update_lock
 * held for read (no exec between the proof and this), s->lock held.
 * Return: 0 or -ESRCH (not pending in @s any more).
 */
static int tprof_children_decide(struct tprof_session *s,
				 struct task_struct *task, int why)
{
	struct tprof_proc *pr;
	unsigned long flags;
	int ret = -ESRCH;

	/* no stop writes to the rings meanwhile (tprof_session_stop()) */
	mutex_lock(&tprof_sessions_mutex);
	if (tprof_session_state(s) != TPROF_ACTIVE)
		goto out_unlock;
	rcu_read_lock();
	local_irq_save(flags);
	pr = tprof_procs_find(&s->procs, task_tgid(task));
	if (!tprof_proc_pending(pr)) {
		pr = NULL;
	} else if (!why && tprof_session_other_has(s, task_tgid(task))) {
		/* another session proved it meanwhile: it stays pending */
		pr = NULL;
		ret = -EBUSY;
	} else {
		ret = 0;
		if (why)
			tprof_session_deny(s, pr, why);
	}
	local_irq_restore(flags);
	if (pr && !why) {
		/*
		 * Admitted, then its threads: one created meanwhile has its
		 * THREAD record from the fork probe, or from this walk, or
		 * both (a second one is harmless, as at ENABLE).
		 */
		clear_bit_unlock(TPROF_P_PENDING, &pr->bits);
		/* the bit before the thread list: a fork links, then looks */
		smp_mb__after_atomic();
		tprof_emit_threads_of(s, task, pr->vpid);
	}
	rcu_read_unlock();
out_unlock:
	mutex_unlock(&tprof_sessions_mutex);
	return ret;
}

/* Is @task's process pending in @s? Context: process. */
static bool tprof_children_pending(struct tprof_session *s,
				   struct task_struct *task)
{
	bool ret;

	rcu_read_lock_sched();
	ret = tprof_proc_pending(tprof_procs_find(&s->procs, task_tgid(task)));
	rcu_read_unlock_sched();
	return ret;
}

/**
 * tprof_children_prove() - TPROF_IOC_PROVE: a pending descendant's proof.
 * @s: session of the file.
 * @uarg: struct tprof_ioc_prove.
 *
 * The proof is checked and the process admitted with its
 * exec_update_lock held for read, as ENABLE checks the target's, taken
 * before tprof_sessions_mutex: nobody waits on another process's lock
 * while holding the lock every user needs.
 * Context: process, s->lock held.
 * Return: 0 (admitted, or denied with a DENIED record), -EPERM or -EBADF
 *	(the fd proves nothing of its current mm), -EBUSY (another session
 *	holds it: it stays pending here), -ESRCH, -EINVAL, -EFAULT, -EINTR.
 */
int tprof_children_prove(struct tprof_session *s, const void __user *uarg)
{
	struct tprof_ioc_prove pv;
	struct task_struct *task;
	int ret;

	if (copy_from_user(&pv, uarg, sizeof(pv)))
		return -EFAULT;
	if (pv.pid <= 0 || pv.fd < -1)
		return -EINVAL;
	if (tprof_session_state(s) != TPROF_ACTIVE ||
	    !(s->flags & TPROF_F_CHILDREN))
		return -EINVAL;
	task = tprof_task_get(s->pid_ns, pv.pid, PIDTYPE_TGID);
	if (!task)
		return -ESRCH;
	ret = -ESRCH;
	if (!tprof_children_pending(s, task))
		goto out_put;
	/* held across decide: no exec between the proof and admission */
	ret = down_read_killable(&task->signal->exec_update_lock);
	if (ret)
		goto out_put;
	if (pv.fd < 0)
		ret = TPROF_DENIED_PTRACE;
	else
		/* an attach proof stood for the target: so for the rest */
		ret = tprof_policy_prove(&s->grant, task, pv.fd,
					 s->snapshot_bytes ||
					 (s->flags & TPROF_F_MEM_PROOF));
	if (ret >= 0)
		ret = tprof_children_decide(s, task, ret);
	up_read(&task->signal->exec_update_lock);
out_put:
	put_task_struct(task);
	return ret;
}
