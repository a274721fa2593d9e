// SPDX-License-Identifier: GPL-2.0
/*
 * tprof-read: CFI rows, cached per (object, address), and the DWARF
 * expressions they hold.
 *
 * libdw computes each CFI row (dwarf_cfi_addrframe); this file keeps it in
 * a compact form that analyze/unwind.c applies over the snapshot itself.
 * perf and ddprof drive dwfl_getthread_frames() instead, which recomputes
 * every row of every frame of every sample (a malloc'd Dwarf_Frame and an
 * expression evaluation per register): a hot return address is one hash
 * probe here.
 */
#include <dwarf.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>

#include "object/object.h"
#include "analyze/cfi.h"

#define EXPR_STACK 16

void cfi_cache__free(struct cfi_cache *c)
{
	free(c->rules);
	free(c->go);
	hindex_free(&c->idx);
	memset(c, 0, sizeof(*c));
}

/* a section Go's linker writes and no C toolchain does */
static bool elf_is_go(Elf *elf)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	const char *name;

	if (!elf || elf_kind(elf) != ELF_K_ELF ||
	    elf_getshdrstrndx(elf, &shstrndx))
		return false;
	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh))
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (name && (!strcmp(name, ".gopclntab") ||
			     !strcmp(name, ".go.buildinfo")))
			return true;
	}
	return false;
}

bool cfi__is_go(struct cfi_cache *c, struct object *o)
{
	uint32_t id = o->id;

	if (id >= c->ngo) {
		size_t n = id + 16;

		c->go = xrealloc(c->go, n);
		memset(c->go + c->ngo, 0, n - c->ngo);
		c->ngo = n;
	}
	if (!c->go[id])
		c->go[id] = elf_is_go(o->elf) ? 2 : 1;
	return c->go[id] == 2;
}

static bool is_breg(const Dwarf_Op *op, uint8_t *reg, int64_t *off)
{
	if (op->atom >= DW_OP_breg0 && op->atom <= DW_OP_breg31) {
		*reg = op->atom - DW_OP_breg0;
		*off = (int64_t)op->number;
		return true;
	}
	if (op->atom == DW_OP_bregx && op->number < NREGS) {
		*reg = op->number;
		*off = (int64_t)op->number2;
		return true;
	}
	return false;
}

static void rule_reg(Dwarf_Frame *fr, int regno, struct uw_reg *rr)
{
	Dwarf_Op mem[3], *ops;
	size_t nops;

	memset(rr, 0, sizeof(*rr));
	rr->kind = RK_UNDEF;
	if (dwarf_frame_register(fr, regno, mem, &ops, &nops))
		return;
	if (!nops) {
		/* ops NULL: same value; ops_mem: undefined (libdw.h) */
		rr->kind = ops ? RK_UNDEF : RK_SAME;
		return;
	}
	if (ops != mem) {
		/* an expression, kept by libdw as long as the CFI */
		rr->kind = ops[nops - 1].atom == DW_OP_stack_value ?
			   RK_VAL_EXPR : RK_EXPR;
		rr->ops = ops;
		rr->nops = nops;
		return;
	}
	if (ops[0].atom == DW_OP_call_frame_cfa) {
		bool val = ops[nops - 1].atom == DW_OP_stack_value;

		rr->kind = val ? RK_VAL_CFA : RK_AT_CFA;
		if (nops > 1 && ops[1].atom == DW_OP_plus_uconst)
			rr->off = (int64_t)ops[1].number;
	} else if (ops[0].atom == DW_OP_regx && ops[0].number < NREGS) {
		rr->kind = RK_REG;
		rr->reg = ops[0].number;
	}
}

/* ru's row from o's CFI, its columns below nregs (the ABI's) */
static void compute_rule(const struct object *o, struct uw_rule *ru,
			 unsigned int nregs)
{
	Dwarf_Frame *fr = NULL;
	Dwarf_Addr start, end;
	Dwarf_Op *ops;
	size_t nops;
	int ra, i;

	if (!(o->eh && !dwarf_cfi_addrframe(o->eh, ru->vaddr, &fr)) &&
	    !(o->dbg && !dwarf_cfi_addrframe(o->dbg, ru->vaddr, &fr)))
		return;
	ra = dwarf_frame_info(fr, &start, &end, &ru->signal);
	if (ra < 0 || ra >= (int)nregs || dwarf_frame_cfa(fr, &ops, &nops) ||
	    !nops)
		goto out_free;
	ru->ra = ra;
	if (nops == 1 && is_breg(&ops[0], &ru->cfa_reg, &ru->cfa_off)) {
		ru->cfa_ops = NULL;
	} else {
		/* DW_CFA_def_cfa_expression: interned with the CFI */
		ru->cfa_ops = ops;
		ru->cfa_nops = nops;
	}
	for (i = 0; i < (int)nregs; i++) {
		rule_reg(fr, i, &ru->regs[i]);
		if (ru->regs[i].kind == RK_SAME)
			ru->same_mask |= BIT(i);
		else if (ru->regs[i].kind != RK_UNDEF)
			ru->moved[ru->nmoved++] = i;
	}
	ru->ok = true;
out_free:
	free(fr);
}

