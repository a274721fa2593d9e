// SPDX-License-Identifier: GPL-2.0
/*
 * ktest: user stack snapshots (TPROF_F_USER_SNAPSHOT). The truth is the
 * target's own memory: tests/kmod/stacktarget.c keeps marker words on its
 * stack that hold their own address (xor STACK_MARK), so a snapshot must
 * have each marker at (its address - sp); its registers must be those of
 * the sampled context (the user pc the frame-pointer walk reports, a
 * return address where the frame pointer says).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ktest.h"

#define STACK_MARK	0x5a17c0de5a17c0deULL
#define SNAP_BYTES	4096U
/*
 * fc's prologue and marker stores end before fc + FC_MARKED (0x2e bytes
 * 64-bit, 0x31 -m32): a pc there is fc starting, its markers not written.
 */
#define FC_MARKED	0x40
/*
 * A call from fc returning below fc + FC_STORED was made before the
 * marker stores ended: -m32's PIC thunk returns to fc + 0xe, while the
 * first clock_gettime() returns to fc + 0x3c (0x3b -m32), after them.
 */
#define FC_STORED	0x32

struct snapchk {
	u32 abi;
	u64 lo, hi;		/* the edge stack, or 0 */
	u64 fa, fb, fc;		/* stacktarget's fa, fb and fc */
	u64 active;		/* pairs taken while fc was running (its
				 * return into fb on the FP chain, or the pc
				 * in fc): its markers are on the stack then */
	u64 active_marked;	/* ... with the markers found */
	u64 miss_empty, miss_partial;	/* active, markers not found:
					 * nothing copied, a partial copy */
	u64 pairs;		/* SAMPLE + USTACK */
	u64 user;		/* SAMPLEs with user context (not in do_exit()) */
	u64 bad_regs;		/* regs[IP] is not the sample's user pc */
	u64 bad_req;		/* stack_req is not what was asked */
	u64 bad_partial;	/* a partial copy not ending at a page end */
	u64 marked;		/* markers where their address says */
	u64 misplaced;		/* a marker elsewhere: bytes not from sp */
	u64 ret_ok, ret_bad;	/* [bp + word] is the FP walk's 2nd ip */
	u64 edge;		/* samples on the edge stack */
	u64 edge_ok;		/* ... whose copy ends exactly at its top */
	u64 edge_short;		/* the most another one ended short of it */
	u64 mark_at;		/* the lowest marker's address, once seen */
	u64 callee_early;	/* pc in a call from fc before its stores */
	/* active, markers not found: where each copy ended (sp + bytes) */
	u64 miss_end[256];
	u64 miss_sp[256], miss_ip[256], miss_ip1[256];
	u32 nmiss;
	u32 req;
	u32 flags;		/* ENABLE flags besides TPROF_F_USER_SNAPSHOT */
	u64 below;		/* pairs with the red zone (TPROF_RF_USTACK_BELOW) */
	u64 bad_below;		/* ... where the task has none (ia32) */
	ustack_cb check;	/* NULL: check_snapshot() */
	void *priv;		/* check's, else this */
};

/*
 * Active snapshots without the markers whose copy ended below them: the
 * page above was unreadable right then (copy_from_user_nmi() does not
 * fault pages in; a page under migration or reclaim is not present), as
 * perf's copies are. Any other miss is a copy that lost bytes; the first
 * is described in @why, for the failing check's line.
 */
static u64 misses_unexplained(const struct snapchk *k, char *why, size_t len)
{
	u64 n = 0;
	u32 i;

	snprintf(why, len, "none");
	for (i = 0; i < k->nmiss && i < 256; i++) {
		if (k->mark_at && k->miss_end[i] <= k->mark_at)
			continue;
		if (!n++)
			snprintf(why, len,
				 "first: pc %llx (fc %llx) ret %llx (fb %llx) sp %llx copy to %llx, markers at %llx",
				 (unsigned long long)k->miss_ip[i],
				 (unsigned long long)k->fc,
				 (unsigned long long)k->miss_ip1[i],
				 (unsigned long long)k->fb,
				 (unsigned long long)k->miss_sp[i],
				 (unsigned long long)k->miss_end[i],
				 (unsigned long long)k->mark_at);
	}
	return n + (k->nmiss > 256 ? k->nmiss - 256 : 0);
}

