// SPDX-License-Identifier: GPL-2.0
/*
 * The image a target execs in the permission tests (installed setuid root,
 * or mode 0711, by the case): names the range of its secret code on fd 3
 * ("X start end"), then burns CPU_MS (argv[1], default 400) of CPU in it.
 * Samples with a pc in that range are samples an unprivileged session must
 * never get. Static, so the range is all of its own code.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define SECRET __attribute__((noinline, section("tprof_secret")))

extern char __start_tprof_secret[], __stop_tprof_secret[];
volatile unsigned long sink;

static unsigned long long cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

SECRET void secret_leaf(unsigned long n)
{
	unsigned long i;

	for (i = 0; i < n; i++)
		sink += i ^ (i >> 5);
}

SECRET void secret_spin(unsigned long long ns)
{
	unsigned long long end = cpu_ns() + ns;

	while (cpu_ns() < end)
		secret_leaf(200000);
}

int main(int argc, char **argv)
{
	long ms = argc > 1 ? atol(argv[1]) : 400;
	char line[64];
	int n;

	n = snprintf(line, sizeof(line), "X %lx %lx\n",
		     (unsigned long)__start_tprof_secret,
		     (unsigned long)__stop_tprof_secret);
	if (write(3, line, n) != n)
		return 2;
	secret_spin(ms * 1000000ULL);
	return 0;
}
