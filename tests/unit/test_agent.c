// SPDX-License-Identifier: GPL-2.0
/*
 * tprof-agent on the host, under ASan/UBSan: a live session on the fake
 * ring (fakering.so + fakedev.so) that produces 1000 samples a second of a
 * real process, each stamped when it is produced (FAKERING_RESTAMP), so a
 * window's truth is the fake ring's rate: a 2 s window holds 2000 of them.
 * curl scrapes it as tests/cases/66-agent.sh does in the guests; the agent
 * ends at SIGTERM with no leak.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pbload.h"
#include "testlib.h"

#define RATE 1000

static void test_agent_window(void)
{
	char dev[4096], prof[4096], *out = NULL;
	const char *agent = build_path("tprof-agent-san");
	struct sbuf b = { 0 };
	PbProfile *p;
	long long n = 0, v = 0;
	pid_t target;
	size_t i;
	int st;

	if (!need_files("tprof-agent-san, fakedev.so or fakering.so not built",
			agent, build_path("unit/fakedev.so"),
			build_path("unit/fakering.so"), NULL))
		return;
	if (system("command -v curl > /dev/null")) {
		SKIP("no curl");
		return;
	}
	target = fork();
	if (target == 0) {
		execlp("sleep", "sleep", "60", (char *)NULL);
		_exit(127);
	}
	CHECK(target > 0);
	if (target <= 0)
		return;
	snprintf(dev, sizeof(dev), "%s",
		 build_path("unit/tprof-fakedev-agent"));
	snprintf(prof, sizeof(prof), "%s", build_path("unit/agent.pb.gz"));
	for (i = 0; i < 64; i++) {
		uint64_t u[1] = { 0x1000 + i * 16 };

		sb_sample(&b, target, target, 1000000, 1000000, 1000 + i, 0,
			  NULL, 1, u);
	}
	CHECK_EQ(sb_write(&b, dev), 0);
	sb_free(&b);
	unlink(prof);
	/* the agent in the background; its port from its first line */
	st = run_fmt(&out,
		     "d=$(mktemp -d); "
		     "FAKERING_RATE=%d FAKERING_RECORDS=100000 FAKERING_RESTAMP=1 "
		     "ASAN_OPTIONS=verify_asan_link_order=0:detect_leaks=1 "
		     "LD_PRELOAD='%s %s' '%s' -p %d --device '%s' "
		     "--listen 127.0.0.1:0 2> $d/err & a=$!; "
		     "for i in $(seq 100); do port=$(sed -n 's/.*(port \\([0-9]*\\)).*/\\1/p' $d/err); "
		     "[ -n \"$port\" ] && break; sleep 0.1; done; "
		     "u=http://127.0.0.1:$port; "
		     "curl -s -o '%s' -w 'profile %%{http_code}\\n' \"$u/debug/pprof/profile?seconds=2\"; "
		     "curl -s -w ' %%{http_code}\\n' \"$u/debug/pprof/profile?seconds=-1\"; "
		     "curl -s \"$u/metrics\" | grep -E '^tprof_(profiles_served|windows_open)'; "
		     "kill -TERM $a; wait $a; echo agent $?; cat $d/err; rm -rf $d",
		     RATE, build_path("unit/fakering.so"),
		     build_path("unit/fakedev.so"), agent, (int)target, dev,
		     prof);
	kill(target, SIGKILL);
	waitpid(target, NULL, 0);
	CHECK_EQ(st, 0);
	CHECK(out && strstr(out, "profile 200\n"));
	CHECK(out && strstr(out, "seconds=-1: expected a whole number") &&
	      strstr(out, " 400\n"));
	CHECK(out && strstr(out, "tprof_profiles_served_total 1\n") &&
	      strstr(out, "tprof_windows_open 0\n"));
	CHECK(out && strstr(out, "agent 0\n"));
	/* a leak or a sanitizer's report fails here */
	CHECK(out && !strstr(out, "ERROR: ") && !strstr(out, "runtime error"));
	p = load_checked(prof);
	for (i = 0; p && i < p->n_sample; i++) {
		n += p->sample[i]->value[1];
		v += p->sample[i]->value[0];
	}
	/* 2 s of a ring that produces 1000 a second, each stamped then:
	 * the window's edges fall between two samples */
	CHECK(n >= 2 * RATE - 2 && n <= 2 * RATE + 2);
	CHECK_EQ(v, n * 1000000);
	CHECK(p && p->duration_nanos == 2000000000LL);
	if (t_checks_failed || getenv("TPROF_TEST_VERBOSE"))
		fprintf(stderr, "    window: %lld samples, %lld ns\n%s", n, v,
			out ? out : "");
	pb_free(p);
	free(out);
	unlink(dev);
	unlink(prof);
}

const struct unit_test agent_tests[] = {
	{ "agent: a 2 s window of a live session on the fake ring holds the 2000 samples stamped in it; a bad seconds is a 400; SIGTERM ends it, no leak", test_agent_window },
	{ NULL, NULL },
};
