// SPDX-License-Identifier: GPL-2.0
/* tprof-read: each CU's code scopes, indexed once (scopes.h). */
#include <dwarf.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/util.h"
#include "object/scopes.h"

/* DIEs nested deeper than this are not indexed (no compiler nests so) */
#define MAX_DEPTH 256
/* Imported (partial) units expanded in one CU at most: a crafted DAG of
 * units importing others twice would otherwise take 2^depth walks */
#define MAX_IMPORTS 4096

struct range {
	Dwarf_Addr lo, hi;
};

/* A DIE with code: its ranges and its place in the CU's tree. */
struct node {
	Dwarf_Die die;
	uint32_t r0, nr;	/* its ranges: the CU's r[r0 .. r0 + nr) */
	int32_t parent;		/* -1: the CU */
	int32_t child, next;	/* first child, next sibling; -1: none */
	int32_t last;		/* last child, while building */
	int tag;
	bool bad;		/* its ranges could not all be read */
};

struct cu_index {
	const void *key;	/* the CU DIE's address in its Dwarf */
	struct node *n;
	size_t nn, capn;
	struct range *r;
	size_t nr, capr;
	int32_t first, last;	/* the CU's top-level nodes */
};

/* While a CU's index is built: the imported units walked into. */
struct build {
	struct cu_index *c;
	unsigned int imports;	/* imported units expanded */
	const void *unit[MAX_DEPTH + 1];	/* units being expanded */
	int nunit;
};

struct scopes {
	struct cu_index **cus;
	size_t n, cap;
	struct hindex idx;
};

struct scopes *scopes__new(void)
{
	return xcalloc(1, sizeof(struct scopes));
}

void scopes__free(struct scopes *sc)
{
	size_t i;

	if (!sc)
		return;
	for (i = 0; i < sc->n; i++) {
		free(sc->cus[i]->n);
		free(sc->cus[i]->r);
		free(sc->cus[i]);
	}
	free(sc->cus);
	hindex_free(&sc->idx);
	free(sc);
}

/* The tags libdw's scope walk descends into (libdw_visit_scopes.c). */
static bool may_have_scopes(int tag)
{
	switch (tag) {
	case DW_TAG_compile_unit:
	case DW_TAG_module:
	case DW_TAG_lexical_block:
	case DW_TAG_with_stmt:
	case DW_TAG_catch_block:
	case DW_TAG_try_block:
	case DW_TAG_entry_point:
	case DW_TAG_inlined_subroutine:
	case DW_TAG_subprogram:
	case DW_TAG_namespace:
	case DW_TAG_class_type:
	case DW_TAG_structure_type:
		return true;
	default:
		return false;
	}
}

/*
 * Whether the last libdw error is one dwarf_getscopes() takes for "no
 * range": a DIE with DW_AT_ranges in a file without the section. The codes
 * are not public; the messages are, and tprof-read sets no locale.
 */
static bool no_range_section(void)
{
	const char *m = dwarf_errmsg(dwarf_errno());

	return m && (strstr(m, ".debug_ranges section") ||
		     strstr(m, ".debug_rnglists section"));
}

/*
 * Index die under parent when it holds code; -1 when it has no range
 * (dwarf_haspc() is false for every pc, so libdw never descends there).
 * A DIE whose ranges cannot all be read is kept, marked: libdw's walk
 * gives up at it for a pc its readable ranges do not hold
 * (scopes__funcs()).
 */
static int32_t add_node(struct cu_index *c, Dwarf_Die *die, int32_t parent)
{
	Dwarf_Addr base, lo, hi;
	ptrdiff_t it = 0;
	size_t r0 = c->nr;
	int32_t k, *last;

	while ((it = dwarf_ranges(die, it, &base, &lo, &hi)) > 0) {
		if (hi <= lo)
			continue;
		GROW(c->r, c->capr, c->nr + 1);
		c->r[c->nr++] = (struct range){ lo, hi };
	}
	/* dwarf_haspc() reads the ranges in order: the ones before an
	 * error still hold their pcs, and for other pcs the error is "no"
	 * (no_range_section()) or the end of the walk */
	if (it < 0 && no_range_section())
		it = 0;
	if (it == 0 && c->nr == r0)
		return -1;
	GROW(c->n, c->capn, c->nn + 1);
	k = (int32_t)c->nn++;
	c->n[k] = (struct node){
		.die = *die, .r0 = (uint32_t)r0, .nr = (uint32_t)(c->nr - r0),
		.parent = parent, .child = -1, .next = -1, .last = -1,
		.tag = dwarf_tag(die), .bad = it < 0,
	};
	/* appended, so that siblings keep DIE order */
	last = parent < 0 ? &c->last : &c->n[parent].last;
	if (*last >= 0)
		c->n[*last].next = k;
	else if (parent < 0)
		c->first = k;
	else
		c->n[parent].child = k;
	*last = k;
	return k;
}

