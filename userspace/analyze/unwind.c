// SPDX-License-Identifier: GPL-2.0
/*
 * tprof-read: unwind user stack snapshots with the objects' CFI rows
 * (analyze/cfi.c), then join the kernel's frame-pointer chain where the
 * snapshot ends, only where the join is proven.
 *
 * - The rows are libdw's (.eh_frame, else .debug_frame: Go) for the
 *   objects mapped at the sample's time, from the shared object cache
 *   (object/object.h; recorded vDSO images too), cached per (object,
 *   address); DWARF expressions cover signal trampolines and PLTs, and
 *   IA32's words are 4 bytes.
 * - The register set is the one the record's abi names: x86-64, IA32, or
 *   AArch64 (x19-x30, sp, pc; a frameless function's return address is
 *   in x30).
 * - AArch64 return addresses lose their PAC bits: the MACHINE record's
 *   mask, else everything above a 48-bit user address (libdw 0.188
 *   ignores DW_CFA_AARCH64_negate_ra_state, so every return address is
 *   stripped).
 * - Where the snapshot ends, the kernel's FP chain joins at the frame
 *   whose restored frame pointer is on it.
 * - arm64 samples' link register (TPROF_RF_USER_LR) is kept as the caller
 *   unless it lies in the pc's function (its ELF symbol; without one, the
 *   CFI row at the pc must still have the return address in x30) or is
 *   the chain's first return address, in every mode (the model hands such
 *   samples to the unwinder even without a snapshot).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "model/maps.h"
#include "object/locate.h"
#include "object/object.h"
#include "object/symbols.h"
#include "stream/records.h"
#include "analyze/cfi.h"
#include "analyze/unwind.h"
#include "lib/util.h"
#include "model/profile.h"

/* Stacks deeper than this are cut (TPROF_MAX_USER_FRAMES as a bound). */
#define MAX_FRAMES TPROF_MAX_USER_FRAMES

/*
 * A mapping a frame was found in. Within one epoch (model/maps.h) an
 * address found in a mapping means that mapping's code, so the samples
 * of a process that walk the same few objects need one lookup each.
 */
struct map_hit {
	const struct maps *maps;
	int pid;
	uint32_t epoch;
	uint64_t since_ns;
	uint64_t start, limit;
	size_t idx;		/* in maps->all, which may move */
};

#define MAP_HITS 8

struct unwinder {
	bool live;
	int forced_mode;	/* --call-graph's enum unwind_mode, or -1 */
	struct objects *objs;	/* the files, shared with the symbolizer */
	bool own_objs;
	/* per maps.all index: NULL not tried, &no_object none, else its */
	struct object **mapobj;
	size_t nmapobj;
	struct cfi_cache cfi;
	struct map_hit hits[MAP_HITS];
	unsigned int next_hit;
	struct unwind_stats st;
};

/*
 * A USTACK register set (its abi): the DWARF number of each slot of
 * regs[] (enum tprof_ureg, enum tprof_ureg_arm64; -1: none), the slots of
 * the pc and the frame pointer, the ABI's sp and frame-pointer columns,
 * how many columns it has, its stack word, and whether return addresses
 * may carry a pointer authentication code (AArch64: strip_ra()).
 */
struct abi_regs {
	int8_t dwarf[TPROF_UREG_NR];
	uint8_t pc_slot, fp_slot;
	uint8_t sp, bp, nregs, word;
	uint64_t addr_mask;
	bool pac;
	uint16_t machine;	/* the ELF e_machine of its code */
};

static const struct abi_regs abi64 = {
	.dwarf = {
		[TPROF_UREG_AX] = 0, [TPROF_UREG_DX] = 1, [TPROF_UREG_CX] = 2,
		[TPROF_UREG_BX] = 3, [TPROF_UREG_SI] = 4, [TPROF_UREG_DI] = 5,
		[TPROF_UREG_BP] = 6, [TPROF_UREG_SP] = 7, [TPROF_UREG_R8] = 8,
		[TPROF_UREG_R9] = 9, [TPROF_UREG_R10] = 10,
		[TPROF_UREG_R11] = 11, [TPROF_UREG_R12] = 12,
		[TPROF_UREG_R13] = 13, [TPROF_UREG_R14] = 14,
		[TPROF_UREG_R15] = 15, [TPROF_UREG_IP] = 16,
		[TPROF_UREG_FLAGS] = -1,
	},
	.pc_slot = TPROF_UREG_IP, .fp_slot = TPROF_UREG_BP,
	.sp = 7, .bp = 6, .nregs = 17, .word = 8, .addr_mask = UINT64_MAX,
	.machine = EM_X86_64,
};

static const struct abi_regs abi32 = {
	.dwarf = {
		[TPROF_UREG_AX] = 0, [TPROF_UREG_CX] = 1, [TPROF_UREG_DX] = 2,
		[TPROF_UREG_BX] = 3, [TPROF_UREG_SP] = 4, [TPROF_UREG_BP] = 5,
		[TPROF_UREG_SI] = 6, [TPROF_UREG_DI] = 7, [TPROF_UREG_IP] = 8,
		[TPROF_UREG_FLAGS] = -1, [TPROF_UREG_R8] = -1,
		[TPROF_UREG_R9] = -1, [TPROF_UREG_R10] = -1,
		[TPROF_UREG_R11] = -1, [TPROF_UREG_R12] = -1,
		[TPROF_UREG_R13] = -1, [TPROF_UREG_R14] = -1,
		[TPROF_UREG_R15] = -1,
	},
	.pc_slot = TPROF_UREG_IP, .fp_slot = TPROF_UREG_BP,
	.sp = 4, .bp = 5, .nregs = 9, .word = 4, .addr_mask = UINT32_MAX,
	.machine = EM_386,
};

