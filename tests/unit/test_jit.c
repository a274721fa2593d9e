// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests: JIT code named from the target's perf map (issue 13 item 5):
 * the parser and its "newer wins" lookup, PERFMAP records naming frames of
 * a replayed stream, the live reader following the target's file (whole
 * lines, rewrites, refusals), and a live session in its own pid and mount
 * namespace recording its /tmp/perf-NSPID.map.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pbload.h"
#include "model/perfmap.h"
#include "live/perfmap_follow.h"
#include "testlib.h"
#include "lib/util.h"

/* a pid no process has (above the 2^22 pid_max limit) */
#define PID 4194999


static void test_perfmap_parse(void)
{
	static const char text[] =
		"1000 100 JS:*hotLoop /app/x.js:3\n"
		"0x2000 0x10 py::f:/app/y.py\n"
		"not a line\n"
		"3000 0 empty size\n"
		"4000 40\n"			/* no name */
		"1040 20 LazyCompile:newer\n"	/* overlaps the first */
		"5000 10 last line without newline";
	struct perfmap pm;
	const struct perfmap_entry *e;

	perfmap__init(&pm);
	perfmap__add_text(&pm, 7, text, strlen(text));
	CHECK_EQ(pm.n, 4);
	CHECK_EQ(pm.bad_lines, 3);
	/* indexed once the stream ends (profile__finish() seals it), not
	 * at every add; an add after that indexes again (below) */
	CHECK(!perfmap__lookup(&pm, 7, 0x1000));
	perfmap__seal(&pm);
	e = perfmap__lookup(&pm, 7, 0x1000);
	CHECK(e && !strcmp(e->name, "JS:*hotLoop /app/x.js:3"));
	/* the newer line wins where they overlap, the older one elsewhere */
	e = perfmap__lookup(&pm, 7, 0x1045);
	CHECK(e && !strcmp(e->name, "LazyCompile:newer"));
	e = perfmap__lookup(&pm, 7, 0x1070);
	CHECK(e && !strcmp(e->name, "JS:*hotLoop /app/x.js:3"));
	e = perfmap__lookup(&pm, 7, 0x10ff);
	CHECK(e && !strcmp(e->name, "JS:*hotLoop /app/x.js:3"));
	CHECK(!perfmap__lookup(&pm, 7, 0x1100));
	e = perfmap__lookup(&pm, 7, 0x200f);
	CHECK(e && !strcmp(e->name, "py::f:/app/y.py"));
	CHECK(!perfmap__lookup(&pm, 7, 0x2010));
	CHECK(!perfmap__lookup(&pm, 7, 0x3000));
	e = perfmap__lookup(&pm, 7, 0x5000);
	CHECK(e && !strcmp(e->name, "last line without newline"));
	/* another pid's map names nothing of pid 7's */
	CHECK(!perfmap__lookup(&pm, 8, 0x1000));
	CHECK(perfmap__has(&pm, 7) && !perfmap__has(&pm, 8));
	/* a later record (a rewritten file, the exit stop's read) wins over
	 * everything before */
	perfmap__add_text(&pm, 7, "1000 100 rewritten\n", 19);
	e = perfmap__lookup(&pm, 7, 0x1045);
	CHECK(e && !strcmp(e->name, "rewritten"));
	CHECK(perfmap__jit_path("") && perfmap__jit_path("[anon:v8]") &&
	      perfmap__jit_path("//anon") &&
	      perfmap__jit_path("/memfd:jit (deleted)"));
	CHECK(!perfmap__jit_path("/usr/bin/node") &&
	      !perfmap__jit_path("[vdso]") && !perfmap__jit_path("[heap]"));
	perfmap__free(&pm);
}

static void sb_perfmap(struct sbuf *b, uint32_t pid, const char *text,
		       uint64_t time_ns)
{
	struct tprof_urec_perfmap r = { .pid = pid, .len = strlen(text) };

	sb_text_rec(b, &r, sizeof(r), TPROF_UREC_PERFMAP, text, r.len,
		    time_ns);
}

/* Samples (count) whose leaf function is fn. */
static long long leaf_samples(const PbProfile *p, const char *fn)
{
	return pb_samples_of(p, fn, NULL);
}

/*
 * A replay names JIT frames (anonymous, [anon:NAME] and memfd mappings)
 * from the stream's PERFMAP records: newer lines over older ones, never
 * the replaying host's /tmp/perf-PID.map, and no file-backed frame.
 */
