// SPDX-License-Identifier: GPL-2.0
/*
 * tprof: a session's lifetime, as the ioctls and the target drive it:
 * ENABLE (check, charge, publish, start), DISABLE, the end of the target
 * (PROC_EXIT once its group is gone), denial, close; pid namespaces. The
 * permission rules are policy.c's, the state machine session.c's.
 */
#include <linux/lockdep.h>
#include <linux/pid.h>
#include <linux/pid_namespace.h>
#include <linux/rcupdate.h>
#include <linux/rwsem.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>
#include <linux/uaccess.h>

#include "budget.h"
#include "cgroup.h"
#include "children.h"
#include "lifetime.h"
#include "probes.h"
#include "records.h"
#include "sampler.h"
#include "session.h"
#include "tprof.h"
#include "uwalk.h"
#include "wakers.h"

/* Reader wakeup period while data is pending (irq_work covers bursts). */
#define TPROF_TICK_MS	50

/* Process context: every thread of the process passed exit_notify(). */
static bool tprof_group_gone(struct pid *tgid, s32 *code)
{
	struct task_struct *leader, *t;
	bool gone = true;

	rcu_read_lock();
	leader = pid_task(tgid, PIDTYPE_TGID);
	if (leader) {
		for_each_thread(leader, t) {
			if (!READ_ONCE(t->exit_state)) {
				gone = false;
				break;
			}
		}
		/* What wait(2) reports for the process. */
		if (gone)
			*code = (READ_ONCE(leader->signal->flags) &
				 SIGNAL_GROUP_EXIT) ?
				READ_ONCE(leader->signal->group_exit_code) :
				READ_ONCE(leader->exit_code);
	}
	rcu_read_unlock();
	/* Pairs with the exit path's release of exit_state: their probes ran. */
	smp_mb();
	return gone;
}

/*
 * After group dead: once the group is gone, no exit probe can come, so the
 * group's reference on @pr->exiting drops; PROC_EXIT follows the last
 * THREAD_EXIT (here, or at the last exiting thread's final switch-out).
 * Context: process (stop_work).
 * Return: false if the group is not gone yet.
 */
static bool tprof_proc_check_exit(struct tprof_session *s,
				  struct tprof_proc *pr)
{
	s32 code = READ_ONCE(pr->exit_code);

	if (!tprof_group_gone(pr->tgid, &code))
		return false;
	mutex_lock(&tprof_sessions_mutex);
	/* Only while ACTIVE: a stopped session's rings have no producer. */
	if (tprof_session_state(s) == TPROF_ACTIVE &&
	    !test_and_set_bit(TPROF_P_GROUP_GONE, &pr->bits)) {
		WRITE_ONCE(pr->exit_code, code);
		local_irq_disable();
		if (atomic_dec_and_test(&pr->exiting))
			tprof_emit_proc_exit(s, pr);
		local_irq_enable();
	}
	mutex_unlock(&tprof_sessions_mutex);
	return true;
}

/*
 * Every process whose group died: gone yet? Then free the slots of those
 * that are over. Processes still dying keep TPROF_S_EXIT_PENDING set, so
 * the tick looks again. Context: process (stop_work: one at a time).
 */
static void tprof_session_check_exits(struct tprof_session *s)
{
	u32 i, n = 1U << s->procs.bits;
	bool pending = false;

	clear_bit(TPROF_S_EXIT_PENDING, &s->bits);
	/* Pairs with set_bit() after the exit probe's own bit. */
	smp_mb__after_atomic();
	for (i = 0; i < n; i++) {
		struct tprof_proc *pr = &s->procs.slots[i];

		if (READ_ONCE(pr->state) != TPROF_PROC_LIVE ||
		    !test_bit(TPROF_P_GROUP_DEAD, &pr->bits) ||
		    test_bit(TPROF_P_GROUP_GONE, &pr->bits))
			continue;
		if (!tprof_proc_check_exit(s, pr))
			pending = true;
		cond_resched();
	}
	if (pending)
		set_bit(TPROF_S_EXIT_PENDING, &s->bits);
	if (tprof_session_state(s) == TPROF_ACTIVE)
		tprof_procs_sweep(&s->procs);
}