static u64 word(const unsigned char *p, unsigned int w)
{
	u64 v = 0;

	memcpy(&v, p, w);	/* little-endian: the low w bytes */
	return v;
}

static void count_user(struct sum *s, const struct tprof_rec_sample *r,
		       const u64 *ips)
{
	struct snapchk *k = s->priv;

	(void)ips;
	k->user += r->nr_user > 0 || r->abi != TPROF_ABI_NONE;
}

/*
 * Does a snapshot of @req bytes from @base end where the task's address
 * space does (uapi: stack_req is snapshot_bytes "less where the user
 * address space ends first")? The kernel's TASK_SIZE for the abi: ia32
 * 0xffffe000 (IA32_PAGE_OFFSET), x86-64 with 4- or 5-level page tables,
 * arm64 with 48- or 52-bit VAs, AArch32 4 GiB less a page. An ia32
 * stack's top is randomized within a few MiB of it: a sample on it may
 * ask for less than 64 KiB (seen on 6.12-rt, 3 of 133 samples).
 */
static bool ends_at_task_top(u32 abi, u64 base, u64 req)
{
	u64 end = base + req;

	switch (abi) {
	case TPROF_ABI_IA32:
		return end == 0xffffe000ULL;
	case TPROF_ABI_X86_64:
		return end == 0x7ffffffff000ULL || end == 0xfffffffffff000ULL;
	case TPROF_ABI_ARM64:
		return end == 1ULL << 48 || end == 1ULL << 52;
	case TPROF_ABI_ARM32:
		return end == 0xfffff000ULL;
	}
	return false;
}