const struct uw_rule *cfi__row(struct cfi_cache *c, struct object *o,
			       uint64_t vaddr, unsigned int nregs)
{
	uint32_t obj = o->id;
	uint64_t h = hash_u64(vaddr ^ hash_u64(obj));
	struct hiter it = { 0 };
	struct uw_rule *ru;
	uint32_t item;

	while (hindex_next(&c->idx, h, &it, &item)) {
		ru = &c->rules[item - 1];
		if (ru->obj == obj && ru->vaddr == vaddr) {
			c->hits++;
			return ru;
		}
	}
	/* a leaf's row is cached per sampled pc, so the rows grow with the
	 * code that ever ran (the agent's soak: 16,384 rows of 1.1 kB, 18 MB,
	 * in 150 s): bounded, it starts over in the same memory */
	if (c->max_rows && c->nrules >= c->max_rows) {
		c->nrules = 0;
		hindex_clear(&c->idx);
		c->resets++;
	}
	GROW(c->rules, c->caprules, c->nrules + 1);
	ru = &c->rules[c->nrules++];
	memset(ru, 0, sizeof(*ru));
	ru->obj = obj;
	ru->vaddr = vaddr;
	compute_rule(o, ru, nregs);
	hindex_put(&c->idx, h, c->nrules);
	c->computed++;
	return ru;
}

bool cfi__snap_read(const struct snap *s, uint64_t addr, uint64_t *val)
{
	uint64_t off = addr - s->lo;

	if (addr < s->lo || off > s->len || s->len - off < s->word)
		return false;
	if (s->word == 8) {
		memcpy(val, s->bytes + off, 8);
	} else {
		uint32_t v;

		memcpy(&v, s->bytes + off, 4);
		*val = v;
	}
	return true;
}

/* Only what CFI uses on x86 and AArch64. */
bool cfi__eval(const Dwarf_Op *ops, size_t nops, const struct uw_state *st,
	       uint64_t cfa, bool have_cfa, const struct snap *sn,
	       uint64_t *res)
{
	uint64_t stk[EXPR_STACK], a, b;
	size_t i, sp = 0;
	uint8_t reg;
	int64_t off;

#define NEED(n) do { if (sp < (n)) return false; } while (0)
#define PUSH(v) do { uint64_t _v = (v); if (sp == EXPR_STACK) return false; stk[sp++] = _v; } while (0)
	for (i = 0; i < nops; i++) {
		const Dwarf_Op *op = &ops[i];

		if (is_breg(op, &reg, &off)) {
			if (reg >= NREGS || !(st->valid & BIT(reg)))
				return false;
			PUSH(st->r[reg] + off);
			continue;
		}
		if (op->atom >= DW_OP_lit0 && op->atom <= DW_OP_lit31) {
			PUSH(op->atom - DW_OP_lit0);
			continue;
		}
		switch (op->atom) {
		case DW_OP_const1u: case DW_OP_const1s: case DW_OP_const2u:
		case DW_OP_const2s: case DW_OP_const4u: case DW_OP_const4s:
		case DW_OP_const8u: case DW_OP_const8s: case DW_OP_constu:
		case DW_OP_consts: case DW_OP_addr:
			PUSH(op->number);
			break;
		case DW_OP_call_frame_cfa:
			if (!have_cfa)
				return false;
			PUSH(cfa);
			break;
		case DW_OP_plus_uconst:
			NEED(1);
			stk[sp - 1] += op->number;
			break;
		case DW_OP_deref:
			NEED(1);
			if (!cfi__snap_read(sn, stk[sp - 1], &stk[sp - 1]))
				return false;
			break;
		case DW_OP_dup:		/* DW_OP_pick 0 */
		case DW_OP_over:	/* DW_OP_pick 1 */
			b = op->atom == DW_OP_over;
			NEED(b + 1);
			PUSH(stk[sp - 1 - b]);
			break;
		case DW_OP_drop:
			NEED(1);
			sp--;
			break;
		case DW_OP_swap:
			NEED(2);
			a = stk[sp - 1];
			stk[sp - 1] = stk[sp - 2];
			stk[sp - 2] = a;
			break;
		case DW_OP_neg:
			NEED(1);
			stk[sp - 1] = -stk[sp - 1];
			break;
		case DW_OP_not:
			NEED(1);
			stk[sp - 1] = ~stk[sp - 1];
			break;
		case DW_OP_stack_value:
			/* a value, not a location: the caller knows which */
			break;
		case DW_OP_plus: case DW_OP_minus: case DW_OP_mul:
		case DW_OP_and: case DW_OP_or: case DW_OP_xor:
		case DW_OP_shl: case DW_OP_shr: case DW_OP_shra:
		case DW_OP_eq: case DW_OP_ne: case DW_OP_lt: case DW_OP_le:
		case DW_OP_gt: case DW_OP_ge:
			NEED(2);
			b = stk[--sp];
			a = stk[sp - 1];
			switch (op->atom) {
			case DW_OP_plus: a += b; break;
			case DW_OP_minus: a -= b; break;
			case DW_OP_mul: a *= b; break;
			case DW_OP_and: a &= b; break;
			case DW_OP_or: a |= b; break;
			case DW_OP_xor: a ^= b; break;
			case DW_OP_shl: a = b < 64 ? a << b : 0; break;
			case DW_OP_shr: a = b < 64 ? a >> b : 0; break;
			case DW_OP_shra:
				a = (uint64_t)((int64_t)a >> (b < 63 ? b : 63));
				break;
			/* DWARF compares as signed */
			case DW_OP_eq: a = a == b; break;
			case DW_OP_ne: a = a != b; break;
			case DW_OP_lt: a = (int64_t)a < (int64_t)b; break;
			case DW_OP_le: a = (int64_t)a <= (int64_t)b; break;
			case DW_OP_gt: a = (int64_t)a > (int64_t)b; break;
			default: a = (int64_t)a >= (int64_t)b; break;
			}
			stk[sp - 1] = a;
			break;
		default:
			return false;
		}
	}
#undef NEED
#undef PUSH
	if (!sp)
		return false;
	*res = stk[sp - 1];
	return true;
}