/*
 * AArch64 (AADWARF64): x19-x28 = 19-28, fp (x29) = 29, lr (x30) = 30,
 * sp = 31; the return address column is 30. The module records the
 * callee-saved registers only (uapi enum tprof_ureg_arm64): a CFI rule
 * that needs x0-x18 ends the walk, as an unknown register does.
 */
static const struct abi_regs abi_arm64 = {
	.dwarf = {
		[TPROF_AREG_X19] = 19, [TPROF_AREG_X20] = 20,
		[TPROF_AREG_X21] = 21, [TPROF_AREG_X22] = 22,
		[TPROF_AREG_X23] = 23, [TPROF_AREG_X24] = 24,
		[TPROF_AREG_X25] = 25, [TPROF_AREG_X26] = 26,
		[TPROF_AREG_X27] = 27, [TPROF_AREG_X28] = 28,
		[TPROF_AREG_FP] = 29, [TPROF_AREG_LR] = 30,
		[TPROF_AREG_SP] = 31, [TPROF_AREG_PC] = -1,
		[TPROF_AREG_NR ... TPROF_UREG_NR - 1] = -1,
	},
	.pc_slot = TPROF_AREG_PC, .fp_slot = TPROF_AREG_FP,
	.sp = 31, .bp = 29, .nregs = 32, .word = 8, .addr_mask = UINT64_MAX,
	.pac = true, .machine = EM_AARCH64,
};

/*
 * AArch32 (ARM32 samples: pc and lr, no snapshot): r0-r15, lr = 14, for
 * the CFI row keep_lr() may ask of an object that has one.
 */
static const struct abi_regs abi_arm32 = {
	.dwarf = { [0 ... TPROF_UREG_NR - 1] = -1 },
	.pc_slot = 0, .fp_slot = 0,
	.sp = 13, .bp = 11, .nregs = 16, .word = 4, .addr_mask = UINT32_MAX,
	.machine = EM_ARM,
};

/* the register set of a USTACK record's abi, NULL for one without CFI */
static const struct abi_regs *abi_of(uint32_t abi)
{
	switch (abi) {
	case TPROF_ABI_X86_64:
		return &abi64;
	case TPROF_ABI_IA32:
		return &abi32;
	case TPROF_ABI_ARM64:
		return &abi_arm64;
	default:
		return NULL;
	}
}

/* a mapping with no object, or none with CFI */
static struct object no_object;

struct unwinder *unwinder__new(struct objects *objs, bool live)
{
	struct unwinder *u = xcalloc(1, sizeof(*u));

	u->live = live;
	u->objs = objs;
	if (!objs) {
		u->objs = objects__new();
		u->own_objs = true;
	}
	return u;
}

void unwinder__set_live(struct unwinder *u, bool live)
{
	u->live = live;
}

struct unwind_stats *unwinder__stats(struct unwinder *u)
{
	u->st.rules = u->cfi.computed;
	u->st.rule_hits = u->cfi.hits;
	u->st.rows_held = u->cfi.nrules;
	u->st.row_resets = u->cfi.resets;
	return &u->st;
}

/* profile_unwind_fn: as forced, else as the stream's SESSION record says */
static unsigned int profile_unwind(void *ctx, struct profile *p,
				   const struct tprof_record *s,
				   const struct tprof_record *us,
				   uint64_t *out, unsigned int max,
				   bool *truncated)
{
	struct unwinder *u = ctx;
	struct unwind_request rq = {
		.mode = u->forced_mode >= 0 ? (enum unwind_mode)u->forced_mode :
			p->session.flags & TPROF_SESSION_F_DWARF ?
			UNWIND_DWARF : UNWIND_HYBRID,
		.maps = &p->maps, .root_pid = p->session.pid,
		.since_ns = profile__exec_before(p, s->u.sample.pid,
						 s->hdr.time_ns),
		.pac_bits = profile__pac_bits(p),
		.s = s, .us = us,
	};

	return unwinder__sample(u, &rq, out, max, truncated);
}

void unwinder__attach(struct unwinder *u, struct profile *p, int forced_mode)
{
	u->forced_mode = forced_mode;
	p->unwind = profile_unwind;
	p->unwind_ctx = u;
}

void unwinder__free(struct unwinder *u)
{
	if (!u)
		return;
	if (u->own_objs)
		objects__free(u->objs);
	free(u->mapobj);
	cfi_cache__free(&u->cfi);
	free(u);
}

void unwinder__forget(struct unwinder *u, bool objects)
{
	free(u->mapobj);
	u->mapobj = NULL;
	u->nmapobj = 0;
	memset(u->hits, 0, sizeof(u->hits));
	u->next_hit = 0;
	if (objects) {
		struct cfi_cache keep = u->cfi;

		cfi_cache__free(&u->cfi);
		u->cfi.computed = keep.computed;
		u->cfi.hits = keep.hits;
		u->cfi.max_rows = keep.max_rows;
		u->cfi.resets = keep.resets;
	}
}

