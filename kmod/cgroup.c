// SPDX-License-Identifier: GPL-2.0
/*
 * tprof: a cgroup v2 subtree as a session's target (TPROF_F_CGROUP), as
 * perf -G takes one: by fd, root only. Membership is by process, kept in
 * the session's process table as TPROF_F_CHILDREN keeps a tree, and
 * changes only at the events that change a process's cgroup:
 *
 * - ENABLE: one pass over the task list joins the processes there.
 * - fork (sched_process_fork): a new process whose cgroup is in the
 *   subtree joins, whoever forked it (cgroup_post_fork() placed it before
 *   the probe; CLONE_INTO_CGROUP too).
 * - a move (the cgroup_attach_task tracepoint, after the move, once per
 *   process moved): into the subtree joins (PROC, TPROF_RF_PROC_MOVED),
 *   out of it leaves (DENIED, TPROF_DENIED_CGROUP).
 *
 * So a context switch pays nothing for it: the sched_switch probe finds a
 * process that joined by its table, as any other, and turns every other
 * task away with the one filter word it always reads. The cost is at fork
 * (one load while no cgroup session exists; then a walk up the cgroup's
 * ancestors[] per cgroup session) and at cgroup moves (the kernel formats
 * the destination's path for the tracepoint while a probe is on it: the
 * probe is registered only while a cgroup session exists).
 *
 * Races with ENABLE's pass: the session is published, then a full barrier,
 * then the pass; a fork or move links the task or switches its css_set,
 * then a full barrier, then looks for sessions. One of the two sees the
 * other; a process both see joins once (a claim finds its slot).
 */
#include <linux/cgroup.h>
#include <linux/err.h>
#include <linux/irqflags.h>
#include <linux/lockdep.h>
#include <linux/pid.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/workqueue.h>

#include "cgroup.h"
#include "children.h"
#include "records.h"
#include "session.h"
#include "tprof.h"

unsigned int tprof_cgroup_sessions;

/**
 * tprof_cgroup_resolve() - the cgroup of @fd into @s->cgrp.
 * @s: a session being enabled.
 * @fd: an fd of a cgroup v2 directory.
 *
 * Context: process.
 * Return: 0 or -EBADF (not a cgroup v2 directory).
 */
int tprof_cgroup_resolve(struct tprof_session *s, int fd)
{
	struct cgroup *cgrp;

	cgrp = cgroup_get_from_fd(fd);
	if (IS_ERR(cgrp))
		return PTR_ERR(cgrp);
	s->cgrp = cgrp;
	return 0;
}

/* Context: process; no probe can find @s any more (or it never could). */
void tprof_cgroup_release(struct tprof_session *s)
{
	if (s->cgrp)
		cgroup_put(s->cgrp);
	s->cgrp = NULL;
}

/*
 * @s was published (@on) or is being unpublished: the count the fork and
 * attach probes test first. Context: process, tprof_sessions_mutex held.
 */
void tprof_cgroup_published(struct tprof_session *s, bool on)
{
	lockdep_assert_held(&tprof_sessions_mutex);
	if (!s->cgrp)
		return;
	WRITE_ONCE(tprof_cgroup_sessions, tprof_cgroup_sessions + (on ? 1 : -1));
}

/* Is @p's process (its main thread's cgroup) in @s's subtree? RCU reader. */
static bool tprof_cgroup_has(struct tprof_session *s, struct task_struct *p)
{
	return cgroup_is_descendant(task_dfl_cgroup(p), s->cgrp);
}

/*
 * @leader's process joins @s: its slot and PROC record (@flags), then a
 * THREAD record per thread (@threads) or none (a fork: its probe writes the
 * child's). Context: IRQs off, RCU reader.
 * Return: its slot, or NULL (there already, or no room).
 */
static struct tprof_proc *tprof_cgroup_join(struct tprof_session *s,
					    struct task_struct *leader,
					    u16 flags, bool threads)
{
	struct tprof_proc *pr;

	pr = tprof_proc_join(s, leader, tprof_vppid(s, leader), flags, false);
	if (pr && threads) {
		struct task_struct *t;

		for_each_thread(leader, t)
			tprof_emit_thread(s, pr->vpid,
					  __task_pid_nr_ns(t, PIDTYPE_PID,
							   s->pid_ns),
					  t->comm, 0);
	}
	return pr;
}

/* Does a session other than @s follow @p's process? Context: probes. */
static bool tprof_cgroup_taken(struct tprof_session *s, struct task_struct *p)
{
	struct tprof_session *o;
	struct tprof_proc *pr;
	unsigned int i = 0;

	while ((o = tprof_session_next(p, &pr, false, &i)))
		if (o != s)
			return true;
	return false;
}

/**
 * tprof_cgroup_join_existing() - the processes in @s's subtree now join
 *	it, but none another session follows.
 * @s: a TPROF_F_CGROUP session just published.
 * @w: the walk's buffers (tprof_walk_alloc()).
 *
 * One pass over the task list under RCU: each claims its slot there (a
 * process forked or moved in later joins in its probe); a process moved
 * out between the test and the claim, which the attach probe may have
 * looked for before the claim, is tested again after it. Past
 * the table's limit (cgroup_procs_bits, procs.c) the rest are only
 * counted (one PROC record). The THREAD
 * records come after, out of the RCU section, a process at a time.
 * Context: process, tprof_sessions_mutex held, after publish.
 */