static void tprof_session_stop_work(struct work_struct *work)
{
	struct tprof_session *s = container_of(work, struct tprof_session,
					       stop_work);

	if (tprof_session_exit_pending(s))
		tprof_session_check_exits(s);
	/* processes moved into a cgroup session: their running threads */
	if (test_and_clear_bit(TPROF_S_KICK, &s->bits)) {
		mutex_lock(&tprof_sessions_mutex);
		if (tprof_session_state(s) == TPROF_ACTIVE)
			tprof_sampler_start(s);
		mutex_unlock(&tprof_sessions_mutex);
	}
	if (test_bit(TPROF_S_STOP_REQ, &s->bits))
		tprof_session_stop(s);
}

/* Also the fallback that sees a dead group go when no kick came. */
static void tprof_session_tick(struct work_struct *work)
{
	struct tprof_session *s = container_of(to_delayed_work(work),
					       struct tprof_session, tick);

	if (wq_has_sleeper(&s->wq) && !tprof_rings_empty(&s->rings))
		wake_up_interruptible_all(&s->wq);
	if (tprof_session_finished(s))
		return;
	if (tprof_session_exit_pending(s))
		schedule_work(&s->stop_work);
	schedule_delayed_work(&s->tick, msecs_to_jiffies(TPROF_TICK_MS));
}

struct tprof_session *tprof_session_new(void)
{
	struct tprof_session *s = kzalloc(sizeof(*s), GFP_KERNEL_ACCOUNT);

	if (!s)
		return NULL;
	mutex_init(&s->lock);
	init_llist_head(&s->uwalk_gc);
	init_waitqueue_head(&s->wq);
	INIT_WORK(&s->stop_work, tprof_session_stop_work);
	INIT_DELAYED_WORK(&s->tick, tprof_session_tick);
	s->idx = -1;
	return s;
}

static void tprof_session_free(struct tprof_session *s)
{
	tprof_rings_free(&s->rings);
	tprof_budget_put(s->budget);
	tprof_policy_release(&s->grant);
	tprof_threads_free(&s->threads);
	tprof_uwalk_free_all(s);
	tprof_procs_free(&s->procs);
	tprof_cgroup_release(s);
	if (s->tgid)
		put_pid(s->tgid);
	if (s->pid_ns)
		put_pid_ns(s->pid_ns);
	kfree(s);
}

/* Context: process; the file is being closed (no ioctl or read left). */
void tprof_session_release(struct tprof_session *s)
{
	if (s->state != TPROF_IDLE) {
		tprof_session_stop(s);
		/*
		 * No producer is left: flush wakeups (they queue stop_work),
		 * then the tick (it may queue stop_work too), then stop_work.
		 */
		tprof_rings_sync(&s->rings);
		cancel_delayed_work_sync(&s->tick);
		cancel_work_sync(&s->stop_work);
	}
	tprof_session_free(s);
}

/**
 * tprof_session_stop() - end sampling; the rings stay readable.
 * @s: session.
 *
 * Order: unpublish, RCU grace period (no probe or IPI can pick @s any
 * more), drop every CPU's reference (timers cancelled, last THREAD_EXITs),
 * unregister probes if this was the last session, then report live threads
 * and finish. Idempotent. Context: process.
 */
void tprof_session_stop(struct tprof_session *s)
{
	enum tprof_state st;

	mutex_lock(&tprof_sessions_mutex);
	st = tprof_session_state(s);
	if (st != TPROF_ACTIVE)
		goto out_unlock;
	tprof_session_unpublish(s);
	tprof_cgroup_published(s, false);
	synchronize_rcu();
	tprof_sampler_stop(s, tprof_thread_exited);
	if (s->cgrp)
		tprof_probes_put_cgroup();
	if (s->off_period_ns)
		tprof_wakers_put();
	tprof_probes_put();
	tprof_threads_emit_stats(s);
	tprof_rings_flush_lost(&s->rings);
	tprof_session_finish(s);
out_unlock:
	mutex_unlock(&tprof_sessions_mutex);
}

