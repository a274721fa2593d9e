// SPDX-License-Identifier: GPL-2.0
/* Unit tests: a synthetic record stream replayed through
 * `tprof-read --input`, read back by go tool pprof and protoc. */
#include <grp.h>
#include <sys/stat.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "output/pprof.h"
#include "profile.pb-c.h"
#include "pbload.h"
#include "testlib.h"
#include "lib/util.h"

#define PID 4242
#define TID2 4243
#define PIE_BASE 0x555555554000ULL
#define LIB_BASE 0x7f0000000000ULL

static uint64_t sym_mid(const char *bin, const char *name)
{
	uint64_t v = 0, sz = 0;

	if (elf_symbol(bin, name, &v, &sz))
		return 0;
	return v + sz / 2;
}

/*
 * The synthetic session: main thread 300 x 1ms in hot_outer's inlined
 * hot_leaf; a worker at 250us: 100 samples in cold_func, 40 in libhot.so's
 * lib_spin (dlopen'ed after the first maps snapshot) with one kernel frame;
 * 3 lost samples of the worker, plus 2 lost ones no thread claims.
 */
static int make_stream(struct sbuf *b, const char *out)
{
	const char *bin = build_path("progs/inlines");
	const char *lib = build_path("progs/libhot.so");
	char *maps1 = fake_maps(bin, PIE_BASE), *maps2 = fake_maps(lib, LIB_BASE);
	char *both;
	uint64_t leaf = 0, worker = sym_mid(bin, "worker"), cold, spin, v, sz;
	uint64_t main_ret = sym_mid(bin, "main"), k = 0xffffffff81000150ULL;
	int i;

	if (!maps1 || !maps2 || !worker || !main_ret)
		return -1;
	/* an address in hot_outer whose inline chain is leaf <- mid <- outer:
	 * the xorshift 'shl $0xd' is hot_leaf's first statement */
	if (elf_symbol(bin, "hot_outer", &v, &sz))
		return -1;
	leaf = v + 0x10;
	cold = sym_mid(bin, "cold_func");
	spin = sym_mid(lib, "lib_spin");
	if (!spin || !cold)
		return -1;
	both = xmalloc(strlen(maps1) + strlen(maps2) + 1);
	strcpy(both, maps1);
	strcat(both, maps2);

	sb_session(b, PID, 1000000, 1700000000000000000ULL, 1000);
	sb_maps(b, PID, 1001, maps1);
	sb_thread(b, PID, PID, "inlines", 1002);
	sb_thread(b, PID, TID2, "inlines-w", 1003);
	for (i = 0; i < 300; i++) {
		uint64_t st[3] = { PIE_BASE + leaf, PIE_BASE + worker + 1,
				   PIE_BASE + main_ret + 1 };

		sb_sample(b, PID, PID, 1000000, 1000000, 2000 + i, 0, NULL, 3, st);
	}
	for (i = 0; i < 100; i++) {
		uint64_t st[2] = { PIE_BASE + cold, PIE_BASE + worker + 1 };

		sb_sample(b, PID, TID2, 250000, 250000, 3000 + i, 0, NULL, 2, st);
	}
	/* library samples arrive before the snapshot that maps them */
	for (i = 0; i < 40; i++) {
		uint64_t st[2] = { LIB_BASE + spin, PIE_BASE + main_ret + 1 };

		sb_sample(b, PID, TID2, 250000, 250000, 4000 + i, 1, &k, 2, st);
	}
	/* a frame-pointer walk that ran off into stack words */
	for (i = 0; i < 5; i++) {
		uint64_t st[4] = { PIE_BASE + cold, PIE_BASE + worker + 1,
				   0x7ffd12345678ULL, 0x3f847ae147ae147aULL };

		sb_sample(b, PID, TID2, 250000, 250000, 4100 + i, 0, NULL, 4, st);
	}
	sb_maps(b, PID, 5000, both);
	sb_stat(b, TPROF_REC_THREAD_EXIT, PID, TID2, 36350000, 148, 37000000,
		3, 750000, 250000, "inlines-w", 6000);
	sb_stat(b, TPROF_REC_THREAD_STAT, PID, PID, 300400000, 300, 300000000,
		0, 0, 1000000, "inlines", 6001);
	sb_lost(b, 5, 2750000, 0, 6002);
	sb_proc_exit(b, PID, 0, 7000);
	free(maps1);
	free(maps2);
	free(both);
	return sb_write(b, out);
}

static void test_seed(void)
{
	struct sbuf b = { 0 };

	if (!need_file(build_path("progs/inlines"), "test programs not built"))
		return;
	CHECK_EQ(make_stream(&b, build_path("unit/seed.raw")), 0);
	sb_free(&b);
}

static const char *write_kallsyms(void)
{
	const char *path = build_path("unit/e2e-kallsyms");

	write_text(path, "ffffffff81000000 T _stext\nffffffff81000100 T do_syscall_64\n"
		   "ffffffff81000200 T schedule\n");
	return path;
}

