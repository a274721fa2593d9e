// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests: unwinding real user stack snapshots without the module.
 * A test program (tests/progs/unwind*.c) runs; ptrace stops it at random
 * times (PTRACE_INTERRUPT), and each stop becomes what tprof.ko writes for
 * a sample with TPROF_F_USER_SNAPSHOT: a SAMPLE with the frame-pointer
 * chain walked as the kernel walks it, and a USTACK record with the
 * registers and the stack from sp. tprof-read --input turns the stream
 * into a profile, whose stacks are checked: the frameless leaf's caller,
 * libc's qsort and C++ without frame pointers up to main, signal frames,
 * sigaltstack, partial copies and IA32.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "buildid.h"
#include "maps.h"
#include "pbload.h"
#include "testlib.h"
#include "util.h"

#define NSAMPLES 600
#define PERIOD_NS 1000000ULL

struct rec_opts {
	const char *prog;	/* under build/progs */
	const char *mode;	/* its argv[1], or NULL */
	unsigned int nsamples;
	unsigned int snap_bytes;
	unsigned int cut;	/* > 0: copy at most this much (PARTIAL) */
	bool dwarf;		/* SESSION says --call-graph dwarf */
};

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static bool mem_read(int memfd, uint64_t addr, void *buf, size_t n)
{
	return pread(memfd, buf, n, (off_t)addr) == (ssize_t)n;
}

/* The kernel's walk (kmod/stack.c tprof_stack_user), over /proc/PID/mem. */
static unsigned int fp_walk(int memfd, bool ia32, uint64_t ip, uint64_t bp,
			    uint64_t *ips, unsigned int max, uint16_t *flags)
{
	unsigned int n = 0, w = ia32 ? 4 : 8;
	uint64_t fp = bp;

	ips[n++] = ip;
	while (fp) {
		uint64_t next = 0, ret = 0;
		unsigned char f[16];

		if (n == max) {
			*flags |= TPROF_RF_USER_TRUNCATED;
			break;
		}
		if (fp % w || !mem_read(memfd, fp, f, 2 * w)) {
			*flags |= TPROF_RF_USER_FAULT;
			break;
		}
		memcpy(&next, f, w);
		memcpy(&ret, f + w, w);
		if (!ret)
			break;
		ips[n++] = ret;
		if (next <= fp)
			break;
		fp = next;
	}
	return n;
}

/* Up to want bytes from sp, a page at a time, as far as they read. */
static uint32_t stack_copy(int memfd, uint64_t sp, unsigned char *buf,
			   uint32_t want)
{
	uint32_t got = 0;

	while (got < want) {
		uint64_t a = sp + got;
		uint32_t chunk = 4096 - (a & 4095);
		ssize_t n;

		if (chunk > want - got)
			chunk = want - got;
		n = pread(memfd, buf + got, chunk, (off_t)a);
		if (n <= 0)
			break;
		got += n;
	}
	return got;
}

/* BUILDID records for the executable file mappings of the maps text. */
static void add_buildids(struct sbuf *b, int pid, const char *maps,
			 uint64_t t)
{
	const char *s = maps;

	while (*s) {
		const char *eol = strchr(s, '\n');
		char line[4096], perms[8], path[4096] = "";
		unsigned int maj, min;
		unsigned long long ino;
		size_t len = eol ? (size_t)(eol - s) : strlen(s);

		snprintf(line, sizeof(line), "%.*s", (int)len, s);
		s += len + (eol ? 1 : 0);
		if (sscanf(line, "%*x-%*x %7s %*x %x:%x %llu %4095s", perms, &maj,
			   &min, &ino, path) == 5 && perms[2] == 'x' &&
		    path[0] == '/') {
			unsigned char bits[BUILDID_MAX];
			int fd = open(path, O_RDONLY | O_CLOEXEC), n;

			if (fd < 0)
				continue;
			n = buildid__from_fd(fd, bits);
			close(fd);
			if (n >= 0)
				sb_buildid(b, pid, maj, min, ino, path, bits, n, t);
		}
	}
}

/*
 * Stop pid (ptrace-seized) where it runs: 0, 1 when a signal was on its
 * way (delivered now: the stop that follows is at the handler's entry, not
 * at a random time, so it is no sample), or -1.
 */
static int interrupt(int pid)
{
	int st, sigs = 0;

	if (ptrace(PTRACE_INTERRUPT, pid, 0, 0))
		return -1;
	for (;;) {
		if (waitpid(pid, &st, __WALL) != pid || !WIFSTOPPED(st))
			return -1;
		if ((st >> 16) == PTRACE_EVENT_STOP)
			return sigs ? 1 : 0;
		/* a signal stop (SIGPROF): deliver it, keep waiting */
		if (ptrace(PTRACE_CONT, pid, 0, WSTOPSIG(st)))
			return -1;
		sigs++;
	}
}

