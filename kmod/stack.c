// SPDX-License-Identifier: GPL-2.0
/*
 * tprof: stack capture for samples, modelled on perf_callchain_user() and
 * perf_callchain_kernel() (arch/x86/events/core.c). get_perf_callchain()
 * and nmi_uaccess_okay() are not exported: user frames are read with
 * copy_from_user_nofault(), which does the access_ok, nmi_uaccess_okay and
 * pagefault_disable dance, one whole frame per call.
 */
#include <linux/compat.h>
#include <linux/sched.h>
#include <linux/sched/task_stack.h>
#include <linux/uaccess.h>
#include <asm/ptrace.h>
#include <asm/unwind.h>

#include "compat.h"
#include "stack.h"
#include "uapi/tprof.h"

/**
 * tprof_stack_kernel() - kernel return addresses of current.
 * @regs: interrupt registers (kernel mode), or NULL to unwind from here.
 * @first_frame: without @regs, the frame of the probe that called us: the
 *	walk starts at its caller, so tprof's own frames never show.
 * @ips: output, innermost first.
 * @max: capacity of @ips (>= 1).
 * @rflags: TPROF_RF_KERNEL_TRUNCATED is or'ed in when cut.
 *
 * Context: hardirq or IRQs off, current's own stack.
 * Return: number of ips.
 */
unsigned int tprof_stack_kernel(struct pt_regs *regs,
				unsigned long *first_frame, u64 *ips,
				unsigned int max, u16 *rflags)
{
	struct unwind_state state;
	unsigned int n = 0;

	if (regs && user_mode(regs))
		return 0;
	if (regs)
		ips[n++] = regs->ip;
	for (unwind_start(&state, current, regs, regs ? NULL : first_frame);
	     !unwind_done(&state);
	     unwind_next_frame(&state)) {
		unsigned long addr = unwind_get_return_address(&state);

		if (!addr)
			break;
		if (n == max) {
			*rflags |= TPROF_RF_KERNEL_TRUNCATED;
			break;
		}
		ips[n++] = addr;
	}
	return n;
}

struct tprof_frame64 {
	u64 next;
	u64 ret;
};

struct tprof_frame32 {
	u32 next;
	u32 ret;
};

static unsigned int tprof_stack_user32(struct pt_regs *regs, u64 *ips,
				       unsigned int max, u16 *rflags)
{
	unsigned int n = 0;
	u32 fp = regs->bp;

	if (!IS_ENABLED(CONFIG_IA32_EMULATION))
		return 0;
	ips[n++] = (u32)regs->ip;
	while (fp) {
		struct tprof_frame32 f;

		if (n == max) {
			*rflags |= TPROF_RF_USER_TRUNCATED;
			break;
		}
		if ((fp & 3) ||
		    copy_from_user_nofault(&f, compat_ptr(fp), sizeof(f))) {
			*rflags |= TPROF_RF_USER_FAULT;
			break;
		}
		if (!f.ret)
			break;
		ips[n++] = f.ret;
		/* Frames live further up the stack; stop on loops. */
		if (f.next <= fp)
			break;
		fp = f.next;
	}
	return n;
}

/**
 * tprof_stack_user() - user pc and return addresses of current.
 * @regs: user registers (user_mode()).
 * @ips: output, innermost first.
 * @max: capacity of @ips (>= 1).
 * @abi: set to TPROF_ABI_X86_64 or TPROF_ABI_IA32.
 * @rflags: TPROF_RF_USER_TRUNCATED / TPROF_RF_USER_FAULT or'ed in.
 *
 * Context: hardirq or IRQs off; current's mm is the loaded one.
 * Return: number of ips.
 */
unsigned int tprof_stack_user(struct pt_regs *regs, u64 *ips,
			      unsigned int max, u32 *abi, u16 *rflags)
{
	unsigned int n = 0;
	u64 fp = regs->bp;

	if (!user_64bit_mode(regs)) {
		*abi = TPROF_ABI_IA32;
		return tprof_stack_user32(regs, ips, max, rflags);
	}
	*abi = TPROF_ABI_X86_64;
	ips[n++] = regs->ip;
	while (fp) {
		struct tprof_frame64 f;

		if (n == max) {
			*rflags |= TPROF_RF_USER_TRUNCATED;
			break;
		}
		if ((fp & 7) ||
		    copy_from_user_nofault(&f, (const void __user *)fp,
					   sizeof(f))) {
			*rflags |= TPROF_RF_USER_FAULT;
			break;
		}
		if (!f.ret)
			break;
		ips[n++] = f.ret;
		/* Frames live further up the stack; stop on loops. */
		if (f.next <= fp)
			break;
		fp = f.next;
	}
	return n;
}
