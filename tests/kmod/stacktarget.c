// SPDX-License-Identifier: GPL-2.0
/*
 * A target with a known frame-pointer chain main -> fa -> fb -> fc, built
 * 64-bit and -m32. Prints the three function addresses, waits for a byte
 * on stdin, burns ~150 ms of CPU in fc, exits 0.
 */
#include <stdio.h>
#include <time.h>
#include <unistd.h>

volatile unsigned long sink;

static unsigned long long cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

__attribute__((noinline)) void fc(unsigned long long ns)
{
	unsigned long long end = cpu_ns() + ns;
	unsigned long i;

	while (cpu_ns() < end)
		for (i = 0; i < 2000000; i++)
			sink += i ^ (i >> 3);
}

__attribute__((noinline)) void fb(unsigned long long ns)
{
	fc(ns);
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) void fa(unsigned long long ns)
{
	fb(ns);
	__asm__ volatile("" ::: "memory");
}

int main(void)
{
	char c;

	printf("%llx %llx %llx\n", (unsigned long long)(unsigned long)fa,
	       (unsigned long long)(unsigned long)fb,
	       (unsigned long long)(unsigned long)fc);
	fflush(stdout);
	if (read(0, &c, 1) != 1)
		return 1;
	fa(150000000ULL);
	return 0;
}
