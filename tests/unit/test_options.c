// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests: option values (issue 13, item 13): decimal only, no nan/inf or
 * float-to-integer overflow, size suffixes, options --input cannot honour,
 * a failed --thread-period. Live runs use fakedev.so as /dev/tprof.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "lib/parse.h"
#include "lib/util.h"
#include "testlib.h"

#define FAKE_DEV build_path("unit/tprof-fakedev")

/* tprof-read ARGS against the fake device; stderr and stdout in *out */
static int run_fake(char **out, const char *args)
{
	return run_fake_read(out, NULL, NULL, FAKE_DEV, "%s 2>&1", args);
}

/*
 * tprof-read ARGS against the fake device exits with status and says want
 * (NULL: anything).
 */
static void fake_says(const char *args, int status, const char *want)
{
	char *out = NULL;

	CHECK_EQ(run_fake(&out, args), status);
	if (want)
		CHECK_HAS(out, want);
	if (t_checks_failed)
		fprintf(stderr, "    %s:\n", args);
	out_done(out);
}

static void test_parse(void)
{
	unsigned long long v;
	uint64_t ns;
	double d;

	CHECK_EQ(parse_uint("010", 1000, &v), 0);
	CHECK_EQ(v, 10);
	CHECK_EQ(parse_uint("0123", 1 << 30, &v), 0);
	CHECK_EQ(v, 123);
	CHECK_EQ(parse_uint("0x10", 1000, &v), -EINVAL);
	CHECK_EQ(parse_uint("-1", 1000, &v), -EINVAL);
	CHECK_EQ(parse_uint(" 1", 1000, &v), -EINVAL);
	CHECK_EQ(parse_uint("+1", 1000, &v), -EINVAL);
	CHECK_EQ(parse_uint("", 1000, &v), -EINVAL);
	CHECK_EQ(parse_uint("1001", 1000, &v), -ERANGE);
	CHECK_EQ(parse_uint("99999999999999999999999", ~0ULL, &v), -ERANGE);

	CHECK_EQ(parse_duration_ns("nan", &ns), -EINVAL);
	CHECK_EQ(parse_duration_ns("nanms", &ns), -EINVAL);
	CHECK_EQ(parse_duration_ns("inf", &ns), -EINVAL);
	CHECK_EQ(parse_duration_ns("infs", &ns), -EINVAL);
	CHECK_EQ(parse_duration_ns("0x10ms", &ns), -EINVAL);
	CHECK_EQ(parse_duration_ns("1e30ns", &ns), -ERANGE);
	CHECK_EQ(parse_duration_ns("1e19s", &ns), -ERANGE);
	CHECK_EQ(parse_duration_ns("1e400", &ns), -ERANGE);
	CHECK_EQ(parse_duration_ns("1e19ns", &ns), 0);	/* fits; options bound it */
	CHECK_EQ(parse_duration_ns("0.25ms", &ns), 0);
	CHECK_EQ(ns, 250000);
	CHECK_EQ(parse_duration_ns("010us", &ns), 0);
	CHECK_EQ(ns, 10000);
	CHECK_EQ(parse_duration_ns("2e3us", &ns), 0);
	CHECK_EQ(ns, 2000000);

	CHECK_EQ(parse_decimal("nan", &d), -EINVAL);
	CHECK_EQ(parse_decimal("inf", &d), -EINVAL);
	CHECK_EQ(parse_decimal("1e999", &d), -ERANGE);
	CHECK_EQ(parse_decimal("0x1p3", &d), -EINVAL);
	CHECK_EQ(parse_decimal("1.5", &d), 0);
	CHECK(d == 1.5);

	CHECK_EQ(parse_size("64M", 64ULL << 20, &v), 0);
	CHECK_EQ(v, 64ULL << 20);
	CHECK_EQ(parse_size("256k", 64ULL << 20, &v), 0);
	CHECK_EQ(v, 256ULL << 10);
	CHECK_EQ(parse_size("4096", 64ULL << 20, &v), 0);
	CHECK_EQ(v, 4096);
	CHECK_EQ(parse_size("65M", 64ULL << 20, &v), -ERANGE);
	CHECK_EQ(parse_size("1G", 64ULL << 20, &v), -ERANGE);
	CHECK_EQ(parse_size("99999999999999999999G", ~0ULL, &v), -ERANGE);
	CHECK_EQ(parse_size("64MB", 64ULL << 20, &v), -EINVAL);
	CHECK_EQ(parse_size("1.5M", 64ULL << 20, &v), -EINVAL);
	CHECK_EQ(parse_size("M", 64ULL << 20, &v), -EINVAL);
}

