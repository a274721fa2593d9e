/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tprof: the user (frame pointer) and kernel stack walks of samples, and
 * the size of user stack snapshots. The architecture's part is arch.h's.
 */
#ifndef _TPROF_STACK_H
#define _TPROF_STACK_H

#include <linux/types.h>

#include "uapi/tprof.h"

struct pt_regs;
struct tprof_ioc_stats;

/**
 * struct tprof_uread_stats - one CPU's counts of one session's user reads
 *	(tprof_procs.uread), as STATS names them (uread_*). Written by that
 *	CPU's samples only (IRQs off), read by STATS.
 */
struct tprof_uread_stats {
	u64 samples;
	u64 reads;
	u64 faults;
	u64 page_checks;
	u64 capped;
	u64 max_reads;
	u64 max_faults;
};

unsigned int tprof_stack_kernel(struct pt_regs *regs,
				unsigned long *first_frame, u64 *ips,
				unsigned int max, u16 *rflags);
unsigned int tprof_stack_user(struct pt_regs *regs, u64 *ips,
			      unsigned int max, u32 *abi, u16 *rflags,
			      u64 *chain_fp);
unsigned int tprof_stack_uchain(u64 fp, u64 *ips, unsigned int max,
				u16 *rflags);
u32 tprof_stack_ubytes(unsigned long sp, u32 want);

/*
 * Does a frame-pointer chain end at the record at @fp, whose next link is
 * @next? Frames live further up the stack, so a link that does not go up
 * ends it (and a loop with it); one that is not 0, the chain's own end, is
 * a bad link, said in @rflags (TPROF_RF_USER_FAULT). Context: any.
 */
static inline bool tprof_link_ends(u64 next, u64 fp, u16 *rflags)
{
	if (next > fp)
		return false;
	if (next)
		*rflags |= TPROF_RF_USER_FAULT;
	return true;
}

/*
 * Does a task of @abi have a chain of 64-bit frame records that
 * tprof_stack_user() can leave to its caller (TPROF_F_USTACK_CHAIN)?
 */
static inline bool tprof_abi_chain(u32 abi)
{
	return abi == TPROF_ABI_X86_64 || abi == TPROF_ABI_ARM64;
}

void tprof_uread_begin(struct tprof_uread_stats *st, bool guarded);
int tprof_uread(void *dst, unsigned long addr, u32 len);
u32 tprof_uread_upto(void *dst, unsigned long addr, u32 len);
void tprof_uread_stats(struct tprof_uread_stats __percpu *pcpu,
		       struct tprof_ioc_stats *st);

#endif /* _TPROF_STACK_H */
