// SPDX-License-Identifier: GPL-2.0
/*
 * tprof: the arm64 side of kmod/arch.h.
 *
 * - Kernel stacks: arm64 exports no unwinder (arch_stack_walk() and
 *   stack_trace_save_regs() are not exported), but stack_trace_save() is
 *   (GPL, 6.1 and 6.12). It walks current's frame records from its caller,
 *   from the IRQ stack into the task stack: the EL1 exception entry
 *   (entry.S kernel_entry) stores a frame record {x29, elr} in pt_regs,
 *   so the interrupted pc is one entry of the walk, followed by its
 *   callers. The entries up to that pc (with regs) or up to the return
 *   into the probe's caller (without) are tprof's and the interrupt's,
 *   and are dropped.
 * - User stacks: frame records {x29, x30} from x29, as perf's
 *   arch_stack_walk_user(); the interrupted x30 is recorded too
 *   (TPROF_RF_USER_LR): a frameless leaf has its caller only there.
 *   Return addresses signed with pointer authentication lose their PAC.
 * - Snapshots: a page at a time by stack.c (tprof_uread_upto()), each
 *   page looked up first and read all or nothing: a partial copy ends
 *   where the first page it could not read begins.
 * - AArch32 tasks (TPROF_ABI_ARM32): pc and lr only. Debian's armhf code
 *   is Thumb-2, whose frame pointer (r7) no walk can trust.
 * Debian's arm64 kernels have no pseudo-NMI (ARM64_PSEUDO_NMI unset): the
 * hot paths run in hardirq or with IRQs off, never in NMI.
 */
#include <linux/elf-em.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/stacktrace.h>
#include <linux/uaccess.h>
#include <asm/cpufeature.h>
#include <asm/processor.h>
#include <asm/ptrace.h>
#include <asm/sysreg.h>

#include "arch.h"
#include "compat.h"
#include "stack.h"
#include "uapi/tprof.h"

static_assert((int)TPROF_AREG_NR <= (int)TPROF_UREG_NR);
static_assert(sizeof(unsigned long) == sizeof(u64));

/*
 * One kernel walk as stack_trace_save() leaves it: tprof's own frames and
 * the interrupt's (about 10 to 30) come before the ones recorded.
 */
#define TPROF_KWALK_ENTRIES	(TPROF_MAX_KERNEL_FRAMES + 64)

struct tprof_kwalk {
	unsigned long ent[TPROF_KWALK_ENTRIES];
};

/* Per CPU: used with IRQs off only, and there is no NMI that could nest. */
static struct tprof_kwalk __percpu *tprof_kwalks;

u32 tprof_arch_e_machine(void)
{
	return EM_AARCH64;
}

/*
 * Bits [54:vabits] of a user address hold its PAC (bit 55 selects the
 * user or kernel half, the top byte is TBI's). Without PAuth nothing is
 * signed.
 */
u64 tprof_arch_user_pac_mask(void)
{
	return system_supports_address_auth() ? ptrauth_user_pac_mask() : 0;
}

int tprof_arch_init(void)
{
	tprof_kwalks = alloc_percpu(struct tprof_kwalk);
	return tprof_kwalks ? 0 : -ENOMEM;
}

void tprof_arch_exit(void)
{
	free_percpu(tprof_kwalks);
}

/*
 * Context: hardirq or IRQs off, current's own stack (@first_frame is a
 * frame of it, below us).
 */
