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

#define S(p, i) ((p)->string_table[(i)])

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
	/* a later record (a rewritten file) wins over everything before */
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

	r.hdr.type = TPROF_UREC_PERFMAP;
	r.hdr.size = (sizeof(r) + r.len + 7) & ~7UL;
	r.hdr.time_ns = time_ns;
	sb_raw(b, &r, sizeof(r));
	sb_raw(b, text, r.len);
	while (b->len % 8)
		sb_raw(b, "", 1);
}

/* Samples (count) whose leaf function is fn. */
static long long leaf_samples(const PbProfile *p, const char *fn)
{
	long long n = 0;
	size_t i;

	for (i = 0; i < p->n_sample; i++) {
		const Perftools__Profiles__Location *l;

		if (!p->sample[i]->n_location_id)
			continue;
		l = p->location[p->sample[i]->location_id[0] - 1];
		if (l->n_line && !strcmp(S(p, p->function[
				l->line[l->n_line - 1]->function_id - 1]->name), fn))
			n += p->sample[i]->value[1];
	}
	return n;
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
	FILE *fp;
	int st, i;

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
	fp = fopen(host_map, "we");
	if (fp) {
		fputs("7f0000000900 100 host_file_name\n", fp);
		fclose(fp);
	}
	unlink(pb);
	st = run_fmt(&out, "'%s' --input '%s' -o '%s' 2>&1", tprof_read_bin(),
		     raw, pb);
	unlink(host_map);
	CHECK_EQ(st, 0);
	p = load_profile(pb);
	CHECK(p != NULL);
	if (p) {
		CHECK_EQ(leaf_samples(p, "JS:*hotLoop /app/x.js:3"), 5);
		CHECK_EQ(leaf_samples(p, "JS:~callerFn /app/x.js:9"), 1);
		CHECK_EQ(leaf_samples(p, "old name"), 0);
		CHECK_EQ(leaf_samples(p, "py::memfd_fn"), 1);
		CHECK_EQ(leaf_samples(p, "not for a file's code"), 0);
		CHECK_EQ(leaf_samples(p, "host_file_name"), 0);
		perftools__profiles__profile__free_unpacked(p, NULL);
	}
	if (t_checks_failed && out)
		fprintf(stderr, "%s", out);
	free(out);
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

/*
 * The live reader takes whole lines as the file grows, starts over when it
 * is rewritten, and refuses a symlink and a file older than the target.
 */
static void test_follow(void)
{
	struct perfmap_follow f;
	char path[64], *s;
	uint64_t off;
	struct timeval old[2] = { { 1000000000, 0 }, { 1000000000, 0 } };

	snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)getpid());
	unlink(path);
	perfmap_follow__init(&f, getpid());
	s = follow(&f, &off);
	CHECK_STR(s, "");
	free(s);
	write_file(path, "1000 10 a\n2000 10 b", "we");
	s = follow(&f, &off);
	CHECK_STR(s, "1000 10 a\n");
	CHECK_EQ(off, 0);
	free(s);
	/* the writer finishes its line and adds one */
	write_file(path, "\n3000 10 c\n", "ae");
	s = follow(&f, &off);
	CHECK_STR(s, "2000 10 b\n3000 10 c\n");
	CHECK_EQ(off, 10);
	free(s);
	s = follow(&f, &off);
	CHECK_STR(s, "");
	free(s);
	/* rewritten shorter: from the start again */
	write_file(path, "4000 10 d\n", "we");
	s = follow(&f, &off);
	CHECK_STR(s, "4000 10 d\n");
	CHECK_EQ(off, 0);
	free(s);
	/* replaced by another file (rename over it): from the start */
	write_file("/tmp/tprof-jit-new.map", "5000 10 e\n6000 10 f\n", "we");
	CHECK_EQ(rename("/tmp/tprof-jit-new.map", path), 0);
	s = follow(&f, &off);
	CHECK_STR(s, "5000 10 e\n6000 10 f\n");
	CHECK_EQ(off, 0);
	free(s);
	/* a symlink (to a file we may read, but the target need not) */
	unlink(path);
	CHECK_EQ(symlink("/etc/hostname", path), 0);
	perfmap_follow__init(&f, getpid());
	s = follow(&f, &off);
	CHECK_STR(s, "");
	free(s);
	/* left over from an earlier process of this pid */
	unlink(path);
	write_file(path, "7000 10 stale\n", "we");
	CHECK_EQ(utimes(path, old), 0);
	perfmap_follow__init(&f, getpid());
	s = follow(&f, &off);
	CHECK_STR(s, "");
	free(s);
	unlink(path);
}

/* The PERFMAP records' text in the stream at path, concatenated. */
static char *stream_perfmap_text(const char *path, uint32_t *pid)
{
	size_t len, off = 0;
	unsigned char *buf = read_whole(path, &len);
	struct sbuf text = { 0 };

	while (off < len) {
		struct tprof_record r;
		long k = tprof_record_decode(buf + off, len - off, &r);

		if (k <= 0)
			break;
		if (r.hdr.type == TPROF_UREC_PERFMAP) {
			sb_raw(&text, r.text, r.u.perfmap.len);
			*pid = r.u.perfmap.pid;
		}
		off += k;
	}
	sb_raw(&text, "", 1);
	free(buf);
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
	FILE *fp;

	if (access(build_path("unit/fakedev.so"), R_OK)) {
		SKIP("fakedev.so not built");
		return;
	}
	if (system("unshare -rpfm --mount-proc true 2>/dev/null")) {
		SKIP("unshare -rpfm (user, pid and mount namespaces) not allowed here");
		return;
	}
	fp = fopen(dev, "we");
	if (fp)
		fclose(fp);
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
	st = run_fmt(&out, "ASAN_OPTIONS=verify_asan_link_order=0:detect_leaks=1 LD_PRELOAD='%s' '%s' --device '%s' -p %d --save-raw '%s' -o /dev/null 2>&1",
		     build_path("unit/fakedev.so"), tprof_read_bin(), dev,
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
	if (t_checks_failed && out)
		fprintf(stderr, "%s", out);
	free(text);
	free(out);
}

const struct unit_test jit_tests[] = {
	{ "jit: perf map lines, newer entries win where they overlap, bad lines skipped", test_perfmap_parse },
	{ "jit: a replay names anonymous, [anon:] and memfd JIT frames from PERFMAP records, not the host's /tmp", test_replay_perfmap },
	{ "jit: the live reader takes whole lines, starts over on a rewrite, refuses symlinks and stale files", test_follow },
	{ "jit: a live session records the perf map of a target in its own pid and mount namespace", test_live_records_perfmap },
	{ NULL, NULL },
};