static void check_snapshot(struct sum *s, const struct tprof_rec_sample *r,
			   const u64 *ips, const struct tprof_rec_ustack *u,
			   const unsigned char *stack)
{
	struct snapchk *k = s->priv;
	unsigned int w = k->abi == TPROF_ABI_IA32 ? 4 : 8;
	u64 mark = w == 4 ? (u32)STACK_MARK : STACK_MARK;
	/* the register set the record names: x86's or arm64's (fp: x29) */
	bool a64 = u->abi == TPROF_ABI_ARM64;
	u64 sp = u->regs[a64 ? TPROF_AREG_SP : TPROF_UREG_SP];
	u64 bp = u->regs[a64 ? TPROF_AREG_FP : TPROF_UREG_BP];
	u64 pc = u->regs[a64 ? TPROF_AREG_PC : TPROF_UREG_IP];
	bool found = false, wrong = false, early;
	u32 ret1;
	/* with the red zone, stack[] starts that far below sp */
	u32 below = u->hdr.flags & TPROF_RF_USTACK_BELOW ?
		    TPROF_SNAPSHOT_BELOW_BYTES : 0;
	u64 base = sp - below;
	u32 o;

	k->pairs++;
	k->below += below != 0;
	k->bad_below += below && k->abi != TPROF_ABI_X86_64;
	if (!r->nr_user || pc != ips[r->nr_kernel] ||
	    u->abi != k->abi || (w == 4 && (sp >> 32 || u->regs[TPROF_UREG_R8])))
		k->bad_regs++;
	if (u->stack_req != k->req + below &&
	    !(u->stack_req < k->req + below &&
	      ends_at_task_top(u->abi, base, u->stack_req)))
		k->bad_req++;
	if (u->stack_bytes < u->stack_req && (base + u->stack_bytes) % 4096)
		k->bad_partial++;
	for (o = 0; o + w <= u->stack_bytes; o += w) {
		u64 v = word(stack + o, w);

		if ((v ^ mark) == base + o) {
			found = true;
			if (!k->mark_at || base + o < k->mark_at)
				k->mark_at = base + o;
		}
		else if (((v ^ mark) & ~(u64)0xfff) == ((base + o) & ~(u64)0xfff) &&
			 (v ^ mark) != base + o && (v ^ mark) % w == 0)
			wrong = true;	/* a marker, but not at its address */
	}
	k->marked += found;
	k->misplaced += wrong;
	/*
	 * A pc in fc's first instructions is before its markers, whatever
	 * the return addresses say (fc + 0xe -m32, back from its PIC thunk,
	 * with fb's return address above it: seen once in 151 on 6.1).
	 */
	early = r->nr_user && ips[r->nr_kernel] >= k->fc &&
		ips[r->nr_kernel] < k->fc + FC_MARKED;
	/*
	 * ... and so is a pc in a function fc called before them: -m32's
	 * PIC thunk (__x86.get_pc_thunk.bx, called at fc + 0x9), whose
	 * return into fc is the word at sp and whose frame-pointer walk goes
	 * from fc's frame straight to fb's return address.
	 */
	if (!early && r->nr_user && u->stack_bytes >= below + w &&
	    word(stack + below, w) - k->fc < FC_STORED) {
		early = true;
		k->callee_early++;
		note("pc %llx in a call from fc + %#llx, before its marker stores",
		     (unsigned long long)pc,
		     (unsigned long long)(word(stack + below, w) - k->fc));
	}
	for (o = 0; !early && o < r->nr_user; o++) {
		u64 ip = ips[r->nr_kernel + o];

		/*
		 * arm64's link register (TPROF_RF_USER_LR) is no frame's
		 * return address: back in fb from fc, x30 still points into
		 * fb while fc's markers are popped (6.1 arm64: 1 in 91)
		 */
		if (o == 1 && (r->hdr.flags & TPROF_RF_USER_LR))
			continue;

		/*
		 * Functions are laid out in source order (fc, fb, fa, then
		 * main): a window past fb of 0x400 held main's calls too,
		 * samples before fc ran.
		 */
		if ((o == 0 && ip >= k->fc &&
		     ip < (k->fb > k->fc ? k->fb : k->fc + 0x400)) ||
		    (o > 0 && ip > k->fb &&
		     ip < (k->fa > k->fb ? k->fa : k->fb + 0x40))) {
			k->active++;
			k->active_marked += found;
			if (!found) {
				if (k->nmiss < 256) {
					k->miss_end[k->nmiss] =
						base + u->stack_bytes;
					k->miss_sp[k->nmiss] = sp;
					k->miss_ip[k->nmiss] =
						ips[r->nr_kernel];
					k->miss_ip1[k->nmiss] = r->nr_user > 1 ?
						ips[r->nr_kernel + 1] : 0;
				}
				k->nmiss++;
				k->miss_empty += !u->stack_bytes;
				k->miss_partial += u->stack_bytes &&
					u->stack_bytes < u->stack_req;
			}
			break;
		}
	}
	/* the walk's first return address: after arm64's link register */
	ret1 = r->nr_kernel + 1 + !!(r->hdr.flags & TPROF_RF_USER_LR);
	if (ret1 < r->nr_kernel + r->nr_user && bp >= sp &&
	    bp - base + 2 * w <= u->stack_bytes) {
		if (word(stack + (bp - base) + w, w) == ips[ret1])
			k->ret_ok++;
		else
			k->ret_bad++;
	}
	if (k->hi && sp >= k->lo && sp < k->hi) {
		k->edge++;
		if (u->stack_bytes == k->hi - base &&
		    (u->hdr.flags & TPROF_RF_USTACK_PARTIAL))
			k->edge_ok++;
		else if (u->stack_bytes < k->hi - base &&
			 k->hi - base - u->stack_bytes > k->edge_short)
			k->edge_short = k->hi - base - u->stack_bytes;
	}
}