/*
 * Run the program, take o->nsamples snapshots, write the stream to path.
 * 0 or -1 (the reason on stderr).
 */
static int record(const struct rec_opts *o, const char *path)
{
	static unsigned char stack[TPROF_MAX_SNAPSHOT_BYTES];
	const char *prog = build_path(o->prog);
	struct sbuf b = { 0 };
	struct tprof_urec_session *ss;
	char memp[64], *maps = NULL;
	size_t mlen;
	unsigned int i;
	int pid, memfd = -1, ret = -1;
	uint64_t t;

	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		execl(prog, prog, o->mode, (char *)NULL);
		_exit(127);
	}
	usleep(100000);	/* past the dynamic linker, into the loop */
	if (ptrace(PTRACE_SEIZE, pid, 0, 0)) {
		fprintf(stderr, "    PTRACE_SEIZE %s: %s\n", prog, strerror(errno));
		goto out_kill;
	}
	t = mono_ns();
	sb_session(&b, pid, PERIOD_NS, 1, t);
	ss = (struct tprof_urec_session *)b.p;
	ss->flags = TPROF_F_USER_SNAPSHOT | (o->dwarf ? TPROF_SESSION_F_DWARF : 0);
	sb_thread(&b, pid, pid, "unwind", t);
	if (maps__read_proc(pid, &maps, &mlen))
		goto out_kill;
	maps = xrealloc(maps, mlen + 1);
	maps[mlen] = 0;
	sb_maps(&b, pid, t, maps);
	add_buildids(&b, pid, maps, t);
	snprintf(memp, sizeof(memp), "/proc/%d/mem", pid);
	memfd = open(memp, O_RDONLY | O_CLOEXEC);
	if (memfd < 0)
		goto out_kill;
	srand(o->nsamples ^ o->snap_bytes);
	for (i = 0; i < o->nsamples; i++) {
		struct user_regs_struct r;
		uint64_t regs[TPROF_UREG_NR] = { 0 }, ips[TPROF_DEFAULT_USER_FRAMES];
		uint16_t flags = 0;
		uint32_t got, want = o->snap_bytes;
		unsigned int nu;
		bool ia32;

		usleep(100 + rand() % 400);
		switch (interrupt(pid)) {
		case 0:
			break;
		case 1:
			i--;
			if (ptrace(PTRACE_CONT, pid, 0, 0))
				goto out_kill;
			continue;
		default:
			goto out_kill;
		}
		if (ptrace(PTRACE_GETREGS, pid, 0, &r))
			goto out_kill;
		ia32 = r.cs == 0x23;	/* __USER32_CS */
		regs[TPROF_UREG_AX] = r.rax;
		regs[TPROF_UREG_BX] = r.rbx;
		regs[TPROF_UREG_CX] = r.rcx;
		regs[TPROF_UREG_DX] = r.rdx;
		regs[TPROF_UREG_SI] = r.rsi;
		regs[TPROF_UREG_DI] = r.rdi;
		regs[TPROF_UREG_BP] = r.rbp;
		regs[TPROF_UREG_SP] = r.rsp;
		regs[TPROF_UREG_IP] = r.rip;
		regs[TPROF_UREG_FLAGS] = r.eflags;
		if (!ia32) {
			regs[TPROF_UREG_R8] = r.r8;
			regs[TPROF_UREG_R9] = r.r9;
			regs[TPROF_UREG_R10] = r.r10;
			regs[TPROF_UREG_R11] = r.r11;
			regs[TPROF_UREG_R12] = r.r12;
			regs[TPROF_UREG_R13] = r.r13;
			regs[TPROF_UREG_R14] = r.r14;
			regs[TPROF_UREG_R15] = r.r15;
		}
		nu = fp_walk(memfd, ia32, r.rip, r.rbp, ips,
			     TPROF_DEFAULT_USER_FRAMES, &flags);
		got = stack_copy(memfd, r.rsp, stack, want);
		if (o->cut && got > o->cut)
			got = o->cut;
		sb_sample_ustack(&b, pid, pid,
				 ia32 ? TPROF_ABI_IA32 : TPROF_ABI_X86_64,
				 PERIOD_NS, mono_ns(), nu, ips, flags, regs,
				 want, stack, got);
		if (ptrace(PTRACE_CONT, pid, 0, 0))
			goto out_kill;
	}
	ret = sb_write(&b, path);
