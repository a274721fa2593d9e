// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests: output files (issue 13, items 11 and 14): --save-raw that
 * fails leaves nothing and exits non-zero, no output may be the --input
 * stream, -o keeps an old file's mode and owner and refuses a dangling
 * symlink, a FIFO at a mapping's path does not hang symbolization.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "testlib.h"

#define PID 6161

/* A small whole stream: one mapping at path, 20 samples in it. */
static int small_stream(const char *out, const char *path)
{
	uint64_t u[1] = { 0x401010 };
	struct sbuf b = { 0 };
	char maps[4200];
	int i, ret;

	snprintf(maps, sizeof(maps),
		 "00400000-00402000 r-xp 00000000 08:01 1 %s\n", path);
	sb_session(&b, PID, 1000000, 1700000000000000000ULL, 1000);
	sb_maps(&b, PID, 1001, maps);
	sb_thread(&b, PID, PID, "small", 1002);
	for (i = 0; i < 20; i++)
		sb_sample(&b, PID, PID, 1000000, 1000000, 2000 + i, 0, NULL,
			  1, u);
	ret = sb_write(&b, out);
	sb_free(&b);
	return ret;
}

static long file_size(const char *path)
{
	struct stat st;

	return stat(path, &st) ? -1 : (long)st.st_size;
}

/* files in dir whose name contains part */
static int count_files(const char *dir, const char *part)
{
	char *out = NULL;
	int n;

	run_fmt(&out, "ls -a '%s' | grep -c -- '%s'", dir, part);
	n = out ? atoi(out) : -1;
	free(out);
	return n;
}

/* build/unit/out/NAME, the folder made first (a ring of four names) */
static const char *out_file(const char *name)
{
	static char bufs[4][4200];
	static int next;
	char *b = bufs[next++ % 4];
	const char *dir = build_path("unit/out");

	mkdir(dir, 0755);
	snprintf(b, sizeof(bufs[0]), "%s/%s", dir, name);
	return b;
}

static void test_save_raw_fails(void)
{
	const char *dir = build_path("unit/out");
	char raw[4200], in[4200], *out = NULL;
	int st;

	run_fmt(&out, "rm -rf '%s' && mkdir -p '%s'", dir, dir);
	free(out);
	snprintf(in, sizeof(in), "%s/in.raw", dir);
	snprintf(raw, sizeof(raw), "%s/saved.raw", dir);
	CHECK_EQ(small_stream(in, "/nonexistent/prog"), 0);
	/* disk full: one line, non-zero */
	st = run_read(&out, "--input '%s' --save-raw /dev/full -o /dev/null 2>&1",
		      in);
	CHECK(st != 0);
	CHECK_STR(out, "tprof-read: /dev/full: write: No space left on device\n");
	free(out);
	/*
	 * A regular file that cannot grow (RLIMIT_FSIZE, SIGXFSZ ignored so
	 * write() says EFBIG): the file that was there stays as it was, and
	 * no temp file is left.
	 */
	run_fmt(&out, "echo keep > '%s'", raw);
	free(out);
	st = run_fmt(&out, "trap '' XFSZ; ulimit -f 1; '%s' --input '%s' --save-raw '%s' -o /dev/null 2>&1",
		     tprof_read_bin(), in, raw);
	CHECK(st != 0);
	CHECK(out && !strncmp(out, "tprof-read: ", 12) &&
	      strstr(out, ": write: File too large\n"));
	free(out);
	CHECK_EQ(file_size(raw), 5);
	CHECK_EQ(count_files(dir, ".tmp."), 0);
	/* and it works where it can */
	st = run_read(&out, "--input '%s' --save-raw '%s' -o /dev/null 2>&1 && cmp '%s' '%s'",
		      in, raw, in, raw);
	CHECK_EQ(st, 0);
	free(out);
}

/*
 * --format through the CLI: folded to stdout (a name the stream has no
 * file for is its file name in brackets), folded:off_cpu of a CPU-only
 * stream is empty, an unknown format is one line naming the formats,
 * exit 2 and no file.
 */
