// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests: Python frames of UWALK records merged into native stacks
 * (model/pymerge.c), named from PYCODE records (analyze/pyframes.c), in
 * folded and pprof output; the records' decoding and checks.
 *
 * The native side is real code: tests/progs/unwind's functions, mapped by
 * a MAPS record and named by the symbolizer, from a copy without its CFI:
 * the made-up chains (pcs in prologues, a frameless leaf with callers)
 * are then taken on trust, not cut where the CFI says a link skips a
 * frame (analyze/unwind.c fp_checked(), which other tests cover). `caller` plays
 * _PyEval_EvalFrameDefault (the PYPROC's eval range), the others the C
 * around it: hot_leaf a C extension's leaf, cmp_ints and sort_round C
 * between activations, main the root. The Python side is a 3.11-style walk
 * (code, instruction, is_entry, check word per frame) or a 3.12-style one
 * (owner >= 3: sentinel).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/util.h"
#include "model/profile.h"
#include "model/pyrecords.h"
#include "pbload.h"
#include "stream/records.h"
#include "testlib.h"

#define PID		4242
#define PERIOD		10000000ULL
#define BASE		0x555555554000ULL
#define CODE(i)		(0x7f0000100000ULL + (i) * 0x1000)
#define CHECKW(i)	(0x7f0000900000ULL + (i) * 0x40)
#define ADAPTIVE	184
#define WPF		4	/* code, instr, entry, check */
#define INSTR_OFF	20	/* each frame's instruction: line first + 4 */

enum fn { F_CALLER, F_HOT, F_CMP, F_SORT, F_MIX, F_MAIN, NFN };
static const char *const fn_names[NFN] = {
	"caller", "hot_leaf", "cmp_ints", "sort_round", "mix", "main",
};

struct env {
	char bin[4096];
	uint64_t at[NFN], size[NFN];
	bool ok;
};

static struct env E;

static bool setup(void)
{
	int i;

	char *out = NULL;

	snprintf(E.bin, sizeof(E.bin), "%s", build_path("unit/unwind-nocfi"));
	if (run_fmt(&out, "objcopy --remove-section=.eh_frame --remove-section=.eh_frame_hdr '%s' '%s' 2>&1",
		    build_path("progs/unwind"), E.bin)) {
		fprintf(stderr, "    objcopy: %s\n", out ? out : "");
		free(out);
		SKIP("no objcopy");
		return E.ok = false;
	}
	free(out);
	E.ok = true;
	for (i = 0; i < NFN; i++) {
		if (elf_symbol(E.bin, fn_names[i], &E.at[i], &E.size[i])) {
			E.ok = false;
			break;
		}
		E.at[i] += BASE;
	}
	if (!E.ok)
		SKIP("no progs/unwind with its symbols");
	return E.ok;
}

/* A pc inside fn, and a return address whose ra - 1 is inside it. */
static uint64_t pc(enum fn f)
{
	return E.at[f] + 1;
}

static uint64_t ra(enum fn f)
{
	return E.at[f] + 2;
}

static void rec(struct sbuf *b, unsigned int type, uint64_t t,
		const void *fixed, size_t fsize, const void *tail, size_t tlen)
{
	unsigned char *buf;
	size_t n = tprof_urec_build(&buf, type, t, fixed, fsize, tail, tlen);

	sb_raw(b, buf, n);
	free(buf);
}

/* 3.11 (ENTRY_FLAG: the word's low byte) or 3.12+ (ENTRY_SENTINEL). */
static void pyproc(struct sbuf *b, uint32_t pid, bool sentinel, uint64_t t)
{
	struct tprof_urec_pyproc y = {
		.pid = pid, .version = sentinel ? 0x030c01f0 : 0x030b02f0,
		.code_adaptive = ADAPTIVE, .w_code = 0, .w_instr = 1,
		.w_entry = 2, .w_check = 3,
		.entry_kind = sentinel ? TPROF_PY_ENTRY_SENTINEL :
					 TPROF_PY_ENTRY_FLAG,
		.entry_value = sentinel ? 3 : 0, .nr_ranges = 1,
	};
	uint64_t r[2] = { E.at[F_CALLER], E.at[F_CALLER] + E.size[F_CALLER] };

	rec(b, TPROF_UREC_PYPROC, t, &y, sizeof(y), r, sizeof(r));
}

/*
 * Code i: "mod.f<i>" in app.py, first line 10 * i + 1; its table puts
 * bytes [0, 16) on the first line + 1 and [16, 32) on the first line + 4.
 */
static void pycode(struct sbuf *b, uint32_t pid, int i, uint64_t check,
		   bool stale, const char *qualname, uint64_t t)
{
	uint8_t lt[] = { 0x80 | 13 << 3 | 7, 2, 0x80 | 13 << 3 | 7, 6 };
	struct tprof_urec_pycode c = {
		.pid = pid, .first_line = 10 * i + 1, .addr = CODE(i),
		.check = check,
	};
	char tail[256];
	size_t n = 0;

	if (stale) {
		c.flags = TPROF_PYCODE_F_STALE;
	} else {
		c.qualname_len = strlen(qualname);
		c.filename_len = strlen("app.py");
		c.linetable_len = sizeof(lt);
		memcpy(tail, qualname, c.qualname_len);
		n = c.qualname_len;
		memcpy(tail + n, "app.py", c.filename_len);
		n += c.filename_len;
		memcpy(tail + n, lt, sizeof(lt));
		n += sizeof(lt);
	}
	rec(b, TPROF_UREC_PYCODE, t, &c, sizeof(c), tail, n);
}

static void pycode_named(struct sbuf *b, int i, uint64_t t)
{
	char q[32];

	snprintf(q, sizeof(q), "mod.f%d", i);
	pycode(b, PID, i, CHECKW(i), false, q, t);
}

/*
 * A walk frame: code i; mark: 3.11 its is_entry, 3.12 its owner. Code
 * -1: a 3.12 sentinel.
 */
struct wf {
	int code;
	unsigned int mark;
};

/* A UWALK record of nw frames w, the last ntail of them its tail. */
static void uwalk_tail(struct sbuf *b, uint64_t t, const struct wf *w,
		       unsigned int nw, uint16_t status, uint16_t ntail)
{
	struct tprof_rec_uwalk u = {
		.hdr = { .type = TPROF_REC_UWALK,
			 .size = sizeof(u) + 8 * WPF * nw, .time_ns = t },
		.tid = PID, .status = status, .words_per_frame = WPF,
		.nr_frames = nw, .nr_tail = ntail, .start = 0x7f00dead0000ULL,
	};
	unsigned int i;

	sb_raw(b, &u, sizeof(u));
	for (i = 0; i < nw; i++) {
		uint64_t code = w[i].code < 0 ? 0x7f00000f0000ULL :
			       CODE(w[i].code);
		uint64_t words[WPF] = {
			code, code + ADAPTIVE + INSTR_OFF, w[i].mark,
			w[i].code < 0 ? 0 : CHECKW(w[i].code),
		};

		sb_raw(b, words, sizeof(words));
	}
}

/* A UWALK record of nw frames w. */
static void uwalk(struct sbuf *b, uint64_t t, const struct wf *w,
		  unsigned int nw, uint16_t status)
{
	uwalk_tail(b, t, w, nw, status, 0);
}

/* A SAMPLE with TPROF_RF_GROUP (user ips, FP) and its UWALK record. */
static void grouped(struct sbuf *b, uint64_t t, unsigned int nu,
		    const uint64_t *uips, const struct wf *w, unsigned int nw,
		    uint16_t status, uint64_t weight)
{
	struct tprof_rec_sample s = {
		.hdr = { .type = TPROF_REC_SAMPLE, .flags = TPROF_RF_GROUP,
			 .size = sizeof(s) + 8 * nu, .time_ns = t },
		.pid = PID, .tid = PID, .cpu = 1, .nr_user = nu,
		.weight_ns = weight, .period_ns = PERIOD,
		.abi = TPROF_ABI_X86_64,
	};

	sb_raw(b, &s, sizeof(s));
	sb_raw(b, uips, 8 * nu);
	uwalk(b, t, w, nw, status);
}

/* SESSION, the thread's name, the maps; then the PYPROC. */
static void head(struct sbuf *b, bool sentinel)
{
	char *maps = fake_maps(E.bin, BASE);

	sb_session(b, PID, PERIOD, 1700000000000000000ULL, 1000);
	sb_thread(b, PID, PID, "pyapp", 1000);
	sb_maps(b, PID, 1000, maps);
	free(maps);
	pyproc(b, PID, sentinel, 1500);
}

/* The stream's folded lines (stderr dropped), malloc'd. */
static char *folded(const struct sbuf *b, const char *name)
{
	char path[4200], *out = NULL;

	snprintf(path, sizeof(path), "%s", build_path(name));
	CHECK_EQ(sb_write(b, path), 0);
	CHECK_EQ(run_read(&out, "--input '%s' --format folded -o - 2>/dev/null",
			  path), 0);
	return out;
}

/* The stream aggregated in this process: for the merge's counts. */
static void aggregate(const struct sbuf *b, struct profile *p)
{
	profile__init(p);
	CHECK_EQ(profile_feed(p, b, false), b->len);
	profile__finish(p);
}

/* The native stack of the 3.11 and 3.12 tests, leaf first. */
static const enum fn two_act[] = {
	F_HOT, F_CMP, F_CALLER, F_SORT, F_CALLER, F_MAIN,
};

static void native_ips(uint64_t *ips, const enum fn *fns, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		ips[i] = i ? ra(fns[i]) : pc(fns[i]);
}

#define TWO_ACT_FOLDED \
	"pyapp;main;mod.f4;mod.f3;mod.f2;sort_round;mod.f1;mod.f0;cmp_ints;hot_leaf"

/*
 * 3.11: two activations of 2 and 3 frames, C between them: a C extension
 * (hot_leaf under cmp_ints) has its Python caller above it, and the C
 * that called into Python again (sort_round) sits between the two
 * activations. The PYCODE records come after the samples, as the live
 * reader writes them.
 */
static void test_merge_311(void)
{
	const struct wf walk[] = {
		{ 0, 0 }, { 1, 1 }, { 2, 0 }, { 3, 0 }, { 4, 1 },
	};
	uint64_t ips[8];
	struct sbuf b = { 0 };
	struct profile p;
	char *out;
	int i;

	if (!setup())
		return;
	head(&b, false);
	native_ips(ips, two_act, 6);
	/* a call that ends the eval function: its return address is the
	 * range's end, the call (ra - 1) in it */
	ips[4] = E.at[F_CALLER] + E.size[F_CALLER];
	grouped(&b, 2000, 6, ips, walk, 5, TPROF_UWALK_OK, PERIOD);
	grouped(&b, 3000, 6, ips, walk, 5, TPROF_UWALK_OK, PERIOD);
	for (i = 0; i < 5; i++)
		pycode_named(&b, i, 4000);
	out = folded(&b, "unit/py311.raw");
	CHECK_STR(out, TWO_ACT_FOLDED " 20000000\n");
	free(out);
	aggregate(&b, &p);
	CHECK_EQ(p.py.st.walks, 2);
	CHECK_EQ(p.py.st.merged, 2);
	CHECK_EQ(p.py.st.mismatched, 0);
	CHECK_EQ(p.py.st.extra_eval, 0);
	CHECK_EQ(p.py.st.appended, 0);
	CHECK_EQ(p.whole.nsamples, 1);
	CHECK(p.whole.nsamples == 1 && p.whole.samples[0].python &&
	      p.whole.samples[0].nr == 9);
	profile__free(&p);
	sb_free(&b);
}

/* 3.12+: the same activations split by sentinels (owner 3), dropped. */
static void test_merge_312(void)
{
	const struct wf walk[] = {
		{ 0, 0 }, { 1, 0 }, { -1, 3 }, { 2, 1 }, { 3, 0 }, { 4, 2 },
		{ -1, 3 },
	};
	uint64_t ips[8];
	struct sbuf b = { 0 };
	char *out;
	int i;

	if (!setup())
		return;
	head(&b, true);
	native_ips(ips, two_act, 6);
	grouped(&b, 2000, 6, ips, walk, 7, TPROF_UWALK_OK, PERIOD);
	for (i = 0; i < 5; i++)
		pycode_named(&b, i, 4000);
	out = folded(&b, "unit/py312.raw");
	/* owners 1 and 2 (generator, frame object) are frames like others */
	CHECK_STR(out, TWO_ACT_FOLDED " 10000000\n");
	free(out);
	sb_free(&b);
}

/*
 * The native stack ends before the walk: under a frame-pointer chain that
 * went into data (two return addresses no snapshot maps), or at a
 * snapshot's end. The activations it had no eval frame for go under its
 * deepest frame, and no "[unknown]" stands between them and the C.
 */
static void test_merge_leftover(void)
{
	const struct wf walk[] = {
		{ 0, 0 }, { 1, 1 }, { 2, 0 }, { 3, 0 }, { 4, 1 },
	};
	uint64_t junk[4] = { pc(F_HOT), ra(F_CMP), 0x1234, 0x5678 };
	uint64_t cut[2] = { pc(F_HOT), ra(F_CALLER) };
	struct sbuf b = { 0 };
	struct profile p;
	char *out;
	int i;

	if (!setup())
		return;
	head(&b, false);
	grouped(&b, 2000, 4, junk, walk, 5, TPROF_UWALK_OK, PERIOD);
	grouped(&b, 3000, 2, cut, walk, 5, TPROF_UWALK_OK, PERIOD);
	for (i = 0; i < 5; i++)
		pycode_named(&b, i, 4000);
	out = folded(&b, "unit/pyleft.raw");
	CHECK_STR(out,
		  "pyapp;mod.f4;mod.f3;mod.f2;mod.f1;mod.f0;cmp_ints;hot_leaf 10000000\n"
		  "pyapp;mod.f4;mod.f3;mod.f2;mod.f1;mod.f0;hot_leaf 10000000\n");
	free(out);
	aggregate(&b, &p);
	CHECK_EQ(p.py.st.merged, 2);
	CHECK_EQ(p.py.st.appended, 2);
	profile__free(&p);
	sb_free(&b);
}

/*
 * One native eval frame more than activations (a loop whose frames have
 * returned): tolerated, that frame stays native. Two more: the walk does
 * not fit, the stack stays native, counted. A walk cut short (TRUNCATED,
 * FAULT) keeps what it has and ends there with "[truncated]": the native
 * frames past its last activation (caller, mix, main) ran Python frames
 * it never reached, so none of them is named as their caller.
 */
static void test_merge_extra_mismatch_partial(void)
{
	const struct wf one[] = { { 0, 0 }, { 1, 1 } };
	const struct wf cut[] = { { 0, 0 }, { 1, 1 }, { 2, 0 } };
	const enum fn three[] = {
		F_HOT, F_CMP, F_CALLER, F_SORT, F_CALLER, F_MIX, F_CALLER,
		F_MAIN,
	};
	uint64_t ips[8];
	struct sbuf b = { 0 };
	struct profile p;
	char *out;
	int i;

	if (!setup())
		return;
	head(&b, false);
	native_ips(ips, two_act, 6);
	grouped(&b, 2000, 6, ips, one, 2, TPROF_UWALK_OK, PERIOD);
	native_ips(ips, three, 8);
	grouped(&b, 3000, 8, ips, one, 2, TPROF_UWALK_OK, PERIOD);
	grouped(&b, 4000, 8, ips, cut, 3, TPROF_UWALK_TRUNCATED, PERIOD);
	grouped(&b, 5000, 8, ips, cut, 3, TPROF_UWALK_FAULT, PERIOD);
	for (i = 0; i < 3; i++)
		pycode_named(&b, i, 6000);
	out = folded(&b, "unit/pyextra.raw");
	CHECK_STR(out,
		  "pyapp;[truncated];mod.f2;sort_round;mod.f1;mod.f0;cmp_ints;hot_leaf 20000000\n"
		  "pyapp;main;caller;mix;caller;sort_round;caller;cmp_ints;hot_leaf 10000000\n"
		  "pyapp;main;caller;sort_round;mod.f1;mod.f0;cmp_ints;hot_leaf 10000000\n");
	free(out);
	aggregate(&b, &p);
	CHECK_EQ(p.py.st.walks, 4);
	CHECK_EQ(p.py.st.merged, 3);
	CHECK_EQ(p.py.st.extra_eval, 1);
	CHECK_EQ(p.py.st.mismatched, 1);
	CHECK_EQ(p.py.st.cut, 2);
	profile__free(&p);
	sb_free(&b);
}

/*
 * Code the reader could not name: a STALE PYCODE record, none at all, or
 * one of another check word (a code object at a reused address): each is
 * "[unknown python code]", never a name read of another object. A name
 * read before the process's exec does not name the same (code, check)
 * after it, and after the exec (no PYPROC yet) the stack stays native.
 */
static void test_merge_unknown_stale_exec(void)
{
	const struct wf walk[] = { { 0, 0 }, { 1, 0 }, { 2, 0 }, { 3, 1 } };
	const struct wf w0[] = { { 0, 1 } };
	uint64_t ips[2] = { pc(F_HOT), ra(F_CALLER) };
	struct sbuf b = { 0 };
	struct profile p;
	char *out, *maps;

	if (!setup())
		return;
	maps = fake_maps(E.bin, BASE);
	head(&b, false);
	grouped(&b, 2000, 2, ips, walk, 4, TPROF_UWALK_OK, PERIOD);
	pycode(&b, PID, 0, CHECKW(0), true, NULL, 2500);
	/* code 1: no record; code 2: another check word's name */
	pycode(&b, PID, 2, CHECKW(2) + 8, false, "wrong.name", 2500);
	pycode_named(&b, 3, 2500);
	/* exec: code 3's name was the old program's */
	sb_exec(&b, PID, "pyapp", 3000);
	sb_maps(&b, PID, 3050, maps);	/* the new program's: the same */
	grouped(&b, 3100, 2, ips, w0, 1, TPROF_UWALK_OK, PERIOD);
	pyproc(&b, PID, false, 3200);
	grouped(&b, 3300, 2, ips, walk + 3, 1, TPROF_UWALK_OK, PERIOD);
	out = folded(&b, "unit/pystale.raw");
	CHECK_STR(out,
		  "pyapp;[unknown python code];hot_leaf 10000000\n"
		  "pyapp;caller;hot_leaf 10000000\n"
		  "pyapp;mod.f3;[unknown python code];[unknown python code];[unknown python code];hot_leaf 10000000\n");
	free(out);
	free(maps);
	aggregate(&b, &p);
	CHECK_EQ(p.py.st.no_proc, 1);
	CHECK_EQ(p.py.st.merged, 2);
	profile__free(&p);
	sb_free(&b);
}

/* A SAMPLE with TPROF_RF_GROUP and its USTACK, which says a UWALK follows. */
static void sample_ustack_group(struct sbuf *b, uint64_t t,
				const uint64_t *ips)
{
	uint64_t regs[TPROF_UREG_NR] = { 0 }, stack[2] = { 0, 0 };
	struct tprof_rec_hdr h;
	size_t us;

	regs[TPROF_UREG_IP] = ips[0];
	regs[TPROF_UREG_SP] = 0x7ffc00000000ULL;
	sb_sample_ustack(b, PID, PID, TPROF_ABI_X86_64, PERIOD, t, 2, ips, 0,
			 regs, sizeof(stack), stack, sizeof(stack));
	/* the USTACK is the last record written */
	us = b->len - (sizeof(struct tprof_rec_ustack) + sizeof(stack));
	memcpy(&h, b->p + us, sizeof(h));
	CHECK_EQ(h.type, TPROF_REC_USTACK);
	h.flags |= TPROF_RF_GROUP;
	memcpy(b->p + us, &h, sizeof(h));
}

/*
 * The group's records: SAMPLE, USTACK (with TPROF_RF_GROUP), UWALK last,
 * with a PYCODE record between them (the live reader writes the code a
 * walk shows before the walk); SAMPLE then UWALK (no snapshot); a USTACK
 * that says a UWALK follows when none does keeps its snapshot, counted; a
 * UWALK with no sample before it is an orphan.
 */
static void test_merge_pairing(void)
{
	const struct wf walk[] = { { 0, 1 } };
	uint64_t ips[2] = { pc(F_HOT), ra(F_CALLER) };
	struct sbuf b = { 0 };
	struct profile p;

	if (!setup())
		return;
	head(&b, false);
	sample_ustack_group(&b, 2000, ips);
	pycode_named(&b, 0, 2000);
	uwalk(&b, 2000, walk, 1, TPROF_UWALK_OK);
	grouped(&b, 2500, 2, ips, walk, 1, TPROF_UWALK_OK, PERIOD);
	sample_ustack_group(&b, 3000, ips);
	sb_thread(&b, PID, PID + 1, "worker", 3001);
	uwalk(&b, 3100, walk, 1, TPROF_UWALK_OK);	/* an orphan */
	aggregate(&b, &p);
	CHECK_EQ(p.py.st.walks, 2);
	CHECK_EQ(p.py.st.merged, 2);
	CHECK_EQ(p.py.st.missing, 1);
	CHECK_EQ(p.py.st.orphans, 1);
	CHECK_EQ(p.ustack_paired, 2);
	CHECK_EQ(p.ustack_missing, 0);
	CHECK_EQ(p.ustack_orphans, 0);
	CHECK_EQ(p.py.ncodes, 1);
	CHECK_EQ(p.sample_records, 3);
	CHECK(p.whole.nsamples == 2 && p.whole.samples[0].python &&
	      !p.whole.samples[1].python);
	profile__free(&p);
	sb_free(&b);
}

/* The sum of the folded lines' values. */
static uint64_t folded_sum(const char *s)
{
	uint64_t sum = 0;
	const char *nl;

	for (; s && *s; s = nl + 1) {
		const char *sp;

		nl = strchr(s, '\n');
		if (!nl)
			break;
		for (sp = nl; sp > s && sp[-1] != ' '; sp--)
			;
		sum += strtoull(sp, NULL, 10);
	}
	return sum;
}

static int64_t pb_total(const PbProfile *pr, size_t col)
{
	int64_t sum = 0;
	size_t i;

	for (i = 0; i < pr->n_sample; i++)
		sum += pr->sample[i]->value[col];
	return sum;
}

static const char *pb_str(const PbProfile *pr, int64_t i)
{
	return i >= 0 && (size_t)i < pr->n_string_table ?
	       pr->string_table[i] : "(bad)";
}

/*
 * pprof: a Python function is its qualified name (name; no system_name:
 * pprof would "simplify" it, below), file and first line; its location has no mapping and no address, and
 * the line of the frame's instruction from the line table. Merging moves
 * no weight: the totals are those of the same samples unmerged.
 */
static void test_merge_pprof(void)
{
	const struct wf walk[] = {
		{ 0, 0 }, { 1, 1 }, { 2, 0 }, { 3, 0 }, { 4, 1 },
	};
	uint64_t ips[8];
	struct sbuf b = { 0 }, nb = { 0 };
	char pb[4200], pbn[4200], *out = NULL, *on, *off;
	PbProfile *pr, *prn;
	size_t i, j, found = 0;
	int k;

	if (!setup())
		return;
	head(&b, false);
	head(&nb, false);
	native_ips(ips, two_act, 6);
	for (k = 0; k < 7; k++) {
		grouped(&b, 2000 + k, 6 - (k % 3), ips + (k % 3), walk, 5,
			TPROF_UWALK_OK, PERIOD - k);
		/* the same samples with no walk */
		sb_sample(&nb, PID, PID, PERIOD, PERIOD - k, 2000 + k, 0, NULL,
			  6 - (k % 3), ips + (k % 3));
	}
	for (k = 0; k < 5; k++)
		pycode_named(&b, k, 4000);
	snprintf(pb, sizeof(pb), "%s", build_path("unit/pymerge.pb.gz"));
	snprintf(pbn, sizeof(pbn), "%s", build_path("unit/pynative.pb.gz"));
	CHECK_EQ(sb_write(&b, build_path("unit/pymerge.raw")), 0);
	CHECK_EQ(sb_write(&nb, build_path("unit/pynative.raw")), 0);
	CHECK_EQ(run_read(&out, "--input '%s' -o '%s' 2>&1 && '%s' --input '%s' -o '%s' 2>&1",
			  build_path("unit/pymerge.raw"), pb,
			  tprof_read_bin(), build_path("unit/pynative.raw"),
			  pbn), 0);
	free(out);
	pr = load_profile(pb);
	prn = load_profile(pbn);
	CHECK(pr && prn);
	if (!pr || !prn)
		goto out;
	CHECK_EQ(pb_total(pr, 0), pb_total(prn, 0));
	CHECK_EQ(pb_total(pr, 1), pb_total(prn, 1));
	CHECK_EQ(pb_total(pr, 1), 7);
	for (i = 0; i < pr->n_location; i++) {
		const Perftools__Profiles__Location *l = pr->location[i];
		const Perftools__Profiles__Function *f;

		if (l->n_line != 1)
			continue;
		f = pr->function[l->line[0]->function_id - 1];
		if (strncmp(pb_str(pr, f->name), "mod.f", 5))
			continue;
		k = atoi(pb_str(pr, f->name) + 5);
		found++;
		CHECK_STR(pb_str(pr, f->system_name), "");
		CHECK_STR(pb_str(pr, f->filename), "app.py");
		CHECK_EQ(f->start_line, 10 * k + 1);
		/* INSTR_OFF 20: the table's second range, first line + 4 */
		CHECK_EQ(l->line[0]->line, 10 * k + 5);
		CHECK_EQ(l->mapping_id, 0);
		CHECK_EQ(l->address, 0);
	}
	CHECK_EQ(found, 5);
	/* the native frames keep their mapping */
	for (i = 0; i < pr->n_location; i++)
		for (j = 0; j < pr->location[i]->n_line; j++)
			if (!strcmp(pb_str(pr, pr->function[pr->location[i]->line[j]->function_id - 1]->name),
				    "hot_leaf"))
				CHECK(pr->location[i]->mapping_id != 0);
	/* folded: the same totals */
	on = folded(&b, "unit/pymerge.raw");
	off = folded(&nb, "unit/pynative.raw");
	CHECK(folded_sum(on) > 0);
	CHECK_EQ(folded_sum(on), folded_sum(off));
	CHECK_EQ(folded_sum(on), (uint64_t)pb_total(pr, 0));
	free(on);
	free(off);
out:
	if (pr)
		pb_free(pr);
	if (prn)
		pb_free(prn);
	sb_free(&b);
	sb_free(&nb);
}

/*
 * Names in angle brackets, read by go tool pprof with its default
 * symbolization: a function whose system_name equals its name is
 * "demangled" again, and one that looks like C++ (any '<', '>', '[' or
 * ']' and no ".<") loses every <...>, so `<module>` and a module-level
 * `<listcomp>` became "" (only "file:line" in -traces). Nested ones
 * ("f.<locals>.<lambda>") were spared by pprof's Java rule.
 */
static void test_merge_pprof_brackets(void)
{
	static const char *const q[5] = {
		"<module>", "<listcomp>", "f.<locals>.<lambda>", "<genexpr>",
		"Work.alpha",
	};
	const struct wf walk[] = {
		{ 4, 0 }, { 3, 0 }, { 2, 1 }, { 1, 0 }, { 0, 1 },
	};
	uint64_t ips[8];
	struct sbuf b = { 0 };
	char pb[4200], *out = NULL;
	int k;

	if (!setup())
		return;
	if (!need_cmd("go", "go not installed: go tool pprof checks skipped"))
		return;
	head(&b, false);
	native_ips(ips, two_act, 6);
	for (k = 0; k < 3; k++)
		grouped(&b, 2000 + k, 6, ips, walk, 5, TPROF_UWALK_OK, PERIOD);
	for (k = 0; k < 5; k++)
		pycode(&b, PID, k, CHECKW(k), false, q[k], 4000);
	snprintf(pb, sizeof(pb), "%s", build_path("unit/pybrackets.pb.gz"));
	CHECK_EQ(sb_write(&b, build_path("unit/pybrackets.raw")), 0);
	CHECK_EQ(run_read(&out, "--input '%s' -o '%s' 2>&1", build_path("unit/pybrackets.raw"), pb), 0);
	free(out);
	out = NULL;
	/* pprof's default symbolization (it demangles); a fake maps path */
	CHECK_EQ(run_fmt(&out, "go tool pprof -traces -lines '%s' 2>/dev/null", pb), 0);
	for (k = 0; k < 5; k++) {
		char want[64];

		snprintf(want, sizeof(want), " %s app.py:", q[k]);
		if (!out || !strstr(out, want)) {
			CHECK(!"go tool pprof -traces names the function");
			fprintf(stderr, "    no '%s' in:\n%s\n", want,
				out ? out : "(null)");
		}
	}
	free(out);
	sb_free(&b);
}

/*
 * Deep recursion: a walk the module cut at its frame cap (256 frames of
 * one function, inlined Python calls: one activation) under a native
 * stack whose one eval frame is that activation's, with main below. The
 * walk's frames, then "[truncated]" at the root: no native frame (caller,
 * main) named as the recursion's caller.
 */
static void test_merge_deep_recursion(void)
{
	static struct wf deep[TPROF_UWALK_MAX_FRAMES];
	const enum fn nat[] = { F_HOT, F_CALLER, F_MAIN };
	uint64_t ips[3];
	struct sbuf b = { 0 };
	struct profile p;
	char *out, *want, *w;
	unsigned int i;

	if (!setup())
		return;
	for (i = 0; i < TPROF_UWALK_MAX_FRAMES; i++)
		deep[i] = (struct wf){ 0, 0 };
	head(&b, false);
	native_ips(ips, nat, 3);
	grouped(&b, 2000, 3, ips, deep, TPROF_UWALK_MAX_FRAMES,
		TPROF_UWALK_TRUNCATED, PERIOD);
	/* the same depth complete (OK): main and caller stay */
	deep[TPROF_UWALK_MAX_FRAMES - 1].mark = 1;
	grouped(&b, 3000, 3, ips, deep, TPROF_UWALK_MAX_FRAMES,
		TPROF_UWALK_OK, PERIOD);
	pycode_named(&b, 0, 4000);
	out = folded(&b, "unit/pydeep.raw");
	want = xmalloc(2 * (TPROF_UWALK_MAX_FRAMES * 8 + 64));
	/* folded lines sort: "[" before "m" */
	w = want + sprintf(want, "pyapp;[truncated]");
	for (i = 0; i < TPROF_UWALK_MAX_FRAMES; i++)
		w += sprintf(w, ";mod.f0");
	w += sprintf(w, ";hot_leaf 10000000\npyapp;main");
	for (i = 0; i < TPROF_UWALK_MAX_FRAMES; i++)
		w += sprintf(w, ";mod.f0");
	sprintf(w, ";hot_leaf 10000000\n");
	CHECK_STR(out, want);
	free(out);
	free(want);
	aggregate(&b, &p);
	CHECK_EQ(p.py.st.cut, 1);
	CHECK_EQ(p.py.st.frames, 2 * TPROF_UWALK_MAX_FRAMES);
	profile__free(&p);
	sb_free(&b);
}

/*
 * Deep recursion with the chain's outermost frames (the module's tail,
 * nr_tail 16): 240 frames of the recursion (mod.f0), left-out frames,
 * then the last 16: 13 more of it, its caller (mod.f1), main (mod.f2)
 * and the module (mod.f3, the activation's entry). After "[truncated]"
 * the tail goes on in the same activation, then the native root (main).
 * A FAULT walk's tail did not reach the end: it is left out. And two
 * activations in the tail, C between them (sort_round), under a native
 * stack with a third eval frame between the head's and the tail's: the
 * native frames of the left-out activations (cmp_ints) go with them.
 */
static void test_merge_deep_tail(void)
{
	static struct wf w[TPROF_UWALK_MAX_FRAMES];
	const enum fn nat[] = { F_HOT, F_CALLER, F_MAIN };
	const enum fn nat3[] = { F_HOT, F_CALLER, F_CMP, F_CALLER, F_SORT,
				 F_CALLER, F_MAIN };
	uint64_t ips[7];
	struct sbuf b = { 0 };
	struct profile p;
	char *out, *want, *x;
	unsigned int i;

	if (!setup())
		return;
	for (i = 0; i < TPROF_UWALK_MAX_FRAMES; i++)
		w[i] = (struct wf){ 0, 0 };
	w[253] = (struct wf){ 1, 0 };
	w[254] = (struct wf){ 2, 0 };
	w[255] = (struct wf){ 3, 1 };
	head(&b, false);
	native_ips(ips, nat, 3);
	{
		struct tprof_rec_sample s = {
			.hdr = { .type = TPROF_REC_SAMPLE,
				 .flags = TPROF_RF_GROUP,
				 .size = sizeof(s) + 8 * 3, .time_ns = 2000 },
			.pid = PID, .tid = PID, .cpu = 1, .nr_user = 3,
			.weight_ns = PERIOD, .period_ns = PERIOD,
			.abi = TPROF_ABI_X86_64,
		};

		sb_raw(&b, &s, sizeof(s));
		sb_raw(&b, ips, 8 * 3);
		uwalk_tail(&b, 2000, w, TPROF_UWALK_MAX_FRAMES,
			   TPROF_UWALK_TRUNCATED, 16);
		/* the same with FAULT: no tail */
		s.hdr.time_ns = 2500;
		s.weight_ns = 2 * PERIOD;
		sb_raw(&b, &s, sizeof(s));
		sb_raw(&b, ips, 8 * 3);
		uwalk_tail(&b, 2500, w, TPROF_UWALK_MAX_FRAMES,
			   TPROF_UWALK_FAULT, 16);
		/* the tail's two activations: f2 entry (3.11 is_entry) */
		w[254] = (struct wf){ 2, 1 };
		native_ips(ips, nat3, 7);
		s.hdr.time_ns = 2700;
		s.hdr.size = sizeof(s) + 8 * 7;
		s.nr_user = 7;
		s.weight_ns = 3 * PERIOD;
		sb_raw(&b, &s, sizeof(s));
		sb_raw(&b, ips, 8 * 7);
		uwalk_tail(&b, 2700, w, TPROF_UWALK_MAX_FRAMES,
			   TPROF_UWALK_TRUNCATED, 16);
	}
	for (i = 0; i < 4; i++)
		pycode_named(&b, i, 4000);
	out = folded(&b, "unit/pydeeptail.raw");
	want = xmalloc(3 * (TPROF_UWALK_MAX_FRAMES * 8 + 256));
	x = want;
	/* folded lines sort: "[" before "m" */
	x += sprintf(x, "pyapp;[truncated]");
	for (i = 0; i < 240; i++)
		x += sprintf(x, ";mod.f0");
	x += sprintf(x, ";hot_leaf 20000000\npyapp;main;mod.f3;mod.f2;mod.f1");
	for (i = 0; i < 13; i++)
		x += sprintf(x, ";mod.f0");
	x += sprintf(x, ";[truncated]");
	for (i = 0; i < 240; i++)
		x += sprintf(x, ";mod.f0");
	x += sprintf(x, ";hot_leaf 10000000\npyapp;main;mod.f3;sort_round;mod.f2;mod.f1");
	for (i = 0; i < 13; i++)
		x += sprintf(x, ";mod.f0");
	x += sprintf(x, ";[truncated]");
	for (i = 0; i < 240; i++)
		x += sprintf(x, ";mod.f0");
	sprintf(x, ";hot_leaf 30000000\n");
	CHECK_STR(out, want);
	free(out);
	free(want);
	aggregate(&b, &p);
	CHECK_EQ(p.py.st.cut, 3);
	CHECK_EQ(p.py.st.tails, 2);
	CHECK_EQ(p.py.st.tail_unplaced, 0);
	profile__free(&p);
	sb_free(&b);
}

/*
 * The walk as tprof-read installs it: 5 words a frame, the check word
 * co_filename and co_qualname folded (PYPROC w_check 3). Three code
 * objects at one address with one qualname pointer (freed, then the same
 * source compiled under another file name): each is named by its own
 * file. And one (address, words) read twice, its object replaced between:
 * each sample by the read nearest it in time.
 */
#define QUALNAME	0x7f0000a00000ULL
#define FILENAME(i)	(0x7f0000b00000ULL + (i) * 0x80)

static void uwalk5(struct sbuf *b, uint64_t t, uint64_t leaf, int file)
{
	struct tprof_rec_sample s = {
		.hdr = { .type = TPROF_REC_SAMPLE, .flags = TPROF_RF_GROUP,
			 .size = sizeof(s) + 16, .time_ns = t },
		.pid = PID, .tid = PID, .cpu = 1, .nr_user = 2,
		.weight_ns = PERIOD, .period_ns = PERIOD,
		.abi = TPROF_ABI_X86_64,
	};
	struct tprof_rec_uwalk u = {
		.hdr = { .type = TPROF_REC_UWALK, .size = sizeof(u) + 40,
			 .time_ns = t },
		.tid = PID, .words_per_frame = 5, .nr_frames = 1,
	};
	uint64_t ips[2] = { leaf, ra(F_CALLER) };
	uint64_t words[5] = { CODE(0), CODE(0) + ADAPTIVE + INSTR_OFF, 1,
			      FILENAME(file), QUALNAME };

	sb_raw(b, &s, sizeof(s));
	sb_raw(b, ips, sizeof(ips));
	sb_raw(b, &u, sizeof(u));
	sb_raw(b, words, sizeof(words));
}

static void pycode5(struct sbuf *b, int file, const char *q, uint64_t t)
{
	uint64_t cw[2] = { FILENAME(file), QUALNAME };
	struct tprof_urec_pycode c = {
		.pid = PID, .first_line = 1, .addr = CODE(0),
		.check = py_check_fold(cw, 2),
	};
	char tail[128];

	c.qualname_len = strlen(q);
	c.filename_len = snprintf(tail + c.qualname_len,
				  sizeof(tail) - c.qualname_len, "gen%d.py",
				  file);
	memcpy(tail, q, c.qualname_len);
	rec(b, TPROF_UREC_PYCODE, t, &c, sizeof(c), tail,
	    c.qualname_len + c.filename_len);
}

static void test_merge_check_words(void)
{
	struct tprof_urec_pyproc y = {
		.pid = PID, .version = 0x030b02f0, .code_adaptive = ADAPTIVE,
		.w_code = 0, .w_instr = 1, .w_entry = 2, .w_check = 3,
		.entry_kind = TPROF_PY_ENTRY_FLAG, .nr_ranges = 1,
	};
	uint64_t r[2], one = 0x1234, cw[2] = { FILENAME(0), QUALNAME };
	int64_t by_file[3] = { 0, 0, 0 };
	struct sbuf b = { 0 };
	char *maps, *out;
	PbProfile *pr;
	int i;

	if (!setup())
		return;
	/* one word folds to itself: streams of the one-word walk */
	CHECK_EQ(py_check_fold(&one, 1), 0x1234);
	CHECK(py_check_fold(cw, 2) != QUALNAME);
	cw[0] = FILENAME(1);
	CHECK(py_check_fold(cw, 2) != py_check_fold((uint64_t[]){
		FILENAME(0), QUALNAME }, 2));
	r[0] = E.at[F_CALLER];
	r[1] = E.at[F_CALLER] + E.size[F_CALLER];
	maps = fake_maps(E.bin, BASE);
	sb_session(&b, PID, PERIOD, 1700000000000000000ULL, 1000);
	sb_thread(&b, PID, PID, "pyapp", 1000);
	sb_maps(&b, PID, 1000, maps);
	free(maps);
	rec(&b, TPROF_UREC_PYPROC, 1500, &y, sizeof(y), r, sizeof(r));
	/* gen0.py 1 sample, gen1.py 2, gen2.py 3: each its own */
	for (i = 0; i < 3; i++) {
		int k;

		for (k = 0; k <= i; k++)
			uwalk5(&b, 2000 + 100 * i + k, pc(F_HOT), i);
		pycode5(&b, i, "<module>", 2050 + 100 * i);
	}
	/* one key read at 5000 (old object) and 9000 (its successor) */
	uwalk5(&b, 4900, pc(F_CMP), 2);
	pycode5(&b, 2, "old_fn", 5000);
	uwalk5(&b, 8900, pc(F_SORT), 2);
	pycode5(&b, 2, "new_fn", 9000);
	/* folded has names only: the files are told apart below */
	out = folded(&b, "unit/pywords.raw");
	CHECK_STR(out,
		  "pyapp;<module>;hot_leaf 60000000\n"
		  "pyapp;new_fn;sort_round 10000000\n"
		  "pyapp;old_fn;cmp_ints 10000000\n");
	free(out);
	/* by file: the profile keeps the three apart, each its samples */
	CHECK_EQ(run_read(&out, "--input '%s' -o '%s' 2>&1",
			  build_path("unit/pywords.raw"),
			  build_path("unit/pywords.pb.gz")), 0);
	free(out);
	pr = load_checked(build_path("unit/pywords.pb.gz"));
	for (i = 0; pr && i < (int)pr->n_sample; i++) {
		const Perftools__Profiles__Sample *sm = pr->sample[i];
		size_t j;

		for (j = 0; j < sm->n_location_id; j++) {
			const Perftools__Profiles__Location *l =
				pr->location[sm->location_id[j] - 1];
			const Perftools__Profiles__Function *f;
			const char *fn;

			if (l->n_line != 1)
				continue;
			f = pr->function[l->line[0]->function_id - 1];
			fn = pb_str(pr, f->filename);
			if (strcmp(pb_str(pr, f->name), "<module>") ||
			    strncmp(fn, "gen", 3))
				continue;
			by_file[(fn[3] - '0') % 3] += sm->value[1];
		}
	}
	CHECK_EQ(by_file[0], 1);
	CHECK_EQ(by_file[1], 2);
	CHECK_EQ(by_file[2], 3);
	if (pr)
		pb_free(pr);
	sb_free(&b);
}

/* UWALK, PYPROC and PYCODE: decoded, and refused where they lie. */
static void test_python_records(void)
{
	struct {
		struct tprof_rec_uwalk u;
		uint64_t w[8];
	} uw = {
		.u = { .hdr = { .type = TPROF_REC_UWALK, .size = sizeof(uw),
				.time_ns = 5 },
		       .tid = 7, .words_per_frame = 4, .nr_frames = 2 },
		.w = { 1, 2, 3, 4, 5, 6, 7, 8 },
	};
	struct tprof_urec_pyproc y = {
		.pid = 1, .entry_kind = TPROF_PY_ENTRY_FLAG, .nr_ranges = 1,
	};
	struct tprof_urec_pycode c = {
		.pid = 1, .qualname_len = 3, .filename_len = 6,
		.linetable_len = 2,
	};
	uint64_t ranges[2] = { 0x1000, 0x2000 };
	struct tprof_record r;
	unsigned char *buf;
	size_t n;

	CHECK_EQ(tprof_record_decode(&uw, sizeof(uw), &r), sizeof(uw));
	CHECK_STR(tprof_record_type_name(TPROF_REC_UWALK), "UWALK");
	CHECK_EQ(tprof_record_word(&r, 7), 8);
	uw.u.nr_frames = 3;	/* words past the end */
	CHECK_EQ(tprof_record_decode(&uw, sizeof(uw), &r), -EINVAL);
	uw.u.nr_frames = 1;
	uw.u.words_per_frame = 7;	/* more than fields + code words */
	CHECK_EQ(tprof_record_decode(&uw, sizeof(uw), &r), -EINVAL);
	uw.u.words_per_frame = 0;
	CHECK_EQ(tprof_record_decode(&uw, sizeof(uw), &r), -EINVAL);
	uw.u.words_per_frame = 4;
	uw.u.status = 9;
	CHECK_EQ(tprof_record_decode(&uw, sizeof(uw), &r), -EINVAL);

	n = tprof_urec_build(&buf, TPROF_UREC_PYPROC, 1, &y, sizeof(y),
			     ranges, sizeof(ranges));
	CHECK_EQ(tprof_record_decode(buf, n, &r), (long)n);
	CHECK_EQ(tprof_record_word(&r, 1), 0x2000);
	free(buf);
	y.nr_ranges = 2;	/* ranges past the end */
	n = tprof_urec_build(&buf, TPROF_UREC_PYPROC, 1, &y, sizeof(y),
			     ranges, sizeof(ranges));
	CHECK_EQ(tprof_record_decode(buf, n, &r), -EINVAL);
	free(buf);
	y.nr_ranges = 1;
	y.entry_kind = 3;
	n = tprof_urec_build(&buf, TPROF_UREC_PYPROC, 1, &y, sizeof(y),
			     ranges, sizeof(ranges));
	CHECK_EQ(tprof_record_decode(buf, n, &r), -EINVAL);
	free(buf);
	y.entry_kind = TPROF_PY_ENTRY_SENTINEL;
	ranges[1] = ranges[0];	/* empty range */
	n = tprof_urec_build(&buf, TPROF_UREC_PYPROC, 1, &y, sizeof(y),
			     ranges, sizeof(ranges));
	CHECK_EQ(tprof_record_decode(buf, n, &r), -EINVAL);
	free(buf);

	n = tprof_urec_build(&buf, TPROF_UREC_PYCODE, 1, &c, sizeof(c),
			     "f.gapp.py\x81\x01", 11);
	CHECK_EQ(tprof_record_decode(buf, n, &r), (long)n);
	CHECK(r.text && !memcmp(r.text, "f.gapp.py", 9));
	CHECK(r.linetable && r.linetable[0] == 0x81);
	free(buf);
	c.linetable_len = 100;	/* past the end */
	n = tprof_urec_build(&buf, TPROF_UREC_PYCODE, 1, &c, sizeof(c),
			     "f.gapp.py\x81\x01", 11);
	CHECK_EQ(tprof_record_decode(buf, n, &r), -EINVAL);
	free(buf);
}

const struct unit_test python_merge_tests[] = {
	{ "python: records UWALK, PYPROC, PYCODE decoded and checked",
	  test_python_records },
	{ "python merge: 3.11, two activations, C between them",
	  test_merge_311 },
	{ "python merge: 3.12 sentinels", test_merge_312 },
	{ "python merge: activations under a native stack cut short",
	  test_merge_leftover },
	{ "python merge: one extra eval frame, a mismatch, walks cut short",
	  test_merge_extra_mismatch_partial },
	{ "python merge: stale, missing, foreign and pre-exec code unnamed",
	  test_merge_unknown_stale_exec },
	{ "python merge: SAMPLE [USTACK] UWALK pairing, PYCODE between",
	  test_merge_pairing },
	{ "python merge: pprof functions, lines, no mapping; totals kept",
	  test_merge_pprof },
	{ "python merge: go tool pprof keeps <module>, <listcomp>, <genexpr>",
	  test_merge_pprof_brackets },
	{ "python merge: deep recursion cut at the cap ends in [truncated]",
	  test_merge_deep_recursion },
	{ "python merge: deep recursion's outermost frames (the tail) after [truncated], then the native root",
	  test_merge_deep_tail },
	{ "python merge: code named by its own file, the read nearest in time",
	  test_merge_check_words },
	{ NULL, NULL },
};