/* A snapshot session on @prog [@arg]; fills @s (priv: @k). */
static bool snap_run(const char *prog, const char *arg, struct snapchk *k,
		     u32 snap_bytes, u32 ring_bytes, struct sum *s,
		     bool small_reads)
{
	struct tprof_ioc_enable e = {
		.size = sizeof(e), .flags = TPROF_F_USER_SNAPSHOT | k->flags,
		.period_ns = 1 * MS, .snapshot_bytes = snap_bytes,
		.ring_bytes = ring_bytes,
	};
	static char small[512] __attribute__((aligned(8)));
	int fd, ret, status, einval = 0, i;
	struct target tg;

	if (!target_start(&tg, prog, arg)) {
		ok(false, "snapshot %s: target started", prog);
		return false;
	}
	k->fa = tg.v[0];
	k->fb = tg.v[1];
	k->fc = tg.v[2];
	k->lo = tg.v[3];
	k->hi = tg.v[4];
	fd = dev_open();
	sum_init(s, tg.pid);
	s->priv = k->check ? k->priv : k;
	s->on_ustack = k->check ? k->check : check_snapshot;
	s->on_sample = count_user;
	e.pid = tg.pid;
	ret = enable_raw(fd, &e);
	ok(ret == 0, "snapshot %s: ENABLE with %u-byte snapshots (%s)", prog,
	   snap_bytes, strerror(-ret));
	target_go(&tg);
	/* A read() too small for a SAMPLE + USTACK pair never splits it. */
	for (i = 0; small_reads && i < 50; i++) {
		ssize_t n = read(fd, small, sizeof(small));

		if (n > 0)
			parse(s, small, n);
		else if (n < 0 && errno == EINVAL && ++einval >= 3)
			break;
		usleep(10000);
	}
	if (small_reads)
		ok(einval >= 3 && s->bad_groups == 0,
		   "snapshot %s: %zu-byte reads return whole pairs or EINVAL (%d EINVAL, %llu split)",
		   prog, sizeof(small), einval, (unsigned long long)s->bad_groups);
	ok(read_to_eof(fd, s, 60000), "snapshot %s: EOF at target exit", prog);
	status = target_finish(&tg);
	ok(WIFEXITED(status) && !WEXITSTATUS(status),
	   "snapshot %s: target exited 0", prog);
	close(fd);
	return !ret;
}

/*
 * Every sample with user context carries a snapshot of the real stack;
 * with @below (TPROF_F_SNAPSHOT_BELOW) a 64-bit task's starts with the
 * red zone under sp (the markers then sit 128 bytes further in), an ia32
 * task's never does.
 */
static int snapshot_case(const char *prog, u32 abi, bool below)
{
	struct snapchk k = {
		.abi = abi, .req = SNAP_BYTES,
		.flags = below ? TPROF_F_SNAPSHOT_BELOW : 0,
	};
	struct sum s;
	char why[256];
	u64 lost;

	if (!snap_run(prog, NULL, &k, SNAP_BYTES, 0, &s, true))
		goto out;
	note("%s: samples %llu, pairs %llu, markers found %llu, [bp+w] checked %llu (wrong %llu); while fc ran: %llu, markers missed in %llu (empty copy %llu, partial %llu)",
	     prog, (unsigned long long)s.samples, (unsigned long long)k.pairs,
	     (unsigned long long)k.marked, (unsigned long long)k.ret_ok,
	     (unsigned long long)k.ret_bad, (unsigned long long)k.active,
	     (unsigned long long)(k.active - k.active_marked),
	     (unsigned long long)k.miss_empty,
	     (unsigned long long)k.miss_partial);
	ok(s.bad == 0 && s.bad_groups == 0 && s.ustacks == k.pairs,
	   "snapshot %s: well-formed, every USTACK right after its SAMPLE (bad %llu, split %llu)",
	   prog, (unsigned long long)s.bad, (unsigned long long)s.bad_groups);
	/* the exit path (do_exit()) has no user context, so no snapshot */
	ok(k.pairs >= 5 && k.pairs + 2 + k.user / 8 >= k.user,
	   "snapshot %s: samples with user context have a snapshot (%llu of %llu; %llu in do_exit())",
	   prog, (unsigned long long)k.pairs, (unsigned long long)k.user,
	   (unsigned long long)(s.samples - k.user));
	ok(k.bad_regs == 0 && k.bad_req == 0 && k.bad_partial == 0,
	   "snapshot %s: regs are the sampled context's (%llu wrong), %u bytes asked (%llu not), partial copies end at a page end (%llu not)",
	   prog, (unsigned long long)k.bad_regs, SNAP_BYTES,
	   (unsigned long long)k.bad_req, (unsigned long long)k.bad_partial);
	lost = misses_unexplained(&k, why, sizeof(why));
	ok(k.active >= 5 && k.active_marked * 2 >= k.active && !lost &&
	   k.misplaced == 0,
	   "snapshot %s: fc's stack markers at their addresses in every snapshot taken while fc ran that reached them: %llu of %llu, the other %llu ended at an unreadable page below them (%llu not, %llu misplaced; %llu in a call before fc's marker stores left out; %s)",
	   prog, (unsigned long long)k.active_marked,
	   (unsigned long long)k.active,
	   (unsigned long long)(k.active - k.active_marked - lost),
	   (unsigned long long)lost, (unsigned long long)k.misplaced,
	   (unsigned long long)k.callee_early, why);
	ok(k.ret_ok >= 5 && k.ret_bad == 0,
	   "snapshot %s: the word above [bp] is the frame-pointer walk's return address (%llu, %llu not)",
	   prog, (unsigned long long)k.ret_ok, (unsigned long long)k.ret_bad);
	if (!below)
		ok(k.below == 0, "snapshot %s: no red zone unasked (%llu)", prog,
		   (unsigned long long)k.below);
	else if (abi == TPROF_ABI_X86_64)
		/* a page below sp not present leaves it out: rare */
		ok(k.below * 10 >= k.pairs * 9 && k.pairs >= 5,
		   "snapshot %s: red zone: %llu of %llu snapshots start 128 bytes below sp, their markers where their addresses say",
		   prog, (unsigned long long)k.below,
		   (unsigned long long)k.pairs);
	else
		ok(k.bad_below == 0,
		   "snapshot %s: red zone asked, none in an ia32 or arm64 task's snapshots (%llu)",
		   prog, (unsigned long long)k.bad_below);
out:
	sum_free(&s);
	return 0;
}

