// SPDX-License-Identifier: GPL-2.0
/*
 * tprof-read: a module's ELF symbols sorted by address (symtab.h).
 *
 * The rules are libdwfl's (__libdwfl_addrsym): global and weak symbols
 * first, local ones only when no global holds the address; a sized symbol
 * holding the address over a size-0 one; among those the closest start,
 * then the stronger binding. Where libdwfl's answer depends on the order
 * of the table (overlapping symbols of different bindings and starts),
 * this takes the closest start.
 *
 * One rule is perf's, not libdwfl's: ARM and AArch64 "mapping symbols"
 * ($a, $d, $t, $x, and $x.N and the like: local, untyped, size 0) mark
 * where code or data starts, not a function. libdwfl names addresses by
 * them ("$x+0x70" for a PLT entry of an arm64 binary); they are skipped,
 * as perf's symbol-elf.c skips them.
 */
#include <gelf.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "object/symtab.h"
#include "lib/util.h"

struct sym_ent {
	uint64_t value;
	uint64_t size;
	Elf_Scn *sec;			/* size-0 symbols: section of value */
	const char *name;		/* in the ELF's string table */
	uint32_t order;			/* index in the table: ties */
	uint8_t bind;			/* binding_value(): higher wins */
	bool abs;			/* SHN_ABS and the like: exact only */
};

struct sym_arr {
	struct sym_ent *e;
	uint64_t *maxend;	/* maxend[i]: max(value + size) of e[0..i] */
	size_t n, cap;
};

struct symtab {
	Dwfl_Module *mod;
	struct sym_arr global, local;
};

static uint8_t binding_value(const GElf_Sym *sym)
{
	switch (GELF_ST_BIND(sym->st_info)) {
	case STB_GLOBAL:
		return 3;
	case STB_WEAK:
		return 2;
	case STB_LOCAL:
		return 1;
	default:
		return 0;
	}
}

/*
 * The allocated section holding addr, as libdwfl's same_section() decides
 * it for dwfl_module_addrinfo(): a section's end address belongs to it
 * unless the next one starts there; NULL outside all (so _end and the like,
 * past .bss, are in the "same section" as an address past it).
 */
static Elf_Scn *section_of(Dwfl_Module *mod, uint64_t addr)
{
	Dwarf_Addr a = addr, bias;

	return dwfl_module_address_section(mod, &a, &bias);
}