out_kill:
	if (memfd >= 0)
		close(memfd);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, __WALL);
	free(maps);
	sb_free(&b);
	return ret;
}

/* ---- reading the profile back ---- */

static const char *S(const PbProfile *p, int64_t i)
{
	return i >= 0 && (size_t)i < p->n_string_table ? p->string_table[i] : "?";
}

#define MAX_NAMES 600

/* want, or a C++ function of that name: "key" is "key(unsigned long)" */
static bool name_is(const char *name, const char *want)
{
	size_t n = strlen(want);

	return !strncmp(name, want, n) && (!name[n] || name[n] == '(');
}

/* The sample's function names, leaf first (inline chains flattened). */
static size_t names_of(const PbProfile *p, const Perftools__Profiles__Sample *s,
		       const char **names)
{
	size_t i, k, n = 0;

	for (i = 0; i < s->n_location_id && n < MAX_NAMES; i++) {
		const Perftools__Profiles__Location *l =
			p->location[s->location_id[i] - 1];

		for (k = 0; k < l->n_line && n < MAX_NAMES; k++)
			names[n++] = S(p, p->function[l->line[k]->function_id - 1]->name);
	}
	return n;
}

struct shape {
	uint64_t leaf;		/* samples with the leaf */
	uint64_t next;		/* ... and then the expected caller */
	uint64_t main;		/* ... and main somewhere above */
	uint64_t truncated;	/* ... and "[truncated]" at the root */
	uint64_t order;		/* ... and want[] in this order */
};

/*
 * Profile the stream in mode (NULL: as recorded) and count the leaf's
 * samples by shape. want: names that must follow the leaf in order (not
 * necessarily adjacent), NULL-terminated.
 */
static int shape_of(const char *raw, const char *mode, const char *leaf,
		    const char *next, const char *const *want,
		    struct shape *sh)
{
	const char *pb = build_path("unit/unwind.pb.gz");
	const char *names[MAX_NAMES];
	PbProfile *p;
	char *out = NULL;
	size_t i, j, n, w;
	int st;

	memset(sh, 0, sizeof(*sh));
	st = run_fmt(&out, "%s --input %s -o %s %s%s 2>&1", tprof_read_bin(),
		     raw, pb, mode ? "--call-graph " : "", mode ? mode : "");
	if (st) {
		fprintf(stderr, "    tprof-read: %s\n", out ? out : "");
		free(out);
		return -1;
	}
	free(out);
	p = load_profile(pb);
	if (!p)
		return -1;
	for (i = 0; i < p->n_sample; i++) {
		const Perftools__Profiles__Sample *s = p->sample[i];
		uint64_t c = s->n_value > 1 ? s->value[1] : 0;

		n = names_of(p, s, names);
		if (!n || !name_is(names[0], leaf))
			continue;
		sh->leaf += c;
		if (n > 1 && next && name_is(names[1], next))
			sh->next += c;
		for (j = 1; j < n; j++)
			if (!strcmp(names[j], "main")) {
				sh->main += c;
				break;
			}
		if (!strcmp(names[n - 1], "[truncated]"))
			sh->truncated += c;
		for (j = 1, w = 0; want && want[w] && j < n; j++)
			if (name_is(names[j], want[w]))
				w++;
		if (want && !want[w])
			sh->order += c;
	}
	perftools__profiles__profile__free_unpacked(p, NULL);
	return 0;
}

static void print_shape(const char *what, const char *mode,
			const struct shape *sh)
{
	printf("    %s, %s: %llu leaf samples, %.1f%% with the caller next, %.1f%% reach main, %.1f%% in order, %.1f%% truncated\n",
	       what, mode ? mode : "as recorded", (unsigned long long)sh->leaf,
	       sh->leaf ? 100.0 * sh->next / sh->leaf : 0,
	       sh->leaf ? 100.0 * sh->main / sh->leaf : 0,
	       sh->leaf ? 100.0 * sh->order / sh->leaf : 0,
	       sh->leaf ? 100.0 * sh->truncated / sh->leaf : 0);
}

/* at least pct% of the leaf's samples (and enough of them to tell) */
#define AT_LEAST(sh, field, pct) \
	((sh).leaf >= 50 && (sh).field * 100 >= (uint64_t)(pct) * (sh).leaf)

/* the leaf's own code must set up no frame, or the test proves nothing */
static bool frameless(const char *prog, const char *fn)
{
	char *out = NULL;
	bool ok;

	run_fmt(&out, "objdump -d --no-show-raw-insn --disassemble=%s %s",
		fn, build_path(prog));
	ok = out && strstr(out, fn) && !strstr(out, "push   %rbp") &&
	     !strstr(out, "mov    %rsp,%rbp");
	free(out);
	return ok;
}

