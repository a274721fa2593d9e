// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests: arm64 streams read on this host (replay of an arm64 stream
 * on x86-64: the objects' machine, not the host's, decides).
 *  - Real arm64 code: tests/progs/unwind_arm64.c, cross-built with the
 *    toolchain tests/arm64/fetch.sh unpacks and run under qemu-user
 *    (qemu-aarch64), samples itself as tprof.ko samples an arm64 task
 *    (tests/progs/arm64_snap.h); its samples become SAMPLE (with the link
 *    register, TPROF_RF_USER_LR) and TPROF_ABI_ARM64 USTACK records, and
 *    tprof-read --input must give the exact frames: a frameless leaf's
 *    caller from the link register, PAC-signed return addresses stripped
 *    (with the MACHINE record's mask, and without one), qsort's
 *    comparator through the arm64 libc's CFI up to main with no frame
 *    pointer chain at all. Skipped where the toolchain or qemu-user is
 *    missing, saying which.
 *  - The link register's keep/drop rules on FP-mode samples (no
 *    snapshot), over the host's build of tests/progs/unwind.c: its ELF
 *    symbols give the functions' extents whatever the machine.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../progs/arm64_snap.h"
#include "pbload.h"
#include "testlib.h"
#include "lib/util.h"
#include "model/profile.h"
#include "stream/records.h"

#define PERIOD_NS 1000000ULL
#define T0 1000000000ULL
#define FAKE_PID 4242
#define NSNAPS 300

/* GENMASK_ULL(54, 48): the PAC bits of a user code address, 48-bit VA */
#define PAC_MASK_48 0x007f000000000000ULL

static const char *arm64_root(void)
{
	static char root[512];
	const char *c = getenv("ARM64_CACHE");

	snprintf(root, sizeof(root), "%s/root",
		 c && *c ? c : "/var/cache/tprof/arm64");
	return root;
}

/*
 * build/unit/unwind_arm64, cross-built once: NULL (and the reason in
 * *why) when there is no toolchain or qemu-user to run it; NULL with *why
 * NULL when the cross-build failed (a warning too: -Werror), which fails.
 */
static const char *arm64_prog(const char **why)
{
	static int built;	/* 0 not tried, 1 built, -1 failed */
	static const char *reason;
	const char *prog = build_path("unit/unwind_arm64");
	char gcc[600];
	char *out = NULL;

	if (built) {
		*why = reason;
		return built > 0 ? prog : NULL;
	}
	built = -1;
	snprintf(gcc, sizeof(gcc), "%s/usr/bin/aarch64-linux-gnu-gcc-12",
		 arm64_root());
	if (access(gcc, X_OK)) {
		*why = reason = "no arm64 cross toolchain (run tests/arm64/fetch.sh)";
		return NULL;
	}
	if (!have_cmd("qemu-aarch64")) {
		*why = reason = "no qemu-aarch64 to run arm64 programs (Debian qemu-user)";
		return NULL;
	}
	/* as/ld of the unpacked binutils need its libbfd (tests/arm64/README.md) */
	if (run_fmt(&out, "LD_LIBRARY_PATH=%s/usr/lib/x86_64-linux-gnu %s -O2 -g -fno-omit-frame-pointer -mbranch-protection=standard -Wall -Wextra -Werror --sysroot=%s -Wl,--sysroot=%s -Wl,-z,lazy -o %s %s 2>&1",
		    arm64_root(), gcc, arm64_root(), arm64_root(), prog,
		    root_path("tests/progs/unwind_arm64.c"))) {
		fprintf(stderr, "    %s\n", out ? out : "");
		free(out);
		*why = reason = NULL;
		return NULL;
	}
	free(out);
	built = 1;
	*why = NULL;
	return prog;
}

/* testlib.h: arm64_prog(), with the test skipped or failed when NULL */
const char *arm64_program(void)
{
	const char *why, *prog = arm64_prog(&why);

	if (!prog) {
		if (why)
			SKIP(why);
		else
			CHECK(!"tests/progs/unwind_arm64.c cross-builds");
	}
	return prog;
}