/* Bad values: exit 2 with one line naming the option. */
static void test_cli_rejects(void)
{
	static const struct {
		const char *args, *msg;
	} bad[] = {
		{ "--period nan -p 1", "tprof-read: --period nan: " },
		{ "--period inf -p 1", "tprof-read: --period inf: " },
		{ "--period 1e19ns -p 1", "tprof-read: --period 1e19ns: " },
		{ "--period 101s -p 1", "tprof-read: --period 101s: " },
		{ "--thread-period 5=nan -p 1", "tprof-read: --thread-period 5=nan: " },
		{ "--thread-period 5=1e300s -p 1", "tprof-read: --thread-period 5=1e300s: " },
		{ "-F 0x10 -p 1", "tprof-read: -F 0x10: " },
		{ "-F nan -p 1", "tprof-read: -F nan: " },
		{ "-p 0x10", "tprof-read: -p 0x10: " },
		{ "-d nan -p 1", "tprof-read: -d nan: " },
		{ "-d 0x10 -p 1", "tprof-read: -d 0x10: " },
		{ "--ring-bytes 65M -p 1", "tprof-read: --ring-bytes 65M: " },
		{ "--ring-bytes 3K -p 1", "tprof-read: --ring-bytes 3K: " },
		{ "--all --cgroup /x", "tprof-read: --all and --cgroup /x: give one of them" },
	};
	char *out = NULL;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int st = run_read(&out, "%s -o /dev/null 2>&1", bad[i].args);

		CHECK_EQ(st, 2);
		CHECK(out && !strncmp(out, bad[i].msg, strlen(bad[i].msg)) &&
		      strchr(out, '\n') == out + strlen(out) - 1);
		if (st != 2 || !out || strncmp(out, bad[i].msg, strlen(bad[i].msg)))
			fprintf(stderr, "    %s: %s", bad[i].args, out ? out : "");
		free(out);
		out = NULL;
	}
}

/*
 * --all's cgroup v2 root from mountinfo: a cgroup2 mount of root "/" (not
 * a namespace's or a bind mount's subtree, not cgroup v1), its mount
 * point's octal escapes undone; none: -ENOENT.
 */
static void test_cgroup2_root(void)
{
	char text[] =
		"22 1 0:21 / /proc rw,nosuid - proc proc rw\n"
		"30 25 0:26 / /sys/fs/cgroup/cpu rw - cgroup cgroup rw,cpu\n"
		"31 25 0:27 /sub /mnt/sub rw - cgroup2 cgroup2 rw\n"
		"32 25 0:27 / /sys/fs/cgroup\\040v2 rw,nosuid shared:9 - cgroup2 cgroup2 rw\n";
	char none[] = "22 1 0:21 / /proc rw,nosuid - proc proc rw\n";
	char plain[] = "32 25 0:27 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n";
	char buf[64], small[8];

	CHECK_EQ(cgroup2_root_in(text, buf, sizeof(buf)), 0);
	CHECK(!strcmp(buf, "/sys/fs/cgroup v2"));
	CHECK_EQ(cgroup2_root_in(none, buf, sizeof(buf)), -ENOENT);
	CHECK_EQ(cgroup2_root_in(plain, small, sizeof(small)), -ENAMETOOLONG);
}

/* Options of a live session refused by name with --input. */
static void test_input_refuses_live_options(void)
{
	static const char *const opts[][2] = {
		{ "-F 100", "-F" }, { "--period 1ms", "--period" },
		{ "--thread-period 5=1ms", "--thread-period" },
		{ "--kernel-stacks", "--kernel-stacks" }, { "-d 1", "-d" },
		{ "--max-frames 8", "--max-frames" },
		{ "--ring-bytes 64K", "--ring-bytes" },
		{ "--device /dev/null", "--device" },
	};
	char *out = NULL, want[128];
	size_t i;

	for (i = 0; i < sizeof(opts) / sizeof(opts[0]); i++) {
		int st = run_read(&out, "--input /nonexistent %s -o /dev/null 2>&1",
			      opts[i][0]);

		snprintf(want, sizeof(want),
			 "tprof-read: --input replays a saved stream: %s does not apply\n",
			 opts[i][1]);
		CHECK_EQ(st, 2);
		CHECK_STR(out, want);
		free(out);
		out = NULL;
	}
}