void unwinder__bound_rows(struct unwinder *u, size_t rows)
{
	u->cfi.max_rows = rows;
}

/* ---- objects: a mapped file's CFI, from the target's view ---- */

/* m's object with its CFI, or &no_object (object/object.h) */
static struct object *open_obj(struct unwinder *u, const struct mapping *m,
			       int root_pid)
{
	struct file_view view = { .live = u->live };
	struct object *o;
	char root[64];

	if (root_pid > 0) {
		snprintf(root, sizeof(root), "/proc/%d/root", root_pid);
		view.root = root;
	}
	o = objects__get(u->objs, m, &view);
	if (!o || !o->info.loaded)
		return &no_object;
	object__cfi(o);
	return o;
}

static struct object *mapping_obj(struct unwinder *u, struct maps *maps,
				  const struct mapping *m, int root_pid)
{
	size_t i = m - maps->all;

	if (i >= u->nmapobj) {
		size_t old = u->nmapobj;

		u->mapobj = xrealloc(u->mapobj, maps->nall * sizeof(*u->mapobj));
		memset(u->mapobj + old, 0,
		       (maps->nall - old) * sizeof(*u->mapobj));
		u->nmapobj = maps->nall;
	}
	if (!u->mapobj[i])
		u->mapobj[i] = open_obj(u, m, root_pid);
	return u->mapobj[i];
}

/* ---- the walk ---- */

enum walk_end {
	WALK_END,	/* the outermost frame: the stack is whole */
	WALK_STOP,	/* memory past the snapshot, no CFI, no mapping */
	WALK_CAP,	/* max frames */
};

struct walk {
	struct unwinder *u;
	/*
	 * Each frame's bp, for the join (bpv: known), and whether bp is
	 * proven to be that frame's own frame record (fpok: its CFA is
	 * bp-based; or bp lies in its frame and the word above it is its
	 * return address; or it has no CFI to say otherwise): in code
	 * without frame pointers bp is any register, often an outer frame's
	 * pointer, the same through many frames.
	 */
	uint64_t bps[MAX_FRAMES];
	bool bpv[MAX_FRAMES], fpok[MAX_FRAMES];
	bool stop_norule;	/* the walk stopped at code without CFI */
	int64_t pushed_ra;	/* the frame's, see sp_above_pushed_ra() */
	struct maps *maps;
	int root_pid;
	int pid;		/* the sample's process */
	uint32_t epoch;		/* maps__epoch_at(time_ns) */
	uint64_t time_ns, since_ns;
	const struct abi_regs *abi;
	struct snap sn;
	uint64_t addr_mask;
	/* a return address as code: addr_mask less the PAC bits, if any */
	uint64_t ra_keep;
	/* the SAMPLE's FP chain: ips[nk] the pc, then return addresses from
	 * ips[chain0] on (after the LR with TPROF_RF_USER_LR), nchain of
	 * them; chain_ip(w, s, 0) is the pc, chain_ip(w, s, j) the jth */
	unsigned int nk, chain0, nchain;
};

/* the user pc (j 0), else the FP chain's jth return address (from 1) */
static uint64_t chain_ip(const struct walk *w, const struct tprof_record *s,
			 unsigned int j)
{
	return tprof_record_ip(s, j ? w->chain0 + j - 1 : w->nk) &
	       w->addr_mask;
}

/* The sample's mapping at addr: a recent hit, else a lookup. */
static struct mapping *find_mapping(struct walk *w, uint64_t addr)
{
	struct unwinder *u = w->u;
	struct map_hit *h;
	struct mapping *m;
	unsigned int i;

	for (i = 0; i < MAP_HITS; i++) {
		h = &u->hits[i];
		if (h->maps == w->maps && h->pid == w->pid &&
		    h->epoch == w->epoch && h->since_ns == w->since_ns &&
		    h->start <= addr && addr < h->limit)
			return &w->maps->all[h->idx];
	}
	m = maps__find_since(w->maps, w->pid, addr, w->time_ns, w->since_ns);
	if (!m)
		return NULL;
	h = &u->hits[u->next_hit++ % MAP_HITS];
	*h = (struct map_hit){
		.maps = w->maps, .pid = w->pid, .epoch = w->epoch,
		.since_ns = w->since_ns, .start = m->start, .limit = m->limit,
		.idx = m - w->maps->all,
	};
	return m;
}

/* The CFI row for the code at pc (exact: pc itself, else pc - 1). */
static const struct uw_rule *rule_at(struct walk *w, uint64_t pc, bool exact)
{
	uint64_t lookup = exact ? pc : pc - 1, vaddr;
	struct object *o;
	struct mapping *m;

	m = find_mapping(w, lookup);
	if (!m)
		return NULL;
	o = mapping_obj(w->u, w->maps, m, w->root_pid);
	if (o == &no_object ||
	    !object__vaddr(o, m->start, m->offset, lookup, &vaddr))
		return NULL;
	return cfi__row(&w->u->cfi, o, vaddr, w->abi->nregs);
}

/* Is ru's return address saved at CFA + off, off >= 0? Sets *off. */
static bool ra_above_cfa(const struct uw_rule *ru, int64_t *off)
{
	if (!ru || !ru->ok || ru->regs[ru->ra].kind != RK_AT_CFA ||
	    ru->regs[ru->ra].off < 0)
		return false;
	*off = ru->regs[ru->ra].off;
	return true;
}