/* The samples of one run of the arm64 program (malloc'd), NULL on failure. */
static unsigned char *arm64_run(const char *prog, const char *mode,
				size_t *len)
{
	const char *out = build_path(mode[0] == 'l' ? "unit/arm64-leaf.snap" :
				     mode[0] == 'p' ? "unit/arm64-plt.snap" :
				     "unit/arm64-qsort.snap");
	char *msg = NULL;
	unsigned char *d;

	/* plt: every call through a PLT entry resolved again */
	if (run_fmt(&msg, "qemu-aarch64 %s-L %s %s %s %d %s 2>&1",
		    mode[0] == 'p' ? "-E LD_BIND_NOT=1 " : "", arm64_root(),
		    prog, mode, NSNAPS, out)) {
		fprintf(stderr, "    qemu-aarch64 %s %s: %s\n", prog, mode,
			msg ? msg : "");
		free(msg);
		return NULL;
	}
	free(msg);
	d = read_whole(out, len);
	if (d && (*len < sizeof(struct arm64_snap_hdr) ||
		  ((struct arm64_snap_hdr *)d)->magic != ARM64_SNAP_MAGIC)) {
		free(d);
		return NULL;
	}
	return d;
}

/*
 * The samples of the arm64 program's MODE run, NULL when the test ends
 * here: skipped (no toolchain or qemu-user), or failed (the cross-build or
 * the run).
 */
static unsigned char *arm64_samples(const char *mode, size_t *len)
{
	const char *prog = arm64_program();
	unsigned char *d;

	if (!prog)
		return NULL;
	d = arm64_run(prog, mode, len);
	CHECK(d != NULL);
	return d;
}

struct conv {
	bool machine;		/* write a MACHINE record */
	uint64_t pac_mask;	/* its user_pac_mask */
	bool pc_only;		/* no FP chain: the pc alone, no link register */
	bool dwarf;		/* SESSION says --call-graph dwarf */
	uint32_t cut;		/* > 0: at most this many stack bytes */
};

static void sb_machine(struct sbuf *b, uint64_t mask)
{
	struct tprof_urec_machine m = {
		.hdr = { .type = TPROF_UREC_MACHINE, .size = sizeof(m),
			 .time_ns = T0 },
		.e_machine = 183,	/* EM_AARCH64 */
		.user_pac_mask = mask,
	};

	sb_raw(b, &m, sizeof(m));
}

/* The program's samples as the module's records, into path. */
static int arm64_stream(const unsigned char *d, size_t len,
			const struct conv *c, const char *path)
{
	const struct arm64_snap_hdr *h = (const void *)d;
	const struct arm64_snap *sn = (const void *)(h + 1);
	const char *maps = (const char *)(sn + h->nsamples);
	struct sbuf b = { 0 };
	struct tprof_urec_session *ss;
	char *text;
	unsigned int i;
	int ret;

	if (len < sizeof(*h) + (size_t)h->nsamples * sizeof(*sn) + h->maps_len)
		return -1;
	sb_session(&b, FAKE_PID, PERIOD_NS, 1, T0);
	ss = (struct tprof_urec_session *)b.p;
	ss->flags = TPROF_F_USER_SNAPSHOT |
		    (c->dwarf ? TPROF_SESSION_F_DWARF : 0);
	if (c->machine)
		sb_machine(&b, c->pac_mask);
	text = xmalloc(h->maps_len + 1);
	memcpy(text, maps, h->maps_len);
	text[h->maps_len] = 0;
	sb_maps(&b, FAKE_PID, T0, text);
	free(text);
	for (i = 0; i < h->nsamples; i++) {
		uint64_t regs[TPROF_UREG_NR] = { 0 };
		unsigned int nu = c->pc_only ? 1 : sn[i].nips;
		uint32_t nb = c->cut && sn[i].nbytes > c->cut ? c->cut :
			      sn[i].nbytes;

		memcpy(regs, sn[i].regs, sizeof(sn[i].regs));
		sb_sample_ustack(&b, FAKE_PID, FAKE_PID, TPROF_ABI_ARM64,
				 PERIOD_NS, T0 + 1000 * (i + 1), nu,
				 sn[i].ips, nu > 1 ? TPROF_RF_USER_LR : 0,
				 regs, ARM64_SNAP_BYTES, sn[i].stack, nb);
	}
	ret = sb_write(&b, path);
	sb_free(&b);
	return ret;
}