static void test_leaf(void)
{
	struct rec_opts o = { .prog = "progs/unwind", .mode = "leaf",
			      .nsamples = NSAMPLES, .snap_bytes = 1024 };
	const char *raw = build_path("unit/unwind-leaf.raw");
	static const char *const want[] = { "caller", "main", NULL };
	struct shape sh;

	if (!have_cmd("objdump")) {
		SKIP("no objdump");
		return;
	}
	CHECK(frameless("progs/unwind", "hot_leaf"));
	CHECK_EQ(record(&o, raw), 0);
	/* the default: hybrid over 1024 bytes (HYBRID_SNAPSHOT_BYTES) */
	CHECK_EQ(shape_of(raw, NULL, "hot_leaf", "caller", want, &sh), 0);
	print_shape("leaf", "hybrid", &sh);
	CHECK(AT_LEAST(sh, next, 95));
	CHECK(AT_LEAST(sh, order, 95));
	CHECK_EQ(sh.truncated, 0);
	/* the frame-pointer chain skips the caller: the test can fail */
	CHECK_EQ(shape_of(raw, "fp", "hot_leaf", "caller", want, &sh), 0);
	print_shape("leaf", "fp", &sh);
	CHECK(sh.leaf >= 50 && sh.next * 100 <= 5 * sh.leaf);
	CHECK(AT_LEAST(sh, main, 95));
}

static void test_qsort(void)
{
	struct rec_opts o = { .prog = "progs/unwind", .mode = "qsort",
			      .nsamples = NSAMPLES, .snap_bytes = 8192,
			      .dwarf = true };
	const char *raw = build_path("unit/unwind-qsort.raw");
	static const char *const want[] = { "sort_round", "main", NULL };
	struct shape sh;

	CHECK_EQ(record(&o, raw), 0);
	CHECK_EQ(shape_of(raw, NULL, "cmp_ints", NULL, want, &sh), 0);
	print_shape("qsort", "dwarf", &sh);
	CHECK(AT_LEAST(sh, main, 95));
	CHECK(AT_LEAST(sh, order, 95));
	CHECK_EQ(shape_of(raw, "hybrid", "cmp_ints", NULL, want, &sh), 0);
	print_shape("qsort", "hybrid", &sh);
	/* libc has no frame pointers: the chain never gets out of it */
	CHECK_EQ(shape_of(raw, "fp", "cmp_ints", NULL, want, &sh), 0);
	print_shape("qsort", "fp", &sh);
	CHECK(sh.leaf >= 50 && sh.main * 100 <= 5 * sh.leaf);
}

static void test_cxx(void)
{
	struct rec_opts o = { .prog = "progs/unwind_cxx",
			      .nsamples = NSAMPLES, .snap_bytes = 8192,
			      .dwarf = true };
	const char *raw = build_path("unit/unwind-cxx.raw");
	static const char *const want[] = { "run", "main", NULL };
	struct shape sh;

	CHECK_EQ(record(&o, raw), 0);
	CHECK_EQ(shape_of(raw, NULL, "key", NULL, want, &sh), 0);
	print_shape("c++ -O2", "dwarf", &sh);
	CHECK(AT_LEAST(sh, main, 95));
	CHECK(AT_LEAST(sh, order, 95));
	CHECK_EQ(shape_of(raw, "fp", "key", NULL, want, &sh), 0);
	print_shape("c++ -O2", "fp", &sh);
	CHECK(sh.leaf >= 50 && sh.main * 100 <= 5 * sh.leaf);
}

/*
 * A signal handler's samples go on through libc's __restore_rt (its CFI
 * reads the interrupted registers from the ucontext) to the interrupted
 * function and main. altstack: the handler runs on a sigaltstack, so
 * the interrupted frames are not in the snapshot; the FP chain joins.
 */
static void signal_case(const char *mode, unsigned int bytes, bool dwarf)
{
	struct rec_opts o = { .prog = "progs/unwind", .mode = mode,
			      .nsamples = NSAMPLES, .snap_bytes = bytes,
			      .dwarf = dwarf };
	const char *raw = build_path("unit/unwind-signal.raw");
	static const char *const want[] = { "on_prof", "spin_main", "main",
					    NULL };
	struct shape sh;

	CHECK_EQ(record(&o, raw), 0);
	CHECK_EQ(shape_of(raw, NULL, "handler_work", "on_prof", want, &sh), 0);
	print_shape(mode, dwarf ? "dwarf" : "hybrid", &sh);
	CHECK(AT_LEAST(sh, next, 95));
	CHECK(AT_LEAST(sh, order, 90));
	CHECK(AT_LEAST(sh, main, 95));
	CHECK_EQ(shape_of(raw, "fp", "handler_work", "on_prof", want, &sh), 0);
	print_shape(mode, "fp", &sh);
	CHECK(sh.leaf >= 50 && sh.next * 100 <= 5 * sh.leaf);
}