static void test_replay_go_pprof(void)
{
	const char *raw = build_path("unit/e2e.raw");
	const char *pb = build_path("unit/e2e.pb.gz");
	const char *ks = write_kallsyms();
	char args[8192], *out = NULL, *l;
	struct sbuf b = { 0 };
	int st;

	if (!need_file(build_path("progs/inlines"), "test programs not built"))
		return;
	CHECK_EQ(make_stream(&b, raw), 0);
	unlink(pb);
	snprintf(args, sizeof(args), "--input '%s' -o '%s' --report --kallsyms '%s'",
		 raw, pb, ks);
	st = run_read(&out, "%s 2>&1%s", args, "");
	CHECK_EQ(st, 0);
	/* --report: per-thread table with exact CPU and error % */
	CHECK(out && strstr(out, "TID") && strstr(out, "ERROR%"));
	CHECK(out && strstr(out, "inlines-w") && strstr(out, "36.350ms"));
	CHECK_HAS(out, "total: 445 samples");
	if (st)
		fprintf(stderr, "%s\n", out ? out : "");
	free(out);
	out = NULL;
	if (!have_cmd("go")) {
		SKIP("go not installed: go tool pprof checks skipped");
		sb_free(&b);
		return;
	}
	/* the hot function is on top; times are weights, not counts */
	st = run_fmt(&out, "go tool pprof -top -symbolize=none '%s' 2>&1%s%s", pb, "", "");
	CHECK_EQ(st, 0);
	l = out ? strstr(out, "flat%") : NULL;
	l = l ? strchr(l, '\n') : NULL;
	CHECK(l && strstr(l, "hot_leaf") && strstr(l, "hot_leaf") < strchr(l + 1, '\n'));
	CHECK_HAS(l, "300ms");
	CHECK_HAS(out, "cold_func");
	CHECK_HAS(out, "lib_spin");	/* late dlopen resolved */
	CHECK_HAS(out, "do_syscall_64");	/* kernel frame */
	CHECK_HAS(out, "[lost]");
	/* 300ms + 26.25ms + 10ms + lost 0.75ms + 2ms */
	CHECK_HAS(out, "of 339ms total");
	out_done(out);
	out = NULL;

	/* the inline chain and callers */
	st = run_fmt(&out, "go tool pprof -traces -symbolize=none '%s' 2>&1%s%s", pb, "", "");
	CHECK_EQ(st, 0);
	CHECK(out && strstr(out, "hot_leaf") && strstr(out, "hot_mid") &&
	      strstr(out, "hot_outer") && strstr(out, "worker"));
	CHECK(out && strstr(out, "tid:  4243") && strstr(out, "period:  250us"));
	/* garbage return addresses end the stack in one [unknown] frame */
	CHECK_HAS(out, "   cold_func\n             worker\n             [unknown]\n---");
	out_done(out);
	out = NULL;

	/* per-thread split with -tagfocus */
	st = run_fmt(&out, "go tool pprof -top -symbolize=none -tagfocus=tid=4243 '%s' 2>&1%s%s",
		 pb, "", "");
	CHECK_EQ(st, 0);
	CHECK(out && !strstr(out, "hot_leaf"));
	CHECK_HAS(out, "cold_func");
	out_done(out);
	out = NULL;
	st = run_fmt(&out, "go tool pprof -top -symbolize=none -tagfocus=thread_comm=inlines-w -sample_index=samples '%s' 2>&1%s%s",
		 pb, "", "");
	CHECK_EQ(st, 0);
	/* 105 + 40 samples + 3 lost of this thread */
	CHECK_HAS(out, "accounting for 148,");
	out_done(out);
	out = NULL;

	/* the profile re-encodes cleanly through pprof's own parser */
	st = run_fmt(&out, "go tool pprof -proto -symbolize=none '%s' > '%s.re' 2>&1%s", pb, pb, "");
	CHECK_EQ(st, 0);
	free(out);
	out = NULL;
	st = run_fmt(&out, "go tool pprof -raw -symbolize=none '%s' 2>&1%s%s", pb, "", "");
	CHECK_EQ(st, 0);
	CHECK(out && strstr(out, "period:[250000 nanoseconds]") != NULL);
	CHECK(out && strstr(out, "[FN][FL][LN][IN]") != NULL);
	out_done(out);
	sb_free(&b);
}

static void test_replay_protoc(void)
{
	const char *pb = build_path("unit/e2e.pb.gz");
	char *out = NULL;
	int st;

	if (!need_file(pb, "no e2e profile"))
		return;
	if (!need_cmd("protoc", "protoc not installed"))
		return;
	st = run_fmt(&out, "zcat '%s' | protoc -I'%s' --decode=perftools.profiles.Profile profile.proto%s",
		 pb, getenv("PPROF_PROTO_DIR") ? getenv("PPROF_PROTO_DIR") :
		 "/usr/share/gocode/src/github.com/google/pprof/proto", "");
	CHECK_EQ(st, 0);
	CHECK_HAS(out, "string_table: \"\"\n");
	CHECK_HAS(out, "string_table: \"hot_leaf\"");
	CHECK_HAS(out, "has_inline_frames: true");
	free(out);
	/* independent total: sum of value[0] over samples (awk on the text) */
	st = run_fmt(&out, "zcat '%s' | protoc -I'%s' --decode=perftools.profiles.Profile profile.proto"
		 " | awk '/^sample \\{/{s=1;n=0} s&&/^  value:/{n++; if(n==1) t+=$2} /^}/{s=0} END{print t}'",
		 pb, getenv("PPROF_PROTO_DIR") ? getenv("PPROF_PROTO_DIR") :
		 "/usr/share/gocode/src/github.com/google/pprof/proto");
	CHECK_EQ(st, 0);
	CHECK(out && atoll(out) == 339000000LL);
	if (out && atoll(out) != 339000000LL)
		fprintf(stderr, "    protoc total %s\n", out);
	free(out);
}

