/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The file tests/progs/unwind_arm64.c writes (under qemu-user) and
 * tests/unit/test_arm64.c reads: the samples the program took of itself,
 * each what tprof.ko records for an arm64 sample (the registers of enum
 * tprof_ureg_arm64, the FP chain with the link register, the stack from
 * sp), then its /proc/self/maps. Both sides are little-endian LP64.
 */
#ifndef _TPROF_ARM64_SNAP_H
#define _TPROF_ARM64_SNAP_H

#include <stdint.h>

#define ARM64_SNAP_MAGIC	0x70616e7334366d61ULL	/* "am64snap" */
#define ARM64_SNAP_REGS		14	/* TPROF_AREG_NR */
#define ARM64_SNAP_IPS		128
#define ARM64_SNAP_BYTES	8192

struct arm64_snap_hdr {
	uint64_t magic;
	uint32_t nsamples;
	uint32_t maps_len;	/* the maps text after the samples */
	uint64_t signed_lr;	/* a PAC-signed return address seen, or 0 */
	uint64_t stripped_lr;	/* the same, stripped (xpaclri) */
	/*
	 * The samples whose FP chain holds the return address into main
	 * (sort_round's or caller's, signed), and those of them where it
	 * reads as not signed. qemu-user's PAC is bits 54:48 alone (TBI for
	 * code too), so 1 in 128 keys and modifiers sign it with zero bits:
	 * then no mask stops the walk there, and test_arm64's "PAC mask 0"
	 * control, which wants the walk to stop, cannot tell.
	 */
	uint64_t main_ret_seen;
	uint64_t main_ret_plain;
};

struct arm64_snap {
	uint32_t nips;		/* ips[0] pc, ips[1] lr, then the FP chain */
	uint32_t nbytes;	/* stack[] from regs[SP] */
	uint64_t regs[ARM64_SNAP_REGS];
	uint64_t ips[ARM64_SNAP_IPS];
	unsigned char stack[ARM64_SNAP_BYTES];
};

#endif /* _TPROF_ARM64_SNAP_H */