static void test_signal(void)
{
	signal_case("signal", 8192, true);
	signal_case("signal", 512, false);
}

static void test_altstack(void)
{
	signal_case("altstack", 8192, true);
	signal_case("altstack", 512, false);
}

/*
 * A copy that ended early (TPROF_RF_USTACK_PARTIAL): 16 bytes still give
 * the leaf's caller (its return address is at sp) and the chain the rest;
 * in dwarf mode a cut stack through libc is marked "[truncated]".
 */
static void test_partial(void)
{
	struct rec_opts o = { .prog = "progs/unwind", .mode = "leaf",
			      .nsamples = NSAMPLES / 2, .snap_bytes = 512,
			      .cut = 16 };
	const char *raw = build_path("unit/unwind-partial.raw");
	static const char *const want[] = { "caller", "main", NULL };
	static const char *const want_q[] = { "sort_round", "main", NULL };
	struct shape sh;

	CHECK_EQ(record(&o, raw), 0);
	CHECK_EQ(shape_of(raw, NULL, "hot_leaf", "caller", want, &sh), 0);
	print_shape("leaf, 16 bytes", "hybrid", &sh);
	CHECK(AT_LEAST(sh, next, 95));
	CHECK(AT_LEAST(sh, order, 95));

	o.mode = "qsort";
	o.snap_bytes = 8192;
	o.cut = 256;
	o.dwarf = true;
	CHECK_EQ(record(&o, raw), 0);
	CHECK_EQ(shape_of(raw, NULL, "cmp_ints", NULL, want_q, &sh), 0);
	print_shape("qsort, 256 bytes", "dwarf", &sh);
	CHECK(AT_LEAST(sh, truncated, 95));
	CHECK(sh.main * 100 <= 5 * sh.leaf);
}

/* IA32: 4-byte stack words, i386 DWARF registers, libc6-i386's CFI */
static void test_ia32(void)
{
	struct rec_opts o = { .prog = "progs/unwind32", .mode = "qsort",
			      .nsamples = NSAMPLES, .snap_bytes = 8192,
			      .dwarf = true };
	const char *raw = build_path("unit/unwind-ia32.raw");
	static const char *const want[] = { "sort_round", "main", NULL };
	struct shape sh;

	if (access(build_path("progs/unwind32"), X_OK)) {
		SKIP("no IA32 build of tests/progs/unwind.c (gcc-multilib)");
		return;
	}
	CHECK_EQ(record(&o, raw), 0);
	CHECK_EQ(shape_of(raw, NULL, "cmp_ints", NULL, want, &sh), 0);
	print_shape("ia32 qsort", "dwarf", &sh);
	CHECK(AT_LEAST(sh, main, 95));
	CHECK(AT_LEAST(sh, order, 95));
	CHECK_EQ(shape_of(raw, "fp", "cmp_ints", NULL, want, &sh), 0);
	print_shape("ia32 qsort", "fp", &sh);
	CHECK(sh.leaf >= 50 && sh.main * 100 <= 5 * sh.leaf);
}

/* make fuzz's second seed: a few real snapshot pairs, small enough */
static void test_seed(void)
{
	struct rec_opts o = { .prog = "progs/unwind", .mode = "leaf",
			      .nsamples = 8, .snap_bytes = 256 };

	CHECK_EQ(record(&o, build_path("unit/seed-ustack.raw")), 0);
}

const struct unit_test unwind_tests[] = {
	{ "unwind: seed stream with snapshots", test_seed },
	{ "unwind: a frameless leaf keeps its caller (hybrid, 1024 bytes); fp skips it", test_leaf },
	{ "unwind: a qsort comparator reaches main through libc (dwarf); fp does not", test_qsort },
	{ "unwind: C++ -O2 without frame pointers reaches main (dwarf)", test_cxx },
	{ "unwind: a signal handler unwinds through __restore_rt to the interrupted code", test_signal },
	{ "unwind: a handler on a sigaltstack joins the FP chain of the interrupted code", test_altstack },
	{ "unwind: partial copies: the leaf's caller from 16 bytes; a cut libc stack is [truncated]", test_partial },
	{ "unwind: IA32: 4-byte words and i386 registers", test_ia32 },
	{ NULL, NULL },
};
