/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tprof: what differs between x86-64 and arm64, and nothing else. One of
 * kmod/arch_x86.c and kmod/arch_arm64.c is built (Kbuild); no other file
 * knows the architecture. The rest of the module speaks in the uapi's
 * terms (TPROF_ABI_*, TPROF_RF_*, the register sets of USTACK records).
 *
 * Every function but the INFO, init and exit ones is called on the
 * sampling hot path: hardirq (the HARD hrtimer, also on PREEMPT_RT) or
 * IRQs off (the sched_switch probe under the rq lock, IPIs), on current's
 * own stack and mm. They never allocate, sleep, take a lock or printk.
 */
#ifndef _TPROF_ARCH_H
#define _TPROF_ARCH_H

#include <linux/types.h>

struct pt_regs;

/* TPROF_IOC_INFO: EM_X86_64 or EM_AARCH64 */
u32 tprof_arch_e_machine(void);
/* TPROF_IOC_INFO: the PAC bits of a user code address (0 without PAuth) */
u64 tprof_arch_user_pac_mask(void);

/* Module load and unload. Context: process. Return: 0 or -ENOMEM. */
int tprof_arch_init(void);
void tprof_arch_exit(void);

/*
 * The kernel return addresses of current, innermost first: from @regs
 * (kernel mode: the interrupted pc first), or without @regs from the
 * caller of the function whose frame is @first_frame (its
 * __builtin_frame_address(0)), so tprof's own frames never show.
 * TPROF_RF_KERNEL_TRUNCATED in @rflags when cut at @max (>= 1) or when the
 * walk could not find where to start. Return: the number of @ips.
 */
unsigned int tprof_arch_kernel_stack(struct pt_regs *regs,
				     unsigned long *first_frame, u64 *ips,
				     unsigned int max, u16 *rflags);

/**
 * struct tprof_ustart - where the user stack of a sample starts.
 * @abi: TPROF_ABI_* of the user context.
 * @pc: the interrupted user pc (a u32 value for 32-bit ABIs).
 * @lr: with TPROF_RF_USER_LR in @rflags: the interrupted link register,
 *	recorded right after @pc.
 * @fp: the innermost frame record, where the frame-pointer walk starts;
 *	0: no walk (AArch32).
 * @rflags: TPROF_RF_USER_LR or 0.
 * @frame32: the frame records are 32-bit {next, ret} (ia32), not 64-bit.
 */
struct tprof_ustart {
	u32 abi;
	u64 pc;
	u64 lr;
	u64 fp;
	u16 rflags;
	bool frame32;
};

/* @uregs: current's user registers (user_mode()). */
void tprof_arch_user_start(struct pt_regs *uregs, struct tprof_ustart *st);
/* A return address read from a 64-bit user frame record, PAC stripped. */
u64 tprof_arch_user_ret(u64 ret);
/*
 * The USTACK record's registers of @uregs, into @out (TPROF_UREG_NR
 * slots, by the register set @abi names: enum tprof_ureg or enum
 * tprof_ureg_arm64). Return: the user stack pointer the snapshot starts
 * at. Not for TPROF_ABI_ARM32, which has no snapshots.
 */
unsigned long tprof_arch_user_regs(struct pt_regs *uregs, u32 abi, u64 *out);
/*
 * Copies user memory of current's mm up to the first page that cannot be
 * read (never faulting a page in; see tprof_uread_upto()). Return: bytes
 * copied.
 */
u32 tprof_arch_ucopy(void *dst, unsigned long src, u32 len);
/* Does @abi have a red zone below sp (TPROF_F_SNAPSHOT_BELOW)? */
bool tprof_arch_red_zone(u32 abi);
/* The thread pointer of current's user code (its TLS), or 0 if none. */
unsigned long tprof_arch_user_tp(struct pt_regs *uregs);

#endif /* _TPROF_ARCH_H */