static void test_format_cli(void)
{
	const char *in = out_file("format.raw"), *pb = out_file("format.out");
	char *out = NULL;
	int st;

	CHECK_EQ(small_stream(in, "/nonexistent/libsmall.so"), 0);
	st = run_read(&out, "--input '%s' --format folded -o - 2>/dev/null",
		      in);
	CHECK_EQ(st, 0);
	CHECK_STR(out, "small;[libsmall.so] 20000000\n");
	free(out);
	unlink(pb);
	st = run_read(&out, "--input '%s' --format folded:off_cpu -o '%s' 2>&1",
		      in, pb);
	CHECK_EQ(st, 0);
	CHECK_EQ(file_size(pb), 0);
	free(out);
	unlink(pb);
	st = run_read(&out, "--input '%s' --format svg -o '%s' 2>&1",
		      in, pb);
	CHECK_EQ(st, 2);
	CHECK(out && strstr(out, "svg") && strstr(out, "folded:off_cpu") &&
	      strchr(out, '\n') == out + strlen(out) - 1);
	CHECK(access(pb, F_OK) != 0);
	out_done(out);
}

static void test_not_the_input(void)
{
	const char *in = out_file("self.raw"), *lnk = out_file("self-link.raw");
	char *out = NULL;
	long size;
	int st;

	CHECK_EQ(small_stream(in, "/nonexistent/prog"), 0);
	size = file_size(in);
	st = run_read(&out, "--input '%s' --save-raw '%s' -o /dev/null 2>&1",
		      in, in);
	CHECK_EQ(st, 2);
	CHECK_HAS(out, "--save-raw would overwrite the --input stream\n");
	free(out);
	/* another name for the same inode */
	unlink(lnk);
	CHECK_EQ(link(in, lnk), 0);
	st = run_read(&out, "--input '%s' --save-raw '%s' -o /dev/null 2>&1",
		      in, lnk);
	CHECK_EQ(st, 2);
	free(out);
	st = run_read(&out, "--input '%s' -o '%s' 2>&1", in, lnk);
	CHECK_EQ(st, 2);
	CHECK_HAS(out, "-o would overwrite the --input stream\n");
	free(out);
	CHECK_EQ(file_size(in), size);
	unlink(lnk);
	/* an input that is not a stream: no --save-raw file either */
	st = run_fmt(&out, "echo not-a-stream > '%s.txt' && '%s' --input '%s.txt' --save-raw '%s' -o /dev/null 2>&1",
		     in, tprof_read_bin(), in, lnk);
	CHECK(st != 0);
	free(out);
	CHECK(access(lnk, F_OK) != 0);
}

static void test_fifo_mapping(void)
{
	const char *in = out_file("fifo.raw"), *fifo = out_file("prog.fifo");
	char *out = NULL;
	int st;

	unlink(fifo);
	CHECK_EQ(mkfifo(fifo, 0600), 0);
	CHECK_EQ(small_stream(in, fifo), 0);
	/* before: open() of the FIFO waited for a writer forever */
	st = run_fmt(&out, "timeout 60 '%s' --input '%s' -o /dev/null 2>&1",
		     tprof_read_bin(), in);
	CHECK_EQ(st, 0);
	CHECK_STR(out, "");
	free(out);
	unlink(fifo);
}

