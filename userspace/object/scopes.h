/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tprof-read: each CU's tree of code scopes, indexed once, so that the
 * functions around an address (the innermost, then the functions it was
 * inlined into) cost a descent of that tree, not libdw's walks of the
 * CU. dwarf_getscopes() visits every scope of the CU to find an inlined
 * instance's abstract origin, and dwarf_getscopes_die() walks from the
 * CU's root again for each inline level: 67% of a replay's time, 7.4 s
 * for 10k samples of a CPython whose ceval.c CU is one large function.
 */
#ifndef TPROF_SCOPES_H
#define TPROF_SCOPES_H

#include <elfutils/libdw.h>

struct scopes;

struct scopes *scopes__new(void);
/* Frees the indexes; before the Dwarf they point into is ended. */
void scopes__free(struct scopes *sc);

/*
 * The functions around pc in the CU cudie: funcs[0] the innermost
 * DW_TAG_subprogram or DW_TAG_inlined_subroutine whose ranges hold pc
 * (first in DIE order at each depth, as dwarf_getscopes() descends), then
 * for as long as funcs[i] is an inlined instance, the function around it
 * in the CU's tree (as dwarf_getscopes_die() climbs). Returns how many (at
 * most max); 0 when no function of the CU holds pc, or where libdw's walk
 * gives up (a DIE on the way whose ranges cannot be read).
 * One difference from libdw, on purpose: dwarf_getscopes() also looks for
 * an inlined instance's abstract origin, in the same CU only, and returns
 * nothing where it lies in another (Go, which points into each package's
 * CU; LTO builds). Then tprof-read named the address by its ELF symbol,
 * with the inlined code's file and line (Go's errors.init "at" reflectlite's
 * type.go:974). This gives the chain, as Go's runtime/pprof does.
 */
int scopes__funcs(struct scopes *sc, Dwarf_Die *cudie, Dwarf_Addr pc,
		  Dwarf_Die *funcs, int max);

#endif
