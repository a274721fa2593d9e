// SPDX-License-Identifier: GPL-2.0
/*
 * tprof: stack capture for samples, modelled on perf_callchain_user() and
 * perf_callchain_kernel(). get_perf_callchain() and nmi_uaccess_okay() are
 * not exported: user frames are read with copy_from_user_nofault(), which
 * does the access_ok, nmi_uaccess_okay and pagefault_disable dance, a
 * window of stack at a time (tprof_uread()); it is exported on x86-64 and
 * arm64 alike and never faults a page in, so it is safe in hardirq. What
 * differs by architecture (where the walk starts, the kernel unwinder,
 * pointer authentication) is kmod/arch.h's; this file knows none of it.
 */
#include <linux/compat.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/string.h>
#include <linux/sched.h>
#include <linux/uaccess.h>
#include <asm/ptrace.h>

#include "arch.h"
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
	if (regs && user_mode(regs))
		return 0;
	return tprof_arch_kernel_stack(regs, first_frame, ips, max, rflags);
}

struct tprof_frame64 {
	u64 next;
	u64 ret;
};

struct tprof_frame32 {
	u32 next;
	u32 ret;
};

/*
 * A copy of a piece of the user stack: frames are read from it, and it is
 * refilled (one copy_from_user_nofault() of up to TPROF_UWIN_BYTES, never
 * past the end of the page, where the next one may be unmapped) only when
 * a frame lies outside it. Frames of one walk lie close together, upward.
 */
#define TPROF_UWIN_BYTES	256

struct tprof_uwin {
	unsigned long lo;
	unsigned int len;
	u8 buf[TPROF_UWIN_BYTES];
};

static int tprof_uread(struct tprof_uwin *w, unsigned long addr, void *dst,
		       unsigned int n)
{
	const void __user *uaddr = (const void __user *)addr;
	unsigned int len;

	if (addr < w->lo || addr - w->lo + n > w->len) {
		len = min_t(unsigned long, TPROF_UWIN_BYTES,
			    PAGE_SIZE - offset_in_page(addr));
		if (len < n)	/* straddles a page: just the frame */
			len = n;
		/* Past the stack's end, a shorter copy may still work. */
		if (copy_from_user_nofault(w->buf, uaddr, len)) {
			if (len == n || copy_from_user_nofault(w->buf, uaddr, n))
				return -EFAULT;
			len = n;
		}
		w->lo = addr;
		w->len = len;
	}
	memcpy(dst, w->buf + (addr - w->lo), n);
	return 0;
}

/* The 32-bit records of an ia32 task, from @fp; ips from ips[@n]. */
static unsigned int tprof_stack_walk32(u32 fp, u64 *ips, unsigned int n,
				       unsigned int max, u16 *rflags)
{
	struct tprof_uwin w = { .len = 0 };

	while (fp) {
		struct tprof_frame32 f;

		if (n == max) {
			*rflags |= TPROF_RF_USER_TRUNCATED;
			break;
		}
		if ((fp & 3) || tprof_uread(&w, (unsigned long)compat_ptr(fp),
					    &f, sizeof(f))) {
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

/*
 * The 64-bit records {next, ret} (x86-64 {rbp, ret}, AArch64 {x29, x30})
 * from @fp; ips from ips[@n]. The same walk as perf's on both.
 */
static unsigned int tprof_stack_walk64(u64 fp, u64 *ips, unsigned int n,
				       unsigned int max, u16 *rflags)
{
	struct tprof_uwin w = { .len = 0 };

	while (fp) {
		struct tprof_frame64 f;

		if (n == max) {
			*rflags |= TPROF_RF_USER_TRUNCATED;
			break;
		}
		if ((fp & 7) || tprof_uread(&w, fp, &f, sizeof(f))) {
			*rflags |= TPROF_RF_USER_FAULT;
			break;
		}
		if (!f.ret)
			break;
		ips[n++] = tprof_arch_user_ret(f.ret);
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
 * @ips: output, innermost first: the pc, the link register where the
 *	architecture has one (TPROF_RF_USER_LR), the frame-pointer chain.
 * @max: capacity of @ips (>= 1).
 * @abi: set to the TPROF_ABI_* of the user context.
 * @rflags: TPROF_RF_USER_LR / TPROF_RF_USER_TRUNCATED /
 *	TPROF_RF_USER_FAULT or'ed in.
 *
 * Context: hardirq or IRQs off; current's mm is the loaded one.
 * Return: number of ips.
 */
unsigned int tprof_stack_user(struct pt_regs *regs, u64 *ips,
			      unsigned int max, u32 *abi, u16 *rflags)
{
	struct tprof_ustart st;
	unsigned int n = 0;

	tprof_arch_user_start(regs, &st);
	*abi = st.abi;
	ips[n++] = st.pc;
	if (st.rflags & TPROF_RF_USER_LR) {
		if (n == max) {
			*rflags |= TPROF_RF_USER_TRUNCATED;
			return n;
		}
		ips[n++] = st.lr;
		*rflags |= TPROF_RF_USER_LR;
	}
	if (st.frame32)
		return tprof_stack_walk32(st.fp, ips, n, max, rflags);
	return tprof_stack_walk64(st.fp, ips, n, max, rflags);
}

/**
 * tprof_stack_ubytes() - how many bytes of user stack a snapshot asks for.
 * @sp: the user stack pointer.
 * @want: the session's snapshot size.
 *
 * Clamped where current's address space ends (perf_ustack_task_size()).
 * Context: current's registers.
 */
u32 tprof_stack_ubytes(unsigned long sp, u32 want)
{
	unsigned long top = TASK_SIZE;

	if (!sp || sp >= top)
		return 0;
	return min_t(unsigned long, want, top - sp);
}