/*
 * A frame whose return address was pushed before the function began:
 * glibc's AArch64 PLT0 pushes x16 and x30 and branches to
 * _dl_runtime_resolve, whose CFI puts the CFA at that sp and the return
 * address at CFA + 8, above it. Taken as the caller's sp, the CFA finds
 * the caller's frame 16 bytes low: the same return address again (the
 * slot PLT0 pushed), garbage above it. The caller's sp is past the slot.
 * At the resolver's first instruction (its BTI landing pad) the row says
 * nothing yet (the return address in x30, CFA = sp); the next
 * instruction's row, on a fixed-width ISA, says it: w->pushed_ra is its
 * offset then (walk() reads it before taking the frame's own row: a new
 * row may move the others), else -1.
 * Return: the caller's sp, or @cfa.
 */
static uint64_t sp_above_pushed_ra(const struct walk *w,
				   const struct uw_rule *ru, uint64_t cfa)
{
	int64_t off = w->pushed_ra;

	if (!ra_above_cfa(ru, &off) && off < 0)
		return cfa;
	return (cfa + (uint64_t)off + w->sn.word) & w->addr_mask;
}

/* Is ru the row of a function entered with nothing saved (CFA = sp)? */
static bool at_entry(const struct walk *w, const struct uw_rule *ru)
{
	return ru && ru->ok && !ru->cfa_ops && ru->cfa_reg == w->abi->sp &&
	       !ru->cfa_off && ru->regs[ru->ra].kind == RK_SAME;
}

/* One frame up: st (the frame at pc) becomes its caller's. */
static bool step(struct walk *w, const struct uw_rule *ru,
		 const struct uw_state *st, struct uw_state *out, bool *end,
		 uint64_t *cfa_out)
{
	struct uw_state *nst = out;	/* st's caller; st stays as it is */
	uint64_t cfa, v;
	unsigned int k;
	int i;

	*end = false;
	if (ru->cfa_ops) {
		if (!cfi__eval(ru->cfa_ops, ru->cfa_nops, st, 0, false, &w->sn, &cfa))
			return false;
	} else {
		if (ru->cfa_reg >= NREGS || !(st->valid & BIT(ru->cfa_reg)))
			return false;
		cfa = st->r[ru->cfa_reg] + ru->cfa_off;
	}
	cfa &= w->addr_mask;
	*cfa_out = cfa;
	/* the registers that keep their value, then those that move */
	*nst = *st;
	nst->valid = st->valid & ru->same_mask & (BIT(w->abi->nregs) - 1);
	for (k = 0; k < ru->nmoved; k++) {
		const struct uw_reg *rr = &ru->regs[ru->moved[k]];
		bool ok = false;

		i = ru->moved[k];
		if (i >= w->abi->nregs)
			continue;
		switch (rr->kind) {
		case RK_AT_CFA:
			ok = cfi__snap_read(&w->sn, (cfa + rr->off) & w->addr_mask,
				       &v);
			break;
		case RK_VAL_CFA:
			ok = true;
			v = cfa + rr->off;
			break;
		case RK_REG:
			ok = st->valid & BIT(rr->reg);
			v = st->r[rr->reg];
			break;
		case RK_EXPR:
			ok = cfi__eval(rr->ops, rr->nops, st, cfa, true, &w->sn,
				  &v) && cfi__snap_read(&w->sn, v & w->addr_mask,
						   &v);
			break;
		case RK_VAL_EXPR:
			ok = cfi__eval(rr->ops, rr->nops, st, cfa, true, &w->sn,
				  &v);
			break;
		default:
			break;
		}
		if (ok) {
			nst->r[i] = v & w->addr_mask;
			nst->valid |= BIT(i);
		}
	}
	/* _start and clone's child mark the return address undefined */
	if (ru->regs[ru->ra].kind == RK_UNDEF) {
		*end = true;
		return true;
	}
	if (!(nst->valid & BIT(ru->ra)))
		return false;
	/*
	 * AArch64 code built with -mbranch-protection signs its return
	 * address (paciasp, DW_CFA_AARCH64_negate_ra_state) before saving
	 * it: the PAC bits go, whatever the row's RA_SIGN_STATE (libdw
	 * 0.188 does not track it), since a return address is code.
	 */
	nst->r[ru->ra] &= w->ra_keep;
	/* the caller's sp is the CFA, unless the row restores it (signals) */
	if (ru->regs[w->abi->sp].kind == RK_SAME ||
	    ru->regs[w->abi->sp].kind == RK_UNDEF) {
		nst->r[w->abi->sp] = cfa;
		nst->valid |= BIT(w->abi->sp);
	}
	/* ... past a return address pushed before the function began */
	if (!ru->signal && nst->r[w->abi->sp] == cfa)
		nst->r[w->abi->sp] = sp_above_pushed_ra(w, ru, cfa);
	/*
	 * Frames live further up the stack; a loop would never end. On
	 * AArch64 a function that has not stored its return address (a
	 * frameless leaf: CFA = sp) has its caller at the same sp, the
	 * return address in x30: that step moves to another pc.
	 */
	if (!ru->signal && nst->r[w->abi->sp] <= st->r[w->abi->sp] &&
	    !(nst->r[w->abi->sp] == st->r[w->abi->sp] &&
	      (ru->regs[ru->ra].kind == RK_SAME ||
	       ru->regs[ru->ra].kind == RK_REG) &&
	      (nst->r[ru->ra] & w->ra_keep) != st->r[PC_SLOT]))
		return false;
	if (!nst->r[ru->ra]) {
		*end = true;
		return true;
	}
	/* the pc column of the caller's state is its return address */
	nst->r[PC_SLOT] = nst->r[ru->ra];
	nst->valid |= BIT(PC_SLOT);
	return true;
}