/* Values reach ENABLE as written: decimal, with suffixes. */
static void test_live_values(void)
{
	if (!need_fakedev(FAKE_DEV))
		return;
	fake_says("-p 0123 -F 010 --ring-bytes 64M -o /dev/null", 0,
		  "fakedev: ENABLE pid=123 period_ns=100000000 ring_bytes=67108864\n");
	fake_says("-p 1 --ring-bytes 256K --period 0.5ms -o /dev/null", 0,
		  "fakedev: ENABLE pid=1 period_ns=500000 ring_bytes=262144\n");
}

/* A --thread-period the module refused: non-zero, one line, no profile. */
static void test_thread_period_fails(void)
{
	const char *pb = build_path("unit/tperiod.pb.gz");
	char *out = NULL, args[4200];
	int st;

	if (!need_fakedev(FAKE_DEV))
		return;
	unlink(pb);
	snprintf(args, sizeof(args), "-p 1 --thread-period 77=1ms -o '%s'", pb);
	setenv("FAKEDEV_THREAD_PERIOD_ERRNO", "3", 1);	/* ESRCH */
	st = run_fake(&out, args);
	unsetenv("FAKEDEV_THREAD_PERIOD_ERRNO");
	CHECK(st != 0);
	CHECK_HAS(out, "tprof-read: --thread-period 77: no such thread");
	CHECK(access(pb, F_OK) != 0);
	out_done(out);
	/* the same run, accepted: a profile */
	st = run_fake(&out, args);
	CHECK_EQ(st, 0);
	CHECK(access(pb, F_OK) == 0);
	free(out);
	unlink(pb);
}

/*
 * A CPython target's rings: 1 MiB unless --ring-bytes says otherwise (a
 * sample carries its frames and an 8 KiB snapshot: 256 KiB lost samples
 * of eight busy threads); refused by the locked-memory limit, the default
 * ones with a line. Other targets keep the module's default (0).
 */
static void test_python_rings(void)
{
	const char *py = "/usr/bin/python3.11";
	char *out = NULL;
	int st;

	if (!need_fakedev(FAKE_DEV))
		return;
	if (access(py, X_OK)) {
		SKIP("no /usr/bin/python3.11");
		return;
	}
	fake_says("-o /dev/null -- /usr/bin/python3.11 -c pass", 0,
		  "ring_bytes=1048576\n");
	st = run_fake(&out, "--ring-bytes 64K -o /dev/null -- /usr/bin/python3.11 -c pass");
	CHECK_EQ(st, 0);
	CHECK(out && strstr(out, "ring_bytes=65536\n") &&
	      !strstr(out, "ring_bytes=1048576"));
	free(out);
	fake_says("-o /dev/null -- /bin/true", 0, "ring_bytes=0\n");
	setenv("FAKEDEV_REFUSE_MEMLOCK", "2056,11000,12320", 1);
	setenv("FAKEDEV_REFUSE_RING_ABOVE", "262144", 1);
	st = run_fake(&out, "-o /dev/null -- /usr/bin/python3.11 -c pass");
	CHECK_EQ(st, 0);
	CHECK(out && strstr(out, "ring_bytes=1048576\n") &&
	      strstr(out, "ring_bytes=0\n"));
	CHECK(out && strstr(out, "tprof-read: warning: pid ") &&
	      strstr(out, "default rings (256 KiB a CPU): CPython's 1024 KiB ones were refused (locked memory)"));
	out_done(out);
	unsetenv("FAKEDEV_REFUSE_RING_ABOVE");
	unsetenv("FAKEDEV_REFUSE_MEMLOCK");
}

/*
 * --call-graph: what ENABLE asks for; the default falls back to frame
 * pointers in one line when snapshots are refused, an explicit mode fails.
 */
