// SPDX-License-Identifier: GPL-2.0
/*
 * tprof: session lifetime (ENABLE, DISABLE, target exit, close), the
 * permission checks and pid namespace handling.
 */
#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/magic.h>
#include <linux/pid.h>
#include <linux/pid_namespace.h>
#include <linux/rcupdate.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "sampler.h"
#include "session.h"
#include "tp.h"
#include "tprof.h"

/*
 * Serializes ENABLE and stop: tprof_active[] updates, probe registration.
 * Nests inside tprof_session.lock.
 */
static DEFINE_MUTEX(tprof_sessions_mutex);
/* Read by probes (preemption or IRQs off: RCU-sched readers). */
static struct tprof_session __rcu *tprof_active[TPROF_MAX_SESSIONS];

/* Reader wakeup period while data is pending (irq_work covers bursts). */
#define TPROF_TICK_MS	50

/**
 * tprof_session_find() - the active session profiling @p's process.
 * @p: any task.
 *
 * Context: preemption or IRQs off (probes, IPIs).
 * Return: the session or NULL.
 */
struct tprof_session *tprof_session_find(struct task_struct *p)
{
	struct pid *tgid = task_tgid(p);
	unsigned int i;

	for (i = 0; i < TPROF_MAX_SESSIONS; i++) {
		struct tprof_session *s = rcu_dereference_sched(tprof_active[i]);

		if (s && s->tgid == tgid && READ_ONCE(s->active))
			return s;
	}
	return NULL;
}

/* Context: IRQs off (probes): stop_work runs via this CPU's irq_work. */
void tprof_session_request_stop(struct tprof_session *s)
{
	set_bit(TPROF_S_STOP_REQ, &s->bits);
	tprof_ring_kick(s->rings[smp_processor_id()]);
}

static void tprof_session_stop_work(struct work_struct *work)
{
	tprof_session_stop(container_of(work, struct tprof_session,
					stop_work));
}

static void tprof_session_tick(struct work_struct *work)
{
	struct tprof_session *s = container_of(to_delayed_work(work),
					       struct tprof_session, tick);

	if (wq_has_sleeper(&s->wq) && !tprof_rings_empty(s))
		wake_up_interruptible_all(&s->wq);
	if (!tprof_session_finished(s))
		schedule_delayed_work(&s->tick, msecs_to_jiffies(TPROF_TICK_MS));
}

struct tprof_session *tprof_session_new(void)
{
	struct tprof_session *s = kzalloc(sizeof(*s), GFP_KERNEL);

	if (!s)
		return NULL;
	mutex_init(&s->lock);
	init_waitqueue_head(&s->wq);
	INIT_WORK(&s->stop_work, tprof_session_stop_work);
	INIT_DELAYED_WORK(&s->tick, tprof_session_tick);
	s->idx = -1;
	atomic64_set(&s->threads_seen, 0);
	atomic64_set(&s->threads_dropped, 0);
	atomic_set(&s->exiting, 1);
	return s;
}

static void tprof_session_free(struct tprof_session *s)
{
	tprof_rings_free(s);
	tprof_threads_free(&s->threads);
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
		/* No producer is left: flush wakeups, then the works. */
		tprof_rings_sync(s);
		cancel_work_sync(&s->stop_work);
		cancel_delayed_work_sync(&s->tick);
	}
	tprof_session_free(s);
}

/**
 * tprof_session_stop() - end sampling; the rings stay readable.
 * @s: session.
 *
 * Order: unpublish, RCU grace period (no probe or IPI can pick @s any
 * more), drop every CPU's reference (timers cancelled), unregister probes
 * if this was the last session, then report live threads and wake readers.
 * Idempotent. Context: process.
 */
void tprof_session_stop(struct tprof_session *s)
{
	mutex_lock(&tprof_sessions_mutex);
	if (s->state != TPROF_ACTIVE)
		goto out_unlock;
	WRITE_ONCE(s->active, false);
	RCU_INIT_POINTER(tprof_active[s->idx], NULL);
	s->idx = -1;
	synchronize_rcu();
	tprof_sampler_stop(s);
	tprof_tp_put();
	s->state = TPROF_STOPPED;
	tprof_threads_emit_stats(s);
	tprof_rings_flush_lost(s);
	/* Pairs with the acquire in readers: all records are visible. */
	smp_store_release(&s->finished, true);
	wake_up_interruptible_all(&s->wq);
out_unlock:
	mutex_unlock(&tprof_sessions_mutex);
}