/*
 * Is the frame pointer register of frame st its own frame record, in a
 * frame whose CFI is sp-based (Go; AArch64, where GCC keeps the CFA on sp
 * after setting x29)? It is where bp lies within the frame, below its
 * CFA, and the word above bp is the return address the CFI found (caller,
 * the frame above). A frameless function's bp is an outer frame's: above
 * its CFA.
 */
static bool own_record(const struct walk *w, const struct uw_state *st,
		       const struct uw_state *caller,
		       const struct uw_rule *ru, uint64_t cfa)
{
	uint64_t bp = st->r[w->abi->bp], sp = st->r[w->abi->sp], ret;

	if (!(st->valid & BIT(w->abi->sp)) || bp < sp || bp >= cfa ||
	    !(caller->valid & BIT(ru->ra)))
		return false;
	return cfi__snap_read(&w->sn, bp + w->sn.word, &ret) &&
	       (ret & w->ra_keep) == caller->r[ru->ra];
}

/*
 * Is bp where frame st's CFI row saved the caller's bp, with the return
 * address right above it: a frame record this frame made and pointed bp
 * at (AArch64's stp x29, x30 then mov x29, sp; x86-64's push rbp then
 * mov rbp, rsp)? Needs the CFA only, not the caller: it decides the frame
 * the walk stopped at.
 */
static bool record_at(const struct walk *w, const struct uw_rule *ru,
		      const struct uw_state *st, uint64_t cfa)
{
	const struct uw_reg *b = &ru->regs[w->abi->bp];
	const struct uw_reg *r = &ru->regs[ru->ra];

	return b->kind == RK_AT_CFA && r->kind == RK_AT_CFA &&
	       r->off == b->off + (int64_t)w->sn.word &&
	       st->r[w->abi->bp] == ((cfa + b->off) & w->addr_mask);
}

/* A row that saves a frame record (bp, then the return address above). */
static bool saves_record(const struct walk *w, const struct uw_rule *ru)
{
	const struct uw_reg *b = &ru->regs[w->abi->bp];
	const struct uw_reg *r = &ru->regs[ru->ra];

	return b->kind == RK_AT_CFA && r->kind == RK_AT_CFA &&
	       r->off == b->off + (int64_t)w->sn.word;
}

/*
 * Is o code of the sample's machine? Another machine's CFI rows (a file
 * replaced, a test's stand-in) say nothing of this one's frame records.
 */
static bool same_machine(const struct walk *w, const struct object *o)
{
	return !o->machine || o->machine == w->abi->machine;
}

/*
 * Does the function at addr keep its frame pointer there, so that the
 * chain's next link is its own frame record (and the return address after
 * it its caller)? Its CFA is bp-based, it is Go's (every Go function
 * with a frame keeps one; its CFI is sp-based throughout), it has no CFI
 * to say otherwise, or (AArch64, where GCC keeps frame records by default
 * and its CFI on sp) its row saves x29 and x30 as a frame record. Code
 * built without frame pointers leaves bp as its caller's: the chain's next
 * link skips it.
 */
static bool keeps_fp_at(struct walk *w, uint64_t addr)
{
	const struct uw_rule *ru;
	struct mapping *m;
	struct object *o;
	uint64_t vaddr;

	m = find_mapping(w, addr);
	if (!m)
		return true;
	o = mapping_obj(w->u, w->maps, m, w->root_pid);
	if (o == &no_object || !same_machine(w, o) ||
	    !object__vaddr(o, m->start, m->offset, addr, &vaddr))
		return true;
	ru = cfi__row(&w->u->cfi, o, vaddr, w->abi->nregs);
	if (!ru->ok || (!ru->cfa_ops && ru->cfa_reg == w->abi->bp))
		return true;
	if (w->abi->pac && saves_record(w, ru))
		return true;
	return cfi__is_go(&w->u->cfi, o);
}

/* keeps_fp_at() the call before return address ret */
static bool keeps_fp(struct walk *w, uint64_t ret)
{
	return keeps_fp_at(w, ret - 1);
}

/*
 * CFI frames of the snapshot into out[0..*n), from the registers in st
 * (scratch: the walk steps between it and a second state); w->bps, bpv
 * and fpok say for each frame what the splice needs.
 */