/*
 * The rings' callback (irq_work: hardirq, or a kthread on PREEMPT_RT):
 * wake readers, and queue stop_work when there is something for it.
 */
static void tprof_session_notify(void *ctx)
{
	struct tprof_session *s = ctx;

	if (test_bit(TPROF_S_STOP_REQ, &s->bits) ||
	    tprof_session_exit_pending(s))
		schedule_work(&s->stop_work);
	wake_up_interruptible_all(&s->wq);
}

static int tprof_enable_check(const struct tprof_ioc_enable *e)
{
	if (e->flags & ~TPROF_F_ALL)
		return -EINVAL;
	/* refused..limit_kb are out only: a retry may pass them back */
	if (e->__pad || e->__pad2)
		return -EINVAL;
	/* a cgroup's processes need no proof: root only (policy.c) */
	if (e->flags & TPROF_F_CGROUP) {
		if (e->pid || e->cgroup_fd < 0 ||
		    (e->flags & (TPROF_F_AUXV_PROOF | TPROF_F_MEM_PROOF)))
			return -EINVAL;
	} else if (e->pid <= 0 || e->cgroup_fd) {
		return -EINVAL;
	}
	if (!(e->flags & TPROF_F_AUXV_PROOF) && e->auxv_fd)
		return -EINVAL;
	if (!(e->flags & TPROF_F_MEM_PROOF) && e->mem_fd)
		return -EINVAL;
	if (!(e->flags & TPROF_F_USER_SNAPSHOT) &&
	    (e->snapshot_bytes ||
	     (e->flags & (TPROF_F_SNAPSHOT_BELOW | TPROF_F_USTACK_CHAIN))))
		return -EINVAL;
	if (e->snapshot_bytes % 8 ||
	    e->snapshot_bytes > TPROF_MAX_SNAPSHOT_BYTES)
		return -EINVAL;
	if (e->period_ns && (e->period_ns < TPROF_MIN_PERIOD_NS ||
			     e->period_ns > TPROF_MAX_PERIOD_NS))
		return -EINVAL;
	if (!(e->flags & TPROF_F_OFF_CPU) &&
	    (e->off_cpu_period_ns ||
	     (e->flags & (TPROF_F_NO_CPU_SAMPLES | TPROF_F_WAKER_STACKS))))
		return -EINVAL;
	if (e->off_cpu_period_ns &&
	    (e->off_cpu_period_ns < TPROF_MIN_PERIOD_NS ||
	     e->off_cpu_period_ns > TPROF_MAX_PERIOD_NS))
		return -EINVAL;
	if (e->max_user_frames > TPROF_MAX_USER_FRAMES)
		return -EINVAL;
	if (!(e->flags & TPROF_F_KERNEL_STACK) && e->max_kernel_frames)
		return -EINVAL;
	if (e->max_kernel_frames > TPROF_MAX_KERNEL_FRAMES)
		return -EINVAL;
	if (e->ring_bytes && (!is_power_of_2(e->ring_bytes) ||
			      e->ring_bytes < TPROF_MIN_RING_BYTES ||
			      e->ring_bytes > TPROF_MAX_RING_BYTES))
		return -EINVAL;
	return 0;
}

/* Resolves the target process (a user process) into s->tgid. */
static int tprof_enable_resolve(struct tprof_session *s, pid_t nr)
{
	struct task_struct *task;
	int ret = 0;

	task = tprof_task_get(task_active_pid_ns(current), nr, PIDTYPE_TGID);
	if (!task)
		return -ESRCH;
	if (task->flags & PF_KTHREAD)
		ret = -EINVAL;
	else
		s->tgid = get_pid(task_tgid(task));
	put_task_struct(task);
	return ret;
}

/*
 * The target's slot in the process table, before publish, with the LSM
 * label it has now: earlier than the proof's check, so that a change
 * after the proof was opened is a change (tprof_policy_label()).
 */
