// SPDX-License-Identifier: GPL-2.0
/*
 * Late timers on purpose (tests/cases/62-late.sh): two functions take turns
 * on one thread, each for a few sampling periods of its own CPU time, and
 * late_a() ends each turn with a write of IRQOFF_US to the test module's
 * irqoff_us (tests/vm/testmod/tprof_late.c): a spin with IRQs off in the
 * thread's own system call, during which a sample point passes. The
 * sample comes when IRQs come back, late, still in late_a(); what it
 * stands for (the time up to then) is late_a()'s, and the next sample
 * point falls in late_b(). Each function reads its own CPU time around
 * its turn (CLOCK_THREAD_CPUTIME_ID: the scheduler's sum_exec_runtime):
 * the truth the profile is compared with. Each turn is TURN_US plus up to
 * one more millisecond, at random: turns of one length would meet the
 * sample points at the same phase every round, and the samples' count per
 * turn (2 or 3) would be biased one way for the whole run.
 *   late PARAM-FILE TURN_US IRQOFF_US ROUNDS OUT-FILE
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static volatile uint64_t sink;

/* 0 to 1 ms, from a fixed LCG: the same turns every run */
static uint64_t jitter_ns(void)
{
	static uint64_t x = 88172645463325252ULL;

	x = x * 6364136223846793005ULL + 1442695040888963407ULL;
	return (x >> 33) % 1000000;
}

static uint64_t cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* user-mode work until @ns of this thread's CPU time have passed */
static __attribute__((noinline)) void spin_for(uint64_t ns)
{
	uint64_t end = cpu_ns() + ns, x = sink;

	do {
		for (int i = 0; i < 20000; i++)
			x = x * 6364136223846793005ULL + 1442695040888963407ULL;
	} while (cpu_ns() < end);
	sink = x;
}

static __attribute__((noinline)) uint64_t late_a(int fd, uint64_t turn,
						 const char *irqoff)
{
	uint64_t t0 = cpu_ns();

	spin_for(turn);
	if (pwrite(fd, irqoff, strlen(irqoff), 0) < 0) {
		perror("late: irqoff_us");
		exit(1);
	}
	return cpu_ns() - t0;
}

static __attribute__((noinline)) uint64_t late_b(uint64_t turn)
{
	uint64_t t0 = cpu_ns();

	spin_for(turn);
	return cpu_ns() - t0;
}

int main(int argc, char **argv)
{
	uint64_t a = 0, b = 0, turn;
	int fd, rounds;
	FILE *out;

	if (argc != 6) {
		fprintf(stderr, "usage: late PARAM-FILE TURN_US IRQOFF_US ROUNDS OUT-FILE\n");
		return 2;
	}
	fd = open(argv[1], O_WRONLY);
	if (fd < 0) {
		perror(argv[1]);
		return 1;
	}
	turn = strtoull(argv[2], NULL, 0) * 1000;
	rounds = atoi(argv[4]);
	for (int i = 0; i < rounds; i++) {
		a += late_a(fd, turn + jitter_ns(), argv[3]);
		b += late_b(turn + jitter_ns());
	}
	out = fopen(argv[5], "w");
	if (!out)
		return 1;
	fprintf(out, "late_a_ns=%llu late_b_ns=%llu\n",
		(unsigned long long)a, (unsigned long long)b);
	return fclose(out) ? 1 : 0;
}