static void test_replay_errors(void)
{
	const char *raw = build_path("unit/e2e.raw");
	const char *bad = build_path("unit/bad.raw");
	const char *pb = build_path("unit/bad.pb.gz");
	char *out = NULL, cmd[8192];
	struct sbuf b = { 0 };
	int st;

	if (!need_file(raw, "no e2e stream"))
		return;
	/* cut mid-record: a one-line warning, the profile of what came whole */
	snprintf(cmd, sizeof(cmd), "head -c 5000 '%s' > '%s'", raw, bad);
	CHECK_EQ(system(cmd), 0);
	unlink(pb);
	st = run_read(&out, "--input '%s' -o '%s' 2>&1", bad, pb);
	CHECK_EQ(st, 0);
	CHECK(out && !strncmp(out, "tprof-read: warning: ", 21) &&
	      strstr(out, "stream cut inside a record"));
	CHECK(access(pb, F_OK) == 0);
	free(out);
	/* garbage */
	sb_raw(&b, "this is not a tprof stream, not at all!", 40);
	sb_write(&b, bad);
	unlink(pb);
	st = run_read(&out, "--input '%s' -o '%s' 2>&1", bad, pb);
	CHECK(st != 0);
	CHECK_HAS(out, ": not a tprof stream");
	CHECK(access(pb, F_OK) != 0);
	free(out);
	/* too short to be anything, and empty */
	st = run_fmt(&out, "printf 'abc' > '%s' && '%s' --input '%s' -o '%s' 2>&1", bad,
		 tprof_read_bin(), bad, pb);
	CHECK(st != 0);
	CHECK_HAS(out, ": not a tprof stream");
	free(out);
	st = run_fmt(&out, ": > '%s' && '%s' --input '%s' -o '%s' 2>&1", bad,
		 tprof_read_bin(), bad, pb);
	CHECK(st != 0);
	CHECK_HAS(out, ": not a tprof stream");
	CHECK(access(pb, F_OK) != 0);
	free(out);
	/* unwritable output */
	st = run_read(&out, "--input '%s' -o '%s' 2>&1", raw,
		  "/nonexistent-dir/x.pb.gz");
	CHECK(st != 0);
	CHECK_HAS(out, "tprof-read: /nonexistent-dir/x.pb.gz: output not writable");
	free(out);
	/* missing input */
	st = run_read(&out, "--input '%s%s' -o /dev/null 2>&1", raw, ".missing");
	CHECK(st != 0);
	CHECK_HAS(out, "No such file");
	free(out);
	/* usage errors */
	st = run_read(&out, "%s%s 2>&1", "", "");
	CHECK(st != 0);
	CHECK_HAS(out, "need exactly one of");
	free(out);
	st = run_read(&out, "--period 5us -p 1 %s%s 2>&1", "", "");
	CHECK(st != 0);
	CHECK_HAS(out, "from 10us to 100s");
	free(out);
	/* a terminal on stdout is refused (script gives us a pty) */
	if (have_cmd("script")) {
		snprintf(cmd, sizeof(cmd), "'%s' --input '%s'", tprof_read_bin(), raw);
		st = run_fmt(&out, "script -qec \"%s\" /dev/null%s%s", cmd, "", "");
		CHECK(st != 0);
		CHECK_HAS(out, "refusing to write a binary profile to a terminal");
		free(out);
	}
	/* no device: says how to load the module */
	st = run_read(&out, "--device /nonexistent/tprof -p %s -o /dev/null 2>&1%s",
		  "1", "");
	CHECK(st != 0);
	CHECK_HAS(out, "sudo modprobe tprof");
	free(out);
	sb_free(&b);
}

/* tprof-read launching /bin/true as nobody, with DEV as its device. */
static int denied_as_nobody(const char *dev, char **out)
{
	return run_fmt(out, "setpriv --reuid=65534 --regid=65534 --clear-groups "
		   "'%s' --device %s -o /tmp/tprof-unit-denied.pb.gz -- /bin/true 2>&1",
		   tprof_read_bin(), dev);
}

/*
 * A device the user may not open: the one-line message says who may (its
 * group, or only root) and what to do. Needs root, to drop to nobody.
 */
