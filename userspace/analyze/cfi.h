/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tprof-read: CFI rows of the objects' code (.eh_frame, else .debug_frame:
 * Go), computed by libdw once per (object, address) and kept in a form a
 * walk applies over a stack snapshot, and the DWARF expressions they hold.
 * The walk itself (frames, the frame-pointer join) is analyze/unwind.c.
 */
#ifndef _TPROF_CFI_H
#define _TPROF_CFI_H

#include <elfutils/libdw.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/util.h"

struct object;

/*
 * DWARF registers: x86-64 0..16 (16 = return address), i386 0..8,
 * AArch64 0..31 (x0-x30, sp; the return address is x30's column); the
 * frame's pc is kept in the last slot, PC_SLOT, whatever the ABI's columns.
 */
#define NREGS 33
#define PC_SLOT (NREGS - 1)
#define BIT(i) (1ULL << (i))

enum rkind {
	RK_UNDEF,	/* not recoverable */
	RK_SAME,	/* unchanged from the callee */
	RK_AT_CFA,	/* saved at CFA + off */
	RK_VAL_CFA,	/* is CFA + off */
	RK_REG,		/* is another register's value */
	RK_EXPR,	/* saved at the address an expression gives */
	RK_VAL_EXPR,	/* is an expression's value */
};

struct uw_reg {
	uint8_t kind;
	uint8_t reg;
	int64_t off;
	const Dwarf_Op *ops;	/* expressions: libdw keeps them with the CFI */
	size_t nops;
};

/* One CFI row, as applied to a frame. */
struct uw_rule {
	uint32_t obj;
	uint64_t vaddr;
	bool ok;		/* an FDE covers vaddr */
	bool signal;		/* a signal trampoline: the caller's pc is exact */
	uint8_t ra;		/* return address column */
	uint8_t cfa_reg;
	int64_t cfa_off;
	const Dwarf_Op *cfa_ops;	/* an expression CFA, else NULL */
	size_t cfa_nops;
	struct uw_reg regs[NREGS];
	/*
	 * What a step needs without looking at every column: the registers
	 * that keep their value (most callee-saved ones), and the few with
	 * any other recoverable rule.
	 */
	uint64_t same_mask;
	uint8_t nmoved;
	uint8_t moved[NREGS];
};

/* The registers of one frame, and which are known. */
struct uw_state {
	uint64_t r[NREGS];
	uint64_t valid;
};

/* The snapshot: stack bytes from sp up; words of 8 bytes, or 4 (IA32). */
struct snap {
	uint64_t lo;
	const unsigned char *bytes;
	size_t len;
	unsigned int word;
};

/* Rows by (object, address): each computed once. */
struct cfi_cache {
	struct uw_rule *rules;
	size_t nrules, caprules;
	struct hindex idx;
	/* per object id: 0 not looked at, 1 not Go, 2 Go */
	uint8_t *go;
	size_t ngo;
	uint64_t computed, hits;	/* rows computed / reused */
	/* rows held at most (0: no bound); past it the cache starts over */
	size_t max_rows;
	uint64_t resets;
};

void cfi_cache__free(struct cfi_cache *c);

/*
 * The row of o's CFI at vaddr (an address of o's ELF), its columns below
 * nregs (the ABI's); ok false where no FDE covers vaddr. Stays valid until
 * the next call (the cache grows).
 */
const struct uw_rule *cfi__row(struct cfi_cache *c, struct object *o,
			       uint64_t vaddr, unsigned int nregs);

/*
 * Whether o is a Go program: Go keeps a frame pointer in every function
 * that has a frame (amd64 and arm64 since Go 1.7), though its CFI is
 * sp-based throughout.
 */
bool cfi__is_go(struct cfi_cache *c, struct object *o);

/* A word of the snapshot at addr: false where it holds none. */
bool cfi__snap_read(const struct snap *s, uint64_t addr, uint64_t *val);

/*
 * A DWARF expression of the CFI (signal trampolines, PLT entries) over the
 * frame's registers st and the snapshot sn; cfa where have_cfa (register
 * rules may use DW_OP_call_frame_cfa). false where it needs what is not
 * known.
 */
bool cfi__eval(const Dwarf_Op *ops, size_t nops, const struct uw_state *st,
	       uint64_t cfa, bool have_cfa, const struct snap *sn,
	       uint64_t *res);

#endif /* _TPROF_CFI_H */