static enum walk_end walk(struct walk *w, struct uw_state *st,
			  uint64_t *out, unsigned int max, unsigned int *n)
{
	struct uw_state other, *next = &other, *tmp;
	bool exact = true, end;
	uint64_t pc = st->r[PC_SLOT], cfa;

	*n = 0;
	out[(*n)++] = pc;
	for (;;) {
		const struct uw_rule *ru = rule_at(w, pc, exact), *nx;
		unsigned int i = *n - 1;
		int64_t off;
		bool ok;

		/* fixed-width (AArch64): the next row, for sp_above_pushed_ra() */
		w->pushed_ra = -1;
		if (w->abi->pac && at_entry(w, ru)) {
			nx = rule_at(w, pc + 4, true);
			if (ra_above_cfa(nx, &off) && !nx->cfa_ops &&
			    nx->cfa_reg == w->abi->sp && !nx->cfa_off)
				w->pushed_ra = off;
			ru = rule_at(w, pc, exact);	/* nx's may have moved it */
		}

		w->bps[i] = st->r[w->abi->bp];
		w->bpv[i] = st->valid & BIT(w->abi->bp);
		w->fpok[i] = !ru || !ru->ok ||
			     (!ru->cfa_ops && ru->cfa_reg == w->abi->bp);
		w->stop_norule = !ru || !ru->ok;
		cfa = 0;
		ok = ru && ru->ok && step(w, ru, st, next, &end, &cfa);
		if (ok && !end && !w->fpok[i] && w->bpv[i])
			w->fpok[i] = own_record(w, st, next, ru, cfa);
		/* the stop frame too: its CFA may be known, its caller not */
		if (!w->fpok[i] && w->bpv[i] && cfa)
			w->fpok[i] = record_at(w, ru, st, cfa);
		if (!ok)
			return WALK_STOP;
		if (end)
			return WALK_END;
		if (*n == max)
			return WALK_CAP;
		/* the caller's state is the one to step from next */
		tmp = st;
		st = next;
		next = tmp;
		pc = st->r[PC_SLOT];
		out[(*n)++] = pc;
		/* after a signal frame: the interrupted pc, not a return */
		exact = ru->signal;
	}
}

/*
 * Where the FP chain continues the CFI frames: the kernel's chain_ip(j + 1)
 * is the return address saved at fp_j + word, fp_0 = the frame pointer
 * register and fp_j + 1 = *fp_j (read from the snapshot, as far as it
 * holds them). A frame whose restored bp is fp_j continues with
 * chain_ip(j + 1); with j + 1 == nchain the chain has nothing more (it
 * ended at fp_j, e.g. in libc's start code). Returns j + 1, or 0 when no
 * frame pointer of the chain is bp.
 */
static unsigned int splice_at(const struct walk *w, uint64_t bp,
			      const struct tprof_record *s, uint64_t fp0)
{
	unsigned int nu = w->nchain, j;
	uint64_t fp = fp0, next, ret;

	for (j = 0; j < nu; j++) {
		if (fp == bp)
			return j + 1;
		if (j + 1 == nu || !fp)
			return 0;
		/* the kernel walked the same words: where we can read them,
		 * they must agree (less a PAC, which it strips), else this
		 * is not the chain it walked */
		if (cfi__snap_read(&w->sn, fp + w->sn.word, &ret) &&
		    (ret & w->ra_keep) != chain_ip(w, s, j + 1))
			return 0;
		if (fp % w->sn.word || !cfi__snap_read(&w->sn, fp, &next) ||
		    next <= fp)
			return 0;
		fp = next;
	}
	return 0;
}

/*
 * Does the chain's last return address ret end the stack? The function it
 * returns into is the thread's first (its CFI has no return address:
 * _start, clone's child), or has no CFI to say otherwise, or is Go's (its
 * chain ends at runtime.goexit with a zero frame pointer).
 */
static bool chain_root(struct walk *w, uint64_t ret)
{
	const struct uw_rule *ru;
	struct mapping *m;
	struct object *o;
	uint64_t vaddr;

	m = find_mapping(w, ret - 1);
	if (!m)
		return true;
	o = mapping_obj(w->u, w->maps, m, w->root_pid);
	if (o == &no_object ||
	    !object__vaddr(o, m->start, m->offset, ret - 1, &vaddr))
		return true;
	ru = cfi__row(&w->u->cfi, o, vaddr, w->abi->nregs);
	return !ru->ok || ru->regs[ru->ra].kind == RK_UNDEF ||
	       cfi__is_go(&w->u->cfi, o);
}

/*
 * The chain from its jth return address on, after the CFI frames
 * out[0..n) whose last frame's record is fp_(j-1): that frame's return
 * address, then each next one while the function before it keeps its
 * frame pointer (keeps_fp()). Where one does not, or the chain ends short
 * of a root (chain_root()), the stack is marked cut there. Returns n.
 */
static unsigned int join_chain(struct walk *w, const struct tprof_record *s,
			       unsigned int j, uint64_t *out, unsigned int n,
			       unsigned int max, bool *truncated)
{
	for (; j < w->nchain && n < max; j++) {
		out[n++] = chain_ip(w, s, j);
		if (j + 1 < w->nchain && !keeps_fp(w, out[n - 1])) {
			*truncated = true;
			return n;
		}
	}
	if (j < w->nchain || !chain_root(w, out[n - 1]))
		*truncated = true;
	return n;
}

/*
 * TPROF_RF_USER_LR: is the interrupted link register lr the caller of the
 * function at pc? It is where that function has not stored it yet, or
 * does not at all (a frameless leaf), or has restored it to return: then
 * the FP chain starts at the caller's frame record and skips it. It is
 * stale where it points into the function at pc itself (the return from
 * a call that function made) or is the chain's first return address (the
 * function saved it in its frame record: the chain has it). The function
 * at pc is its ELF symbol's extent; without one (a stripped local
 * function), the CFI row at pc says whether the return address is still
 * in x30 (perf's test); without CFI either, lr is kept.
 */
