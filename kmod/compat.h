/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tprof: every kernel-version shim lives here and only here. Feature code
 * uses the modern API; old kernels get it from this file.
 */
#ifndef _TPROF_COMPAT_H
#define _TPROF_COMPAT_H

#include <linux/hrtimer.h>
#include <linux/sched.h>
#include <linux/version.h>

/* Supported floor: Debian bookworm's 6.1 (mirrored in dkms.conf). */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 1, 0)
#error "tprof needs Linux 6.1 or newer"
#endif

/*
 * hrtimer_setup() arrived in 6.13 ("hrtimers: Introduce hrtimer_setup() to
 * replace hrtimer_init()"); hrtimer_init() went away in 6.15. Debian's 6.1
 * and 6.12 (6.12.117) only have hrtimer_init().
 */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 13, 0)
static inline void hrtimer_setup(struct hrtimer *timer,
				 enum hrtimer_restart (*function)(struct hrtimer *),
				 clockid_t clock_id, enum hrtimer_mode mode)
{
	hrtimer_init(timer, clock_id, mode);
	timer->function = function;
}
#endif

/*
 * A task whose user context is a real user program. PF_USER_WORKER (6.4,
 * "fork/vm: Move common PF_IO_WORKER behavior to new flag") covers io_uring
 * and vhost workers; 6.1 only has PF_IO_WORKER.
 */
static inline bool tprof_is_user_task(struct task_struct *p)
{
#ifdef PF_USER_WORKER
	return p->mm && !(p->flags & (PF_KTHREAD | PF_USER_WORKER));
#else
	return p->mm && !(p->flags & (PF_KTHREAD | PF_IO_WORKER));
#endif
}

#endif /* _TPROF_COMPAT_H */
