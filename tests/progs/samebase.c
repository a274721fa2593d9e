// SPDX-License-Identifier: GPL-2.0
/*
 * tprof test program built several times, each time with another name for
 * its hot function (-DHOT=hot_a, -DHOT=hot_b, ...) and nothing else changed,
 * so non-PIE builds have that function at the same address in each: a
 * profile across an exec from one to the other, or of a chrooted copy that
 * differs from the host's file at the same path, must name each sample from
 * the binary that ran it (issue 13, items 1 and 3).
 *
 * Usage: samebase SECONDS [PROGRAM [ARGS...]]: spin SECONDS of the thread's
 * own CPU time in HOT, then exec PROGRAM if given.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#ifndef HOT
#define HOT hot_a
#endif

static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* global and not inlined: a symbol of its own, the leaf of the samples */
__attribute__((noinline)) unsigned long HOT(unsigned long x, double end);
__attribute__((noinline)) unsigned long HOT(unsigned long x, double end)
{
	do {
		for (int i = 0; i < 1000000; i++)
			x = x * 6364136223846793005UL + 1442695040888963407UL;
	} while (cpu_now() < end);
	return x;
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 1.0;
	unsigned long x = HOT(1, cpu_now() + seconds);

	if (argc > 2) {
		fflush(stdout);
		execv(argv[2], argv + 2);
		perror(argv[2]);
		return 127;
	}
	printf("%lu\n", x & 1);
	return 0;
}
