// SPDX-License-Identifier: GPL-2.0
/* tprof: the /dev/tprof misc device and its ioctl dispatch. */
#include <linux/cpumask.h>
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/uaccess.h>

#include "tprof.h"

/* The uapi layout is ABI (pairs with the same checks in userspace). */
static_assert(sizeof(struct tprof_ioc_info) == TPROF_SIZEOF_IOC_INFO);
static_assert(sizeof(struct tprof_ioc_enable) == TPROF_SIZEOF_IOC_ENABLE);
static_assert(sizeof(struct tprof_ioc_thread_period) ==
	      TPROF_SIZEOF_IOC_THREAD_PERIOD);
static_assert(sizeof(struct tprof_ioc_stats) == TPROF_SIZEOF_IOC_STATS);
static_assert(sizeof(struct tprof_rec_hdr) == TPROF_SIZEOF_REC_HDR);
static_assert(sizeof(struct tprof_rec_sample) == TPROF_SIZEOF_REC_SAMPLE);
static_assert(sizeof(struct tprof_rec_lost) == TPROF_SIZEOF_REC_LOST);
static_assert(sizeof(struct tprof_rec_thread) == TPROF_SIZEOF_REC_THREAD);
static_assert(sizeof(struct tprof_rec_thread_stat) ==
	      TPROF_SIZEOF_REC_THREAD_STAT);
static_assert(sizeof(struct tprof_rec_exec) == TPROF_SIZEOF_REC_EXEC);
static_assert(sizeof(struct tprof_rec_proc_exit) == TPROF_SIZEOF_REC_PROC_EXIT);

static long tprof_ioctl_info(void __user *arg)
{
	struct tprof_ioc_info info = {
		.size = sizeof(info),
		.abi_version = TPROF_ABI_VERSION,
		.record_version = TPROF_RECORD_VERSION,
		.nr_cpu_ids = nr_cpu_ids,
		.page_size = PAGE_SIZE,
		.max_user_frames = TPROF_MAX_USER_FRAMES,
		.max_kernel_frames = TPROF_MAX_KERNEL_FRAMES,
		.min_period_ns = TPROF_MIN_PERIOD_NS,
	};

	if (copy_to_user(arg, &info, sizeof(info)))
		return -EFAULT;
	return 0;
}

static long tprof_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	void __user *uarg = (void __user *)arg;

	switch (cmd) {
	case TPROF_IOC_INFO:
		return tprof_ioctl_info(uarg);
	default:
		return -ENOTTY;
	}
}

static const struct file_operations tprof_fops = {
	.owner = THIS_MODULE,
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
