// SPDX-License-Identifier: GPL-2.0
/* Unit tests: the one-line ENABLE errors, from a fake INFO and rlimit. */
#include <errno.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "lib/util.h"
#include "live/device.h"
#include "live/recorder.h"
#include "testlib.h"

#define PID 1234

/* 8 possible CPUs, the default 256 KiB rings, the module's defaults. */
static void fake(struct enable_why *w, struct tprof_ioc_enable *en)
{
	memset(w, 0, sizeof(*w));
	w->info = (struct tprof_ioc_info) {
		.size = sizeof(w->info),
		.abi_version = TPROF_ABI_VERSION,
		.record_version = TPROF_RECORD_VERSION,
		.nr_cpu_ids = 8, .page_size = 4096,
		.default_ring_bytes = 256 << 10,
		.min_period_ns = TPROF_MIN_PERIOD_NS,
		.ring_kb_per_cpu = 516, .max_user_sessions = 4,
		.user_sessions = 1, .nr_rings = 8, .user_locked_kb = 11000,
	};
	w->memlock_bytes = 8192 << 10;
	memset(en, 0, sizeof(*en));
	en->pid = PID;
	en->flags = TPROF_F_AUXV_PROOF;
}

/* The message for err, checked to be one line about pid PID. */
static const char *msg(int err, const struct tprof_ioc_enable *en,
		       const struct enable_why *w)
{
	static char buf[1024];

	memset(buf, 'x', sizeof(buf));
	device__explain_enable(buf, sizeof(buf), err, en, w);
	CHECK(!strncmp(buf, "pid 1234: ", 10));
	CHECK(!strchr(buf, '\n'));
	CHECK(strlen(buf) < sizeof(buf) - 1);	/* not cut short */
	return buf;
}

static void test_enomem(void)
{
	struct tprof_ioc_enable en;
	struct enable_why w;

	/* 2048 KiB more on 11000 held is beyond 8192 + 516 x 8 */
	fake(&w, &en);
	CHECK_STR(msg(ENOMEM, &en, &w),
		  "pid 1234: Cannot allocate memory: rings of 8 x 256 KiB need 2048 KiB of locked memory; your user may lock 8192 KiB (ulimit -l) + 4128 KiB (tprof.ko ring_kb_per_cpu=516 x 8) and already holds 11000 KiB; use a smaller --ring-bytes, raise ulimit -l, or an admin can raise /sys/module/tprof/parameters/ring_kb_per_cpu");
	/* --ring-bytes counts, not the default */
	en.ring_bytes = 1 << 20;
	w.info.user_locked_kb = 5000;
	CHECK(strstr(msg(ENOMEM, &en, &w),
		      "rings of 8 x 1024 KiB need 8192 KiB of locked memory;"));
	CHECK(strstr(msg(ENOMEM, &en, &w), "already holds 5000 KiB"));

	/* it would have fit: the kernel is out of memory, not the limit */
	fake(&w, &en);
	w.info.user_locked_kb = 0;
	CHECK_STR(msg(ENOMEM, &en, &w),
		  "pid 1234: Cannot allocate memory: no memory for rings of 8 x 256 KiB; use a smaller --ring-bytes");
	/* ulimit -l unlimited: no limit applies */
	fake(&w, &en);
	w.memlock_unlimited = true;
	CHECK(!strstr(msg(ENOMEM, &en, &w), "ring_kb_per_cpu"));
	/* a module that predates the INFO fields reports 0 there */
	fake(&w, &en);
	w.info.ring_kb_per_cpu = 0;
	w.info.nr_rings = 0;
	CHECK_STR(msg(ENOMEM, &en, &w),
		  "pid 1234: Cannot allocate memory: no memory for rings of 8 x 256 KiB; use a smaller --ring-bytes");
	/* root sends no auxv proof: its rings are not charged */
	fake(&w, &en);
	en.flags = 0;
	CHECK(!strstr(msg(ENOMEM, &en, &w), "ulimit"));
}

/*
 * A module that says which limit refused (ENABLE's refused field) is
 * believed over INFO read afterwards, which the guess went wrong on: in
 * attach mode and with several sessions, INFO's counts have moved on.
 */
