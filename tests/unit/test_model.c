// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests: the model: maps over time, processes and threads, looked up
 * without linear scans (issue 23). Each long stream is replayed through
 * the optimised tprof-read (ASan's would time ASan) with a CPU-time bound
 * between the reader before the index (1543cdc, measured on a 2-core host:
 * seconds or more, or not done in the time allowed) and this one (tens to
 * hundreds of ms): see each test for both numbers.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model/profile.h"
#include "object/symbols.h"
#include "pbload.h"
#include "testlib.h"
#include "lib/util.h"

#define PID 7171
#define PIE_BASE 0x555555554000ULL
#define LIB_BASE 0x7f0000000000ULL
#define PERIOD 1000000ULL

#define S(p, i) ((p)->string_table[(i)])

/* A replay's cost: exit status (negative: killed by a signal, SIGXCPU at
 * the CPU limit), CPU seconds
 * (user + system) and peak RSS in KiB; stderr in *err (malloc'd). */
struct cost {
	int rc;
	double cpu;
	long rss_kb;
	char *err;
};

/*
 * Replay raw through the optimised build with args, killed after limit
 * seconds of CPU. Through python3: a child forked from this (ASan) process would
 * count our pages as its own peak, and its rusage is the child's alone.
 */
static int replay(const char *raw, const char *out, const char *args,
		  double limit, struct cost *c)
{
	const char *bin = build_path("tprof-read");
	const char *errf = build_path("unit/model.stderr");
	char *text = NULL;
	size_t len;
	int st;

	memset(c, 0, sizeof(*c));
	/* killed past 2x the bound of CPU (RLIMIT_CPU), not of wall time: a
	 * loaded host must not fail a fast reader, nor pass a slow one */
	st = run_fmt(&text, "python3 -c 'import resource, subprocess, sys\n"
		     "lim = int(float(sys.argv[2])) + 1\n"
		     "cpu = lambda: resource.setrlimit(resource.RLIMIT_CPU, (lim, lim + 5))\n"
		     "try:\n"
		     "    rc = subprocess.run(sys.argv[4:], stdout=subprocess.DEVNULL, stderr=open(sys.argv[1], \"w\"), preexec_fn=cpu, timeout=600).returncode\n"
		     "except subprocess.TimeoutExpired:\n"
		     "    rc = -1\n"
		     "u = resource.getrusage(resource.RUSAGE_CHILDREN)\n"
		     "print(rc, u.ru_utime + u.ru_stime, u.ru_maxrss)' "
		     "'%s' %g - '%s' --input '%s' -o '%s' %s", errf, limit,
		     bin, raw, out, args);
	if (st || !text || sscanf(text, "%d %lf %ld", &c->rc, &c->cpu,
				  &c->rss_kb) != 3) {
		free(text);
		return -1;
	}
	free(text);
	c->err = (char *)read_whole(errf, &len);
	if (c->err)
		c->err = xrealloc(c->err, len + 1), c->err[len] = 0;
	return 0;
}

/* MODEL_KEEP=1 keeps each long stream (build/unit/model-*.raw) to time
 * another reader on it. */
static bool have_fast_reader(void)
{
	if (access(build_path("tprof-read"), X_OK)) {
		SKIP("build/tprof-read (the optimised build) not built");
		return false;
	}
	return true;
}

/* Samples (count) whose leaf's outermost function is fn. */
static long long leaf_count(const PbProfile *p, const char *fn)
{
	long long n = 0;
	size_t i;

	for (i = 0; i < p->n_sample; i++) {
		const Perftools__Profiles__Sample *s = p->sample[i];
		const Perftools__Profiles__Location *l;
		const Perftools__Profiles__Line *ln;

		if (!s->n_location_id)
			continue;
		l = p->location[s->location_id[0] - 1];
		if (!l->n_line)
			continue;
		ln = l->line[l->n_line - 1];
		if (!strcmp(S(p, p->function[ln->function_id - 1]->name), fn))
			n += s->value[1];
	}
	return n;
}

/* The physical function at ELF vaddr of bin, by libdw (malloc'd). */
static char *name_at(const char *bin, uint64_t vaddr)
{
	struct symbolizer *s = symbolizer__new();
	struct sym_frame fr[SYM_MAX_INLINE];
	int n = symbolizer__lookup_vaddr(s, bin, vaddr, fr, SYM_MAX_INLINE);
	char *name = n > 0 ? xstrdup(fr[n - 1].name) : NULL;

	symbolizer__free(s);
	return name;
}

/* the test programs are built; else the test is skipped */
static bool have_progs(void)
{
	return need_files("test programs not built",
			  build_path("progs/inlines"),
			  build_path("progs/cxxprog"),
			  build_path("progs/libhot.so"), NULL);
}

static void report(const char *what, const struct cost *c, double bound)
{
	fprintf(stderr, "    %s: exit %d, %.2f s CPU (bound %.1f s), peak RSS %ld KiB\n",
		what, c->rc, c->cpu, bound, c->rss_kb);
}

/*
 * 20,000 snapshots of one process, 3 samples of 30 frames after each
 * (each on a thread of its own, so none merge): the first shows
 * the program and a library (dlclose'd at once, so its samples resolve
 * from snapshot 0, 10,000 back), an exec halfway maps another program at
 * the same addresses. Every sample is named from the code of its time.
 * Before: 24 s of CPU (the resolve pass scanned every snapshot per
 * frame); after: 0.3 s.
 */
#define NSNAP 20000
#define DEPTH 30
#define PER_SNAP 3

static void test_many_snapshots(void)
{
	/* copies: build_path() is a ring of 8 */
	char *a = xstrdup(build_path("progs/inlines"));
	char *lib = xstrdup(build_path("progs/libhot.so"));
	char *c = xstrdup(build_path("progs/cxxprog"));
	char *raw = xstrdup(build_path("unit/model-snaps.raw"));
	char *pb = xstrdup(build_path("unit/model-snaps.pb.gz"));
	char *exe = NULL, *l1 = NULL, *cm = NULL, *first = NULL;
	char *a_fn = NULL, *lib_fn = NULL, *c_fn = NULL;
	uint64_t hot = 0, spin = 0, mainv = 0, sz = 0;
	uint64_t before[DEPTH], after[DEPTH];
	struct sbuf b = { 0 };
	struct cost cost = { 0 };
	PbProfile *p;
	int i;

	if (!have_fast_reader() || !have_progs())
		goto out;
	/* fake_maps() first: it sets libelf's version for elf_symbol() */
	exe = fake_maps(a, PIE_BASE);
	l1 = fake_maps(lib, LIB_BASE);
	cm = fake_maps(c, PIE_BASE);
	CHECK_EQ(elf_symbol(a, "hot_outer", &hot, &sz), 0);
	CHECK_EQ(elf_symbol(lib, "lib_spin", &spin, &sz), 0);
	CHECK_EQ(elf_symbol(a, "main", &mainv, &sz), 0);
	hot += 0x10;
	spin += 0x10;
	a_fn = name_at(a, hot);
	lib_fn = name_at(lib, spin);
	c_fn = name_at(c, hot);
	CHECK(a_fn && lib_fn && c_fn && exe && l1 && cm);
	if (t_checks_failed)
		goto out;
	CHECK(strcmp(a_fn, c_fn) && strcmp(a_fn, lib_fn));
	first = xmalloc(strlen(exe) + strlen(l1) + 1);
	strcat(strcpy(first, exe), l1);

	sb_session(&b, PID, PERIOD, 1700000000000000000ULL, 1000);
	sb_thread(&b, PID, PID, "model", 1001);
	/* 30 frames: the leaf, then the callers in the program */
	before[0] = LIB_BASE + spin;
	after[0] = PIE_BASE + hot;
	for (i = 1; i < DEPTH; i++) {
		before[i] = PIE_BASE + mainv + 4;
		after[i] = PIE_BASE + hot + 4;
	}
	for (i = 0; i < NSNAP; i++) {
		uint64_t t = 10000 + (uint64_t)i * 1000;
		int k;

		if (i == NSNAP / 2)
			sb_exec(&b, PID, "model2", t - 1);
		sb_maps(&b, PID, t, !i ? first : i < NSNAP / 2 ? exe : cm);
		/* a thread each: every sample its own, resolved on its own */
		for (k = 0; k < PER_SNAP; k++)
			sb_sample(&b, PID, PID + 1 + PER_SNAP * i + k, PERIOD,
				  PERIOD, t + 1 + k, 0, NULL, DEPTH,
				  i < NSNAP / 2 ? before : after);
		/* and one in the program before the exec */
		if (i == NSNAP / 2 - 1)
			sb_sample(&b, PID, PID, PERIOD, PERIOD, t + 10, 0, NULL,
				  1, after);
	}
	CHECK_EQ(sb_write(&b, raw), 0);
	unlink(pb);
	CHECK_EQ(replay(raw, pb, "", 10, &cost), 0);
	report("20,000 snapshots", &cost, 5);
	CHECK_EQ(cost.rc, 0);
	CHECK(cost.cpu < 5);
	p = cost.rc ? NULL : load_profile(pb);
	CHECK(p != NULL);
	if (p) {
		CHECK_EQ(leaf_count(p, lib_fn), PER_SNAP * NSNAP / 2);
		CHECK_EQ(leaf_count(p, c_fn), PER_SNAP * NSNAP / 2);
		CHECK_EQ(leaf_count(p, a_fn), 1);
		pb_free(p);
	}
	if (!getenv("MODEL_KEEP"))
		unlink(raw);
out:
	free(cost.err);
	free(a);
	free(lib);
	free(c);
	free(raw);
	free(pb);
	free(first);
	free(exe);
	free(l1);
	free(cm);
	free(a_fn);
	free(lib_fn);
	free(c_fn);
	sb_free(&b);
}

/*
 * The program's maps and thread, for a stream of n records of one kind;
 * *hot: an address of its hot_outer, *fn that function's name.
 */
static int stream_head(struct sbuf *b, uint64_t *hot, char **fn, char **maps)
{
	const char *a = build_path("progs/inlines");
	uint64_t sz = 0;

	/* fake_maps() first: it sets libelf's version for elf_symbol() */
	*maps = fake_maps(a, PIE_BASE);
	if (!*maps || elf_symbol(a, "hot_outer", hot, &sz))
		return -1;
	*hot += 0x10;
	*fn = name_at(a, *hot);
	if (!*fn)
		return -1;
	*hot += PIE_BASE;
	sb_session(b, PID, PERIOD, 1700000000000000000ULL, 1000);
	sb_thread(b, PID, PID, "model", 1001);
	return 0;
}

/* Replay b; exit 0 within bound s of CPU; samples named fn: want. */
static void replay_named(struct sbuf *b, const char *what, const char *args,
			 double bound, const char *fn, long long want)
{
	const char *raw = build_path("unit/model-scan.raw");
	const char *pb = build_path("unit/model-scan.pb.gz");
	struct cost cost;
	PbProfile *p;

	CHECK_EQ(sb_write(b, raw), 0);
	unlink(pb);
	CHECK_EQ(replay(raw, pb, args, 2 * bound, &cost), 0);
	report(what, &cost, bound);
	CHECK_EQ(cost.rc, 0);
	CHECK(cost.cpu < bound);
	p = cost.rc || !fn ? NULL : load_profile(pb);
	CHECK(!fn || p);
	if (p) {
		CHECK_EQ(leaf_count(p, fn), want);
		pb_free(p);
	}
	if (t_checks_failed && cost.err)
		fprintf(stderr, "%.2000s", cost.err);
	free(cost.err);
	if (!getenv("MODEL_KEEP"))
		unlink(raw);
}

#define NREC 100000

/*
 * find_buildid: 100,000 BUILDID records of different files, then the
 * program's maps, named by the last. Before: 3.0 s (each record scanned
 * those before it, and every mapping); after: 0.05 s.
 */
static void test_many_buildids(void)
{
	const unsigned char bid[4] = { 0xde, 0xad, 0xbe, 0xef };
	char *fn = NULL, *maps = NULL;
	struct sbuf b = { 0 };
	uint64_t hot;
	int i;

	if (!have_fast_reader() || !have_progs())
		return;
	if (stream_head(&b, &hot, &fn, &maps)) {
		CHECK(!"stream head");
		goto out;
	}
	for (i = 0; i < NREC; i++)
		sb_buildid(&b, PID, 8, 1, 100000 + i, "/x/lib.so", bid,
			   sizeof(bid), 1002);
	sb_maps(&b, PID, 2000, maps);
	for (i = 0; i < 100; i++)
		sb_sample(&b, PID, PID, PERIOD, PERIOD, 3000 + i, 0, NULL, 1,
			  &hot);
	replay_named(&b, "100,000 BUILDID records", "", 1, fn, 100);
out:
	free(fn);
	free(maps);
	sb_free(&b);
}

/*
 * parent_of: 100,000 descendants (PROC records) of the program in chains
 * of 7 (forks of forks), each sampled in the program's code, named from
 * the first ancestor with maps (a fork is a copy). Before: 13.8 s (each
 * step up scanned the PROC records); after: 0.34 s.
 */
static void test_many_children(void)
{
	char *fn = NULL, *maps = NULL;
	struct sbuf b = { 0 };
	uint64_t hot;
	int i;

	if (!have_fast_reader() || !have_progs())
		return;
	if (stream_head(&b, &hot, &fn, &maps)) {
		CHECK(!"stream head");
		goto out;
	}
	sb_maps(&b, PID, 1002, maps);
	for (i = 0; i < NREC; i++)
		sb_proc(&b, 100000 + i, i % 7 ? 100000 + i - 1 : PID, "child", 0,
			2000 + i);
	for (i = 0; i < NREC; i++)
		sb_sample(&b, 100000 + i, 100000 + i, PERIOD, PERIOD,
			  200000 + i, 0, NULL, 1, &hot);
	replay_named(&b, "100,000 descendants", "", 1.5, fn, NREC);
out:
	free(fn);
	free(maps);
	sb_free(&b);
}

/*
 * Comm generations: one thread renamed 100,000 times, a sample after
 * each. Before: 24.7 s (each sample counted the renames before it, each
 * resolved sample looked its comm up by a scan); after: 0.09 s.
 */
static void test_many_comms(void)
{
	char *fn = NULL, *maps = NULL;
	struct sbuf b = { 0 };
	uint64_t hot;
	int i;

	if (!have_fast_reader() || !have_progs())
		return;
	if (stream_head(&b, &hot, &fn, &maps)) {
		CHECK(!"stream head");
		goto out;
	}
	sb_maps(&b, PID, 1002, maps);
	for (i = 0; i < NREC; i++) {
		sb_thread(&b, PID, PID, i % 2 ? "odd" : "even", 2000 + 2 * i);
		sb_sample(&b, PID, PID, PERIOD, PERIOD, 2001 + 2 * i, 0, NULL,
			  1, &hot);
	}
	replay_named(&b, "100,000 comm changes", "", 1, fn, NREC);
out:
	free(fn);
	free(maps);
	sb_free(&b);
}

/*
 * MMAP marks: 100,000 MMAP records of another file over the page of the
 * program's code its samples are in, a sample after each, and a snapshot
 * read after them all: each sample is named from that snapshot (never
 * from the one before its mark). Before: 13.3 s (each sample's epoch and
 * each lookup scanned the marks); after: 0.06 s.
 */
static void test_many_marks(void)
{
	char *fn = NULL, *maps = NULL;
	struct sbuf b = { 0 };
	uint64_t hot, page;
	int i;

	if (!have_fast_reader() || !have_progs())
		return;
	if (stream_head(&b, &hot, &fn, &maps)) {
		CHECK(!"stream head");
		goto out;
	}
	page = hot & ~0xfffULL;
	sb_maps(&b, PID, 1002, maps);
	for (i = 0; i < NREC; i++) {
		sb_mmap(&b, PID, page, page + 0x1000, 0, 999, 2000 + 2 * i);
		sb_sample(&b, PID, PID, PERIOD, PERIOD, 2001 + 2 * i, 0, NULL,
			  1, &hot);
	}
	sb_maps(&b, PID, 2000 + 2 * NREC, maps);
	replay_named(&b, "100,000 MMAP marks", "", 1, fn, NREC);
out:
	free(fn);
	free(maps);
	sb_free(&b);
}

/*
 * maps__add_vdso: 100,000 VDSO records (another start each), then the
 * program's maps. Before: 3.3 s (each record scanned those before it and
 * every mapping); after: 0.02 s.
 */
static void test_many_vdsos(void)
{
	const unsigned char img[16] = { 0x7f, 'E', 'L', 'F' };
	char *fn = NULL, *maps = NULL;
	struct sbuf b = { 0 };
	uint64_t hot;
	int i;

	if (!have_fast_reader() || !have_progs())
		return;
	if (stream_head(&b, &hot, &fn, &maps)) {
		CHECK(!"stream head");
		goto out;
	}
	sb_maps(&b, PID, 1002, maps);
	for (i = 0; i < NREC; i++)
		sb_vdso(&b, PID, 0x7fff00000000ULL + (uint64_t)i * 0x2000, img,
			sizeof(img), 2000 + i);
	for (i = 0; i < 100; i++)
		sb_sample(&b, PID, PID, PERIOD, PERIOD, 200000 + i, 0, NULL, 1,
			  &hot);
	replay_named(&b, "100,000 VDSO records", "", 1, fn, 100);
out:
	free(fn);
	free(maps);
	sb_free(&b);
}

/*
 * --report of 100,000 processes (PROC, a thread each, PROC_EXIT): per
 * process totals in O(1) each. Before: 22.5 s (each process summed every
 * thread); after: 0.5 s.
 */
static void test_report_many_procs(void)
{
	char *fn = NULL, *maps = NULL;
	struct sbuf b = { 0 };
	uint64_t hot;
	int i;

	if (!have_fast_reader() || !have_progs())
		return;
	if (stream_head(&b, &hot, &fn, &maps)) {
		CHECK(!"stream head");
		goto out;
	}
	sb_maps(&b, PID, 1002, maps);
	for (i = 0; i < NREC; i++) {
		sb_proc(&b, 100000 + i, PID, "child", 0, 2000 + 3 * i);
		sb_sample(&b, 100000 + i, 100000 + i, PERIOD, PERIOD,
			  2001 + 3 * i, 0, NULL, 1, &hot);
		sb_proc_exit(&b, 100000 + i, 0, 2002 + 3 * i);
	}
	replay_named(&b, "--report of 100,000 processes", "--report", 4, fn,
		     NREC);
out:
	free(fn);
	free(maps);
	sb_free(&b);
}

/*
 * A maps line that does not parse (a path-less garbage line before the
 * program's code) is skipped with one warning naming the pid and the
 * line; the rest of the snapshot names the samples. A second bad line (in
 * another snapshot) says nothing more. Before: the snapshot stopped at
 * the bad line, the samples were unnamed, and nothing was said.
 */
static void test_bad_maps_line(void)
{
	const char *raw = build_path("unit/model-badline.raw");
	const char *pb = build_path("unit/model-badline.pb.gz");
	char *fn = NULL, *maps = NULL, *bad = NULL, *out = NULL;
	struct sbuf b = { 0 };
	uint64_t hot;
	PbProfile *p;
	char *line;
	int i, st;

	if (!have_progs())
		return;
	if (stream_head(&b, &hot, &fn, &maps)) {
		CHECK(!"stream head");
		goto out;
	}
	bad = xmalloc(strlen(maps) + 64);
	sprintf(bad, "55555554000-zz r-xp 00000000 08:01 1 /bad\n%s", maps);
	sb_maps(&b, PID, 1002, bad);
	for (i = 0; i < 10; i++)
		sb_sample(&b, PID, PID, PERIOD, PERIOD, 2000 + i, 0, NULL, 1,
			  &hot);
	sprintf(bad, "garbage\n%s", maps);
	sb_maps(&b, PID, 3000, bad);
	CHECK_EQ(sb_write(&b, raw), 0);
	unlink(pb);
	st = run_read(&out, "--input '%s' -o '%s' 2>&1", raw, pb);
	CHECK_EQ(st, 0);
	CHECK_HAS(out, "tprof-read: warning: maps of pid 7171: skipped a line that does not parse: \"55555554000-zz r-xp 00000000 08:01 1 /bad\"\n");
	/* once: one line, and not the second bad line */
	for (i = 0, line = out; line && (line = strstr(line, "maps of pid")); line++)
		i++;
	CHECK_EQ(i, 1);
	CHECK(out && !strstr(out, "garbage"));
	p = load_checked(pb);
	if (p) {
		CHECK_EQ(leaf_count(p, fn), 10);
		pb_free(p);
	}
	if (t_checks_failed && out)
		fprintf(stderr, "%s", out);
	unlink(raw);
out:
	free(out);
	free(bad);
	free(fn);
	free(maps);
	sb_free(&b);
}

/* Feed the records of b to p. */
static void add_all(struct profile *p, const struct sbuf *b)
{
	profile_feed(p, b, true);
}

/*
 * A thread's comm and exec lookups by time (indexed past 8 changes) agree
 * with a scan of its changes, with records out of time order as rings of
 * several CPUs give them.
 */
static void test_comm_index(void)
{
	static const char *names[] = { "a", "b", "c", "d", "e" };
	uint64_t x = 88172645463325252ULL;
	int round;

	for (round = 0; round < 20; round++) {
		struct sbuf b = { 0 };
		struct profile p;
		const struct thread_info *t;
		int i, n = 1 + round * 7;
		uint64_t q;

		profile__init(&p);
		for (i = 0; i < n; i++) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			if (x % 4 == 0)
				sb_exec(&b, PID, names[x % 5], 1000 + x % 500);
			else
				sb_thread(&b, PID, PID, names[x % 5],
					  1000 + x % 500);
		}
		add_all(&p, &b);
		t = profile__find_thread(&p, PID);
		CHECK(t != NULL);
		for (q = 990; t && q < 1510; q++) {
			const char *best = NULL;
			uint64_t best_t = 0, ex = 0;
			size_t k;

			for (k = 0; k < t->ncomms; k++) {
				const struct comm_change *c = &t->comms[k];

				if (c->time_ns <= q &&
				    (!best || c->time_ns >= best_t)) {
					best = c->comm;
					best_t = c->time_ns;
				}
				if (c->exec && c->time_ns <= q && c->time_ns > ex)
					ex = c->time_ns;
			}
			if (!best)
				best = t->comms[0].comm;
			CHECK_STR(thread__comm_at(t, q), best);
			CHECK_EQ(profile__exec_before(&p, PID, q), ex);
		}
		profile__free(&p);
		sb_free(&b);
	}
}

const struct unit_test model_tests[] = {
	{ "model: 20,000 maps snapshots: each sample named from its own time, in bounded CPU", test_many_snapshots },
	{ "model: 100,000 BUILDID records in bounded CPU (find_buildid)", test_many_buildids },
	{ "model: 100,000 descendants named from their ancestors' maps in bounded CPU (parent_of)", test_many_children },
	{ "model: 100,000 comm changes of a thread in bounded CPU (comm generations)", test_many_comms },
	{ "model: 100,000 MMAP marks in bounded CPU", test_many_marks },
	{ "model: 100,000 VDSO records in bounded CPU (maps__add_vdso)", test_many_vdsos },
	{ "model: --report of 100,000 processes in bounded CPU (per-process totals)", test_report_many_procs },
	{ "model: a maps line that does not parse is skipped with one warning, the snapshot kept", test_bad_maps_line },
	{ "model: comm and exec lookups by time agree with a scan, records out of order", test_comm_index },
	{ NULL, NULL },
};
