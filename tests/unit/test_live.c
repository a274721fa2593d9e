// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests: the live loop against a fake ring (fakering.so before
 * fakedev.so) that fills at a steady rate and drops what is not read in
 * time. The count of drops is the fake ring's, not tprof-read's.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testlib.h"

/* a device file of n SAMPLE records of one size, of a process that is not */
static int ring_file(const char *dev, int n)
{
	struct sbuf b = { 0 };
	int i, ret;

	for (i = 0; i < n; i++) {
		uint64_t u[1] = { 0x1000 + (uint64_t)(i % 64) * 16 };

		sb_sample(&b, 999999, 999999, 1000000, 1000000, 1000 + i, 0,
			  NULL, 1, u);
	}
	ret = sb_write(&b, dev);
	sb_free(&b);
	return ret;
}

/* the fake ring's own count ("fakering: ... NAME N"), or -1 */
static long long fake_count(const char *out, const char *name)
{
	const char *l = out ? strstr(out, "fakering: produced ") : NULL;
	const char *v = l ? strstr(l, name) : NULL;

	return v ? atoll(v + strlen(name)) : -1;
}

static bool have_fakes(void)
{
	if (access(build_path("unit/fakedev.so"), R_OK) ||
	    access(build_path("unit/fakering.so"), R_OK) ||
	    access(build_path("progs/inlines"), X_OK)) {
		SKIP("fakedev.so, fakering.so or progs/inlines not built");
		return false;
	}
	return true;
}

/*
 * A launched command whose 8 threads exit: the loop handles a ptrace stop
 * at each exit (and at exec, and the command's own exit), each reading the
 * maps, here 600 ms apiece (FAKERING_MAPS_DELAY_US: a TCG guest's stop).
 * The ring holds 300 ms of records (1200 at 4000/s): room for the drain
 * thread to wait for a CPU on a loaded host, none for a loop that reads
 * the rings itself between stops (it lost ~1200 records per stop).
 */
static void test_live_stops_lose_nothing(void)
{
	const char *dev = build_path("unit/tprof-fakedev-stops");
	long long dropped, delivered, maps;
	char *out = NULL;
	int st;

	if (!have_fakes())
		return;
	CHECK_EQ(ring_file(dev, 64), 0);
	st = run_fmt(&out, "TPROF_READ_DRAIN=1 FAKERING_RATE=4000 FAKERING_RECORDS=1200 FAKERING_WEIGHT_NS=1000000 FAKERING_MAPS_DELAY_US=600000 ASAN_OPTIONS=verify_asan_link_order=0:detect_leaks=1 LD_PRELOAD='%s %s' '%s' --device '%s' --report --no-children -o /dev/null -- '%s' -t 8 -s 0.4 2>&1",
		     build_path("unit/fakering.so"),
		     build_path("unit/fakedev.so"), tprof_read_bin(), dev,
		     build_path("progs/inlines"));
	CHECK_EQ(st, 0);
	dropped = fake_count(out, "dropped ");
	delivered = fake_count(out, "delivered ");
	maps = fake_count(out, " maps ");
	/*
	 * the stops happened and were slow: at exec, 8 threads' exits and
	 * the command's, 600 ms each (and the samples' own re-reads), and
	 * records came meanwhile: at least ten rings' worth (a loaded host
	 * runs the producer slower than 4000/s: 22,372 in one CI-like run)
	 */
	CHECK(maps >= 10);
	CHECK(delivered >= 10 * 1200);
	CHECK_EQ(dropped, 0);
	CHECK(out && !strstr(out, "samples lost"));
	if (t_checks_failed || getenv("TPROF_TEST_VERBOSE"))
		fprintf(stderr, "    delivered %lld, dropped %lld, maps reads %lld\n%s",
			delivered, dropped, maps, out ? out : "");
	free(out);
	unlink(dev);
}

/*
 * A ring too small for any reader (5 records at 20,000/s): the loss is
 * one line with its count, which is the fake ring's, and its share, and
 * --report's total says the same count.
 */
static void test_live_loss_is_loud(void)
{
	const char *dev = build_path("unit/tprof-fakedev-loud");
	long long dropped, said = -1, total = -1;
	char *out = NULL, *l;
	int st, lines = 0;

	if (!have_fakes())
		return;
	CHECK_EQ(ring_file(dev, 64), 0);
	st = run_fmt(&out, "FAKERING_RATE=20000 FAKERING_RECORDS=5 FAKERING_WEIGHT_NS=1000000 ASAN_OPTIONS=verify_asan_link_order=0:detect_leaks=1 LD_PRELOAD='%s %s' '%s' --device '%s' --report --no-children -o /dev/null -- '%s' -s 0.3 2>&1",
		     build_path("unit/fakering.so"),
		     build_path("unit/fakedev.so"), tprof_read_bin(), dev,
		     build_path("progs/inlines"));
	CHECK_EQ(st, 0);
	dropped = fake_count(out, "dropped ");
	for (l = out; l && (l = strstr(l, "samples lost (")); l++)
		lines++;
	l = out ? strstr(out, "tprof-read: warning: ") : NULL;
	if (l && strstr(l, "samples lost ("))
		said = atoll(l + strlen("tprof-read: warning: "));
	l = out ? strstr(out, "\ntotal: ") : NULL;
	l = l ? strstr(l, " samples, ") : NULL;
	l = l ? strstr(l + 1, " sampled, ") : NULL;
	if (l)
		total = atoll(l + strlen(" sampled, "));
	CHECK(dropped > 0);
	CHECK_EQ(lines, 1);
	CHECK_EQ(said, dropped);
	CHECK_EQ(total, dropped);
	CHECK(out && strstr(out, "% of the sampled time)") &&
	      strstr(out, "rings (256 KiB) filled between reads"));
	if (t_checks_failed || getenv("TPROF_TEST_VERBOSE"))
		fprintf(stderr, "    dropped %lld, said %lld, --report %lld\n%s",
			dropped, said, total, out ? out : "");
	free(out);
	unlink(dev);
}

const struct unit_test live_tests[] = {
	{ "live: ptrace stops that take 600 ms each lose no record of a ring that holds 300 ms (the drain thread)", test_live_stops_lose_nothing },
	{ "live: a session that loses samples says so in one line, with the fake ring's count and the share; --report agrees", test_live_loss_is_loud },
	{ NULL, NULL },
};
