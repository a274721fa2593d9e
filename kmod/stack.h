/* SPDX-License-Identifier: GPL-2.0 */
/* tprof: user (frame pointer) and kernel (ORC) stack walks. */
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

#endif /* _TPROF_STACK_H */
