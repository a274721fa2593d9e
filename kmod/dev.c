// SPDX-License-Identifier: GPL-2.0
/* tprof: the /dev/tprof misc device: open/release, read, poll, ioctls. */
#include <linux/cpumask.h>
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/build_bug.h>
#include <linux/cred.h>
#include <linux/poll.h>
#include <linux/sched/user.h>
#include <linux/uaccess.h>

#include "arch.h"
#include "children.h"
#include "lifetime.h"
#include "policy.h"
#include "ring.h"
#include "session.h"
#include "stack.h"
#include "tprof.h"
#include "uwalk.h"

/* The uapi's sizes, as userspace asserts them too. */
static_assert(sizeof(struct tprof_ioc_info) == TPROF_SIZEOF_IOC_INFO);
static_assert(sizeof(struct tprof_ioc_enable) == TPROF_SIZEOF_IOC_ENABLE);
static_assert(sizeof(struct tprof_ioc_thread_period) ==
	      TPROF_SIZEOF_IOC_THREAD_PERIOD);
static_assert(sizeof(struct tprof_ioc_stats) == TPROF_SIZEOF_IOC_STATS);
static_assert(sizeof(struct tprof_ioc_prove) == TPROF_SIZEOF_IOC_PROVE);
static_assert(sizeof(struct tprof_rec_hdr) == TPROF_SIZEOF_REC_HDR);
static_assert(sizeof(struct tprof_rec_sample) == TPROF_SIZEOF_REC_SAMPLE);
static_assert(sizeof(struct tprof_rec_lost) == TPROF_SIZEOF_REC_LOST);
static_assert(sizeof(struct tprof_rec_thread) == TPROF_SIZEOF_REC_THREAD);
static_assert(sizeof(struct tprof_rec_thread_stat) ==
	      TPROF_SIZEOF_REC_THREAD_STAT);
static_assert(sizeof(struct tprof_rec_exec) == TPROF_SIZEOF_REC_EXEC);
static_assert(sizeof(struct tprof_rec_proc_exit) ==
	      TPROF_SIZEOF_REC_PROC_EXIT);
static_assert(sizeof(struct tprof_rec_denied) == TPROF_SIZEOF_REC_DENIED);
static_assert(sizeof(struct tprof_rec_ustack) == TPROF_SIZEOF_REC_USTACK);
static_assert(sizeof(struct tprof_rec_mmap) == TPROF_SIZEOF_REC_MMAP);
static_assert(sizeof(struct tprof_rec_proc) == TPROF_SIZEOF_REC_PROC);
static_assert(sizeof(struct tprof_rec_thread_off) ==
	      TPROF_SIZEOF_REC_THREAD_OFF);
static_assert(sizeof(struct tprof_rec_throttle) == TPROF_SIZEOF_REC_THROTTLE);
static_assert(sizeof(struct tprof_ioc_uwalk) == TPROF_SIZEOF_IOC_UWALK);
static_assert(sizeof(struct tprof_ioc_uwalk_tid) ==
	      TPROF_SIZEOF_IOC_UWALK_TID);
static_assert(sizeof(struct tprof_rec_uwalk) == TPROF_SIZEOF_REC_UWALK);
static_assert(offsetof(struct tprof_ioc_stats, uwalks) ==
	      TPROF_SIZEOF_IOC_STATS_V1);
static_assert(offsetof(struct tprof_ioc_stats, uread_samples) ==
	      TPROF_SIZEOF_IOC_STATS_V2);
static_assert(offsetof(struct tprof_ioc_stats, wakers) ==
	      TPROF_SIZEOF_IOC_STATS_V3);
static_assert(offsetof(struct tprof_ioc_stats, waker_stacks) ==
	      TPROF_SIZEOF_IOC_STATS_V4);
static_assert(sizeof(struct tprof_rec_waker) == TPROF_SIZEOF_REC_WAKER);

