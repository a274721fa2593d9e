/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tprof: user (frame pointer) and kernel (ORC) stack walks, and the pieces
 * of user stack snapshots (registers, raw stack bytes).
 */
#ifndef _TPROF_STACK_H
#define _TPROF_STACK_H

#include <linux/types.h>

struct pt_regs;
struct tprof_ring_stats;

unsigned int tprof_stack_kernel(struct pt_regs *regs,
				unsigned long *first_frame, u64 *ips,
				unsigned int max, u16 *rflags);
unsigned int tprof_stack_user(struct pt_regs *regs, u64 *ips,
			      unsigned int max, u32 *abi, u16 *rflags);
unsigned long tprof_stack_uregs(struct pt_regs *regs, u64 *out);
u32 tprof_stack_ubytes(unsigned long sp, u32 want);
u32 tprof_stack_ucopy(void *dst, unsigned long src, u32 len);

#endif /* _TPROF_STACK_H */
