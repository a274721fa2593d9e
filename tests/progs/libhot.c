// SPDX-License-Identifier: GPL-2.0
/* tprof test library, dlopen()ed late by inlines -l: burns CPU seconds. */
#include <time.h>

unsigned long lib_hot(unsigned long x, double seconds);

static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

__attribute__((noinline)) static unsigned long lib_spin(unsigned long x)
{
	int i;

	for (i = 0; i < 10000; i++)
		x = x * 6364136223846793005UL + 1442695040888963407UL;
	return x;
}

/*
 * Burn the CPU seconds, and at least a fixed amount of work: emulated
 * guests' CPU clocks can jump, and a test needs samples in here.
 */
unsigned long lib_hot(unsigned long x, double seconds)
{
	double end = cpu_now() + seconds;
	long min_calls = (long)(seconds * 20000), n = 0;

	do
		x = lib_spin(x);
	while (++n < min_calls || cpu_now() < end);
	return x;
}