static void test_output_keeps_attrs(void)
{
	const char *in = out_file("attrs.raw"), *pb = out_file("attrs.pb.gz");
	const char *lnk = out_file("dangling.pb.gz");
	char *out = NULL;
	struct stat st;
	int rc;

	CHECK_EQ(small_stream(in, "/nonexistent/prog"), 0);
	run_fmt(&out, "echo old > '%s'", pb);
	free(out);
	CHECK_EQ(chmod(pb, 0640), 0);
	if (geteuid() == 0)
		CHECK_EQ(chown(pb, 1234, 5678), 0);
	rc = run_fmt(&out, "umask 022; '%s' --input '%s' -o '%s' 2>&1",
		     tprof_read_bin(), in, pb);
	CHECK_EQ(rc, 0);
	CHECK_STR(out, "");
	free(out);
	CHECK(stat(pb, &st) == 0 && st.st_size > 20);
	CHECK_EQ(st.st_mode & 07777, 0640);
	if (geteuid() == 0) {
		CHECK_EQ(st.st_uid, 1234);
		CHECK_EQ(st.st_gid, 5678);
	}
	CHECK_EQ(count_files(build_path("unit/out"), ".tmp."), 0);
	/* a new file: 0666 less the umask */
	unlink(pb);
	rc = run_fmt(&out, "umask 027; '%s' --input '%s' -o '%s' 2>&1",
		     tprof_read_bin(), in, pb);
	CHECK_EQ(rc, 0);
	free(out);
	CHECK(stat(pb, &st) == 0 && (st.st_mode & 07777) == 0640);
	/* a dangling symlink: refused, the link left as it was */
	unlink(lnk);
	CHECK_EQ(symlink("nowhere/target.pb.gz", lnk), 0);
	rc = run_read(&out, "--input '%s' -o '%s' 2>&1", in, lnk);
	CHECK(rc != 0);
	CHECK(out && strstr(out, "output is a symlink to a missing file") &&
	      strchr(out, '\n') == out + strlen(out) - 1);
	free(out);
	CHECK(lstat(lnk, &st) == 0 && S_ISLNK(st.st_mode));
	rc = run_read(&out, "--input '%s' --save-raw '%s' -o /dev/null 2>&1",
		      in, lnk);
	CHECK(rc != 0);
	CHECK_HAS(out, "a symlink to a missing file");
	free(out);
	CHECK(lstat(lnk, &st) == 0 && S_ISLNK(st.st_mode));
	unlink(lnk);
	unlink(pb);
}

/* --report has every thread (the profile's comments stop at 100); '-' names
 * a thread no record named. */
static void test_report_all_threads(void)
{
	const char *raw = out_file("threads.raw");
	uint64_t u[1] = { 0x401010 };
	struct sbuf b = { 0 };
	char *out = NULL;
	int tid, st;

	sb_session(&b, PID, 1000000, 1700000000000000000ULL, 1000);
	for (tid = PID; tid < PID + 150; tid++) {
		if (tid != PID + 7)
			sb_thread(&b, PID, tid, "worker", 1001);
		sb_sample(&b, PID, tid, 1000000, 1000000, 2000, 0, NULL, 1, u);
	}
	CHECK_EQ(sb_write(&b, raw), 0);
	sb_free(&b);
	st = run_read(&out, "--input '%s' --no-symbolize --report -o /dev/null 2>&1 | grep -c ' worker '",
		      raw);
	CHECK_EQ(st, 0);
	CHECK(out && atoi(out) == 149);
	free(out);
	st = run_read(&out, "--input '%s' --no-symbolize --report -o /dev/null 2>&1 | grep '^ *%d '",
		      raw, PID + 7);
	CHECK_EQ(st, 0);
	CHECK(out && !strncmp(out + strspn(out, " "), "6168 -  ", 8));
	out_done(out);
}

const struct unit_test output_tests[] = {
	{ "output: --save-raw on a full disk exits non-zero, leaves the old file, no temp", test_save_raw_fails },
	{ "output: --save-raw or -o naming the --input stream (any link) is refused", test_not_the_input },
	{ "output: a FIFO at a mapping's path does not hang the replay", test_fifo_mapping },
	{ "output: -o keeps an old file's mode and owner, refuses a dangling symlink", test_output_keeps_attrs },
	{ "output: --report lists every thread, '-' for an unknown comm", test_report_all_threads },
	{ "output: --format folded through the CLI; folded:off_cpu; an unknown format is one line, exit 2, no file", test_format_cli },
	{ NULL, NULL },
};