static int tprof_enable_root(struct tprof_session *s)
{
	struct task_struct *task;
	bool existed;
	u32 label;

	task = get_pid_task(s->tgid, PIDTYPE_TGID);
	if (!task)
		return -ESRCH;
	label = tprof_policy_label_of(task);
	put_task_struct(task);
	return tprof_procs_claim(&s->procs, s->tgid, s->vpid, label, 0,
				 &existed) ?
	       0 : -ENOMEM;
}

/*
 * Right after publish, under tprof_sessions_mutex, so that no stop (which
 * takes it) writes to the rings at the same time: the THREAD records of
 * the threads that exist, sampling of those already running, and group
 * death that happened before the probes could see it.
 */
static void tprof_enable_start(struct tprof_session *s, struct tprof_walk *w)
{
	u32 i, n = 1U << s->procs.bits;
	bool any = false;

	lockdep_assert_held(&tprof_sessions_mutex);
	tprof_procs_emit_existing(s);
	if (s->cgrp)
		tprof_cgroup_join_existing(s, w);
	else if (s->flags & TPROF_F_CHILDREN)
		tprof_children_join_existing(s, w);
	tprof_sampler_start(s);
	schedule_delayed_work(&s->tick, msecs_to_jiffies(TPROF_TICK_MS));
	/* signal->live drops before the exit probe: see it ourselves. */
	rcu_read_lock();
	for (i = 0; i < n; i++) {
		struct tprof_proc *pr = &s->procs.slots[i];
		struct task_struct *leader;

		if (READ_ONCE(pr->state) != TPROF_PROC_LIVE)
			continue;
		leader = pid_task(pr->tgid, PIDTYPE_TGID);
		if ((!leader || !atomic_read(&leader->signal->live)) &&
		    !test_and_set_bit(TPROF_P_GROUP_DEAD, &pr->bits))
			any = true;
	}
	rcu_read_unlock();
	if (any) {
		set_bit(TPROF_S_EXIT_PENDING, &s->bits);
		schedule_work(&s->stop_work);
	}
}

/*
 * A TPROF_F_CGROUP session's probes, publish and start: no target to
 * check (its caller is privileged), the cgroup's moves watched before
 * publish. Context: process, s->lock held.
 */
static int tprof_enable_publish_cgroup(struct tprof_session *s,
				       struct tprof_ioc_enable *e,
				       struct tprof_walk *w)
{
	int ret;

	mutex_lock(&tprof_sessions_mutex);
	ret = tprof_probes_get();
	if (ret)
		goto out_unlock;
	ret = tprof_probes_get_cgroup();
	if (ret)
		goto err_put_probes;
	s->start_ns = ktime_get_ns();
	ret = tprof_session_publish(s, &e->refused);
	if (ret)
		goto err_put_cgroup;
	/* before the walk: the fork and attach probes look from here on */
	tprof_cgroup_published(s, true);
	if (s->off_period_ns)
		tprof_wakers_get();
	tprof_enable_start(s, w);
	mutex_unlock(&tprof_sessions_mutex);
	return 0;

err_put_cgroup:
	tprof_probes_put_cgroup();
err_put_probes:
	tprof_probes_put();
out_unlock:
	mutex_unlock(&tprof_sessions_mutex);
	return ret;
}

/*
 * The target's side of the permission check, probes, publish and start,
 * with the target's exec_update_lock held for read (as mm_access() checks):
 * an exec either completed before (its new mm fails the proof) or
 * switches mm and credentials after the probes see the session (the exec
 * probe and the sampling path check it). The proof is checked first,
 * without waiting on anything, and the lock is taken before
 * tprof_sessions_mutex: nobody waits on another process's lock (a user
 * may hold their own process's in an exec) while holding the lock every
 * user needs. Context: process, s->lock held.
 */
static int tprof_enable_publish(struct tprof_session *s,
				struct tprof_ioc_enable *e,
				struct tprof_walk *w)
{
	struct task_struct *task;
	int ret;

