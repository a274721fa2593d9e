// SPDX-License-Identifier: GPL-2.0
/*
 * sigprof.so: the bias lab's minimal setitimer(ITIMER_PROF) sampler, the
 * mechanism of gperftools and of Go before 1.18. LD_PRELOAD it into a
 * program; every SIGPROF counts one sample for the thread that received it.
 * At exit it writes "tid <TAB> samples" lines to $SIGPROF_OUT.
 *   SIGPROF_HZ   sampling rate in Hz of process CPU time (default 100)
 *   SIGPROF_OUT  output file (required)
 * One SIGPROF can be pending per process, which is the bias being measured.
 */
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

#define SLOTS 65536	/* open addressing by tid; lost counts if full */

static _Atomic int slot_tid[SLOTS];
static _Atomic unsigned long slot_count[SLOTS];
static _Atomic unsigned long lost;

/* Signal context: lock-free, no allocation. */
static void on_sigprof(int sig)
{
	int tid = gettid();
	unsigned int h = (unsigned int)tid * 2654435761u;

	(void)sig;
	for (int i = 0; i < SLOTS; i++) {
		unsigned int s = (h + i) % SLOTS;
		int cur = atomic_load(&slot_tid[s]);

		if (cur == 0 && atomic_compare_exchange_strong(&slot_tid[s], &cur, tid))
			cur = tid;
		if (cur == tid) {
			atomic_fetch_add(&slot_count[s], 1);
			return;
		}
	}
	atomic_fetch_add(&lost, 1);
}

static void dump(void)
{
	const char *path = getenv("SIGPROF_OUT");
	struct itimerval off = { 0 };
	FILE *f;

	setitimer(ITIMER_PROF, &off, NULL);
	if (!path || !(f = fopen(path, "w")))
		return;
	for (int s = 0; s < SLOTS; s++)
		if (atomic_load(&slot_tid[s]))
			fprintf(f, "%d\t%lu\n", atomic_load(&slot_tid[s]),
				atomic_load(&slot_count[s]));
	fprintf(f, "lost\t%lu\n", atomic_load(&lost));
	fclose(f);
}

__attribute__((constructor)) static void sigprof_start(void)
{
	const char *hz_s = getenv("SIGPROF_HZ");
	long hz = hz_s ? atol(hz_s) : 100;
	struct sigaction sa;
	struct itimerval it;

	if (!getenv("SIGPROF_OUT") || hz <= 0 || hz > 1000000)
		return;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sigprof;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGPROF, &sa, NULL);
	atexit(dump);
	it.it_interval.tv_sec = 0;
	it.it_interval.tv_usec = 1000000 / hz;
	it.it_value = it.it_interval;
	setitimer(ITIMER_PROF, &it, NULL);
}
