// SPDX-License-Identifier: GPL-2.0
/*
 * tprof: stack capture for samples, modelled on perf_callchain_user() and
 * perf_callchain_kernel() (arch/x86/events/core.c). get_perf_callchain()
 * and nmi_uaccess_okay() are not exported: user frames are read with
 * copy_from_user_nofault(), which does the access_ok, nmi_uaccess_okay and
 * pagefault_disable dance, a window of stack at a time (tprof_uread()).
 * Snapshots (user registers and raw stack, for CFI unwinding in userspace)
 * are perf's PERF_SAMPLE_REGS_USER and PERF_SAMPLE_STACK_USER: the copy is
 * copy_from_user_nmi(), which keeps what it copied before a fault.
 */
#include <linux/compat.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/string.h>
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

static unsigned int tprof_stack_user32(struct pt_regs *regs, u64 *ips,
				       unsigned int max, u16 *rflags)
{
	struct tprof_uwin w = { .len = 0 };
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
	struct tprof_uwin w = { .len = 0 };
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
		if ((fp & 7) || tprof_uread(&w, fp, &f, sizeof(f))) {
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
 * tprof_stack_uregs() - the user registers of a snapshot.
 * @regs: user registers (user_mode()).
 * @out: TPROF_UREG_NR values, by enum tprof_ureg.
 *
 * A compat task's are its 32-bit registers (r8-r15 do not exist for it).
 * Context: any; reads @regs only.
 * Return: the user stack pointer.
 */
unsigned long tprof_stack_uregs(struct pt_regs *regs, u64 *out)
{
	bool ia32 = !user_64bit_mode(regs);
	unsigned int i;

	out[TPROF_UREG_AX] = regs->ax;
	out[TPROF_UREG_BX] = regs->bx;
	out[TPROF_UREG_CX] = regs->cx;
	out[TPROF_UREG_DX] = regs->dx;
	out[TPROF_UREG_SI] = regs->si;
	out[TPROF_UREG_DI] = regs->di;
	out[TPROF_UREG_BP] = regs->bp;
	out[TPROF_UREG_SP] = regs->sp;
	out[TPROF_UREG_IP] = regs->ip;
	out[TPROF_UREG_FLAGS] = regs->flags;
	out[TPROF_UREG_R8] = regs->r8;
	out[TPROF_UREG_R9] = regs->r9;
	out[TPROF_UREG_R10] = regs->r10;
	out[TPROF_UREG_R11] = regs->r11;
	out[TPROF_UREG_R12] = regs->r12;
	out[TPROF_UREG_R13] = regs->r13;
	out[TPROF_UREG_R14] = regs->r14;
	out[TPROF_UREG_R15] = regs->r15;
	if (ia32) {
		for (i = 0; i < TPROF_UREG_R8; i++)
			out[i] = (u32)out[i];
		for (i = TPROF_UREG_R8; i < TPROF_UREG_NR; i++)
			out[i] = 0;
	}
	return out[TPROF_UREG_SP];
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

/**
 * tprof_stack_ucopy() - copy user memory up to the first unreadable byte.
 * @dst: kernel buffer.
 * @src: user address.
 * @len: bytes wanted.
 *
 * Never faults pages in (pagefault_disable()): a page that is not
 * present, like one that is not mapped, ends the copy.
 * Context: hardirq or IRQs off; current's mm is the loaded one.
 * Return: bytes copied (a prefix of the range).
 */
u32 tprof_stack_ucopy(void *dst, unsigned long src, u32 len)
{
	return len - copy_from_user_nmi(dst, (const void __user *)src, len);
}