/* What the folded lines whose leaf is `leaf` show. */
struct shape {
	uint64_t leaf, next, main, order, truncated;
};

/*
 * tprof-read --input raw --format folded [--call-graph mode]: the leaf's
 * weight, with next right above it, with main above, with want[] in order
 * above it (not necessarily adjacent), ending in [truncated].
 */
static int shape_of(const char *raw, const char *mode, const char *leaf,
		    const char *next, const char *const *want,
		    struct shape *sh)
{
	char *out = NULL, *line, *save = NULL;
	int st;

	memset(sh, 0, sizeof(*sh));
	st = run_fmt(&out, "%s --input %s --format folded -o - %s%s",
		     tprof_read_bin(), raw, mode ? "--call-graph " : "",
		     mode ? mode : "");
	if (st) {
		fprintf(stderr, "    tprof-read: exit %d\n", st);
		free(out);
		return -1;
	}
	for (line = strtok_r(out, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *sp = strrchr(line, ' '), *f[600], *s2 = NULL, *p;
		unsigned int n = 0, j, w = 0;
		uint64_t v;

		if (!sp)
			continue;
		*sp = 0;
		v = strtoull(sp + 1, NULL, 10);
		for (p = strtok_r(line, ";", &s2); p && n < 600;
		     p = strtok_r(NULL, ";", &s2))
			f[n++] = p;
		/* f[0] is the thread, f[n - 1] the leaf */
		if (n < 2 || strcmp(f[n - 1], leaf))
			continue;
		sh->leaf += v;
		if (next && n > 2 && !strcmp(f[n - 2], next))
			sh->next += v;
		for (j = 1; j + 1 < n; j++)
			if (!strcmp(f[j], "main")) {
				sh->main += v;
				break;
			}
		if (!strcmp(f[1], "[truncated]"))
			sh->truncated += v;
		for (j = n - 1; want && want[w] && j-- > 1;)
			if (!strcmp(f[j], want[w]))
				w++;
		if (want && !want[w])
			sh->order += v;
	}
	free(out);
	return 0;
}

static void print_shape(const char *what, const char *mode,
			const struct shape *sh)
{
	printf("    %s, %s: %llu leaf samples, %.1f%% with the caller next, %.1f%% reach main, %.1f%% in order, %.1f%% truncated\n",
	       what, mode ? mode : "as recorded",
	       (unsigned long long)(sh->leaf / PERIOD_NS),
	       sh->leaf ? 100.0 * sh->next / sh->leaf : 0,
	       sh->leaf ? 100.0 * sh->main / sh->leaf : 0,
	       sh->leaf ? 100.0 * sh->order / sh->leaf : 0,
	       sh->leaf ? 100.0 * sh->truncated / sh->leaf : 0);
}

/* at least pct% of the leaf's weight, over at least 50 samples */
#define AT_LEAST(sh, field, pct) \
	((sh).leaf >= 50 * PERIOD_NS && \
	 (sh).field * 100 >= (uint64_t)(pct) * (sh).leaf)

/* hot_leaf has no frame record: its caller is only in the link register */
static void test_leaf(void)
{
	static const char *const want[] = { "caller", "main", NULL };
	static const char *const modes[] = { "fp", "hybrid", "dwarf" };
	const char *raw = build_path("unit/arm64-leaf.raw");
	const char *cut = build_path("unit/arm64-leaf-cut.raw");
	struct conv c = { .machine = true, .pac_mask = PAC_MASK_48 };
	unsigned char *d;
	struct shape sh;
	size_t len, i;

	d = arm64_samples("leaf", &len);
	if (!d)
		return;
	CHECK_EQ(arm64_stream(d, len, &c, raw), 0);
	for (i = 0; i < ARRAY_SIZE(modes); i++) {
		CHECK_EQ(shape_of(raw, modes[i], "hot_leaf", "caller", want,
				  &sh), 0);
		print_shape("arm64 leaf", modes[i], &sh);
		CHECK(AT_LEAST(sh, next, 95));
		CHECK(AT_LEAST(sh, order, 95));
		CHECK_EQ(sh.truncated, 0);
	}
	/*
	 * 16 bytes of stack: caller's frame record and no more. The CFI
	 * frames end in main; the FP chain (after the link register in the
	 * SAMPLE) joins where main's restored x29 is on it.
	 */
	c.cut = 16;
	CHECK_EQ(arm64_stream(d, len, &c, cut), 0);
	CHECK_EQ(shape_of(cut, "hybrid", "hot_leaf", "caller", want, &sh), 0);
	print_shape("arm64 leaf, 16 bytes of stack", "hybrid", &sh);
	CHECK(AT_LEAST(sh, next, 95));
	CHECK(AT_LEAST(sh, order, 95));
	CHECK_EQ(sh.truncated, 0);
	c.cut = 0;
	/* a stream without MACHINE (a module that did not say): the same */
	c.machine = false;
	CHECK_EQ(arm64_stream(d, len, &c, raw), 0);
	CHECK_EQ(shape_of(raw, "dwarf", "hot_leaf", "caller", want, &sh), 0);
	print_shape("arm64 leaf, no MACHINE record", "dwarf", &sh);
	CHECK(AT_LEAST(sh, order, 95));
	free(d);
}

/*
 * cmp_ints under libc's qsort: with the pc alone (no chain to splice),
 * only the CFI of the arm64 libc and of the program, through sort_round's
 * and main's signed return addresses, reaches main.
 */
static void test_qsort(void)
{
	static const char *const want[] = { "sort_round", "main", NULL };
	const char *raw = build_path("unit/arm64-qsort.raw");
	struct conv c = { .machine = true, .pac_mask = PAC_MASK_48,
			  .pc_only = true, .dwarf = true };
	const struct arm64_snap_hdr *h;
	unsigned char *d;
	struct shape sh;
	size_t len;

	d = arm64_samples("qsort", &len);
	if (!d)
		return;
	h = (const void *)d;
	printf("    a saved return address: %#llx, stripped %#llx\n",
	       (unsigned long long)h->signed_lr,
	       (unsigned long long)h->stripped_lr);
	CHECK_EQ(arm64_stream(d, len, &c, raw), 0);
	CHECK_EQ(shape_of(raw, NULL, "cmp_ints", NULL, want, &sh), 0);
	print_shape("arm64 qsort, CFI only, PAC mask recorded", "dwarf", &sh);
	CHECK(AT_LEAST(sh, main, 95));
	CHECK(AT_LEAST(sh, order, 95));
	/* no MACHINE record: stripped to a 48-bit address */
	c.machine = false;
	CHECK_EQ(arm64_stream(d, len, &c, raw), 0);
	CHECK_EQ(shape_of(raw, NULL, "cmp_ints", NULL, want, &sh), 0);
	print_shape("arm64 qsort, CFI only, no MACHINE record", "dwarf", &sh);
	CHECK(AT_LEAST(sh, order, 95));
	/*
	 * The control: a machine said to have no PAC bits keeps the signed
	 * addresses, which are no code: the walk stops at sort_round.
	 */
	if (!h->signed_lr) {
		printf("    (no signed return address: this qemu has no pointer authentication; the control is skipped)\n");
	} else if (h->main_ret_plain * 2 > h->main_ret_seen) {
		printf("    (the return address into main was signed with zero PAC bits in %llu of %llu samples, as 1 key in 128 signs it under qemu-user: no mask stops the walk there; the control is skipped this run)\n",
		       (unsigned long long)h->main_ret_plain,
		       (unsigned long long)h->main_ret_seen);
	} else {
		c.machine = true;
		c.pac_mask = 0;
		CHECK_EQ(arm64_stream(d, len, &c, raw), 0);
		CHECK_EQ(shape_of(raw, NULL, "cmp_ints", NULL, want, &sh), 0);
		print_shape("arm64 qsort, CFI only, PAC mask 0", "dwarf", &sh);
		CHECK(sh.leaf >= 50 * PERIOD_NS && sh.main * 100 <= 5 * sh.leaf);
	}
	/* with the FP chain too (hybrid): the same frames */
	c = (struct conv){ .machine = true, .pac_mask = PAC_MASK_48 };
	CHECK_EQ(arm64_stream(d, len, &c, raw), 0);
	CHECK_EQ(shape_of(raw, "hybrid", "cmp_ints", NULL, want, &sh), 0);
	print_shape("arm64 qsort", "hybrid", &sh);
	CHECK(AT_LEAST(sh, order, 95));
	free(d);
}

/*
 * plt_loop's calls through rand_r's PLT entry, each resolved again
 * (LD_BIND_NOT=1): samples in ld.so, entered through PLT0, which pushed
 * x16 and x30 (the return into plt_loop) before _dl_runtime_resolve,
 * whose CFI says so (its CFA 16 bytes up, the return address at CFA - 8).
 * The interrupted link register there is that same return address (or
 * one into ld.so): plt_loop must come once, not twice (issue 37 item 4:
 * "main;main" and "thread_main;thread_main" under a lazily bound first
 * call), and main above it.
 */
static void test_plt(void)
{
	static const char *const modes[] = { "hybrid", "dwarf", "fp" };
	const char *raw = build_path("unit/arm64-plt.raw");
	struct conv c = { .machine = true, .pac_mask = PAC_MASK_48 };
	unsigned char *d;
	size_t len, i;

	d = arm64_samples("plt", &len);
	if (!d)
		return;
	CHECK_EQ(arm64_stream(d, len, &c, raw), 0);
	for (i = 0; i < ARRAY_SIZE(modes); i++) {
		uint64_t in = 0, twice = 0, main_above = 0, ldso = 0;
		uint64_t ld = 0, ld_whole = 0;
		char *out = NULL, *line, *save = NULL;

		CHECK_EQ(run_fmt(&out, "%s --input %s --format folded -o - --call-graph %s",
				 tprof_read_bin(), raw, modes[i]), 0);
		for (line = strtok_r(out, "\n", &save); line;
		     line = strtok_r(NULL, "\n", &save)) {
			char *sp = strrchr(line, ' ');
			uint64_t v;
			char *at;

			if (!sp)
				continue;
			v = strtoull(sp + 1, NULL, 10);
			/* in ld.so: whole through plt_loop, not cut short */
			if (strstr(line, "[ld-linux")) {
				ld += v;
				ld_whole += strstr(line, "_start;") &&
					    strstr(line, ";main;plt_loop;[ld-linux") ?
					    v : 0;
			}
			if (!(at = strstr(line, ";plt_loop")))
				continue;
			in += v;
			ldso += strstr(at, "ld-linux") != NULL;
			twice += strstr(line, ";plt_loop;plt_loop") ? v : 0;
			main_above += strstr(line, ";main;") &&
				      strstr(line, ";main;") < at ? v : 0;
			if (getenv("TPROF_UNIT_VERBOSE") ||
			    strstr(line, ";plt_loop;plt_loop"))
				printf("    %s: %s %llu\n", modes[i], line,
				       (unsigned long long)v);
		}
		printf("    arm64 plt (%s): %llu ns under plt_loop (%llu stacks in ld.so), plt_loop twice in %llu, main above in %llu; in ld.so %llu ns, whole from _start through plt_loop %llu\n",
		       modes[i], (unsigned long long)in,
		       (unsigned long long)ldso, (unsigned long long)twice,
		       (unsigned long long)main_above, (unsigned long long)ld,
		       (unsigned long long)ld_whole);
		/* fp: ld.so's samples (about 85% of plt_loop's) have no
		 * plt_loop, so fewer are left to judge: 46 ms seen */
		CHECK(in >= (strcmp(modes[i], "fp") ? 50 : 20) * PERIOD_NS);
		CHECK_EQ(twice, 0);
		CHECK(main_above * 100 >= 95 * in);
		/* fp: the chain skips plt_loop (its return address is in
		 * PLT0's push, no frame record); the CFI modes have it */
		if (strcmp(modes[i], "fp"))
			CHECK(ld >= 50 * PERIOD_NS &&
			      ld_whole * 100 >= 95 * ld);
		free(out);
	}
	free(d);
}

/* ---- TPROF_RF_USER_LR's rules, FP-mode samples ---- */

static uint64_t sym_at(const char *bin, const char *name, uint64_t off)
{
	uint64_t v = 0, sz = 0;

	if (elf_symbol(bin, name, &v, &sz) || off >= sz)
		return 0;
	return v + off;
}

#define LR_BASE 0x555555554000ULL

/*
 * The folded line of the one sample: pc, lr and the chain's return
 * addresses (arm64, the link register flagged), as FILE's code.
 */
static char *lr_case(const char *bin, uint64_t base, const char *mode,
		     uint64_t pc, uint64_t lr, const uint64_t *chain,
		     unsigned int nchain)
{
	const char *raw = build_path("unit/arm64-lr.raw");
	struct sbuf b = { 0 };
	struct tprof_rec_sample s = {
		.pid = FAKE_PID, .tid = FAKE_PID, .cpu = 0,
		.nr_user = 2 + nchain, .weight_ns = PERIOD_NS,
		.period_ns = PERIOD_NS, .abi = TPROF_ABI_ARM64,
	};
	uint64_t ips[8];
	char *maps = fake_maps(bin, base), *out = NULL, *nl;
	unsigned int i;

	if (!maps)
		return NULL;
	ips[0] = base + pc;
	ips[1] = lr < 0x1000 ? lr : base + lr;
	for (i = 0; i < nchain; i++)
		ips[2 + i] = base + chain[i];
	sb_session(&b, FAKE_PID, PERIOD_NS, 1, T0);
	sb_maps(&b, FAKE_PID, T0, maps);
	free(maps);
	s.hdr = (struct tprof_rec_hdr){
		.type = TPROF_REC_SAMPLE, .flags = TPROF_RF_USER_LR,
		.size = sizeof(s) + 8 * s.nr_user, .time_ns = T0 + 1000,
	};
	sb_raw(&b, &s, sizeof(s));
	sb_raw(&b, ips, 8 * s.nr_user);
	if (sb_write(&b, raw)) {
		sb_free(&b);
		return NULL;
	}
	sb_free(&b);
	run_fmt(&out, "%s --input %s --format folded -o - %s%s",
		tprof_read_bin(), raw, mode ? "--call-graph " : "",
		mode ? mode : "");
	/* the stack without the thread's frame and the value */
	if (out && (nl = strrchr(out, ' ')))
		*nl = 0;
	if (out && (nl = strchr(out, ';')))
		memmove(out, nl + 1, strlen(nl + 1) + 1);
	return out;
}

static void check_lr_at(const char *bin, uint64_t base, uint64_t pc,
			uint64_t lr, const uint64_t *chain,
			unsigned int nchain, const char *want)
{
	static const char *const modes[] = { NULL, "fp", "dwarf" };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(modes); i++) {
		char *got = lr_case(bin, base, modes[i], pc, lr, chain,
				    nchain);

		CHECK_STR(got, want);
		free(got);
	}
}

