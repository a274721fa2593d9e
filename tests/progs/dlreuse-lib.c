// SPDX-License-Identifier: GPL-2.0
/*
 * A plugin for dlreuse.c, built twice with another name for its hot
 * function (-DHOT=lib_hot_a, -DHOT=lib_hot_b) and nothing else changed, so
 * the second, loaded where the first was, has its hot function at the same
 * addresses (issue 13, item 1).
 */
#include <time.h>

#ifndef HOT
#define HOT lib_hot_a
#endif

static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

__attribute__((noinline)) unsigned long HOT(unsigned long x, double end);
__attribute__((noinline)) unsigned long HOT(unsigned long x, double end)
{
	do {
		for (int i = 0; i < 1000000; i++)
			x = x * 6364136223846793005UL + 1442695040888963407UL;
	} while (cpu_now() < end);
	return x;
}

/* the plugin's entry point, the same name in both builds */
unsigned long reuse_spin(unsigned long x, double seconds);
unsigned long reuse_spin(unsigned long x, double seconds)
{
	return HOT(x, cpu_now() + seconds);
}