static void test_replay_perfmap(void)
{
	const char *raw = build_path("unit/jit.raw");
	const char *pb = build_path("unit/jit.pb.gz");
	uint64_t anon[2] = { 0x7f0000000140ULL, 0x7f0000100021ULL };
	uint64_t tagged = 0x7f0000100010ULL, memfd = 0x7f0000200008ULL;
	uint64_t filebacked = 0x7f0000300010ULL, nomap = 0x7f0000000900ULL;
	char host_map[64], *out = NULL;
	struct sbuf b = { 0 };
	PbProfile *p;
	int i;

	sb_session(&b, PID, 1000000, 1700000000000000000ULL, 1000);
	sb_maps(&b, PID, 1001,
		"7f0000000000-7f0000010000 r-xp 00000000 00:00 0 \n"
		"7f0000100000-7f0000110000 r-xp 00000000 00:00 0    [anon:v8]\n"
		"7f0000200000-7f0000210000 r-xp 00000000 00:01 77   /memfd:jit (deleted)\n"
		"7f0000300000-7f0000310000 r-xp 00000000 08:01 1234 /nonexistent/lib.so\n");
	sb_perfmap(&b, PID,
		   "7f0000000100 80 JS:*hotLoop /app/x.js:3\n"
		   "7f0000100000 20 old name\n"
		   "7f0000300000 100 not for a file's code\n", 1002);
	/* the second chunk: overlaps the first's [anon:v8] entry */
	sb_perfmap(&b, PID,
		   "7f0000100000 40 JS:~callerFn /app/x.js:9\n"
		   "7f0000200000 10 py::memfd_fn\n", 1003);
	for (i = 0; i < 5; i++)
		sb_sample(&b, PID, PID, 1000000, 1000000, 2000 + i, 0, NULL,
			  2, anon);
	sb_sample(&b, PID, PID, 1000000, 1000000, 2010, 0, NULL, 1, &tagged);
	sb_sample(&b, PID, PID, 1000000, 1000000, 2011, 0, NULL, 1, &memfd);
	sb_sample(&b, PID, PID, 1000000, 1000000, 2012, 0, NULL, 1,
		  &filebacked);
	sb_sample(&b, PID, PID, 1000000, 1000000, 2013, 0, NULL, 1, &nomap);
	CHECK_EQ(sb_write(&b, raw), 0);
	/* a map of this pid on the replaying host is someone else's */
	snprintf(host_map, sizeof(host_map), "/tmp/perf-%d.map", PID);
	write_text(host_map, "7f0000000900 100 host_file_name\n");
	p = input_profile(raw, pb, "", &out);
	unlink(host_map);
	if (p) {
		CHECK_EQ(leaf_samples(p, "JS:*hotLoop /app/x.js:3"), 5);
		CHECK_EQ(leaf_samples(p, "JS:~callerFn /app/x.js:9"), 1);
		CHECK_EQ(leaf_samples(p, "old name"), 0);
		CHECK_EQ(leaf_samples(p, "py::memfd_fn"), 1);
		CHECK_EQ(leaf_samples(p, "not for a file's code"), 0);
		CHECK_EQ(leaf_samples(p, "host_file_name"), 0);
		pb_free(p);
	}
	out_done(out);
	sb_free(&b);
}

static void write_file(const char *path, const char *text, const char *mode)
{
	FILE *fp = fopen(path, mode);

	CHECK(fp != NULL);
	if (fp) {
		fputs(text, fp);
		fclose(fp);
	}
}

/* What perfmap_follow__read returns now, as a string ("" for nothing). */
static char *follow(struct perfmap_follow *f, uint64_t *off)
{
	char *text;
	size_t len;

	*off = ~0ULL;
	if (perfmap_follow__read(f, &text, &len, off) <= 0)
		return xstrdup("");
	text = xrealloc(text, len + 1);
	text[len] = 0;
	return text;
}

/* any offset: follows() does not look at it */
#define ANY_OFF (~0ULL)

/* follow() now gives want, from offset want_off (ANY_OFF: unchecked). */
static void follows(struct perfmap_follow *f, const char *want,
		    uint64_t want_off)
{
	uint64_t off;
	char *s = follow(f, &off);

	CHECK_STR(s, want);
	if (want_off != ANY_OFF)
		CHECK_EQ(off, want_off);
	free(s);
}

/*
 * The live reader takes whole lines as the file grows, starts over when it
 * is rewritten, and refuses a symlink and a file older than the target.
 */