unsigned int tprof_arch_kernel_stack(struct pt_regs *regs,
				     unsigned long *first_frame, u64 *ips,
				     unsigned int max, u16 *rflags)
{
	unsigned long *ent = this_cpu_ptr(tprof_kwalks)->ent;
	unsigned long start;
	unsigned int i = 0, n, nr = 0;

	/*
	 * The frame record at @first_frame is {caller's x29, return into
	 * the caller}: the latter, its PAC stripped as the unwinder strips
	 * every entry, is the first entry to keep.
	 */
	start = regs ? instruction_pointer(regs) :
		ptrauth_strip_kernel_insn_pac(first_frame[1]);
	n = stack_trace_save(ent, TPROF_KWALK_ENTRIES, 0);
	while (i < n && ent[i] != start)
		i++;
	if (i == n) {
		/*
		 * Not found (a return address the function graph tracer
		 * replaced, say): the walk cannot tell tprof's frames from
		 * the sampled ones.
		 */
		*rflags |= TPROF_RF_KERNEL_TRUNCATED;
		if (!regs)
			return 0;
		ips[nr++] = start;
		return nr;
	}
	ips[nr++] = ent[i++];
	/*
	 * The interrupted x30 after the pc (TPROF_RF_KERNEL_LR): the caller
	 * of a frameless leaf, which the records from x29 skip; stale
	 * elsewhere, which the reader tells with the kernel's symbols. Never
	 * a user address: x30 is only a caller's address where the code made
	 * a call; elsewhere it may hold any value (once, in 6.12-arm64's
	 * case 28, a sample's kernel ips held a user address: which ip, the
	 * log did not say).
	 */
	if (regs && nr < max) {
		unsigned long lr = ptrauth_strip_kernel_insn_pac(regs->regs[30]);

		if (is_ttbr1_addr(lr)) {
			ips[nr++] = lr;
			*rflags |= TPROF_RF_KERNEL_LR;
		}
	}
	while (i < n && ent[i] && nr < max)
		ips[nr++] = ent[i++];
	/* cut at max, or where the walk's own room ended */
	if ((i < n && ent[i]) || n == TPROF_KWALK_ENTRIES)
		*rflags |= TPROF_RF_KERNEL_TRUNCATED;
	return nr;
}

/*
 * AArch64: {x29, x30} records from x29. AArch32: r14 (its lr, x14 here)
 * and no walk, as values of 32 bits. Context: any; reads @uregs.
 */
void tprof_arch_user_start(struct pt_regs *uregs, struct tprof_ustart *st)
{
	st->rflags = TPROF_RF_USER_LR;
	st->frame32 = false;
	if (compat_user_mode(uregs)) {
		st->abi = TPROF_ABI_ARM32;
		st->pc = (u32)uregs->pc;
		st->lr = (u32)uregs->regs[14];
		st->fp = 0;
		return;
	}
	st->abi = TPROF_ABI_ARM64;
	st->pc = ptrauth_strip_user_insn_pac(uregs->pc);
	st->lr = ptrauth_strip_user_insn_pac(uregs->regs[30]);
	st->fp = uregs->regs[29];
}

/* Code built with -mbranch-protection signs x30 before it stores it. */
u64 tprof_arch_user_ret(u64 ret)
{
	return ptrauth_strip_user_insn_pac(ret);
}

/*
 * By enum tprof_ureg_arm64, the rest 0: x19-x28, fp, lr and pc without
 * their PAC, sp. Context: any; reads @uregs.
 */
unsigned long tprof_arch_user_regs(struct pt_regs *uregs, u32 abi, u64 *out)
{
	unsigned int i;

	for (i = 0; i < TPROF_UREG_NR; i++)
		out[i] = 0;
	for (i = TPROF_AREG_X19; i <= TPROF_AREG_X28; i++)
		out[i] = uregs->regs[19 + i - TPROF_AREG_X19];
	out[TPROF_AREG_FP] = uregs->regs[29];
	out[TPROF_AREG_LR] = ptrauth_strip_user_insn_pac(uregs->regs[30]);
	out[TPROF_AREG_SP] = uregs->sp;
	out[TPROF_AREG_PC] = ptrauth_strip_user_insn_pac(uregs->pc);
	return uregs->sp;
}

/*
 * A page at a time (stack.c's tprof_uread_upto(): each page looked up and
 * read all or nothing), so a partial copy ends exactly where the first
 * page it could not read begins, as the uapi promises. (arm64's
 * __arch_copy_from_user loads up to 64 bytes ahead of what it stores, and
 * its fixup counts only the stored bytes: a copy that ran into an
 * unmapped page alone would come back up to 48 bytes short.)
 * Context: hardirq or IRQs off; current's mm is the loaded one.
 */
u32 tprof_arch_ucopy(void *dst, unsigned long src, u32 len)
{
	return tprof_uread_upto(dst, src, len);
}

/* AAPCS64 on Linux has no red zone. */
bool tprof_arch_red_zone(u32 abi)
{
	return false;
}

/*
 * TPIDR_EL0, read from the CPU: the thread's own until __switch_to()'s
 * tls_thread_switch(), which comes after the sched_switch tracepoint;
 * thread.uw.tp_value is saved only there. An AArch32 task's TLS is
 * TPIDRRO_EL0: 0, as for ia32. Context: hardirq or IRQs off; current's
 * @uregs.
 */
unsigned long tprof_arch_user_tp(struct pt_regs *uregs)
{
	if (compat_user_mode(uregs))
		return 0;
	return read_sysreg(tpidr_el0);
}