static void test_denied_device(void)
{
	char dev[] = "/tmp/tprof-unit-dev.XXXXXX";
	char *out = NULL;
	int fd;

	if (geteuid() != 0 || !have_cmd("setpriv") || !getgrnam("adm")) {
		SKIP("needs root, setpriv and group adm");
		return;
	}
	fd = mkstemp(dev);
	CHECK(fd >= 0);
	if (fd < 0)
		return;
	close(fd);
	CHECK_EQ(chown(dev, 0, getgrnam("adm")->gr_gid), 0);
	CHECK_EQ(chmod(dev, 0660), 0);
	CHECK(denied_as_nobody(dev, &out) != 0);
	CHECK(out && strstr(out, "Permission denied: you are not in group adm") &&
	      strstr(out, "adduser") && !strchr(strchr(out, '\n') + 1, '\n'));
	free(out);
	CHECK_EQ(chown(dev, 0, 0), 0);
	CHECK_EQ(chmod(dev, 0600), 0);
	CHECK(denied_as_nobody(dev, &out) != 0);
	CHECK(out && strstr(out, "Permission denied: only root may open it") &&
	      strstr(out, "udev"));
	free(out);
	CHECK(access("/tmp/tprof-unit-denied.pb.gz", F_OK) != 0);
	unlink(dev);
}

static void test_save_raw_roundtrip(void)
{
	const char *raw = build_path("unit/e2e.raw");
	const char *copy = build_path("unit/e2e.copy.raw");
	char *out = NULL;
	int st;

	if (!need_file(raw, "no e2e stream"))
		return;
	st = run_read(&out, "--input '%s' --save-raw '%s' -o /dev/null 2>&1", raw,
		  copy);
	CHECK_EQ(st, 0);
	free(out);
	st = run_fmt(&out, "cmp '%s' '%s'%s", raw, copy, "");
	CHECK_EQ(st, 0);
	free(out);
}

#define DPID 5151

/*
 * An unprivileged session the module ended: 30 x 1ms samples, records of
 * types this reader does not know (a future kernel's, a future tprof-read's),
 * the DENIED record, then the accounting that may still follow it.
 */
static int make_denied_stream(const char *out, unsigned int reason)
{
	uint64_t u[2] = { 0x401010, 0x401100 };
	struct sbuf b = { 0 };
	int i, ret;

	sb_session(&b, DPID, 1000000, 1700000000000000000ULL, 1000);
	sb_maps(&b, DPID, 1001,
		"00400000-00402000 r-xp 00000000 08:01 1 /nonexistent/prog\n");
	sb_thread(&b, DPID, DPID, "victim", 1000);
	for (i = 0; i < 30; i++)
		sb_sample(&b, DPID, DPID, 1000000, 1000000, 2000 + i, 0, NULL,
			  2, u);
	sb_unknown(&b, TEST_REC_UNKNOWN, 20, 2500);
	sb_unknown(&b, TPROF_UREC_BASE + 0x7ff, 0, 2501);
	sb_denied(&b, DPID, reason, 1501000);
	sb_stat(&b, TPROF_REC_THREAD_STAT, DPID, DPID, 30000000, 30, 30000000,
		0, 0, 1000000, "victim", 1500001);
	ret = sb_write(&b, out);
	sb_free(&b);
	return ret;
}

/* Sum of cpu values and the comments of a written profile. */
static int read_profile(const char *path, long long *cpu, long long *n,
			char *comments, size_t clen)
{
	PbProfile *p = load_profile(path);
	size_t i;

	*cpu = *n = 0;
	comments[0] = 0;
	if (!p)
		return -1;
	for (i = 0; i < p->n_sample; i++) {
		*cpu += p->sample[i]->value[0];
		*n += p->sample[i]->value[1];
	}
	for (i = 0; i < p->n_comment; i++) {
		strncat(comments, p->string_table[p->comment[i]],
			clen - strlen(comments) - 2);
		strcat(comments, "\n");
	}
	pb_free(p);
	return 0;
}

static int count(const char *hay, const char *needle)
{
	int n = 0;

	while (hay && (hay = strstr(hay, needle))) {
		n++;
		hay += strlen(needle);
	}
	return n;
}

static void test_replay_denied(void)
{
	static const char creds[] =
		"tprof-read: pid 5151 became non-profilable: its user or group ids changed (a setuid/setgid program, or a set*id call); the session ended\n";
	static const char dumpable[] =
		"tprof-read: pid 5151 became non-profilable: it is no longer dumpable (prctl(PR_SET_DUMPABLE, 0), or it ran a program you may not read); the session ended\n";
	const char *raw = build_path("unit/denied.raw");
	const char *copy = build_path("unit/denied.copy.raw");
	const char *pb = build_path("unit/denied.pb.gz");
	char *out = NULL, comments[4096];
	long long cpu, n;
	int st;

	CHECK_EQ(make_denied_stream(raw, TPROF_DENIED_CREDS), 0);
	unlink(pb);
	/* one line on stderr (stdout is empty), the exit status of a profile */
	st = run_read(&out, "--input '%s' --no-symbolize -o '%s' 2>&1", raw, pb);
	CHECK_EQ(st, 0);
	CHECK_STR(out, creds);
	free(out);
	/* the whole profile of the samples before it, and it says so */
	CHECK_EQ(read_profile(pb, &cpu, &n, comments, sizeof(comments)), 0);
	CHECK_EQ(cpu, 30000000);
	CHECK_EQ(n, 30);
	CHECK(strstr(comments, "tprof: the module ended the session after 1.500ms: pid 5151 became non-profilable: its user or group ids changed"));
	if (t_checks_failed)
		fprintf(stderr, "%s", comments);
	/* --report says it too; the notice stays one line */
	st = run_read(&out, "--input '%s' --no-symbolize --report -o /dev/null 2>&1",
		  raw);
	CHECK_EQ(st, 0);
	CHECK_EQ(count(out, "; the session ended\n"), 1);
	CHECK_HAS(out, "total: 30 samples");
	CHECK_HAS(out, "denied: pid 5151 after 1.500ms: its user or group ids changed");
	out_done(out);
	/* --save-raw keeps it, unknown types included: the same bytes */
	st = run_read(&out, "--input '%s' --no-symbolize --save-raw '%s' -o /dev/null 2>/dev/null && cmp '%s' '%s'",
		  raw, copy, raw, copy);
	CHECK_EQ(st, 0);
	free(out);
	/* the other reason */
	CHECK_EQ(make_denied_stream(raw, TPROF_DENIED_DUMPABLE), 0);
	st = run_read(&out, "--input '%s' --no-symbolize -o /dev/null 2>&1", raw);
	CHECK_EQ(st, 0);
	CHECK_STR(out, dumpable);
	free(out);
}

