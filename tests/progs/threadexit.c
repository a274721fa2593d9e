// SPDX-License-Identifier: GPL-2.0
/*
 * Threads that come and go while their process lives on
 * (tests/cases/57-process-exit.sh): main starts N threads, one after the
 * other, each spinning US microseconds of its own CPU time and returning
 * (pthread_exit(), the exit(2) of one thread), and joins each before the next. Their ways out of do_exit() are thread
 * exits, not the process's: the process runs on, and main prints
 *
 *   threads N
 *
 * and then spins for SPIN_MS milliseconds of its own CPU time, sampled
 * after the last thread left, before it returns from main (exit_group(2):
 * the process's exit).
 *
 *   threadexit N US SPIN_MS
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static volatile unsigned long sink;

static unsigned long long thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static void spin_ns(unsigned long long ns)
{
	unsigned long long end = thread_cpu_ns() + ns;

	while (thread_cpu_ns() < end)
		sink++;
}

static void *worker(void *arg)
{
	spin_ns(*(unsigned long long *)arg);
	return NULL;
}

int main(int argc, char **argv)
{
	unsigned long long us_ns;
	pthread_t t;
	long i, n;

	if (argc != 4) {
		fprintf(stderr, "usage: threadexit N US SPIN_MS\n");
		return 2;
	}
	n = atol(argv[1]);
	us_ns = strtoull(argv[2], NULL, 10) * 1000;
	for (i = 0; i < n; i++) {
		if (pthread_create(&t, NULL, worker, &us_ns)) {
			perror("threadexit: pthread_create");
			return 1;
		}
		pthread_join(t, NULL);
	}
	printf("threads %ld\n", n);
	fflush(stdout);
	spin_ns(strtoull(argv[3], NULL, 10) * 1000000);
	return 0;
}
