// SPDX-License-Identifier: GPL-2.0
/*
 * Workloads for the unwinding tests (tests/unit/test_unwind.c), which stop
 * this program at random times with ptrace and unwind what they read:
 *   leaf       main -> caller -> hot_leaf, a leaf with no frame of its own
 *              (GCC leaves none even with -fno-omit-frame-pointer)
 *   qsort      main -> sort_round -> libc's qsort (no frame pointers) ->
 *              cmp_ints
 *   signal     main -> spin_main, interrupted by SIGPROF: on_prof ->
 *              handler_work, through libc's __restore_rt
 *   altstack   the same with the handler on a sigaltstack
 * Built -O2 -fno-omit-frame-pointer, as 64-bit and (-m32) as IA32.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

#include "unwind_work.h"

NOINLINE unsigned long handler_work(unsigned long x)
{
	unsigned long i, h = x;

	for (i = 0; i < 1000000; i++)
		h = h * 6364136223846793005UL + i;
	return h;
}

static void on_prof(int sig)
{
	sink += handler_work(sig);
}

NOINLINE unsigned long mix(unsigned long h)
{
	return h ^ (h >> 29);
}

/*
 * Not a leaf, so it has a frame: a signal handler's samples can get from
 * the interrupted spin_main to main by its frame pointer even when its
 * frame is not in the snapshot (sigaltstack), as a leaf's could not.
 */
NOINLINE unsigned long spin_main(unsigned long x)
{
	unsigned long i, h = x;

	for (i = 0; i < 100000; i++)
		h = h * 2862933555777941757UL + i;
	sink += mix(h);
	return h;
}

static void run_signal(int altstack)
{
	struct sigaction sa;
	struct itimerval it = { { 0, 4000 }, { 0, 4000 } };
	stack_t ss;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_prof;
	sa.sa_flags = SA_RESTART;
	if (altstack) {
		ss.ss_sp = malloc(65536);
		ss.ss_size = 65536;
		ss.ss_flags = 0;
		if (!ss.ss_sp || sigaltstack(&ss, NULL))
			exit(2);
		sa.sa_flags |= SA_ONSTACK;
	}
	sigaction(SIGPROF, &sa, NULL);
	setitimer(ITIMER_PROF, &it, NULL);
	for (;;)
		spin_main(sink);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "leaf";
	unsigned long x = 1;

	if (!strcmp(mode, "leaf")) {
		for (;;)
			x = caller(x);
	} else if (!strcmp(mode, "qsort")) {
		static unsigned int v[20000];
		unsigned int seed = 1;

		for (;;)
			sort_round(v, sizeof(v) / sizeof(v[0]), seed++);
	} else if (!strcmp(mode, "signal") || !strcmp(mode, "altstack")) {
		run_signal(!strcmp(mode, "altstack"));
	}
	fprintf(stderr, "usage: unwind leaf|qsort|signal|altstack\n");
	return 2;
}