/* A sample's string label key of sample i, or NULL. */
static const char *slabel(const PbProfile *p, size_t i, const char *key)
{
	size_t j;

	for (j = 0; j < p->sample[i]->n_label; j++) {
		const Perftools__Profiles__Label *l = p->sample[i]->label[j];

		if (!strcmp(p->string_table[l->key], key))
			return l->str ? p->string_table[l->str] : NULL;
	}
	return NULL;
}

static int64_t nlabel(const PbProfile *p, size_t i, const char *key)
{
	size_t j;

	for (j = 0; j < p->sample[i]->n_label; j++) {
		const Perftools__Profiles__Label *l = p->sample[i]->label[j];

		if (!strcmp(p->string_table[l->key], key))
			return l->num;
	}
	return -1;
}

/*
 * A process tree (TPROF_F_CHILDREN): the target 100 (program a at
 * 0x400000), its child 200 that execs b, non-PIE at the same address,
 * 300 not followed (the module's limit) and 400 denied. Each sample is
 * named from its own process's maps and labelled with its program; the
 * report and the comments total each process; 300 and 400 are said.
 */
/*
 * Write the stream in b (freed) to raw, replay it into pb with --report and
 * no symbolization: tprof-read's exit status, its output in *out.
 */
static int replay_report(struct sbuf *b, const char *raw, const char *pb,
			 char **out)
{
	CHECK_EQ(sb_write(b, raw), 0);
	sb_free(b);
	unlink(pb);
	return run_read(out, "--input '%s' --no-symbolize --report -o '%s' 2>&1",
		        raw, pb);
}

/*
 * An off-CPU session (--mode wall): CPU and off-CPU samples of one thread
 * become one profile with cpu, off_cpu and samples columns, each weight in
 * its own column, a state label on every sample, and --report's per-thread
 * off-CPU table with the exact totals filling the thread's time.
 */
static void test_replay_off_cpu(void)
{
	const char *raw = build_path("unit/offcpu.raw");
	const char *pb = build_path("unit/offcpu.pb.gz");
	uint64_t spin[1] = { 0x401010 }, wait[1] = { 0x401020 };
	const uint64_t ns[3] = { 30000000, 5000000, 2000000 };
	int64_t cpu = 0, off = 0, count = 0, by_state[4] = { 0 };
	struct sbuf b = { 0 };
	char *out = NULL;
	PbProfile *p;
	size_t i;
	int st;

	sb_session(&b, 100, 1000000, 1700000000000000000ULL, 1000);
	/* the SESSION record's flags: ENABLE's */
	((struct tprof_urec_session *)b.p)->flags = TPROF_F_OFF_CPU;
	sb_thread(&b, 100, 100, "w", 1000);
	sb_maps(&b, 100, 1001,
		"00400000-00402000 r-xp 00000000 08:01 1 /nonexistent/w\n");
	for (i = 0; i < 10; i++)
		sb_sample(&b, 100, 100, 1000000, 1000000, 2000 + i, 0, NULL, 1, spin);
	sb_off_sample(&b, 100, 100, TPROF_OFF_SLEEPING, 1000000, 30000000,
		      3000, 1, wait);
	sb_off_sample(&b, 100, 100, TPROF_OFF_BLOCKED, 1000000, 5000000,
		      3001, 1, wait);
	sb_off_sample(&b, 100, 100, TPROF_OFF_RUNNABLE, 1000000, 2000000,
		      3002, 1, spin);
	/* 10 + 37 ms of a 47 ms life */
	sb_thread_off(&b, 100, 100, 1000000, ns, 0, 3, 37000000, 1000000,
		      48000000);
	sb_stat(&b, TPROF_REC_THREAD_EXIT, 100, 100, 10000000, 10, 10000000,
		0, 0, 1000000, "w", 48000001);
	sb_proc_exit(&b, 100, 0, 48000002);
	st = replay_report(&b, raw, pb, &out);
	CHECK_EQ(st, 0);
	/* TID COMM ON-CPU SLEEPING UNINTERR RUNNABLE IRQ SUM LIFETIME SUM% ... */
	CHECK_HAS(out, "10.000ms     30.000ms      5.000ms      2.000ms          0ns     47.000ms     47.000ms  100.00     37.000ms    +0.00");
	CHECK_HAS(out, "off-CPU: 3 samples, 37.000ms sampled");
	CHECK_HAS(out, "total: 10 samples, 10.000ms sampled");
	out_done(out);
	p = load_checked(pb);
	if (!p)
		return;
	CHECK_EQ(p->n_sample_type, 3);
	if (p->n_sample_type == 3) {
		CHECK_STR(p->string_table[p->sample_type[0]->type], "cpu");
		CHECK_STR(p->string_table[p->sample_type[1]->type], "off_cpu");
		CHECK_STR(p->string_table[p->sample_type[1]->unit], "nanoseconds");
		CHECK_STR(p->string_table[p->sample_type[2]->type], "samples");
		for (i = 0; i < p->n_sample; i++) {
			const char *state = slabel(p, i, "state");
			int64_t *v = p->sample[i]->value;

			cpu += v[0];
			off += v[1];
			count += v[2];
			/* a sample is CPU or off-CPU time, never both */
			CHECK(!v[0] || !v[1]);
			if (!state)
				by_state[0] = -1;
			else if (!strcmp(state, "running"))
				by_state[0] += v[0];
			else if (!strcmp(state, "sleeping"))
				by_state[1] += v[1];
			else if (!strcmp(state, "uninterruptible"))
				by_state[2] += v[1];
			else if (!strcmp(state, "runnable"))
				by_state[3] += v[1];
		}
	}
	CHECK_EQ(cpu, 10000000);
	CHECK_EQ(off, 37000000);
	CHECK_EQ(count, 13);
	CHECK_EQ(by_state[0], 10000000);
	CHECK_EQ(by_state[1], 30000000);
	CHECK_EQ(by_state[2], 5000000);
	CHECK_EQ(by_state[3], 2000000);
	pb_free(p);
}