/* An fd of /proc/<pid>/auxv opened by the caller proves ptrace-read. */
static int tprof_check_auxv(int fd, struct mm_struct *mm)
{
	struct file *file = fget(fd);
	struct dentry *dentry;
	int ret = -EPERM;

	if (!file)
		return -EBADF;
	dentry = file_dentry(file);
	if (dentry->d_sb->s_magic == PROC_SUPER_MAGIC &&
	    !strcmp(dentry->d_name.name, "auxv") && file->private_data == mm)
		ret = 0;
	fput(file);
	return ret;
}

static int tprof_enable_check(const struct tprof_ioc_enable *e)
{
	if (e->flags & ~TPROF_F_ALL)
		return -EINVAL;
	if (e->pid <= 0 || e->__pad || memchr_inv(e->__reserved, 0,
						  sizeof(e->__reserved)))
		return -EINVAL;
	if (!(e->flags & TPROF_F_AUXV_PROOF) && e->auxv_fd)
		return -EINVAL;
	if (e->period_ns && (e->period_ns < TPROF_MIN_PERIOD_NS ||
			     e->period_ns > TPROF_MAX_PERIOD_NS))
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

/* Resolves the target and checks the caller may profile it. */
static int tprof_enable_target(struct tprof_session *s, struct file *file,
			       const struct tprof_ioc_enable *e)
{
	struct task_struct *task;
	struct mm_struct *mm;
	struct pid *pid;
	int ret;

	s->privileged = file_ns_capable(file, &init_user_ns, CAP_PERFMON) ||
			file_ns_capable(file, &init_user_ns, CAP_SYS_ADMIN);
	pid = find_get_pid(e->pid);
	if (!pid)
		return -ESRCH;
	task = get_pid_task(pid, PIDTYPE_TGID);
	put_pid(pid);
	if (!task)
		return -ESRCH;
	if (task->flags & PF_KTHREAD) {
		ret = -EINVAL;
		goto out_put_task;
	}
	mm = get_task_mm(task);
	if (!mm) {
		ret = -ESRCH;
		goto out_put_task;
	}
	if ((e->flags & TPROF_F_KERNEL_STACK) && !s->privileged)
		ret = -EPERM;
	else if (e->flags & TPROF_F_AUXV_PROOF)
		ret = tprof_check_auxv(e->auxv_fd, mm);
	else
		ret = s->privileged ? 0 : -EPERM;
	mmput(mm);
	if (!ret)
		s->tgid = get_pid(task_tgid(task));
out_put_task:
	put_task_struct(task);
	return ret;
}

/* Context: process, tprof_sessions_mutex held. */
static int tprof_publish(struct tprof_session *s)
{
	int i, free = -1;
	int ret;

	for (i = 0; i < TPROF_MAX_SESSIONS; i++) {
		struct tprof_session *o;

		o = rcu_dereference_protected(tprof_active[i],
					      lockdep_is_held(&tprof_sessions_mutex));
		if (!o) {
			if (free < 0)
				free = i;
		} else if (o->tgid == s->tgid) {
			return -EBUSY;
		}
	}
	if (free < 0)
		return -ENOSPC;
	ret = tprof_tp_get();
	if (ret)
		return ret;
	s->idx = free;
	WRITE_ONCE(s->active, true);
	/* Pairs with the acquire in tprof_poll(): the rings exist. */
	smp_store_release(&s->state, TPROF_ACTIVE);
	rcu_assign_pointer(tprof_active[free], s);
	return 0;
}

/**
 * tprof_session_enable() - TPROF_IOC_ENABLE.
 * @s: session of the file.
 * @file: the file (its opener's creds decide privilege).
 * @uarg: struct tprof_ioc_enable.
 *
 * Context: process, s->lock held.
 * Return: 0 or -errno.
 */
int tprof_session_enable(struct tprof_session *s, struct file *file,
			 const void __user *uarg)
{
	struct tprof_ioc_enable e;
	struct task_struct *leader;
	bool gone;
	u32 usize;
	int ret;

	if (get_user(usize, (const u32 __user *)uarg))
		return -EFAULT;
	if (usize < sizeof(e) || usize > PAGE_SIZE)
		return -EINVAL;
	ret = copy_struct_from_user(&e, sizeof(e), uarg, usize);
	if (ret)
		return ret == -E2BIG ? -EINVAL : ret;
	ret = tprof_enable_check(&e);
	if (ret)
		return ret;
	if (s->state != TPROF_IDLE)
		return -EBUSY;

	ret = tprof_enable_target(s, file, &e);
	if (ret)
		return ret;
	s->pid_ns = get_pid_ns(task_active_pid_ns(current));
	s->vpid = e.pid;
	s->flags = e.flags;
	s->period_ns = e.period_ns ? e.period_ns : TPROF_DEFAULT_PERIOD_NS;
	s->max_user_frames = e.max_user_frames ? e.max_user_frames :
			     TPROF_DEFAULT_USER_FRAMES;
	if (e.flags & TPROF_F_KERNEL_STACK)
		s->max_kernel_frames = e.max_kernel_frames ?
				       e.max_kernel_frames :
				       TPROF_MAX_KERNEL_FRAMES;
	ret = tprof_rings_alloc(s, e.ring_bytes ? e.ring_bytes :
				TPROF_DEFAULT_RING_BYTES);
	if (ret)
		goto err_free;
	ret = tprof_threads_alloc(&s->threads);
	if (ret)
		goto err_free;

	mutex_lock(&tprof_sessions_mutex);
	ret = tprof_publish(s);
	mutex_unlock(&tprof_sessions_mutex);
	if (ret)
		goto err_free;

	tprof_threads_emit_existing(s);
	tprof_sampler_start(s);
	schedule_delayed_work(&s->tick, msecs_to_jiffies(TPROF_TICK_MS));

	/*
	 * If the last thread passed its exit probe before we were published,
	 * no probe will end the session: see signal->live (decremented before
	 * the probe) ourselves.
	 */
	rcu_read_lock();
	leader = pid_task(s->tgid, PIDTYPE_TGID);
	gone = !leader || !atomic_read(&leader->signal->live);
	rcu_read_unlock();
	if (gone) {
		set_bit(TPROF_S_STOP_REQ, &s->bits);
		schedule_work(&s->stop_work);
	}
	return 0;

err_free:
	/* Back to a clean IDLE session. */
	tprof_rings_free(s);
	tprof_threads_free(&s->threads);
	put_pid(s->tgid);
	s->tgid = NULL;
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
	struct pid *pid;
	u32 gtid = 0;
	u64 period;

	if (copy_from_user(&tp, uarg, sizeof(tp)))
		return -EFAULT;
	if (tp.__pad || tp.tid <= 0)
		return -EINVAL;
	if (s->state != TPROF_ACTIVE)
		return -EINVAL;
	period = tp.period_ns ? tp.period_ns : s->period_ns;
	if (period < TPROF_MIN_PERIOD_NS || period > TPROF_MAX_PERIOD_NS)
		return -EINVAL;
	pid = find_get_pid(tp.tid);
	if (!pid)
		return -ESRCH;
	task = get_pid_task(pid, PIDTYPE_PID);
	put_pid(pid);
	if (!task)
		return -ESRCH;
	if (task_tgid(task) == s->tgid && !(task->flags & PF_EXITING))
		gtid = task->pid;
	put_task_struct(task);
	if (!gtid)
		return -ESRCH;
	return tprof_threads_set_period(s, gtid, period);
}

/* TPROF_IOC_STATS. Context: process, s->lock held. */
int tprof_session_stats(struct tprof_session *s, void __user *uarg)
{
	struct tprof_ioc_stats st = {};
	struct tprof_ring_stats sum;

	if (s->state == TPROF_IDLE)
		return -EINVAL;
	tprof_rings_stats(s, &sum);
	st.samples = sum.samples;
	st.samples_weight_ns = sum.samples_weight_ns;
	st.lost_samples = sum.lost_samples;
	st.lost_weight_ns = sum.lost_weight_ns;
	st.lost_records = sum.lost_records;
	st.user_stack_faults = sum.user_stack_faults;
	st.user_stack_truncated = sum.user_stack_truncated;
	st.kernel_stack_truncated = sum.kernel_stack_truncated;
	st.threads_seen = atomic64_read(&s->threads_seen);
	st.threads_dropped = atomic64_read(&s->threads_dropped);
	st.on_cpu_ns = tprof_threads_on_cpu(s);
	st.sample_path_ns = sum.sample_path_ns;
	st.sample_path_calls = sum.sample_path_calls;
	st.late_timer_periods = sum.late_timer_periods;
	if (copy_to_user(uarg, &st, sizeof(st)))
		return -EFAULT;
	return 0;
}