int t_snapshot(const char *prog, u32 abi)
{
	return snapshot_case(prog, abi, false);
}

int t_snapshot_below(const char *prog, u32 abi)
{
	return snapshot_case(prog, abi, true);
}

/* TPROF_F_USTACK_CHAIN: what one run's chains showed */
struct chainchk {
	struct snapchk k;
	u64 pairs, chained;	/* pairs; with TPROF_RF_USTACK_CHAIN */
	u64 bad_split;	/* a chained SAMPLE with more than its pc (and lr) */
	u64 bad_inner;	/* an inner frame record outside stack[] */
	u64 bad_rule;	/* outer ips from a record the snapshot held */
	u64 inner, outer;	/* frames, summed */
	u64 fc_active;	/* pc in fc past its prologue */
	u64 fc_whole;	/* ... the chain's first two: into fb, into fa */
};

/*
 * A pair of a TPROF_F_USTACK_CHAIN session: the chain as the uapi says to
 * rebuild it (its inner records walked in stack[], then the outer ips)
 * must be the target's own: back into fb, then into fa, while fc runs.
 * Outer ips must start at a record the snapshot did not hold: the module
 * read no frame in user memory that it had copied. A 32-bit task's chain
 * stays in its SAMPLE.
 */
static void check_chain(struct sum *s, const struct tprof_rec_sample *r,
			const u64 *ips, const struct tprof_rec_ustack *u,
			const unsigned char *stack)
{
	struct chainchk *c = s->priv;
	bool a64 = u->abi == TPROF_ABI_ARM64;
	u32 below = u->hdr.flags & TPROF_RF_USTACK_BELOW ?
		    TPROF_SNAPSHOT_BELOW_BYTES : 0;
	u64 lo = u->regs[a64 ? TPROF_AREG_SP : TPROF_UREG_SP] - below;
	u64 fp = u->regs[a64 ? TPROF_AREG_FP : TPROF_UREG_BP], off, chain[8];
	const struct tprof_ustack_chain *h = (const void *)
		(stack + ((u->stack_bytes + 7) & ~7U));
	const u64 *outer = (const u64 *)(h + 1);
	u32 head = 1 + !!(r->hdr.flags & TPROF_RF_USER_LR), i, n = 0;
	u64 pc = r->nr_user ? ips[r->nr_kernel] : 0;

	c->pairs++;
	if (!(u->hdr.flags & TPROF_RF_USTACK_CHAIN)) {
		/* 32-bit frames: the chain in the SAMPLE, as before */
		for (i = head; i < r->nr_user && n < 8; i++)
			chain[n++] = ips[r->nr_kernel + i];
		goto shape;
	}
	c->chained++;
	c->bad_split += r->nr_user > head;
	for (i = 0; i < h->nr_inner; i++) {
		off = fp - lo;
		if ((fp & 7) || off >= u->stack_bytes ||
		    u->stack_bytes - off < 16) {
			c->bad_inner++;
			return;
		}
		if (n < 8)
			chain[n++] = word(stack + off + 8, 8);
		fp = word(stack + off, 8);
	}
	c->inner += h->nr_inner;
	c->outer += h->nr_outer;
	off = fp - lo;
	if (h->nr_outer && !(fp & 7) && !(lo & 7) && off < u->stack_bytes &&
	    u->stack_bytes - off >= 16)
		c->bad_rule++;
	for (i = 0; i < h->nr_outer && n < 8; i++)
		chain[n++] = outer[i];
shape:
	if (a64)	/* PAC: this test's targets are built without it */
		for (i = 0; i < n; i++)
			chain[i] &= (1ULL << 48) - 1;
	if (pc < c->k.fc + FC_MARKED || pc >= c->k.fb)
		return;
	c->fc_active++;
	c->fc_whole += n >= 2 && chain[0] > c->k.fb && chain[0] < c->k.fa &&
		       chain[1] > c->k.fa && chain[1] < c->k.fa + 0x80;
}