/*
 * The module's own counts (#22): ENABLE's count of descendants past the
 * limit (TPROF_RF_PROC_COUNT) and the session's totals at its end
 * (TPROF_RF_PROC_TOTALS) rule over the PROC records a reader saw (one
 * DROPPED record lost with a full ring here), in --report and in the
 * comments alike; a THROTTLE record is said in --report.
 */
static void test_replay_tree_totals(void)
{
	const char *raw = build_path("unit/totals.raw");
	const char *pb = build_path("unit/totals.pb.gz");
	struct tprof_rec_throttle th = {
		.hdr.type = TPROF_REC_THROTTLE, .hdr.size = sizeof(th),
		.hdr.time_ns = 2500, .cpu = 3, .shift = 2, .path_ns = 4000000,
		.window_ns = 10000000, .count = 2,
	};
	long long cpu, n;
	char comments[8192];
	struct sbuf b = { 0 };
	char *out = NULL;

	sb_session(&b, 100, 1000000, 1700000000000000000ULL, 1000);
	sb_proc(&b, 100, 1, "a", TPROF_RF_PROC_EXISTING, 1000);
	sb_thread(&b, 100, 100, "a", 1000);
	/* 5 existing descendants past the limit, counted at ENABLE */
	sb_proc(&b, 0, 5, "", TPROF_RF_PROC_EXISTING | TPROF_RF_PROC_DROPPED |
		TPROF_RF_PROC_COUNT, 1100);
	sb_proc(&b, 200, 100, "a", 0, 2000);
	sb_thread(&b, 200, 200, "a", 2000);
	/* two forks past the limit: one record of them lost */
	sb_proc(&b, 300, 100, "a", TPROF_RF_PROC_DROPPED, 2100);
	sb_raw(&b, &th, sizeof(th));
	th.hdr.time_ns = 2600;
	th.shift = 3;
	th.count = 3;
	sb_raw(&b, &th, sizeof(th));
	sb_stat(&b, TPROF_REC_THREAD_EXIT, 200, 200, 0, 0, 0, 0, 0, 1000000,
		"a", 6000);
	sb_proc_exit(&b, 200, 0, 6001);
	sb_stat(&b, TPROF_REC_THREAD_EXIT, 100, 100, 0, 0, 0, 0, 0, 1000000,
		"a", 7000);
	sb_proc_exit(&b, 100, 0, 7001);
	/* followed 2, not followed 5 + 2 */
	sb_proc(&b, 2, 7, "", TPROF_RF_PROC_TOTALS, 7002);
	CHECK_EQ(replay_report(&b, raw, pb, &out), 0);
	CHECK_HAS(out, "processes: 9, 7 not followed, 0 denied");
	CHECK_HAS(out, "throttled: the module throttled sampling 2 times: it took 40% of CPU 3 (over its sample_cpu_percent), so periods were stretched 8x; weights stay exact");
	CHECK_EQ(read_profile(pb, &cpu, &n, comments, sizeof(comments)), 0);
	CHECK(strstr(comments, "tprof: 9 processes, 7 not followed, 0 denied"));
	if (t_checks_failed)
		fprintf(stderr, "%s\n%s", out ? out : "", comments);
	free(out);
}