static void test_call_graph(void)
{
	static const char *const modes[][2] = {
		{ "-p 1 -o /dev/null", "flags=0x308 snapshot_bytes=1024\n" },
		{ "-p 1 --call-graph dwarf -o /dev/null",
		  "flags=0x308 snapshot_bytes=8192\n" },
		{ "-p 1 --call-graph dwarf=4096 -o /dev/null",
		  "flags=0x308 snapshot_bytes=4096\n" },
		{ "-p 1 --call-graph fp -o /dev/null",
		  "flags=0x0 snapshot_bytes=0\n" },
	};
	static const char *const older[][2] = {
		/* before chains in snapshots: the chain in the SAMPLE */
		{ "FAKEDEV_NO_CHAIN",
		  "fakedev: ENABLE flags=0x108 snapshot_bytes=1024\n" },
		/* before the red zone: snapshots from sp, no other change */
		{ "FAKEDEV_NO_BELOW",
		  "fakedev: ENABLE flags=0x8 snapshot_bytes=1024\n" },
	};
	char *out = NULL;
	size_t i;
	int st;

	if (!need_fakedev(FAKE_DEV))
		return;
	for (i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		char want[128];

		snprintf(want, sizeof(want), "fakedev: ENABLE %s", modes[i][1]);
		fake_says(modes[i][0], 0, want);
	}

	/* older modules: ENABLE asked again without what they lack */
	for (i = 0; i < sizeof(older) / sizeof(older[0]); i++) {
		setenv(older[i][0], "1", 1);
		st = run_fake(&out, "-p 1 -o /dev/null");
		CHECK_EQ(st, 0);
		CHECK_HAS(out, "fakedev: ENABLE flags=0x308 snapshot_bytes=1024\n");
		CHECK_HAS(out, older[i][1]);
		CHECK(out && !strstr(out, "no user stack snapshots"));
		free(out);
		unsetenv(older[i][0]);
	}

	setenv("FAKEDEV_SNAPSHOT_ERRNO", "22", 1);	/* an older module */
	st = run_fake(&out, "-p 1 -o /dev/null");
	CHECK_EQ(st, 0);
	CHECK_HAS(out, "fakedev: ENABLE flags=0x0 snapshot_bytes=0\n");
	CHECK_HAS(out, "tprof-read: pid 1: no user stack snapshots (this tprof.ko predates them): frame-pointer stacks only, as with --call-graph fp\n");
	out_done(out);
	st = run_fake(&out, "-p 1 --call-graph dwarf -o /dev/null");
	CHECK(st != 0);
	CHECK_HAS(out, "tprof-read: pid 1: enable: Invalid argument (a tprof.ko without user stack snapshots?");
	CHECK(out && !strstr(out, "flags=0x0"));
	free(out);
	setenv("FAKEDEV_SNAPSHOT_ERRNO", "1", 1);	/* EPERM */
	fake_says("-p 1 -o /dev/null", 0,
		  "tprof-read: pid 1: no user stack snapshots (Operation not permitted)");
	unsetenv("FAKEDEV_SNAPSHOT_ERRNO");

	fake_says("-p 1 --call-graph dwarf=12 -o /dev/null", 2,
		  "tprof-read: --call-graph dwarf=12: expected fp, hybrid[=BYTES] or dwarf[=BYTES] (BYTES a multiple of 8, at most 65528)\n");
	fake_says("-p 1 --call-graph dwarf=65536 -o /dev/null", 2, NULL);
	fake_says("-p 1 --call-graph lbr -o /dev/null", 2, NULL);
	fake_says("-p 1 --call-graph fp=8 -o /dev/null", 2, NULL);
	st = run_read(&out, "--input /dev/null --call-graph dwarf=4096 -o /dev/null 2>&1");
	CHECK_EQ(st, 2);
	CHECK_HAS(out, "the snapshot size of --call-graph does not apply");
	free(out);
}

/*
 * ENABLE's _IOWR number says which limit refused the session; a module
 * that knows only the first (_IOW) number answers ENOTTY to it, and the
 * reader goes on with that one (fake device).
 */