static void check_lr(const char *bin, uint64_t pc, uint64_t lr,
		     const uint64_t *chain, unsigned int nchain,
		     const char *want)
{
	check_lr_at(bin, LR_BASE, pc, lr, chain, nchain, want);
}

/* The code addresses the link register rules are tried at, by role. */
enum lr_role { LR_LEAF, LR_CALLER, LR_CALLER2, LR_MAIN, LR_NR };

struct sym_off {
	const char *name;
	unsigned int off;
};

/* at[role]: sym_at() of want[role]; false (CHECKed) where one is missing */
static bool lr_addrs(const char *bin, const struct sym_off want[LR_NR],
		     uint64_t at[LR_NR])
{
	bool ok = true;
	int i;

	for (i = 0; i < LR_NR; i++) {
		at[i] = sym_at(bin, want[i].name, want[i].off);
		ok = ok && at[i];
	}
	CHECK(ok);
	return ok;
}

static void test_lr_rules(void)
{
	static const struct sym_off want[LR_NR] = {
		{ "hot_leaf", 8 }, { "caller", 8 }, { "caller", 12 },
		{ "main", 16 },
	};
	char bin[512];
	uint64_t at[LR_NR], leaf, in_caller, in_caller2, chain[2];

	/* build_path()'s buffers are a ring: lr_case() uses it too */
	snprintf(bin, sizeof(bin), "%s", build_path("progs/unwind"));
	if (!lr_addrs(bin, want, at))
		return;
	leaf = at[LR_LEAF];
	in_caller = at[LR_CALLER];
	in_caller2 = at[LR_CALLER2];
	/* a frameless leaf: the chain starts at its caller's record, which
	 * returns to main; the caller is the link register */
	chain[0] = at[LR_MAIN];
	check_lr(bin, leaf, in_caller, chain, 1, "main;caller;hot_leaf");
	/* nothing past it: still the caller */
	check_lr(bin, leaf, in_caller, NULL, 0, "caller;hot_leaf");
	/* the return of a call caller made: stale, in caller itself */
	check_lr(bin, in_caller2, in_caller, chain, 1, "main;caller");
	/* saved in caller's frame record: the chain has it */
	check_lr(bin, in_caller2, at[LR_MAIN], chain, 1, "main;caller");
	/* no code: dropped */
	check_lr(bin, leaf, 0x40, chain, 1, "main;hot_leaf");
	check_lr(bin, leaf, 0, chain, 1, "main;hot_leaf");
}