static void test_refused(void)
{
	struct tprof_ioc_enable en;
	struct enable_why w;

	/* INFO now says room is left (another session ended since) */
	fake(&w, &en);
	w.info.user_locked_kb = 0;
	en.refused = TPROF_REFUSED_MEMLOCK;
	en.need_kb = 2056;
	en.held_kb = 11000;
	en.limit_kb = 12320;
	CHECK_STR(msg(ENOMEM, &en, &w),
		  "pid 1234: Cannot allocate memory: the locked-memory limit refused it: the session needs 2056 KiB (rings of 8 x 256 KiB and its tables); your user may lock 12320 KiB (ulimit -l + tprof.ko's ring_kb_per_cpu allowance) and already holds 11000 KiB (other tprof sessions, io_uring, perf buffers, mlock); use a smaller --ring-bytes, end another session, raise ulimit -l, or an admin can raise /sys/module/tprof/parameters/ring_kb_per_cpu");
	/* INFO says over the limit, the module says the kernel had none */
	fake(&w, &en);
	en.refused = TPROF_REFUSED_NOMEM;
	CHECK_STR(msg(ENOMEM, &en, &w),
		  "pid 1234: Cannot allocate memory: the kernel had no memory for rings of 8 x 256 KiB; use a smaller --ring-bytes");
	/* INFO counts the user's sessions at the most; the target was it */
	fake(&w, &en);
	w.info.user_sessions = 4;
	en.refused = TPROF_REFUSED_TARGET_BUSY;
	CHECK_STR(msg(EBUSY, &en, &w),
		  "pid 1234: Device or resource busy: another tprof session is profiling it");
	/* and the other way: INFO shows room, the module counted them */
	fake(&w, &en);
	w.info.user_sessions = 2;
	en.refused = TPROF_REFUSED_USER_SESSIONS;
	CHECK(strstr(msg(EBUSY, &en, &w), "you already hold 2 tprof sessions, "));
}

static void test_ebusy(void)
{
	struct tprof_ioc_enable en;
	struct enable_why w;

	fake(&w, &en);
	CHECK_STR(msg(EBUSY, &en, &w),
		  "pid 1234: Device or resource busy: another tprof session is profiling it");
	w.info.user_sessions = 4;
	CHECK_STR(msg(EBUSY, &en, &w),
		  "pid 1234: Device or resource busy: you already hold 4 tprof sessions, the most one user may (tprof.ko max_user_sessions=4); end one, or an admin can raise /sys/module/tprof/parameters/max_user_sessions");
	w.info.user_sessions = 1;
	w.info.max_user_sessions = 1;
	CHECK(strstr(msg(EBUSY, &en, &w), "you already hold 1 tprof session, "));
	/* root sends no proof: its sessions are not limited */
	w.info.user_sessions = 4;
	en.flags = 0;
	CHECK(strstr(msg(EBUSY, &en, &w), "another tprof session is profiling it"));
	en.flags = TPROF_F_AUXV_PROOF;
	/* an old module reports 0 of 0 */
	w.info.user_sessions = 0;
	w.info.max_user_sessions = 0;
	CHECK(strstr(msg(EBUSY, &en, &w), "another tprof session is profiling it"));
}

static void test_enospc(void)
{
	struct tprof_ioc_enable en;
	struct enable_why w;

	fake(&w, &en);
	CHECK_STR(msg(ENOSPC, &en, &w),
		  "pid 1234: No space left on device: all tprof sessions are in use (some are kept for root and CAP_PERFMON); try again when one ends");
}

/* EINVAL below the caller's floor (INFO's min_period_ns) names the floor. */
static void test_floor(void)
{
	struct tprof_ioc_enable en;
	struct enable_why w;

	fake(&w, &en);
	w.info.min_period_ns = 100000;
	en.period_ns = 50000;
	CHECK_STR(msg(EINVAL, &en, &w),
		  "pid 1234: enable: Invalid argument: the period is below 100 us, the shortest tprof.ko allows you (unpriv_min_period_us; root and CAP_PERFMON may go to 10 us)");
	en.period_ns = 0;
	en.flags |= TPROF_F_OFF_CPU;
	en.off_cpu_period_ns = 20000;
	CHECK(strstr(msg(EINVAL, &en, &w), "below 100 us"));
	en.off_cpu_period_ns = 0;
	CHECK(!strstr(msg(EINVAL, &en, &w), "below"));
}

static void test_eperm(void)
{
	struct tprof_ioc_enable en;
	struct enable_why w;
	const char *m;

	fake(&w, &en);
	m = msg(EPERM, &en, &w);
	CHECK(strstr(m, "pid 1234: Operation not permitted: needs root, CAP_PERFMON, or permission to ptrace the process"));
	CHECK(strstr(m, "a non-dumpable process (a setuid program, or after prctl(PR_SET_DUMPABLE, 0)) cannot be profiled without CAP_PERFMON"));
	/* --kernel-stacks: the capability, or lockdown (even root) */
	en.flags |= TPROF_F_KERNEL_STACK;
	CHECK_STR(msg(EPERM, &en, &w),
		  "pid 1234: Operation not permitted: --kernel-stacks needs root or CAP_PERFMON");
	w.lockdown_confidentiality = true;
	m = msg(EPERM, &en, &w);
	CHECK(strstr(m, "--kernel-stacks is refused while the kernel is locked down for confidentiality"));
	CHECK(strstr(m, "/sys/kernel/security/lockdown"));
	/* lockdown does not matter without kernel stacks */
	en.flags &= ~TPROF_F_KERNEL_STACK;
	CHECK(strstr(msg(EPERM, &en, &w), "permission to ptrace"));
}