/*
 * An imported unit to walk in place of its DW_TAG_imported_unit: a partial
 * unit, not a whole CU (libdw skips those: old gcc -flto), not one being
 * walked already (a cycle), within MAX_IMPORTS.
 */
static bool import_ok(struct build *b, Dwarf_Die *pu)
{
	int i;

	if (dwarf_tag(pu) == DW_TAG_compile_unit || b->imports >= MAX_IMPORTS ||
	    b->nunit > MAX_DEPTH)
		return false;
	for (i = 0; i < b->nunit; i++)
		if (b->unit[i] == pu->addr)
			return false;
	b->imports++;
	return true;
}

/*
 * The children of parent_die, under node parent. An imported (partial)
 * unit's children count as the importer's, as libdw walks them.
 */
static void add_children(struct build *b, Dwarf_Die *parent_die,
			 int32_t parent, int depth)
{
	Dwarf_Die child;

	if (depth > MAX_DEPTH || dwarf_child(parent_die, &child) != 0)
		return;
	do {
		int tag = dwarf_tag(&child);
		Dwarf_Attribute a;
		Dwarf_Die pu;
		int32_t k;

		if (tag == DW_TAG_imported_unit) {
			if (dwarf_formref_die(dwarf_attr(&child, DW_AT_import, &a),
					      &pu) && import_ok(b, &pu)) {
				b->unit[b->nunit++] = pu.addr;
				add_children(b, &pu, parent, depth + 1);
				b->nunit--;
			}
			continue;
		}
		k = add_node(b->c, &child, parent);
		if (k >= 0 && may_have_scopes(tag) && dwarf_haschildren(&child))
			add_children(b, &child, k, depth + 1);
	} while (dwarf_siblingof(&child, &child) == 0);
}

/* cudie's index, built at the first address asked of that CU. */
static struct cu_index *cu_index(struct scopes *sc, Dwarf_Die *cudie)
{
	uint64_t h = hash_u64((uint64_t)(uintptr_t)cudie->addr);
	struct hiter it = { 0 };
	struct build b = { 0 };
	struct cu_index *c;
	uint32_t item;

	while (hindex_next(&sc->idx, h, &it, &item))
		if (sc->cus[item - 1]->key == cudie->addr)
			return sc->cus[item - 1];
	c = xcalloc(1, sizeof(*c));
	c->key = cudie->addr;
	c->first = c->last = -1;
	b.c = c;
	add_children(&b, cudie, -1, 0);
	GROW(sc->cus, sc->cap, sc->n + 1);
	sc->cus[sc->n++] = c;
	hindex_put(&sc->idx, h, (uint32_t)sc->n);
	return c;
}

static bool holds(const struct cu_index *c, const struct node *n,
		  Dwarf_Addr pc)
{
	uint32_t i;

	for (i = 0; i < n->nr; i++)
		if (c->r[n->r0 + i].lo <= pc && pc < c->r[n->r0 + i].hi)
			return true;
	return false;
}

static bool is_func(int tag)
{
	return tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine;
}

/* k or its nearest ancestor that is a function; -1 if none */
static int32_t func_at(const struct cu_index *c, int32_t k)
{
	while (k >= 0 && !is_func(c->n[k].tag))
		k = c->n[k].parent;
	return k;
}

int scopes__funcs(struct scopes *sc, Dwarf_Die *cudie, Dwarf_Addr pc,
		  Dwarf_Die *funcs, int max)
{
	struct cu_index *c = cu_index(sc, cudie);
	int32_t k = c->first, at = -1;
	int n = 0;

	/* the first child holding pc at each depth, as dwarf_getscopes();
	 * which gives up at a DIE before it whose ranges it cannot read */
	while (k >= 0) {
		if (holds(c, &c->n[k], pc)) {
			at = k;
			k = c->n[k].child;
		} else if (c->n[k].bad) {
			return 0;
		} else {
			k = c->n[k].next;
		}
	}
	for (k = func_at(c, at); k >= 0 && n < max;
	     k = func_at(c, c->n[k].parent)) {
		funcs[n++] = c->n[k].die;
		if (c->n[k].tag != DW_TAG_inlined_subroutine)
			break;
	}
	return n;
}