static bool keep_lr(struct walk *w, const struct tprof_record *s,
		    uint64_t pc, uint64_t lr)
{
	const struct uw_rule *ru;
	struct mapping *m;
	struct object *o;
	uint64_t vaddr, lo, hi;

	if (!lr || (w->nchain > 1 && lr == chain_ip(w, s, 1)))
		return false;
	/* code: the call before lr is in a mapping */
	if (!find_mapping(w, lr - 1))
		return false;
	m = find_mapping(w, pc);
	if (!m)
		return true;
	o = mapping_obj(w->u, w->maps, m, w->root_pid);
	if (o != &no_object &&
	    object__vaddr(o, m->start, m->offset, pc, &vaddr) &&
	    object__func_range(w->u->objs, o, vaddr, &lo, &hi)) {
		/* [lo, hi) as addresses of this mapping */
		lo = pc - (vaddr - lo);
		hi = pc + (hi - vaddr);
		return lr - 1 < lo || lr - 1 >= hi;
	}
	ru = rule_at(w, pc, true);
	if (ru && ru->ok)
		return ru->regs[ru->ra].kind == RK_SAME;
	return true;
}

/*
 * The FP chain as the sample's user frames: the pc, the link register
 * where it is the caller (keep_lr()), then the chain's return addresses.
 */
static unsigned int fp_frames(struct walk *w, const struct tprof_record *s,
			      uint64_t *out, unsigned int max, bool *lr_in)
{
	unsigned int n = 0, j;
	uint64_t pc = chain_ip(w, s, 0);

	*lr_in = false;
	out[n++] = pc;
	if (w->chain0 > w->nk + 1 && n < max) {
		uint64_t lr = tprof_record_ip(s, w->nk + 1) & w->ra_keep;

		if (keep_lr(w, s, pc, lr)) {
			out[n++] = lr;
			*lr_in = true;
			w->u->st.lr_kept++;
		} else {
			w->u->st.lr_dropped++;
		}
	}
	for (j = 1; j < w->nchain && n < max; j++)
		out[n++] = chain_ip(w, s, j);
	return n;
}

/*
 * The walk's ABI, and what follows from it: its address mask, its mask of
 * a return address as code (less the PAC bits, where it has them), and
 * the snapshot's word (saves_record() asks it of an fp chain too).
 */
static void walk_abi(struct walk *w, const struct abi_regs *abi,
		     uint64_t pac_bits)
{
	w->abi = abi;
	w->addr_mask = abi->addr_mask;
	w->ra_keep = abi->pac ? ~pac_bits : abi->addr_mask;
	w->sn.word = abi->word;
}

/*
 * The FP chain with each join checked (--call-graph fp, a sample with no
 * snapshot, a pc with no CFI): where the function of a frame does not keep
 * its frame pointer there (keeps_fp_at(): code built without them, a
 * frameless leaf, a prologue), the chain's next link is not its caller
 * but one further up, and the stack looked whole with a frame missing
 * (qsort_r's caller under Debian's libc). It is cut after that frame and
 * marked, as is a chain the kernel's walk ended on a fault or at its cap.
 * A frame with no CFI is taken on trust, and a chain that ended at a zero
 * frame pointer (the ABI's end: _start, a thread's start) is not asked
 * for a root: fp mode reaches no further than libc's start code in any
 * Debian program. With the LR in (arm64), the leaf's caller is
 * the LR: the chain goes on from the caller's record.
 */
static unsigned int fp_checked(struct walk *w, const struct tprof_record *s,
			       uint64_t *out, unsigned int max,
			       bool *truncated)
{
	bool lr_in;
	unsigned int n = fp_frames(w, s, out, max, &lr_in), i;

	w->u->st.fp_checked++;
	for (i = lr_in ? 1 : 0; i + 1 < n; i++)
		if (!keeps_fp_at(w, i ? out[i] - 1 : out[i])) {
			*truncated = true;
			w->u->st.fp_cut++;
			return i + 1;
		}
	/* the kernel's walk ended on an unreadable record, or at its cap:
	 * not at a zero frame pointer, the ABI's end of the chain */
	if (s->hdr.flags & (TPROF_RF_USER_FAULT | TPROF_RF_USER_TRUNCATED)) {
		*truncated = true;
		w->u->st.fp_cut++;
	}
	return n;
}

