// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests: the reader's memory (issue 13 item 10), measured as peak RSS
 * of the optimised tprof-read (ASan's would measure ASan) replaying
 * synthetic streams: flat in the number of samples, and at most 600 bytes
 * per distinct 30-frame stack (1339 before: one malloc'd stack per
 * aggregated sample, resolved sample and protobuf-c Sample message, all
 * alive at once).
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testlib.h"
#include "lib/util.h"

#define PID 4194997
#define BASE 0x555555554000ULL
#define DEPTH 30

/*
 * Peak RSS in KiB of `tprof-read --input raw -o out`, or -1. Through
 * python3: a child forked from this (large, ASan) process would count our
 * pages as its own peak (rusage keeps the peak of the image before exec).
 */
static long replay_rss_kb(const char *bin, const char *raw, const char *out)
{
	char *text = NULL;
	long kb = -1;

	if (!run_fmt(&text, "python3 -c 'import resource, subprocess, sys; "
		     "sys.exit(1) if subprocess.run(sys.argv[1:]).returncode else "
		     "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)' "
		     "'%s' --input '%s' -o '%s'", bin, raw, out) && text)
		kb = atol(text);
	free(text);
	return kb > 0 ? kb : -1;
}

/*
 * A stream of n samples over nstacks distinct stacks (one thread each
 * stack is sampled on), addresses in bin's text, written to raw.
 */
static int write_stream(const char *bin, const char *raw, unsigned long n,
			unsigned long nstacks)
{
	char *maps = fake_maps(bin, BASE), *line;
	unsigned long long lo = 0, hi = 0;
	struct sbuf b = { 0 };
	uint64_t ips[DEPTH];
	unsigned long i, f;
	int ret;

	for (line = maps; line && *line;
	     line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
		char perms[8] = "";

		if (sscanf(line, "%llx-%llx %7s", &lo, &hi, perms) == 3 &&
		    !strcmp(perms, "r-xp"))
			break;
		lo = hi = 0;
	}
	/* the frames below span 0x3c00 bytes of text */
	if (hi < lo + 0x4000) {
		free(maps);
		return -1;
	}
	sb_session(&b, PID, 1000000, 1700000000000000000ULL, 1000);
	sb_maps(&b, PID, 1001, maps);
	sb_thread(&b, PID, PID, "scale", 1002);
	for (i = 0; i < n; i++) {
		unsigned long s = i % nstacks;

		/* two bits of s per frame: every stack its own frames */
		for (f = 0; f < DEPTH; f++)
			ips[f] = lo + 0x100 + f * 0x200 +
				 ((s >> (2 * (f % 16))) & 3) * 0x40 + (f > 0);
		sb_sample(&b, PID, PID, 1000000, 1000000, 2000 + i, 0, NULL,
			  DEPTH, ips);
	}
	ret = sb_write(&b, raw);
	sb_free(&b);
	free(maps);
	return ret;
}

/* A memory test's files: the optimised build, its stream and profile. */
struct scale_files {
	const char *bin, *raw, *out;
};

/*
 * f for the test named name (unit/NAME.raw, unit/NAME.pb.gz); false, the
 * test skipped, where build/tprof-read (the optimised build) is not built.
 */
static bool scale_files(struct scale_files *f, const char *name)
{
	static char raw[256], out[256];

	f->bin = build_path("tprof-read");
	snprintf(raw, sizeof(raw), "unit/%s.raw", name);
	snprintf(out, sizeof(out), "unit/%s.pb.gz", name);
	f->raw = build_path(raw);
	f->out = build_path(out);
	if (!access(f->bin, X_OK))
		return true;
	SKIP("build/tprof-read (the optimised build) not built");
	return false;
}

static void test_memory(void)
{
	long base, many_samples, many_stacks;
	struct scale_files f;

	if (!scale_files(&f, "scale"))
		return;
	CHECK_EQ(write_stream(f.bin, f.raw, 1000, 1000), 0);
	base = replay_rss_kb(f.bin, f.raw, f.out);
	/* 400 times the samples, the same stacks: the same memory */
	CHECK_EQ(write_stream(f.bin, f.raw, 400000, 1000), 0);
	many_samples = replay_rss_kb(f.bin, f.raw, f.out);
	/* 200,000 distinct stacks */
	CHECK_EQ(write_stream(f.bin, f.raw, 200000, 200000), 0);
	many_stacks = replay_rss_kb(f.bin, f.raw, f.out);
	unlink(f.raw);
	CHECK(base > 0 && many_samples > 0 && many_stacks > 0);
	fprintf(stderr, "    peak RSS: %ld KiB (1,000 samples), %ld KiB (400,000 samples), %ld KiB (200,000 stacks: %ld bytes a stack)\n",
		base, many_samples, many_stacks,
		(many_stacks - base) * 1024 / 200000);
	CHECK(many_samples - base < 2048);
	CHECK((many_stacks - base) * 1024 / 200000 <= 600);
}

/* A process tree of n processes: PROC records and each one's exit. */
static int write_tree(const char *raw, unsigned long n)
{
	struct sbuf b = { 0 };
	unsigned long i;
	int ret;

	sb_session(&b, PID, 1000000, 1700000000000000000ULL, 1000);
	for (i = 0; i < n; i++)
		sb_proc(&b, 100000 + i, i ? 100000 + i / 2 : PID, "child", 0,
			2000 + i);
	for (i = 0; i < n; i++)
		sb_proc_exit(&b, 100000 + i, 0, 2000 + n + i);
	ret = sb_write(&b, raw);
	sb_free(&b);
	return ret;
}

/*
 * A process tree's memory (issue 23): at most 650 bytes a process over
 * 100,000 (PROC, PROC_EXIT). Before: 967 (a thread's 16-entry comm array,
 * 512 bytes, for one name; arrays' new room zeroed); after: 584 (the
 * thread's own 288 bytes the most of it).
 */
static void test_tree_memory(void)
{
	struct scale_files f;
	long base, big, per;

	if (!scale_files(&f, "scale-tree"))
		return;
	CHECK_EQ(write_tree(f.raw, 1000), 0);
	base = replay_rss_kb(f.bin, f.raw, f.out);
	CHECK_EQ(write_tree(f.raw, 101000), 0);
	big = replay_rss_kb(f.bin, f.raw, f.out);
	unlink(f.raw);
	CHECK(base > 0 && big > 0);
	per = (big - base) * 1024 / 100000;
	fprintf(stderr, "    peak RSS: %ld KiB (1,000 processes), %ld KiB (101,000: %ld bytes a process)\n",
		base, big, per);
	CHECK(per <= 650);
}

const struct unit_test scale_tests[] = {
	{ "scale: reader memory flat in samples, at most 600 bytes per distinct stack", test_memory },
	{ "scale: a process tree costs at most 650 bytes a process", test_tree_memory },
	{ NULL, NULL },
};