static void test_follow(void)
{
	struct perfmap_follow f;
	char path[64];
	struct timeval old[2] = { { 1000000000, 0 }, { 1000000000, 0 } };

	snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)getpid());
	unlink(path);
	perfmap_follow__init(&f, getpid());
	follows(&f, "", ANY_OFF);
	write_file(path, "1000 10 a\n2000 10 b", "we");
	follows(&f, "1000 10 a\n", 0);
	/* the writer finishes its line and adds one */
	write_file(path, "\n3000 10 c\n", "ae");
	follows(&f, "2000 10 b\n3000 10 c\n", 10);
	follows(&f, "", ANY_OFF);
	/* rewritten shorter: from the start again */
	write_file(path, "4000 10 d\n", "we");
	follows(&f, "4000 10 d\n", 0);
	/* replaced by another file (rename over it): from the start */
	write_file("/tmp/tprof-jit-new.map", "5000 10 e\n6000 10 f\n", "we");
	CHECK_EQ(rename("/tmp/tprof-jit-new.map", path), 0);
	follows(&f, "5000 10 e\n6000 10 f\n", 0);
	/* a symlink (to a file we may read, but the target need not) */
	unlink(path);
	CHECK_EQ(symlink("/etc/hostname", path), 0);
	perfmap_follow__init(&f, getpid());
	follows(&f, "", ANY_OFF);
	/* left over from an earlier process of this pid */
	unlink(path);
	write_file(path, "7000 10 stale\n", "we");
	CHECK_EQ(utimes(path, old), 0);
	perfmap_follow__init(&f, getpid());
	follows(&f, "", ANY_OFF);
	unlink(path);
}

/* The PERFMAP records' text in the stream at path, concatenated. */
static char *stream_perfmap_text(const char *path, uint32_t *pid)
{
	struct sbuf text = { 0 };
	struct tprof_record r;
	struct rec_iter it;

	rec_iter_file(&it, path);
	while (rec_next(&it, &r))
		if (r.hdr.type == TPROF_UREC_PERFMAP) {
			sb_raw(&text, r.text, r.u.perfmap.len);
			*pid = r.u.perfmap.pid;
		}
	sb_raw(&text, "", 1);
	rec_iter_free(&it);
	return (char *)text.p;
}

/*
 * A live session records the target's perf map in --save-raw: the file in
 * its own /tmp, named by its pid in its own pid namespace (unshare: a
 * private /tmp and pid 1 inside), not the host's /tmp/perf-PID.map.
 */
static void test_live_records_perfmap(void)
{
	const char *dev = build_path("unit/tprof-fakedev");
	const char *raw = build_path("unit/jit-live.raw");
	char host_map[64], *out = NULL, *text;
	int fds[2], st;
	uint32_t pid = 0;
	pid_t child, target = 0;

	if (!need_fakedev(dev))
		return;
	if (system("unshare -rpfm --mount-proc true 2>/dev/null")) {
		SKIP("unshare -rpfm (user, pid and mount namespaces) not allowed here");
		return;
	}
	CHECK_EQ(pipe(fds), 0);
	child = fork();
	if (child == 0) {
		/* inside: pid 1 writes its map to its own /tmp, then waits */
		dup2(fds[1], 1);
		close(fds[0]);
		execlp("unshare", "unshare", "-rpfm", "--mount-proc", "sh", "-c",
		       "mount -t tmpfs jit /tmp && "
		       "printf '7f0000000100 80 JS:*inNamespace\\n' > /tmp/perf-$$.map && "
		       "echo ready && exec sleep 30", (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	{
		char ready[16] = "";
		ssize_t n = read(fds[0], ready, sizeof(ready) - 1);

		CHECK(n > 0 && !strncmp(ready, "ready", 5));
	}
	close(fds[0]);
	/* pid 1 inside: unshare's child (-f), the shell that exec'd sleep */
	{
		char cmd[128];

		snprintf(cmd, sizeof(cmd), "pgrep -P %d", (int)child);
		if (run_capture(cmd, &out) == 0 && out)
			target = atoi(out);
		free(out);
		out = NULL;
	}
	CHECK(target > 0);
	/* the host's file of that pid must not be the one read */
	snprintf(host_map, sizeof(host_map), "/tmp/perf-%d.map", (int)target);
	write_file(host_map, "7f0000000100 80 host_name\n", "we");
	unlink(raw);
	st = run_fake_read(&out, NULL, NULL, dev,
			   "-p %d --save-raw '%s' -o /dev/null 2>&1",
			   (int)target, raw);
	unlink(host_map);
	kill(child, SIGKILL);
	if (target > 0)
		kill(target, SIGKILL);
	waitpid(child, NULL, 0);
	CHECK_EQ(st, 0);
	text = stream_perfmap_text(raw, &pid);
	CHECK_STR(text, "7f0000000100 80 JS:*inNamespace\n");
	CHECK_EQ(pid, target);
	free(text);
	out_done(out);
}

const struct unit_test jit_tests[] = {
	{ "jit: perf map lines, newer entries win where they overlap, bad lines skipped", test_perfmap_parse },
	{ "jit: a replay names anonymous, [anon:] and memfd JIT frames from PERFMAP records, not the host's /tmp", test_replay_perfmap },
	{ "jit: the live reader takes whole lines, starts over on a rewrite, refuses symlinks and stale files", test_follow },
	{ "jit: a live session records the perf map of a target in its own pid and mount namespace", test_live_records_perfmap },
	{ NULL, NULL },
};