static int ent_cmp(const void *a, const void *b)
{
	const struct sym_ent *x = a, *y = b;

	if (x->value != y->value)
		return x->value < y->value ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

static bool mapping_symbol(const GElf_Sym *sym, const char *name)
{
	return name[0] == '$' && name[1] && strchr("adtx", name[1]) &&
	       (name[2] == '\0' || name[2] == '.') && !sym->st_size &&
	       GELF_ST_BIND(sym->st_info) == STB_LOCAL &&
	       GELF_ST_TYPE(sym->st_info) == STT_NOTYPE;
}

static void add_ent(struct sym_arr *a, Dwfl_Module *mod, int i)
{
	GElf_Sym sym;
	GElf_Addr value, bias = 0;
	GElf_Word shndx = SHN_UNDEF;
	Elf *elf = NULL;
	struct sym_ent *e;
	const char *name;
	int type;

	name = dwfl_module_getsym_info(mod, i, &sym, &value, &shndx, &elf,
				       &bias);
	type = GELF_ST_TYPE(sym.st_info);
	if (!name || !name[0] || sym.st_shndx == SHN_UNDEF ||
	    type == STT_SECTION || type == STT_FILE || type == STT_TLS ||
	    mapping_symbol(&sym, name))
		return;
	GROW(a->e, a->cap, a->n + 1);
	e = &a->e[a->n++];
	e->value = value;
	e->size = sym.st_size;
	e->name = name;
	e->order = (uint32_t)i;
	e->bind = binding_value(&sym);
	e->abs = shndx >= SHN_LORESERVE && shndx != SHN_XINDEX;
	e->sec = NULL;
	if (!e->size && !e->abs)
		e->sec = section_of(mod, value);
}

static void finish(struct sym_arr *a)
{
	uint64_t m = 0;
	size_t i;

	if (!a->n)
		return;
	qsort(a->e, a->n, sizeof(*a->e), ent_cmp);
	a->maxend = xmalloc(a->n * sizeof(*a->maxend));
	for (i = 0; i < a->n; i++) {
		uint64_t end = a->e[i].value + a->e[i].size;

		m = end > m ? end : m;
		a->maxend[i] = m;
	}
}

struct symtab *symtab__new(Dwfl_Module *mod)
{
	int n = dwfl_module_getsymtab(mod);
	int first_global = dwfl_module_getsymtab_first_global(mod);
	struct symtab *t;
	int i;

	if (n <= 1 || first_global < 0)
		return NULL;
	t = xcalloc(1, sizeof(*t));
	t->mod = mod;
	/* first_global 0: only .dynsym read through the phdrs, no locals */
	for (i = 1; i < n; i++)
		add_ent(i < first_global ? &t->local : &t->global, mod, i);
	finish(&t->global);
	finish(&t->local);
	return t;
}

void symtab__free(struct symtab *t)
{
	if (!t)
		return;
	free(t->global.e);
	free(t->global.maxend);
	free(t->local.e);
	free(t->local.maxend);
	free(t);
}

/* entries e[0..return) start at or below addr */
static size_t upto(const struct sym_arr *a, uint64_t addr)
{
	size_t lo = 0, hi = a->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (a->e[mid].value <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static bool better(const struct sym_ent *e, const struct sym_ent *best)
{
	if (!best || e->value != best->value)
		return !best || e->value > best->value;
	if (e->bind != best->bind)
		return e->bind > best->bind;
	if (e->size != best->size)
		return e->size < best->size;
	return e->order < best->order;
}

/* The sized symbol of a holding addr: walk down from the closest start
 * while some symbol at or below can still reach addr. */
static const struct sym_ent *sized(const struct sym_arr *a, size_t hi,
				   uint64_t addr)
{
	const struct sym_ent *best = NULL;
	size_t j;

	for (j = hi; j-- > 0 && a->maxend[j] > addr;) {
		const struct sym_ent *e = &a->e[j];

		if (best && e->value < best->value)
			break;
		if (e->size && addr - e->value < e->size && better(e, best))
			best = e;
	}
	return best;
}

/*
 * A size-0 label at or below addr in addr's section, at or above
 * min_label (the end of every sized symbol starting at or below addr: a
 * label inside another symbol's extent is not the function at addr).
 * Above min_label there are only labels: a sized symbol there would reach
 * past it. Of labels at one address libdwfl keeps the last it walks:
 * locals (walked after globals, later) over globals, then table order.
 */
static const struct sym_ent *label(const struct sym_arr *a, size_t hi,
				   uint64_t addr, uint64_t min_label,
				   Elf_Scn *addr_sec, const struct sym_ent *best,
				   bool walked_later)
{
	size_t j;

	for (j = hi; j-- > 0 && a->e[j].value >= min_label;) {
		const struct sym_ent *e = &a->e[j];

		if (best && e->value < best->value)
			break;
		if (e->size || (e->abs ? e->value != addr : e->sec != addr_sec))
			continue;
		if (!best || e->value > best->value || walked_later) {
			best = e;
			walked_later = false;	/* now best is of this array */
		} else if (e->order > best->order) {
			best = e;
		}
	}
	return best;
}

const char *symtab__lookup(const struct symtab *t, uint64_t addr)
{
	const struct sym_ent *e, *lab;
	Elf_Scn *addr_sec;
	size_t hg, hl;
	uint64_t min_label = 0;

	if (!t)
		return NULL;
	hg = upto(&t->global, addr);
	e = sized(&t->global, hg, addr);
	if (e)
		return e->name;
	addr_sec = section_of(t->mod, addr);
	if (hg)
		min_label = t->global.maxend[hg - 1];
	lab = label(&t->global, hg, addr, min_label, addr_sec, NULL, false);
	/* a global label exactly at addr ends the search, as in libdwfl */
	if (lab && lab->value == addr)
		return lab->name;
	hl = upto(&t->local, addr);
	e = sized(&t->local, hl, addr);
	if (e)
		return e->name;
	if (hl && t->local.maxend[hl - 1] > min_label)
		min_label = t->local.maxend[hl - 1];
	if (lab && lab->value < min_label)
		lab = NULL;
	lab = label(&t->local, hl, addr, min_label, addr_sec, lab, true);
	return lab ? lab->name : NULL;
}

bool symtab__range(const struct symtab *t, uint64_t addr, uint64_t *lo,
		   uint64_t *hi)
{
	const struct sym_ent *e;

	if (!t)
		return false;
	e = sized(&t->global, upto(&t->global, addr), addr);
	if (!e)
		e = sized(&t->local, upto(&t->local, addr), addr);
	if (!e)
		return false;
	*lo = e->value;
	*hi = e->value + e->size;
	return true;
}