static void test_replay_tree(void)
{
	const char *raw = build_path("unit/tree.raw");
	const char *pb = build_path("unit/tree.pb.gz");
	uint64_t u[1] = { 0x401010 };
	struct sbuf b = { 0 };
	char *out = NULL;
	int64_t w100 = 0, w200 = 0, bad = 0;
	PbProfile *p;
	size_t i;
	int st;

	sb_session(&b, 100, 1000000, 1700000000000000000ULL, 1000);
	sb_proc(&b, 100, 1, "a", TPROF_RF_PROC_EXISTING, 1000);
	sb_thread(&b, 100, 100, "a", 1000);
	sb_maps(&b, 100, 1001,
		"00400000-00402000 r-xp 00000000 08:01 1 /nonexistent/a\n");
	sb_proc(&b, 200, 100, "a", 0, 2000);
	sb_thread(&b, 200, 200, "a", 2000);
	sb_exec(&b, 200, "b", 3000);
	sb_maps(&b, 200, 3001,
		"00400000-00402000 r-xp 00000000 08:01 2 /nonexistent/b\n");
	sb_proc(&b, 300, 100, "a", TPROF_RF_PROC_DROPPED, 3500);
	sb_proc(&b, 400, 100, "a", 0, 3600);
	sb_thread(&b, 400, 400, "a", 3600);
	sb_denied(&b, 400, TPROF_DENIED_CREDS, 3700);
	for (i = 0; i < 20; i++)
		sb_sample(&b, 200, 200, 1000000, 1000000, 4000 + i, 0, NULL, 1, u);
	/* 100's samples come after 200's snapshot: still a's code */
	for (i = 0; i < 10; i++)
		sb_sample(&b, 100, 100, 1000000, 1000000, 5000 + i, 0, NULL, 1, u);
	sb_stat(&b, TPROF_REC_THREAD_EXIT, 200, 200, 20000000, 20, 20000000,
		0, 0, 1000000, "b", 6000);
	sb_proc_exit(&b, 200, 0, 6001);
	sb_stat(&b, TPROF_REC_THREAD_EXIT, 400, 400, 0, 0, 0, 0, 0, 1000000,
		"a", 6002);
	sb_stat(&b, TPROF_REC_THREAD_EXIT, 100, 100, 10000000, 10, 10000000,
		0, 0, 1000000, "a", 7000);
	sb_proc_exit(&b, 100, 3 << 8, 7001);
	st = replay_report(&b, raw, pb, &out);
	CHECK_EQ(st, 0);
	CHECK_HAS(out, "processes: 4, 1 not followed, 1 denied");
	CHECK_HAS(out, "tprof-read: pid 400 (a) became non-profilable: its user or group ids changed");
	CHECK_HAS(out, "; nothing more of it is recorded");
	CHECK_HAS(out, " b                      1        20     20.000ms     20.000ms    +0.00  exit 0");
	CHECK_HAS(out, " a                      1        10     10.000ms     10.000ms    +0.00  exit 3");
	CHECK_HAS(out, "not followed (more than 1024 processes)");
	out_done(out);
	p = load_checked(pb);
	if (!p)
		return;
	for (i = 0; i < p->n_sample; i++) {
		const Perftools__Profiles__Location *l =
			p->location[p->sample[i]->location_id[0] - 1];
		const char *file = p->string_table[
			p->mapping[l->mapping_id - 1]->filename];
		int64_t pid = nlabel(p, i, "pid");
		const char *proc = slabel(p, i, "process");

		if (pid == 100) {
			w100 += p->sample[i]->value[0];
			bad += strcmp(file, "/nonexistent/a") ||
			       !proc || strcmp(proc, "a");
		} else if (pid == 200) {
			w200 += p->sample[i]->value[0];
			bad += strcmp(file, "/nonexistent/b") ||
			       !proc || strcmp(proc, "b");
		}
	}
	CHECK_EQ(w100, 10000000);
	CHECK_EQ(w200, 20000000);
	CHECK_EQ(bad, 0);
	for (i = 0; i < p->n_comment; i++)
		if (strstr(p->string_table[p->comment[i]],
			   "process 200 b parent=100 threads=1 samples=20"))
			break;
	CHECK(i < p->n_comment);
	pb_free(p);
}

/* The denied stream with its SESSION's version fields set to abi, rec. */
static int versioned_stream(const char *out, uint32_t abi, uint32_t rec)
{
	struct tprof_urec_session ss;
	FILE *fp;
	int ret;

	ret = make_denied_stream(out, TPROF_DENIED_CREDS);
	fp = ret ? NULL : fopen(out, "r+e");
	if (!fp)
		return -1;
	CHECK_EQ(fread(&ss, sizeof(ss), 1, fp), 1);
	ss.abi_version = abi;
	ss.record_version = rec;
	rewind(fp);
	CHECK_EQ(fwrite(&ss, sizeof(ss), 1, fp), 1);
	return fclose(fp);
}