static void test_enable_refused(void)
{
	char *out = NULL;
	int st;

	setenv("FAKEDEV_REFUSE_MEMLOCK", "2056,11000,12320", 1);
	st = run_fake(&out, "-p 1 --call-graph fp -o /dev/null");
	CHECK(st != 0);
	CHECK_HAS(out, "fakedev: ENABLE _IOWR\n");
	CHECK_HAS(out, "tprof-read: pid 1: Cannot allocate memory: the locked-memory limit refused it: the session needs 2056 KiB");
	CHECK_HAS(out, "already holds 11000 KiB");
	out_done(out);
	/* an older module: the first numbers (ENABLE, and INFO's 64 bytes) */
	setenv("FAKEDEV_ENABLE_V1_ONLY", "1", 1);
	setenv("FAKEDEV_INFO_V1_ONLY", "1", 1);
	st = run_fake(&out, "-p 1 --call-graph fp -o /dev/null");
	CHECK(st != 0);
	CHECK_HAS(out, "fakedev: ENABLE V1\n");
	CHECK(out && !strstr(out, "refused it"));
	CHECK_HAS(out, "tprof-read: pid 1: Cannot allocate memory: no memory for rings");
	free(out);
	unsetenv("FAKEDEV_REFUSE_MEMLOCK");
	st = run_fake(&out, "-p 1 --call-graph fp -o /dev/null");
	CHECK_EQ(st, 0);
	CHECK_HAS(out, "fakedev: ENABLE pid=1 ");
	CHECK_HAS(out, "fakedev: INFO V1\n");
	free(out);
	unsetenv("FAKEDEV_ENABLE_V1_ONLY");
	unsetenv("FAKEDEV_INFO_V1_ONLY");
}

/*
 * tprof-read raises its own RLIMIT_NOFILE soft limit (the object cache);
 * a launched command gets the one it was given (fake device).
 */
static void test_launch_nofile(void)
{
	struct rlimit rl, old;
	char *out = NULL;
	int st;

	if (getrlimit(RLIMIT_NOFILE, &old) || old.rlim_max < 1024) {
		SKIP("RLIMIT_NOFILE's hard limit is under 1024");
		return;
	}
	rl = old;
	rl.rlim_cur = 512;
	CHECK_EQ(setrlimit(RLIMIT_NOFILE, &rl), 0);
	st = run_fake(&out, "-o /dev/null -- sh -c 'echo soft=$(ulimit -Sn)'");
	setrlimit(RLIMIT_NOFILE, &old);
	CHECK_EQ(st, 0);
	CHECK_HAS(out, "soft=512\n");
	out_done(out);
}

/*
 * Launch mode starts the session at the command's exec, as perf's
 * enable_on_exec: at ENABLE the target already runs the command, not
 * tprof-read's child waiting for the go-ahead (fake device).
 */
static void test_launch_at_exec(void)
{
	char *out = NULL, want[PATH_MAX + 32], real[PATH_MAX];
	const char *t = "/bin/true";
	int st;

	/* /bin is a link to /usr/bin on merged-/usr systems */
	snprintf(want, sizeof(want), "fakedev: ENABLE exe=%s\n",
		 realpath(t, real) ? real : t);
	st = run_fake(&out, "-o /dev/null -- /bin/true");
	CHECK_EQ(st, 0);
	CHECK_HAS(out, want);
	if (t_checks_failed)
		fprintf(stderr, "want %s%s", want, out ? out : "");
	free(out);
	/* a command that does not exist: no session at all */
	st = run_fake(&out, "-o /dev/null -- /nonexistent/cmd");
	CHECK_EQ(st, 127);
	CHECK_HAS(out, "tprof-read: /nonexistent/cmd: command not found\n");
	CHECK(out && !strstr(out, "fakedev: ENABLE"));
	free(out);
}

const struct unit_test options_tests[] = {
	{ "options: decimal only, no nan/inf/overflow, size suffixes", test_parse },
	{ "options: bad values exit 2 with one line naming the option", test_cli_rejects },
	{ "options: --all finds the cgroup v2 root in mountinfo (escapes undone; not v1, not a subtree's mount)", test_cgroup2_root },
	{ "options: --input refuses the options of a live session by name", test_input_refuses_live_options },
	{ "options: -p 0123, -F 010, --ring-bytes 64M reach ENABLE as decimal (fake device)", test_live_values },
	{ "options: a refused --thread-period exits non-zero, no profile (fake device)", test_thread_period_fails },
	{ "options: --call-graph sets ENABLE's snapshot; refused snapshots: fp in one line by default, an error when asked for (fake device)", test_call_graph },
	{ "options: a CPython target gets 1 MiB rings unless --ring-bytes; refused by the locked-memory limit, the default ones with a line (fake device)", test_python_rings },
	{ "options: a refused ENABLE names the limit the module says; an older module's ENABLE number still works (fake device)", test_enable_refused },
	{ "options: a launched command keeps its own descriptor limit, not the one tprof-read raised (fake device)", test_launch_nofile },
	{ "options: launch mode starts the session at the command's exec (fake device)", test_launch_at_exec },
	{ NULL, NULL },
};
