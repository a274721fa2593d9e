// SPDX-License-Identifier: GPL-2.0
/*
 * tprof: the x86-64 side of kmod/arch.h. Kernel stacks come from the
 * kernel's own unwinder (ORC on Debian, GPL-exported: unwind_start() and
 * friends), as perf_callchain_kernel() walks them; snapshots are copied
 * a page at a time by stack.c (tprof_uread_upto()), not with perf's
 * copy_from_user_nmi(), which reads a memfd_secret page too. Compat tasks
 * are ia32.
 */
#include <linux/elf-em.h>
#include <linux/sched.h>
#include <linux/uaccess.h>
#include <asm/fsgsbase.h>
#include <asm/ptrace.h>
#include <asm/unwind.h>

#include "arch.h"
#include "stack.h"
#include "uapi/tprof.h"

u32 tprof_arch_e_machine(void)
{
	return EM_X86_64;
}

/* x86-64 has no pointer authentication */
u64 tprof_arch_user_pac_mask(void)
{
	return 0;
}

int tprof_arch_init(void)
{
	return 0;
}

void tprof_arch_exit(void)
{
}

/* Context: hardirq or IRQs off, current's own stack. */
unsigned int tprof_arch_kernel_stack(struct pt_regs *regs,
				     unsigned long *first_frame, u64 *ips,
				     unsigned int max, u16 *rflags)
{
	struct unwind_state state;
	unsigned int n = 0;

	if (regs)
		ips[n++] = regs->ip;
	/*
	 * Without @regs, unwind_start() skips the frames whose stack
	 * pointer is at or below @first_frame (ORC's __unwind_start(): "<="
	 * on 6.1 and 6.12), the probe's own among them: it pushes nothing
	 * below its frame record, so its sp is @first_frame exactly.
	 */
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

/*
 * A 64-bit task walks {rbp, ret} records from rbp; an ia32 one {u32 ebp,
 * u32 ret} from ebp, its values zero-extended. Context: any; reads @uregs.
 */
void tprof_arch_user_start(struct pt_regs *uregs, struct tprof_ustart *st)
{
	bool ia32 = !user_64bit_mode(uregs);

	st->abi = ia32 ? TPROF_ABI_IA32 : TPROF_ABI_X86_64;
	st->pc = ia32 ? (u32)uregs->ip : uregs->ip;
	st->lr = 0;
	st->fp = ia32 ? (u32)uregs->bp : uregs->bp;
	st->rflags = 0;
	st->frame32 = ia32;
}

/* Return addresses are plain on x86-64. */
u64 tprof_arch_user_ret(u64 ret)
{
	return ret;
}

/*
 * By enum tprof_ureg. A compat task's are its 32-bit registers (r8-r15
 * do not exist for it). Context: any; reads @uregs.
 */
unsigned long tprof_arch_user_regs(struct pt_regs *uregs, u32 abi, u64 *out)
{
	unsigned int i;

	out[TPROF_UREG_AX] = uregs->ax;
	out[TPROF_UREG_BX] = uregs->bx;
	out[TPROF_UREG_CX] = uregs->cx;
	out[TPROF_UREG_DX] = uregs->dx;
	out[TPROF_UREG_SI] = uregs->si;
	out[TPROF_UREG_DI] = uregs->di;
	out[TPROF_UREG_BP] = uregs->bp;
	out[TPROF_UREG_SP] = uregs->sp;
	out[TPROF_UREG_IP] = uregs->ip;
	out[TPROF_UREG_FLAGS] = uregs->flags;
	out[TPROF_UREG_R8] = uregs->r8;
	out[TPROF_UREG_R9] = uregs->r9;
	out[TPROF_UREG_R10] = uregs->r10;
	out[TPROF_UREG_R11] = uregs->r11;
	out[TPROF_UREG_R12] = uregs->r12;
	out[TPROF_UREG_R13] = uregs->r13;
	out[TPROF_UREG_R14] = uregs->r14;
	out[TPROF_UREG_R15] = uregs->r15;
	if (abi == TPROF_ABI_IA32) {
		for (i = 0; i < TPROF_UREG_R8; i++)
			out[i] = (u32)out[i];
		for (i = TPROF_UREG_R8; i < TPROF_UREG_NR; i++)
			out[i] = 0;
	}
	return out[TPROF_UREG_SP];
}

/*
 * A page at a time (stack.c's tprof_uread_upto(): each page looked up and
 * read all or nothing), up to the first page it cannot read: perf's
 * copy_from_user_nmi() would read a memfd_secret page too.
 * Context: hardirq or IRQs off; current's mm is the loaded one.
 */
u32 tprof_arch_ucopy(void *dst, unsigned long src, u32 len)
{
	return tprof_uread_upto(dst, src, len);
}

/* The x86-64 psABI's 128 bytes below rsp; ia32 has none. */
bool tprof_arch_red_zone(u32 abi)
{
	return abi == TPROF_ABI_X86_64;
}

/*
 * fs_base (glibc's TCB, what pthread_self() returns), read from the CPU:
 * thread.fsbase is saved only when the thread is switched out, and until
 * then (the sched_switch probe runs before the switch) the register is
 * the thread's own. A compat (ia32) task's TLS is %gs-based: 0, so its TP
 * walks have no start. Context: hardirq or IRQs off; current's @uregs.
 */
unsigned long tprof_arch_user_tp(struct pt_regs *uregs)
{
	if (!user_64bit_mode(uregs))
		return 0;
	return x86_fsbase_read_cpu();
}
