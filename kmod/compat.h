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

#ifdef CONFIG_ARM64
#include <asm/pointer_auth.h>
/*
 * Stripping a PAC from a code address: 6.4 ("arm64: use XPACLRI to strip
 * PAC", Mark Rutland) replaced ptrauth_strip_insn_pac(), which decides by
 * bit 55 whether the address is a kernel or a user one and masks the PAC
 * bits, with the macros ptrauth_strip_user_insn_pac() and
 * ptrauth_strip_kernel_insn_pac() (XPACLRI, in asm/compiler.h, which
 * compiler_types.h includes first). Debian's 6.12 has only the new ones,
 * its 6.1 only the old: both headers checked, 6.1.0-57 and 6.12.117.
 */
#ifndef ptrauth_strip_user_insn_pac
#define ptrauth_strip_user_insn_pac(ptr)	ptrauth_strip_insn_pac(ptr)
#define ptrauth_strip_kernel_insn_pac(ptr)	ptrauth_strip_insn_pac(ptr)
#endif
#endif /* CONFIG_ARM64 */

#endif /* _TPROF_COMPAT_H */