void tprof_cgroup_join_existing(struct tprof_session *s, struct tprof_walk *w)
{
	unsigned int ngot = 0, i;
	struct task_struct *g;
	struct tprof_proc *pr;
	unsigned long flags;
	u32 dropped = 0;

	lockdep_assert_held(&tprof_sessions_mutex);
	/* the publish before the list: pairs with the probes' barriers */
	smp_mb();
	rcu_read_lock();
	for_each_process(g) {
		if ((g->flags & PF_KTHREAD) || !tprof_cgroup_has(s, g) ||
		    tprof_session_other_has(s, task_tgid(g)))
			continue;
		if (ngot >= s->procs.max ||
		    READ_ONCE(s->procs.used) >= s->procs.max) {
			dropped++;
			continue;
		}
		local_irq_save(flags);
		pr = tprof_proc_join(s, g, tprof_vppid(s, g),
				     TPROF_RF_PROC_EXISTING, false);
		/* the claim before the second look: pairs with the move's */
		smp_mb();
		if (pr && !tprof_cgroup_has(s, g))
			tprof_session_deny(s, pr, TPROF_DENIED_CGROUP);
		local_irq_restore(flags);
		if (pr)
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
		rcu_read_lock();
		g = pid_task(w->got[i], PIDTYPE_TGID);
		if (g && tprof_session_follows(s, w->got[i]))
			tprof_emit_threads_of(s, g,
					      __task_pid_nr_ns(g, PIDTYPE_TGID,
							       s->pid_ns));
		rcu_read_unlock();
		put_pid(w->got[i]);
		cond_resched();
	}
}

/**
 * tprof_cgroup_fork() - @child, a new process, joins every cgroup session
 *	whose subtree it was forked into (and no other session has it).
 * @parent: its parent (current, or the one CLONE_PARENT named).
 * @child: the new process, before it first runs.
 *
 * Context: the fork probe (preemption off), tprof_cgroup_any() seen.
 */
void tprof_cgroup_fork(struct task_struct *parent, struct task_struct *child)
{
	struct tprof_proc *pr, *ppr;
	struct tprof_session *s;
	unsigned long flags;
	unsigned int i = 0;

	/* no program's: a root cgroup's kthreadd forks kernel threads */
	if (child->flags & PF_KTHREAD)
		return;
	/* linked and in its cgroup before this: pairs with ENABLE's */
	smp_mb();
	rcu_read_lock();
	local_irq_save(flags);
	while ((s = tprof_session_next_cgroup(&i))) {
		if (!tprof_cgroup_has(s, child) || tprof_cgroup_taken(s, child))
			continue;
		pr = tprof_cgroup_join(s, child, 0, false);
		if (!pr)
			continue;
		/*
		 * Moved out between the look and the claim? cgroup_post_fork()
		 * made it movable before this probe runs, and the move's probe
		 * found no slot then. The second look, as ENABLE's walk does:
		 * pairs with the move's.
		 */
		smp_mb();
		if (!tprof_cgroup_has(s, child)) {
			tprof_session_deny(s, pr, TPROF_DENIED_CGROUP);
			continue;
		}
		tprof_emit_thread(s, pr->vpid,
				  __task_pid_nr_ns(child, PIDTYPE_PID,
						   s->pid_ns),
				  child->comm, 0);
		/* its mappings are copies of its parent's (dup_mmap()) */
		ppr = tprof_procs_find(&s->procs, task_tgid(current));
		if (ppr && !test_bit(TPROF_P_GUARDED, &ppr->bits))
			clear_bit(TPROF_P_GUARDED, &pr->bits);
	}
	local_irq_restore(flags);
	rcu_read_unlock();
}

/**
 * tprof_cgroup_attach() - @task's process was moved between cgroups: it
 *	joins the cgroup sessions whose subtree it is in now, and leaves
 *	those whose subtree it left.
 * @task: the task moved (with @threadgroup, its process's leader).
 * @threadgroup: the whole process was moved (cgroup.procs).
 *
 * A thread moved alone (threaded cgroups) counts where its process's main
 * thread is: only its leader's moves change anything. Threads of a
 * process that joins and are running now are accounted from the kick
 * that stop_work sends (TPROF_S_KICK), or their next switch-in.
 * Context: the attach probe (after the move; cgroup_mutex and a spinlock
 * held, preemption off).
 */
void tprof_cgroup_attach(struct task_struct *task, bool threadgroup)
{
	struct tprof_session *s;
	struct tprof_proc *pr;
	unsigned long flags;
	unsigned int i = 0;

	if (!thread_group_leader(task) ||
	    (task->flags & (PF_KTHREAD | PF_EXITING)))
		return;
	/* its new css_set before the tables: pairs with ENABLE's */
	smp_mb();
	rcu_read_lock();
	local_irq_save(flags);
	while ((s = tprof_session_next_cgroup(&i))) {
		bool in = tprof_cgroup_has(s, task);

		pr = tprof_procs_find(&s->procs, task_tgid(task));
		if (pr && !in) {
			tprof_session_deny(s, pr, TPROF_DENIED_CGROUP);
			continue;
		}
		if (pr || !in || tprof_cgroup_taken(s, task))
			continue;
		if (tprof_cgroup_join(s, task, TPROF_RF_PROC_MOVED, true)) {
			set_bit(TPROF_S_KICK, &s->bits);
			schedule_work(&s->stop_work);
		}
	}
	local_irq_restore(flags);
	rcu_read_unlock();
}