/*
 * A Go arm64 binary (ET_EXEC, .debug_frame, Go's symbols) read on this
 * host: main.mix keeps no frame, so its caller main.crunch is only in
 * the link register; a return address in main.crunch while crunch runs
 * is stale.
 */
static void test_go(void)
{
	static const struct sym_off want[LR_NR] = {
		{ "main.mix", 8 }, { "main.crunch", 24 }, { "main.crunch", 28 },
		{ "main.main", 16 },
	};
	char bin[512], *out = NULL;
	uint64_t at[LR_NR], chain[1];

	snprintf(bin, sizeof(bin), "%s", build_path("unit/goarm64"));
	if (!need_cmd("go", "no go to cross-build tests/progs/goarm64"))
		return;
	/* the runtime alone: about 25 s the first time in a build dir */
	if (run_fmt(&out, "cd %s && CGO_ENABLED=0 GOARCH=arm64 GOCACHE=%s GOPATH=%s GOPROXY=off GO111MODULE=off GOTOOLCHAIN=local go build -o %s . 2>&1",
		    root_path("tests/progs/goarm64"),
		    build_path("gocache-arm64"), build_path("gopath"), bin)) {
		fprintf(stderr, "    go build: %s\n", out ? out : "");
		free(out);
		CHECK(!"GOARCH=arm64 go build");
		return;
	}
	free(out);
	if (!lr_addrs(bin, want, at))
		return;
	chain[0] = at[LR_MAIN];
	check_lr_at(bin, 0, at[LR_LEAF], at[LR_CALLER], chain, 1,
		    "main.main;main.crunch;main.mix");
	check_lr_at(bin, 0, at[LR_CALLER2], at[LR_CALLER], chain, 1,
		    "main.main;main.crunch");
}