/* Context: process. The limits an unprivileged caller meets, and its use. */
/* INFO answers with as much as the caller's size in cmd has room for. */
static long tprof_ioctl_info(struct file *file, void __user *arg,
			     unsigned int size)
{
	struct user_struct *user = current_user();
	struct tprof_ioc_info info = {
		.size = sizeof(info),
		.abi_version = TPROF_ABI_VERSION,
		.record_version = TPROF_RECORD_VERSION,
		.nr_cpu_ids = nr_cpu_ids,
		.page_size = PAGE_SIZE,
		.max_user_frames = TPROF_MAX_USER_FRAMES,
		.max_kernel_frames = TPROF_MAX_KERNEL_FRAMES,
		.default_ring_bytes = TPROF_DEFAULT_RING_BYTES,
		.min_period_ns = tprof_policy_min_period(tprof_policy_privileged(file)),
		.ring_kb_per_cpu = tprof_policy_ring_kb_per_cpu(),
		.max_user_sessions = tprof_policy_max_user_sessions(),
		.user_sessions = tprof_sessions_of_user(user),
		.nr_rings = num_possible_cpus(),
		.user_locked_kb = (u64)atomic_long_read(&user->locked_vm) <<
				  (PAGE_SHIFT - 10),
		.e_machine = tprof_arch_e_machine(),
		.user_pac_mask = tprof_arch_user_pac_mask(),
	};

	if (copy_to_user(arg, &info, size))
		return -EFAULT;
	return 0;
}

/*
 * STATS' user-read counts (uread_*, stack.c), after what
 * tprof_session_stats() wrote (the fields after them are its own).
 * Context: process, s->lock held, the session not IDLE (its table is
 * there).
 */
static int tprof_stats_uread(struct tprof_session *s, void __user *uarg)
{
	const size_t off = offsetof(struct tprof_ioc_stats, uread_samples);
	const size_t end = offsetof(struct tprof_ioc_stats, wakers);
	struct tprof_ioc_stats st = {};

	tprof_uread_stats(s->procs.uread, &st);
	if (copy_to_user((u8 __user *)uarg + off, (u8 *)&st + off, end - off))
		return -EFAULT;
	return 0;
}

static int tprof_open(struct inode *inode, struct file *file)
{
	struct tprof_session *s = tprof_session_new();

	if (!s)
		return -ENOMEM;
	file->private_data = s;
	return nonseekable_open(inode, file);
}

/* Ends the session: probes, timers, rings, in that order. */
static int tprof_release(struct inode *inode, struct file *file)
{
	tprof_session_release(file->private_data);
	return 0;
}

static long tprof_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct tprof_session *s = file->private_data;
	void __user *uarg = (void __user *)arg;
	long ret;

	if (cmd == TPROF_IOC_INFO || cmd == TPROF_IOC_INFO_V1)
		return tprof_ioctl_info(file, uarg, _IOC_SIZE(cmd));
	/*
	 * ENABLE and SET_UWALK are growable: their size is in the struct,
	 * not in cmd. ENABLE's _IOWR form (TPROF_IOC_ENABLE) says what
	 * refused it, the first modules' _IOW form (TPROF_IOC_ENABLE_V1) does
	 * not. STATS answers with as much as the caller's size in cmd has
	 * room for: all of it, or TPROF_IOC_STATS_V1's, _V2's, _V3's or _V4's
	 * older part.
	 */
	if (_IOC_TYPE(cmd) != TPROF_IOC_MAGIC ||
	    (_IOC_NR(cmd) == _IOC_NR(TPROF_IOC_ENABLE) ||
	     _IOC_NR(cmd) == _IOC_NR(TPROF_IOC_SET_UWALK) ?
	     !(_IOC_DIR(cmd) & _IOC_WRITE) : !(cmd == TPROF_IOC_DISABLE ||
					     cmd == TPROF_IOC_STATS ||
					     cmd == TPROF_IOC_STATS_V1 ||
					     cmd == TPROF_IOC_STATS_V2 ||
					     cmd == TPROF_IOC_STATS_V3 ||
					     cmd == TPROF_IOC_STATS_V4 ||
					     cmd == TPROF_IOC_PROVE ||
					     cmd == TPROF_IOC_SET_UWALK_TID ||
					     cmd == TPROF_IOC_SET_THREAD_PERIOD)))
		return -ENOTTY;

	if (mutex_lock_interruptible(&s->lock))
		return -ERESTARTSYS;
	switch (_IOC_NR(cmd)) {
	case _IOC_NR(TPROF_IOC_ENABLE):
		ret = tprof_session_enable(s, file, uarg,
					   _IOC_DIR(cmd) & _IOC_READ);
		break;
	case _IOC_NR(TPROF_IOC_SET_THREAD_PERIOD):
		ret = tprof_session_set_period(s, uarg);
		break;
	case _IOC_NR(TPROF_IOC_DISABLE):
		ret = -EINVAL;
		if (tprof_session_state(s) != TPROF_IDLE) {
			tprof_session_stop(s);
			ret = 0;
		}
		break;
	case _IOC_NR(TPROF_IOC_STATS):
		ret = tprof_session_stats(s, uarg, _IOC_SIZE(cmd));
		if (!ret && (cmd == TPROF_IOC_STATS ||
			     cmd == TPROF_IOC_STATS_V3 ||
			     cmd == TPROF_IOC_STATS_V4))
			ret = tprof_stats_uread(s, uarg);
		break;
	case _IOC_NR(TPROF_IOC_PROVE):
		ret = tprof_children_prove(s, uarg);
		break;
	case _IOC_NR(TPROF_IOC_SET_UWALK):
		ret = tprof_uwalk_set(s, uarg);
		break;
	case _IOC_NR(TPROF_IOC_SET_UWALK_TID):
		ret = tprof_uwalk_set_tid(s, uarg);
		break;
	default:
		ret = -ENOTTY;
		break;
	}
	mutex_unlock(&s->lock);
	return ret;
}