static void test_replay_versions(void)
{
	const char *raw = build_path("unit/version.raw");
	const char *pb = build_path("unit/version.pb.gz");
	char *out = NULL;
	int st;

	CHECK_EQ(versioned_stream(raw, 99, TPROF_RECORD_VERSION), 0);
	unlink(pb);
	st = run_read(&out, "--input '%s' -o '%s' 2>&1", raw, pb);
	CHECK(st != 0);
	CHECK(out && strstr(out, ": stream of tprof ABI version 99; this tprof-read reads version 1\n") &&
	      strchr(out, '\n') == out + strlen(out) - 1);
	CHECK(access(pb, F_OK) != 0);
	free(out);
	CHECK_EQ(versioned_stream(raw, TPROF_ABI_VERSION, 99), 0);
	st = run_read(&out, "--input '%s' -o '%s' 2>&1", raw, pb);
	CHECK(st != 0);
	CHECK_HAS(out, ": stream of record format version 99; this tprof-read reads version 1\n");
	CHECK(access(pb, F_OK) != 0);
	free(out);
}

/* Cut at every byte of the 20th sample: the 19 before it, and a warning. */
static void test_replay_cut(void)
{
	const char *raw = build_path("unit/cut.raw");
	const char *cut = build_path("unit/cut-part.raw");
	const char *pb = build_path("unit/cut.pb.gz");
	char *out = NULL, comments[4096];
	unsigned char buf[1 << 16];
	size_t len, off = 0, start = 0, end = 0;
	long long cpu, n;
	int samples = 0, st;
	FILE *fp;

	CHECK_EQ(make_denied_stream(raw, TPROF_DENIED_CREDS), 0);
	fp = fopen(raw, "re");
	if (!fp)
		return;
	len = fread(buf, 1, sizeof(buf), fp);
	fclose(fp);
	while (off < len) {
		struct tprof_record r;
		long m = tprof_record_decode(buf + off, len - off, &r);

		if (m <= 0)
			break;
		if (r.hdr.type == TPROF_REC_SAMPLE && ++samples == 20) {
			start = off;
			end = off + m;
			break;
		}
		off += m;
	}
	CHECK(end > start + 8);
	for (off = start + 1; off < end; off += 7) {
		fp = fopen(cut, "we");
		if (!fp)
			break;
		fwrite(buf, 1, off, fp);
		fclose(fp);
		unlink(pb);
		st = run_read(&out, "--input '%s' --no-symbolize -o '%s' 2>&1",
			  cut, pb);
		CHECK_EQ(st, 0);
		CHECK(out && strstr(out, "tprof-read: warning: ") &&
		      strstr(out, "stream cut inside a record") &&
		      strchr(out, '\n') == out + strlen(out) - 1);
		free(out);
		CHECK_EQ(read_profile(pb, &cpu, &n, comments, sizeof(comments)), 0);
		CHECK_EQ(n, 19);
		CHECK_EQ(cpu, 19000000);
		if (t_checks_failed)
			break;
	}
}

/* Refused before any session (here: no device): no profile, no raw file. */
static void test_refused_leaves_no_file(void)
{
	const char *raw = build_path("unit/refused.raw");
	const char *pb = build_path("unit/refused.pb.gz");
	char *out = NULL;
	int st;

	unlink(raw);
	unlink(pb);
	st = run_read(&out, "--device /nonexistent/tprof -p 1 --save-raw '%s' -o '%s' 2>&1",
		  raw, pb);
	CHECK(st != 0);
	CHECK_EQ(count(out, "\n"), 1);
	CHECK(access(raw, F_OK) != 0);
	CHECK(access(pb, F_OK) != 0);
	free(out);
	/* a file that was there is the user's: left in place */
	st = run_fmt(&out, "echo keep > '%s' && '%s' --device /nonexistent/tprof -p 1 --save-raw '%s' -o /dev/null 2>/dev/null; test -e '%s'",
		 raw, tprof_read_bin(), raw, raw);
	CHECK_EQ(st, 0);
	free(out);
	unlink(raw);
}

const struct unit_test e2e_tests[] = {
	{ "e2e: seed stream", test_seed },
	{ "e2e: a process tree's counts are the module's totals (a lost PROC record, ENABLE's count); a throttled session is said", test_replay_tree_totals },
	{ "e2e: a process tree: each process named from its own maps (one address, two programs), labelled, totalled; not followed and denied said", test_replay_tree },
	{ "e2e: --input replay read by go tool pprof (-top, -traces, -tagfocus, -raw, -proto)", test_replay_go_pprof },
	{ "e2e: protoc --decode agrees on totals", test_replay_protoc },
	{ "e2e: cut/garbage/empty input, bad output, usage, terminal, no module", test_replay_errors },
	{ "e2e: --save-raw reproduces the stream byte for byte", test_save_raw_roundtrip },
	{ "e2e: an off-CPU session: cpu, off_cpu and samples columns, a state label, the off-CPU report", test_replay_off_cpu },
	{ "e2e: a DENIED record: one line, the profile of what came before, comments, --report, --save-raw; unknown types skipped", test_replay_denied },
	{ "e2e: refused before a session: no profile, no --save-raw file", test_refused_leaves_no_file },
	{ "e2e: a stream of ABI or record version 99 is refused in one line", test_replay_versions },
	{ "e2e: a stream cut mid-record: the profile of every whole record, a warning", test_replay_cut },
	{ "e2e: a device it may not open: one line naming the group, or root", test_denied_device },
	{ NULL, NULL },
};