/*
 * The frame-pointer chain in the USTACK record (TPROF_F_USTACK_CHAIN):
 * with 4 KiB snapshots the chain's records up to main are read in the
 * snapshot; with 16 bytes the ones past it come from user memory. Both
 * give the target's own chain, fc -> fb -> fa.
 */
int t_snapshot_chain(const char *prog, u32 abi)
{
	static const u32 bytes[] = { 4096, 16 };
	unsigned int i;

	for (i = 0; i < 2; i++) {
		struct chainchk c = {
			.k = { .abi = abi, .req = bytes[i],
			       .flags = TPROF_F_USTACK_CHAIN |
					TPROF_F_SNAPSHOT_BELOW,
			       .check = check_chain },
		};
		struct sum s;
		bool wide = abi != TPROF_ABI_IA32;

		c.k.priv = &c;
		if (!snap_run(prog, NULL, &c.k, bytes[i], 0, &s, false))
			goto next;
		note("snapshot-chain %s %u bytes: %llu pairs, %llu chained, frames %llu in the snapshot and %llu past it; fc ran in %llu, its chain whole in %llu",
		     prog, bytes[i], (unsigned long long)c.pairs,
		     (unsigned long long)c.chained,
		     (unsigned long long)c.inner, (unsigned long long)c.outer,
		     (unsigned long long)c.fc_active,
		     (unsigned long long)c.fc_whole);
		ok(s.bad == 0 && s.bad_groups == 0 && s.ustacks == c.pairs &&
		   c.pairs >= 5,
		   "snapshot-chain %s %u: well-formed pairs (%llu; bad %llu, split %llu)",
		   prog, bytes[i], (unsigned long long)c.pairs,
		   (unsigned long long)s.bad,
		   (unsigned long long)s.bad_groups);
		ok(c.chained == (wide ? c.pairs : 0),
		   "snapshot-chain %s %u: %s (%llu of %llu)", prog, bytes[i],
		   wide ? "every USTACK has the chain" :
		   "a 32-bit task's chain stays in its SAMPLE",
		   (unsigned long long)c.chained, (unsigned long long)c.pairs);
		ok(c.bad_split == 0 && c.bad_inner == 0 && c.bad_rule == 0,
		   "snapshot-chain %s %u: the SAMPLE has the pc only (%llu not), inner records in stack[] (%llu not), outer ones past it (%llu not)",
		   prog, bytes[i], (unsigned long long)c.bad_split,
		   (unsigned long long)c.bad_inner,
		   (unsigned long long)c.bad_rule);
		ok(c.fc_active >= 5 && c.fc_whole == c.fc_active,
		   "snapshot-chain %s %u: while fc ran, the chain goes back into fb, then fa: %llu of %llu",
		   prog, bytes[i], (unsigned long long)c.fc_whole,
		   (unsigned long long)c.fc_active);
		/* both paths taken: the snapshot's, and user memory's */
		if (wide)
			ok(i == 0 ? c.inner >= 3 * c.fc_active :
			   c.outer >= 2 * c.fc_active,
			   "snapshot-chain %s %u: %s (%llu in, %llu past, fc ran in %llu)",
			   prog, bytes[i], i == 0 ?
			   "fc, fb and fa's records read in the snapshot" :
			   "fb and fa's records read past it",
			   (unsigned long long)c.inner,
			   (unsigned long long)c.outer,
			   (unsigned long long)c.fc_active);
next:
		sum_free(&s);
	}
	return 0;
}