/*
 * Whole records only. Blocks until data or EOF (0: the session stopped and
 * every ring is drained). -EINVAL without a session or when @len is too
 * small for the next record.
 */
static ssize_t tprof_read(struct file *file, char __user *buf, size_t len,
			  loff_t *ppos)
{
	struct tprof_session *s = file->private_data;
	ssize_t ret;

	if (mutex_lock_interruptible(&s->lock))
		return -ERESTARTSYS;
	if (tprof_session_state(s) == TPROF_IDLE) {
		ret = -EINVAL;
		goto out_unlock;
	}
	for (;;) {
		/* Before reading: records written before the stop show. */
		bool finished = tprof_session_finished(s);

		ret = tprof_rings_read(&s->rings, buf, len);
		/*
		 * Drained after the stop: drops that found the rings full
		 * then (tprof_session_stop()) get their LOST records now; no
		 * producer is left to race with.
		 */
		if (!ret && finished && tprof_rings_flush_lost(&s->rings))
			ret = tprof_rings_read(&s->rings, buf, len);
		if (ret || finished)
			break;
		if (file->f_flags & O_NONBLOCK) {
			ret = -EAGAIN;
			break;
		}
		WRITE_ONCE(s->rings.reader_waiting, true);
		mutex_unlock(&s->lock);
		ret = wait_event_interruptible(s->wq,
					       tprof_session_finished(s) ||
					       !tprof_rings_empty(&s->rings));
		if (ret)
			return ret;
		if (mutex_lock_interruptible(&s->lock))
			return -ERESTARTSYS;
	}
	WRITE_ONCE(s->rings.reader_waiting, false);
out_unlock:
	mutex_unlock(&s->lock);
	return ret;
}

static __poll_t tprof_poll(struct file *file, poll_table *wait)
{
	struct tprof_session *s = file->private_data;
	bool finished;

	/* Pairs with the release in tprof_publish(). */
	if (smp_load_acquire(&s->state) == TPROF_IDLE)
		return EPOLLERR;
	poll_wait(file, &s->wq, wait);
	WRITE_ONCE(s->rings.reader_waiting, true);
	finished = tprof_session_finished(s);
	if (!tprof_rings_empty(&s->rings))
		return EPOLLIN | EPOLLRDNORM;
	if (finished)
		return EPOLLIN | EPOLLRDNORM | EPOLLHUP;
	return 0;
}

static const struct file_operations tprof_fops = {
	.owner = THIS_MODULE,
	.open = tprof_open,
	.release = tprof_release,
	.read = tprof_read,
	.poll = tprof_poll,
	.unlocked_ioctl = tprof_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.llseek = noop_llseek,
};

/* 0600 root: a udev rule hands it to group tprof (see README). */
static struct miscdevice tprof_misc = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "tprof",
	.fops = &tprof_fops,
	.mode = 0600,
};

int tprof_dev_init(void)
{
	return misc_register(&tprof_misc);
}

void tprof_dev_exit(void)
{
	misc_deregister(&tprof_misc);
}