	if (s->cgrp)
		return tprof_enable_publish_cgroup(s, e, w);
	task = get_pid_task(s->tgid, PIDTYPE_TGID);
	if (!task)
		return -ESRCH;
	ret = tprof_policy_target(&s->grant, task, e);
	if (ret)
		goto out_put;
	ret = down_read_killable(&task->signal->exec_update_lock);
	if (ret)
		goto out_put;
	ret = tprof_policy_target(&s->grant, task, e);
	if (ret)
		goto out_up;
	mutex_lock(&tprof_sessions_mutex);
	ret = tprof_probes_get();
	if (ret)
		goto out_unlock;
	/* off-CPU time counts from here: no wait began earlier */
	s->start_ns = ktime_get_ns();
	ret = tprof_session_publish(s, &e->refused);
	if (ret) {
		tprof_probes_put();
		goto out_unlock;
	}
	if (s->off_period_ns)
		tprof_wakers_get();
	tprof_enable_start(s, w);
out_unlock:
	mutex_unlock(&tprof_sessions_mutex);
out_up:
	up_read(&task->signal->exec_update_lock);
out_put:
	put_task_struct(task);
	return ret;
}

/*
 * The target joined guarded (each page a sample reads looked up first):
 * a look at its mappings, once published (the mmap kprobe sees new ones
 * from then on), lifts that where none needs it. Not under
 * tprof_sessions_mutex: it waits for the target's mm lock. Its existing
 * descendants stay guarded; its children inherit what it has.
 * Context: process, s->lock held.
 */
static void tprof_enable_unguard(struct tprof_session *s)
{
	struct task_struct *task = get_pid_task(s->tgid, PIDTYPE_TGID);
	struct tprof_proc *pr;

	if (!task)
		return;
	rcu_read_lock_sched();
	pr = tprof_procs_find(&s->procs, s->tgid);
	rcu_read_unlock_sched();
	/* the target's slot lives as long as the session */
	if (pr)
		tprof_policy_unguard(task, &pr->bits, TPROF_P_GUARDED);
	put_task_struct(task);
}

/*
 * ENABLE's out fields (refused..limit_kb) back to the caller of the _IOWR
 * form (@out): what a limit measured, or zeros. Context: process.
 * Return: 0 or -EFAULT.
 */
static int tprof_enable_write_out(void __user *uarg,
				  const struct tprof_ioc_enable *e, bool out)
{
	const size_t off = offsetof(struct tprof_ioc_enable, refused);
	const size_t end = offsetofend(struct tprof_ioc_enable, limit_kb);

	if (!out)
		return 0;
	/* within what the oldest caller passed (TPROF_SIZEOF_IOC_ENABLE_V1) */
	if (copy_to_user((u8 __user *)uarg + off, (const u8 *)e + off,
			 end - off))
		return -EFAULT;
	return 0;
}

/**
 * tprof_session_enable() - TPROF_IOC_ENABLE.
 * @s: session of the file.
 * @file: the file (its opener's creds decide privilege).
 * @uarg: struct tprof_ioc_enable.
 * @out: TPROF_IOC_ENABLE (not _V1): a failure writes back which limit
 *	refused it (@refused and what it measured).
 *
 * Order: the caller's privilege; the target; the memory, charged before it
 * is allocated; then the target's permission check and, under
 * tprof_sessions_mutex, the probes, publish and the start
 * (tprof_enable_publish()), so that nothing the target does between the
 * check and the probes seeing the session goes unchecked.
 *
 * Context: process, s->lock held.
 * Return: 0 or -errno.
 */
