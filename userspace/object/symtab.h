/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tprof-read: a module's ELF symbols sorted by address, so that naming an
 * address costs O(log n). dwfl_module_addrinfo() scans the whole table per
 * call: 2 ms an address in libnode (100k+ symbols), 11 s for one Node
 * profile.
 */
#ifndef TPROF_SYMTAB_H
#define TPROF_SYMTAB_H

#include <elfutils/libdwfl.h>
#include <stdbool.h>
#include <stdint.h>

struct symtab;

/* Index mod's symbols (dwfl_module_getsymtab: .symtab or .dynsym, plus
 * .gnu_debugdata's). NULL if it has none. */
struct symtab *symtab__new(Dwfl_Module *mod);
void symtab__free(struct symtab *t);

/*
 * The name dwfl_module_addrinfo(mod, addr) gives (NULL: none): the closest
 * sized symbol holding addr, global over weak over local at one address;
 * failing that the closest size-0 symbol (an assembly label) in addr's
 * section that no sized symbol's extent passes over.
 */
const char *symtab__lookup(const struct symtab *t, uint64_t addr);

/*
 * The extent [*lo, *hi) of the sized symbol holding addr (global over
 * local, as symtab__lookup() picks): the function around it. false when
 * only a label, or nothing, holds addr: its extent is not known.
 */
bool symtab__range(const struct symtab *t, uint64_t addr, uint64_t *lo,
		   uint64_t *hi);

#endif