/* A stack whose top is followed by an unmapped page: copies end there. */
int t_snapshot_edge(const char *prog, u32 abi)
{
	struct snapchk k = { .abi = abi, .req = TPROF_MAX_SNAPSHOT_BYTES };
	struct sum s;
	char why[256];
	u64 lost;

	if (!snap_run(prog, "edge", &k, TPROF_MAX_SNAPSHOT_BYTES, 0, &s, false))
		goto out;
	ok(k.lo && k.hi > k.lo, "snapshot-edge %s: stack %llx-%llx", prog,
	   (unsigned long long)k.lo, (unsigned long long)k.hi);
	ok(s.bad == 0 && s.bad_groups == 0 && k.bad_regs == 0 && k.bad_req == 0,
	   "snapshot-edge %s: well-formed (bad %llu, split %llu, regs %llu, req %llu)",
	   prog, (unsigned long long)s.bad, (unsigned long long)s.bad_groups,
	   (unsigned long long)k.bad_regs, (unsigned long long)k.bad_req);
	ok(k.edge >= 5 && k.edge_ok == k.edge,
	   "snapshot-edge %s: %llu of %llu snapshots on the edge stack are partial, exactly to its top (others up to %llu bytes short)",
	   prog, (unsigned long long)k.edge_ok, (unsigned long long)k.edge,
	   (unsigned long long)k.edge_short);
	lost = misses_unexplained(&k, why, sizeof(why));
	ok(k.active >= 5 && k.active_marked * 2 >= k.active && !lost &&
	   k.misplaced == 0,
	   "snapshot-edge %s: markers at their addresses in every snapshot taken while fc ran that reached them: %llu of %llu (%llu not, %llu misplaced; %llu in a call before fc's marker stores left out; %s)",
	   prog, (unsigned long long)k.active_marked,
	   (unsigned long long)k.active, (unsigned long long)lost,
	   (unsigned long long)k.misplaced,
	   (unsigned long long)k.callee_early, why);
out:
	sum_free(&s);
	return 0;
}

/*
 * A ring too small for any pair: every sample with user context is lost,
 * and counted with its weight, so CPU time still adds up.
 */
int t_snapshot_lost(const char *prog)
{
	struct snapchk k = { .abi = TPROF_ABI_X86_64, .req = 8192 };
	struct sum s;
	u64 cpu = 0, st_lost = 0;
	size_t i;

	if (!snap_run(prog, NULL, &k, 8192, 4096, &s, false))
		goto out;
	for (i = 0; i < s.n; i++) {
		cpu += s.t[i].st.on_cpu_ns;
		st_lost += s.t[i].st.lost_samples;
	}
	ok(s.ustacks == 0 && s.lost_samples >= 5 && st_lost == s.lost_samples,
	   "snapshot-lost: no pair fits a 4 KiB ring: %llu lost (threads say %llu), %llu delivered with a snapshot",
	   (unsigned long long)s.lost_samples, (unsigned long long)st_lost,
	   (unsigned long long)s.ustacks);
	ok(llabs((long long)(s.weight + s.lost_weight) - (long long)cpu) <=
	   within_p(1 * MS),
	   "snapshot-lost: delivered + lost weight %llu ms = exact CPU %llu ms within a period",
	   (unsigned long long)((s.weight + s.lost_weight) / MS),
	   (unsigned long long)(cpu / MS));
out:
	sum_free(&s);
	return 0;
}

static int enable_snap(int fd, pid_t pid, u32 flags, int auxv_fd, int mem_fd,
		       u32 bytes)
{
	struct tprof_ioc_enable e = {
		.size = sizeof(e), .flags = flags, .pid = pid,
		.auxv_fd = auxv_fd, .mem_fd = mem_fd, .snapshot_bytes = bytes,
	};

	return enable_raw(fd, &e);
}

static int open_proc(pid_t pid, const char *name, int mode)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/%s", pid, name);
	return open(path, mode);
}