int tprof_session_enable(struct tprof_session *s, struct file *file,
			 void __user *uarg, bool out)
{
	enum tprof_procs_kind kind;
	struct tprof_walk w = {};
	struct tprof_ioc_enable e;
	u32 usize, ring_bytes;
	u64 floor;
	int ret;

	if (get_user(usize, (const u32 __user *)uarg))
		return -EFAULT;
	/* an older caller's struct: its missing fields are 0 */
	if (usize < TPROF_SIZEOF_IOC_ENABLE_V1 || usize > PAGE_SIZE)
		return -EINVAL;
	ret = copy_struct_from_user(&e, sizeof(e), uarg, usize);
	if (ret)
		return ret == -E2BIG ? -EINVAL : ret;
	/* out only: what comes back is the module's, never the caller's */
	e.refused = 0;
	e.need_kb = 0;
	e.held_kb = 0;
	e.limit_kb = 0;
	ret = tprof_enable_check(&e);
	if (!ret && s->state != TPROF_IDLE)
		ret = -EBUSY;
	if (ret) {	/* nothing to undo: just the zeros */
		if (tprof_enable_write_out(uarg, &e, out))
			ret = -EFAULT;
		return ret;
	}

	ret = tprof_policy_caller(&s->grant, file, e.flags);
	if (ret)
		goto err_free;
	/* the user's sampling budget, which all its sessions share */
	if (!s->grant.privileged) {
		ret = tprof_budget_get(s->grant.user, &s->budget);
		if (ret)
			goto err_free;
	}
	if (e.flags & TPROF_F_CGROUP) {
		/* moves must be seen: else -EOPNOTSUPP */
		ret = tprof_probes_have_cgroup() ?
		      tprof_cgroup_resolve(s, e.cgroup_fd) : -EOPNOTSUPP;
		/* the processes are followed as a tree's are */
		e.flags |= TPROF_F_CHILDREN;
	} else {
		ret = tprof_enable_resolve(s, e.pid);
	}
	if (ret)
		goto err_free;
	/* Early, before charging: publish checks again under the mutex. */
	if (!s->grant.privileged &&
	    tprof_sessions_of_user(s->grant.user) >=
	    tprof_policy_max_user_sessions()) {
		e.refused = TPROF_REFUSED_USER_SESSIONS;
		ret = -EBUSY;
		goto err_free;
	}
	/* what an unprivileged session may cost the machine (policy.c) */
	floor = tprof_policy_min_period(s->grant.privileged);
	if ((e.period_ns && e.period_ns < floor) ||
	    (e.off_cpu_period_ns && e.off_cpu_period_ns < floor)) {
		ret = -EINVAL;
		goto err_free;
	}
	s->pid_ns = get_pid_ns(task_active_pid_ns(current));
	s->vpid = e.pid;
	s->flags = e.flags;
	s->period_ns = e.period_ns ? e.period_ns :
		       max_t(u64, TPROF_DEFAULT_PERIOD_NS, floor);
	s->max_user_frames = e.max_user_frames ? e.max_user_frames :
			     TPROF_DEFAULT_USER_FRAMES;
	if (e.flags & TPROF_F_KERNEL_STACK)
		s->max_kernel_frames = e.max_kernel_frames ?
				       e.max_kernel_frames :
				       TPROF_MAX_KERNEL_FRAMES;
	if (e.flags & TPROF_F_USER_SNAPSHOT)
		s->snapshot_bytes = e.snapshot_bytes ? e.snapshot_bytes :
				    TPROF_DEFAULT_SNAPSHOT_BYTES;
	if (e.flags & TPROF_F_OFF_CPU)
		s->off_period_ns = e.off_cpu_period_ns ? e.off_cpu_period_ns :
				   s->period_ns;
	ring_bytes = e.ring_bytes ? e.ring_bytes : TPROF_DEFAULT_RING_BYTES;
	/* a cgroup's table may hold the machine's processes (procs.c) */
	kind = (e.flags & TPROF_F_CGROUP) ? TPROF_PROCS_CGROUP :
	       (e.flags & TPROF_F_CHILDREN) ? TPROF_PROCS_TREE : TPROF_PROCS_ONE;
	/* The rings and the thread table: what the session pins until close. */
	ret = tprof_policy_charge(&s->grant, (unsigned long)ring_bytes *
				  num_possible_cpus() +
				  tprof_threads_bytes(e.flags & TPROF_F_OFF_CPU) +
				  tprof_procs_bytes(kind),
				  &e);
	if (ret)
		goto err_free;
	ret = tprof_rings_alloc(&s->rings, ring_bytes, tprof_session_notify, s);
	if (ret)
		goto err_free;
	ret = tprof_threads_alloc(&s->threads, e.flags & TPROF_F_OFF_CPU);
	if (ret)
		goto err_free;
	ret = tprof_procs_alloc(&s->procs, kind);
	if (ret)
		goto err_free;
	ret = s->cgrp ? 0 : tprof_enable_root(s);
	if (ret)
		goto err_free;
	if (e.flags & TPROF_F_CHILDREN) {
		ret = tprof_walk_alloc(&w, s->procs.max);
		if (ret)
			goto err_free;
		s->inherit = tprof_children_inherit(s);
	}
	ret = tprof_enable_publish(s, &e, &w);
	tprof_walk_free(&w);
	if (ret)
		goto err_free;
	tprof_enable_unguard(s);
	/* 0 in every out field: no limit refused it */
	tprof_enable_write_out(uarg, &e, out);
	return 0;

err_free:
	/* memory the kernel did not have, unless a limit said so first */
	if (ret == -ENOMEM && !e.refused)
		e.refused = TPROF_REFUSED_NOMEM;
	if (tprof_enable_write_out(uarg, &e, out))
		ret = -EFAULT;
	/* Back to a clean IDLE session. */
	tprof_rings_free(&s->rings);
	tprof_threads_free(&s->threads);
	tprof_procs_free(&s->procs);
	tprof_cgroup_release(s);
	tprof_policy_release(&s->grant);
	memset(&s->grant, 0, sizeof(s->grant));
	s->max_kernel_frames = 0;
	s->snapshot_bytes = 0;
	s->off_period_ns = 0;
	s->inherit = false;
	tprof_budget_put(s->budget);
	s->budget = NULL;
	atomic_set(&s->throttles, 0);
	if (s->tgid)
		put_pid(s->tgid);
	s->tgid = NULL;
	if (s->pid_ns)
		put_pid_ns(s->pid_ns);
	s->pid_ns = NULL;
	return ret;
}

