/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tprof: the user (frame pointer) and kernel stack walks of samples, and
 * the size of user stack snapshots. The architecture's part is arch.h's.
 */
#ifndef _TPROF_STACK_H
#define _TPROF_STACK_H

#include <linux/types.h>

struct pt_regs;

unsigned int tprof_stack_kernel(struct pt_regs *regs,
				unsigned long *first_frame, u64 *ips,
				unsigned int max, u16 *rflags);
unsigned int tprof_stack_user(struct pt_regs *regs, u64 *ips,
			      unsigned int max, u32 *abi, u16 *rflags);
u32 tprof_stack_ubytes(unsigned long sp, u32 want);

#endif /* _TPROF_STACK_H */