/*
 * MACHINE decodes and the profile keeps it; a short one is malformed, as
 * is a link register in an x86-64 sample.
 * Without an unwinder the model keeps the chain as the kernel walked it:
 * an arm64 sample's link register goes (no object to judge it by).
 */
static void test_machine_record(void)
{
	uint64_t u[3] = { 0x401010, 0x402020, 0x403030 };
	unsigned char buf[64] = { 0 };
	struct tprof_urec_machine m = { .hdr = { .type = TPROF_UREC_MACHINE,
						 .size = TPROF_SIZEOF_REC_HDR } };
	struct sbuf b = { 0 };
	struct tprof_record r;
	struct profile p;
	size_t off = 0;

	CHECK_STR(tprof_record_type_name(TPROF_UREC_MACHINE), "MACHINE");
	sb_session(&b, 10, 1000, 1, 50);
	sb_machine(&b, PAC_MASK_48);
	sb_sample(&b, 10, 10, 1000, 1000, T0 + 100, 0, NULL, 3, u);
	/* the SAMPLE just written: arm64, its ips[1] the link register */
	((struct tprof_rec_hdr *)(b.p + b.len - sizeof(struct tprof_rec_sample)
				  - sizeof(u)))->flags = TPROF_RF_USER_LR;
	((struct tprof_rec_sample *)(b.p + b.len - sizeof(struct tprof_rec_sample)
				     - sizeof(u)))->abi = TPROF_ABI_ARM64;
	profile__init(&p);
	off = profile_feed(&p, &b, true);
	profile__finish(&p);
	CHECK_EQ(off, b.len);
	CHECK(p.have_machine);
	CHECK_EQ(p.machine.e_machine, 183);
	CHECK_EQ(p.machine.user_pac_mask, PAC_MASK_48);
	CHECK_EQ(p.nunknown, 0);
	CHECK_EQ(p.whole.nsamples, 1);
	if (p.whole.nsamples == 1) {
		CHECK_EQ(p.whole.samples[0].nr, 2);
		CHECK_EQ(p.whole.samples[0].ips[0], u[0]);
		CHECK_EQ(p.whole.samples[0].ips[1], u[2]);
	}
	profile__free(&p);
	/* a header-only MACHINE is not a MACHINE record */
	memcpy(buf, &m, sizeof(m));
	CHECK_EQ(tprof_record_decode(buf, sizeof(buf), &r), -EINVAL);
	sb_free(&b);
	/* an x86-64 sample has no link register to flag */
	memset(&b, 0, sizeof(b));
	sb_sample(&b, 10, 10, 1000, 1000, T0 + 100, 0, NULL, 3, u);
	((struct tprof_rec_hdr *)b.p)->flags = TPROF_RF_USER_LR;
	CHECK_EQ(tprof_record_decode(b.p, b.len, &r), -EINVAL);
	CHECK(r.fault && strstr(r.fault, "link register"));
	sb_free(&b);
}

const struct unit_test arm64_tests[] = {
	{ "arm64: MACHINE decodes and is kept; without an unwinder the link register goes", test_machine_record },
	{ "arm64: a frameless leaf's caller from the link register (fp, hybrid, dwarf), qemu-user", test_leaf },
	{ "arm64: qsort's comparator reaches main by CFI alone, PAC-signed return addresses stripped, qemu-user", test_qsort },
	{ "arm64: the link register kept as the caller or dropped as stale (FP-mode samples)", test_lr_rules },
	{ "arm64: a call resolved through a lazily bound PLT entry has its caller once, and main above it", test_plt },
	{ "arm64: Go: a GOARCH=arm64 binary read on this host; main.mix's caller from the link register", test_go },
	{ NULL, NULL },
};