static void test_other(void)
{
	struct tprof_ioc_enable en;
	struct enable_why w;

	fake(&w, &en);
	CHECK_STR(msg(ESRCH, &en, &w), "pid 1234: no such process");
	CHECK(strstr(msg(EINVAL, &en, &w), "out of range"));
	CHECK_STR(msg(EIO, &en, &w), "pid 1234: enable: Input/output error");
}

/* A refusal of one's own process that gave no auxv proof: not dumpable. */
static void test_own_not_dumpable(void)
{
	struct device s = { .fd = -1, .proof_err = EACCES };
	struct tprof_ioc_enable en = { .pid = getpid() };
	struct enable_why w;
	char buf[1024];

	device__enable_why(&s, &w, getpid());
	CHECK_EQ(w.own_not_dumpable, true);
	device__explain_enable(buf, sizeof(buf), EPERM, &en, &w);
	CHECK(strstr(buf, "it runs as you but is not dumpable") != NULL);
}

/* Without a device, INFO falls back to the one read at open; rlimit is ours. */
static void test_gather(void)
{
	struct device s = { .fd = -1 };
	struct enable_why w;
	struct rlimit rl;

	s.info.ring_kb_per_cpu = 516;
	s.info.user_sessions = 3;
	device__enable_why(&s, &w, getpid());
	CHECK_EQ(w.own_not_dumpable, false);	/* no proof error recorded */
	CHECK_EQ(w.info.ring_kb_per_cpu, 516);
	CHECK_EQ(w.info.user_sessions, 3);
	CHECK_EQ(getrlimit(RLIMIT_MEMLOCK, &rl), 0);
	CHECK_EQ(w.memlock_unlimited, rl.rlim_cur == RLIM_INFINITY);
	if (!w.memlock_unlimited)
		CHECK_EQ(w.memlock_bytes, rl.rlim_cur);
}

/*
 * Live mode keeps each process's last maps text, to skip re-reads that
 * changed nothing. 200,000 processes (a long build under --children): each
 * found again through the index. Counted, not timed: the entries a lookup
 * compares (as recorder__last_maps() walks them) stay a handful each, where
 * the linear scan of 1543cdc compared 2e10 in all (minutes).
 */
static void test_last_maps_index(void)
{
	struct profile p;
	struct recorder rc;
	struct last_maps *lm;
	unsigned long long probes = 0, most = 0;
	int pid, bad = 0;

	profile__init(&p);
	recorder__init(&rc, &p);
	for (pid = 1; pid <= 200000; pid++) {
		lm = recorder__last_maps(&rc, pid);
		lm->text = xstrdup("x");
		lm->len = pid;
	}
	for (pid = 200000; pid >= 1; pid--) {
		struct hiter it = { 0 };
		unsigned long long n = 0;
		uint32_t item;

		while (hindex_next(&rc.last_idx, hash_u64((uint32_t)pid), &it,
				   &item)) {
			n++;
			if (rc.last[item - 1].pid == pid)
				break;
		}
		probes += n;
		most = n > most ? n : most;
		lm = recorder__last_maps(&rc, pid);
		bad += lm->pid != pid || lm->len != (size_t)pid;
	}
	CHECK_EQ(bad, 0);
	CHECK_EQ(rc.nlast, 200000);
	/* a hash index: about one compare a lookup, a few in the worst chain */
	CHECK(probes <= 2 * 200000ULL);
	CHECK(most <= 16);
	if (t_checks_failed)
		fprintf(stderr, "    200,000 lookups compared %llu entries, at most %llu\n",
			probes, most);
	recorder__free(&rc);
	profile__free(&p);
}

const struct unit_test device_tests[] = {
	{ "device: live mode finds 200,000 processes' last maps through an index, not a scan", test_last_maps_index },
	{ "device: own process without proof is not dumpable", test_own_not_dumpable },
	{ "device: ENOMEM names the locked-memory limit and how to raise it", test_enomem },
	{ "device: the limit the module says refused ENABLE is named, whatever INFO says after", test_refused },
	{ "device: EBUSY tells max_user_sessions from another session", test_ebusy },
	{ "device: ENOSPC says all sessions are in use", test_enospc },
	{ "device: EINVAL below the caller's period floor names it", test_floor },
	{ "device: EPERM: ptrace/dumpable, or --kernel-stacks: CAP_PERFMON, lockdown", test_eperm },
	{ "device: ESRCH, EINVAL, others", test_other },
	{ "device: the explanation reads INFO (or the one from open) and ulimit -l", test_gather },
	{ NULL, NULL },
};