/*
 * Who may have raw stack bytes: unprivileged, only with the ptrace-attach
 * proof (/proc/PID/mem) of the target; and the argument checks. Run as an
 * unprivileged user (and as root, for the argument checks).
 */
int t_snapshot_perm(const char *prog)
{
	struct snapchk k = { .abi = TPROF_ABI_X86_64, .req = 512 };
	const u32 SN = TPROF_F_USER_SNAPSHOT;
	bool root = geteuid() == 0;
	int fd, afd, mfd, self, ret;
	struct target tg;
	struct sum s;
	char why[256];
	u64 lost;

	if (!target_start(&tg, prog, NULL)) {
		ok(false, "snapshot-perm: target started");
		return 0;
	}
	k.fa = tg.v[0];
	k.fb = tg.v[1];
	k.fc = tg.v[2];
	fd = dev_open();
	afd = open_proc(tg.pid, "auxv", O_RDONLY);
	mfd = open_proc(tg.pid, "mem", O_RDONLY);
	self = open("/proc/self/mem", O_RDONLY);
	ok(afd >= 0 && mfd >= 0 && self >= 0,
	   "snapshot-perm: /proc/PID/auxv and mem of the own child open");
	ok(enable_snap(fd, tg.pid, 0, 0, 0, 512) == -EINVAL,
	   "snapshot-perm: snapshot_bytes without USER_SNAPSHOT EINVAL");
	ok(enable_snap(fd, tg.pid, SN, 0, 0, 12) == -EINVAL,
	   "snapshot-perm: snapshot_bytes not a multiple of 8 EINVAL");
	ok(enable_snap(fd, tg.pid, SN, 0, 0, TPROF_MAX_SNAPSHOT_BYTES + 8) == -EINVAL,
	   "snapshot-perm: snapshot_bytes over the cap EINVAL");
	ok(enable_snap(fd, tg.pid, SN, 0, mfd, 512) == -EINVAL,
	   "snapshot-perm: mem_fd without MEM_PROOF EINVAL");
	ok(enable_snap(fd, tg.pid, SN | TPROF_F_MEM_PROOF, 0, 9999, 512) == -EBADF,
	   "snapshot-perm: MEM_PROOF with a closed fd EBADF");
	ok(enable_snap(fd, tg.pid, SN | TPROF_F_MEM_PROOF, 0, afd, 512) == -EPERM,
	   "snapshot-perm: an auxv fd as the mem proof EPERM");
	ok(enable_snap(fd, tg.pid, SN | TPROF_F_MEM_PROOF, 0, self, 512) == -EPERM,
	   "snapshot-perm: another process's mem fd EPERM");
	if (!root) {
		ok(enable_snap(fd, tg.pid, SN, 0, 0, 512) == -EPERM,
		   "snapshot-perm: unprivileged snapshots without proof EPERM");
		ok(enable_snap(fd, tg.pid, SN | TPROF_F_AUXV_PROOF, afd, 0,
			       512) == -EPERM,
		   "snapshot-perm: unprivileged snapshots with the read (auxv) proof only EPERM");
	}
	ret = enable_snap(fd, tg.pid, SN | TPROF_F_MEM_PROOF, 0, mfd, 512);
	ok(ret == 0, "snapshot-perm: %s snapshots with the mem (attach) proof (%s)",
	   root ? "root:" : "unprivileged:", strerror(-ret));
	close(afd);
	close(mfd);
	close(self);
	sum_init(&s, tg.pid);
	s.priv = &k;
	s.on_ustack = check_snapshot;
	target_go(&tg);
	ret = read_to_eof(fd, &s, 60000);
	lost = misses_unexplained(&k, why, sizeof(why));
	ok(ret && k.pairs >= 5 && k.bad_req == 0 && s.bad_groups == 0 &&
	   k.active >= 5 && k.active_marked * 2 >= k.active && !lost,
	   "snapshot-perm: %llu snapshots of 512 bytes, markers in %llu of the %llu taken while fc ran (%llu missing from a copy that reached them; %s)",
	   (unsigned long long)k.pairs, (unsigned long long)k.active_marked,
	   (unsigned long long)k.active, (unsigned long long)lost, why);
	target_finish(&tg);
	close(fd);
	sum_free(&s);
	return 0;
}