/* TPROF_IOC_SET_THREAD_PERIOD. Context: process, s->lock held. */
int tprof_session_set_period(struct tprof_session *s,
			     const void __user *uarg)
{
	struct tprof_ioc_thread_period tp;
	struct task_struct *task;
	u32 gtid = 0;
	u64 period;

	if (copy_from_user(&tp, uarg, sizeof(tp)))
		return -EFAULT;
	if (tp.__pad || tp.tid <= 0)
		return -EINVAL;
	if (tprof_session_state(s) != TPROF_ACTIVE)
		return -EINVAL;
	period = tp.period_ns ? tp.period_ns : s->period_ns;
	if (period < tprof_policy_min_period(s->grant.privileged) ||
	    period > TPROF_MAX_PERIOD_NS)
		return -EINVAL;
	task = tprof_task_get(task_active_pid_ns(current), tp.tid, PIDTYPE_PID);
	if (!task)
		return -ESRCH;
	if (tprof_session_has(s, task_tgid(task)) &&
	    !(task->flags & PF_EXITING))
		gtid = task->pid;
	put_task_struct(task);
	if (!gtid)
		return -ESRCH;
	return tprof_threads_set_period(&s->threads, gtid, period);
}

/*
 * TPROF_IOC_STATS (@size: all of struct tprof_ioc_stats), or
 * TPROF_IOC_STATS_V1 (the fields before the walk counters).
 * Context: process, s->lock held.
 */
int tprof_session_stats(struct tprof_session *s, void __user *uarg,
			size_t size)
{
	struct tprof_ioc_stats st = {};

	if (s->state == TPROF_IDLE)
		return -EINVAL;
	tprof_rings_stats(&s->rings, &st);
	st.threads_seen = atomic64_read(&s->threads.seen);
	st.threads_dropped = atomic64_read(&s->threads.dropped);
	st.on_cpu_ns = tprof_threads_on_cpu(&s->threads);
	if (copy_to_user(uarg, &st, min(size, sizeof(st))))
		return -EFAULT;
	return 0;
}