unsigned int unwinder__sample(struct unwinder *u,
			      const struct unwind_request *rq, uint64_t *out,
			      unsigned int max, bool *truncated)
{
	const struct tprof_record *s = rq->s, *us = rq->us;
	enum unwind_mode mode = rq->mode;
	uint64_t pac_bits = rq->pac_bits;
	const struct abi_regs *abi;
	const struct tprof_rec_ustack *ur = us ? &us->u.ustack : NULL;
	unsigned int nk = s->u.sample.nr_kernel, nu = s->u.sample.nr_user;
	unsigned int n = 0, i, j;
	bool lr = s->hdr.flags & TPROF_RF_USER_LR;
	struct uw_state st = { .valid = 0 };
	/*
	 * Not zeroed: its 5 KiB of per-frame arrays are written for each
	 * frame walk() records before anything reads them, and zeroing them
	 * cost a tenth of a sample's unwinding.
	 */
	struct walk w;
	enum walk_end how;
	uint64_t t0 = now_ns(CLOCK_MONOTONIC);

	w.u = u;
	w.maps = rq->maps;
	w.root_pid = rq->root_pid;
	w.pid = (int)s->u.sample.pid;
	w.time_ns = s->hdr.time_ns;
	w.since_ns = rq->since_ns;
	w.sn = (struct snap){ .lo = 0 };
	w.epoch = maps__epoch_at(w.maps, w.time_ns);
	/* the LR sits between the pc and the chain (uapi TPROF_RF_USER_LR) */
	w.nk = nk;
	w.chain0 = nk + 1 + (lr && nu > 1);
	w.nchain = nu - (w.chain0 - nk - 1);

	*truncated = false;
	if (!max || !nu)
		return 0;
	/* only arm64 samples carry the LR; their FP shape is decided here */
	if (lr && (s->u.sample.abi == TPROF_ABI_ARM64 ||
		   s->u.sample.abi == TPROF_ABI_ARM32)) {
		bool a32 = s->u.sample.abi == TPROF_ABI_ARM32;

		walk_abi(&w, a32 ? &abi_arm32 : &abi_arm64, pac_bits);
		/* AArch32 samples have no snapshot: pc and lr only */
		if (a32 || mode == UNWIND_FP || !ur ||
		    ur->abi != TPROF_ABI_ARM64) {
			n = fp_checked(&w, s, out, max, truncated);
			goto out;
		}
	} else if (mode == UNWIND_FP || !ur) {
		/* x86: the registers' ABI is the sample's */
		abi = abi_of(s->u.sample.abi);
		if (!abi)
			return 0;
		walk_abi(&w, abi, pac_bits);
		n = fp_checked(&w, s, out, max, truncated);
		goto out;
	}
	abi = abi_of(ur->abi);
	if (!abi)
		return 0;
	walk_abi(&w, abi, pac_bits);
	for (i = 0; i < TPROF_UREG_NR; i++) {
		int d = w.abi->dwarf[i];

		if (d < 0)
			continue;
		st.r[d] = ur->regs[i] & w.addr_mask;
		st.valid |= BIT(d);
	}
	/* i386's pc column is 8, x86-64's 16, AArch64 has none: the pc
	 * goes in the last slot either way */
	st.r[PC_SLOT] = ur->regs[w.abi->pc_slot] & w.ra_keep;
	st.valid |= BIT(PC_SLOT);
	if (w.abi->pac)		/* x30 may hold a signed return address */
		st.r[30] &= w.ra_keep;
	w.sn.lo = st.r[w.abi->sp];
	/* a snapshot that starts with the red zone under sp */
	if (us->hdr.flags & TPROF_RF_USTACK_BELOW)
		w.sn.lo -= TPROF_SNAPSHOT_BELOW_BYTES;
	w.sn.bytes = us->stack;
	w.sn.len = ur->stack_bytes;
	u->st.samples++;

	if (max > MAX_FRAMES)
		max = MAX_FRAMES;
	how = walk(&w, &st, out, max, &n);
	if (how == WALK_END) {
		u->st.complete++;
		goto out;
	}
	if (how == WALK_CAP) {
		*truncated = true;
		u->st.truncated++;
		goto out;
	}
	/* no CFI at the pc: the snapshot says nothing the chain does not */
	if (n == 1 && w.stop_norule) {
		u->st.fp_fallback++;
		n = fp_checked(&w, s, out, max, truncated);
		/*
		 * Marked, not a stack that looks whole: a chain of the pc
		 * alone says nothing of the callers, and where no mapping
		 * holds the pc nothing proves where the chain ends is a root.
		 * So a forked child's first samples, read before its PROC
		 * record (another CPU's ring) told the maps whose copy its
		 * address space is: "_Fork" alone, or a chain that stops in
		 * libc at __libc_start_call_main, in 10% of a 2,000-fork
		 * tree's samples.
		 */
		if ((w.nchain <= 1 && (!lr || n <= 1)) ||
		    !find_mapping(&w, chain_ip(&w, s, 0)))
			*truncated = true;
		/*
		 * A chain that stops in a function whose CFI has a caller
		 * stopped at a frame pointer that was none (a zero rbp
		 * kept through libc's __libc_start_call_main, built without
		 * frame pointers): cut there, not whole (a vDSO pc's chain).
		 */
		else if (w.nchain > 1 &&
			 !chain_root(&w, chain_ip(&w, s, w.nchain - 1)))
			*truncated = true;
		goto out;
	}
	/*
	 * The walk stopped short of the root. The kernel's chain goes on
	 * from a frame whose bp is proven its own frame record (fpok) and is
	 * one of the chain's frame pointers: the stop frame's first, else
	 * the last one before it. Where nothing proven joins, or the chain
	 * ended there, the CFI frames are all there is to know.
	 */
	for (i = n; i-- > 0;) {
		if (!w.bpv[i] || !w.fpok[i])
			continue;
		j = splice_at(&w, w.bps[i], s,
			      ur->regs[w.abi->fp_slot] & w.addr_mask);
		if (!j)
			continue;
		if (j == w.nchain)
			break;
		u->st.spliced++;
		n = join_chain(&w, s, j, out, i + 1, max, truncated);
		if (*truncated)
			u->st.unproven++;
		goto out;
	}
	*truncated = true;
	u->st.truncated++;
out:
	u->st.ns += now_ns(CLOCK_MONOTONIC) - t0;
	return n;
}
