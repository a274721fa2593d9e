// SPDX-License-Identifier: GPL-2.0
/*
 * lab-work: the bias lab's C workloads. Every thread records its own CPU time
 * from the kernel's accounting (the scheduler's sum_exec_runtime, as in
 * /proc/PID/task/TID/schedstat) just before it exits, so profilers can be compared with
 * the truth thread by thread:
 *   truth line: tid <TAB> phase <TAB> comm <TAB> cpu_ns
 * written to $LAB_TRUTH (or stderr), and a last line with the process's
 * getrusage() user+sys time: 0 <TAB> rusage <TAB> - <TAB> cpu_ns.
 *
 *   lab-work serial-parallel THREADS UNITS  same work on 1 thread, then split
 *   lab-work shares UNITS                   4 threads doing 10/20/30/40%
 *   lab-work churn COUNT UNITS              COUNT short threads, 8 at a time
 *   lab-work mixed THREADS ITERS UNITS      bursts alternating with blocking
 *
 * Except in churn, finished threads park, and main reads their schedstat
 * before letting them exit, so that nothing they run is missing from it
 * (see run_job).
 */
#include <errno.h>
#include <stdbool.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static FILE *truth;
static pthread_mutex_t truth_lock = PTHREAD_MUTEX_INITIALIZER;

/* Deterministic CPU work a few frames deep, so stacks are not trivial. */
static volatile uint64_t sink;

static __attribute__((noinline)) uint64_t mix(uint64_t x)
{
	for (int i = 0; i < 1000; i++)
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
	return x;
}

static __attribute__((noinline)) uint64_t burn_unit(uint64_t seed)
{
	uint64_t x = seed;

	for (int i = 0; i < 100; i++)
		x ^= mix(x + i);
	return x;
}

static __attribute__((noinline)) void burn(uint64_t units)
{
	uint64_t x = units;

	for (uint64_t u = 0; u < units; u++)
		x += burn_unit(x);
	sink += x;
}

/*
 * The scheduler's sum_exec_runtime of the calling thread: the first field of
 * /proc/PID/task/TID/schedstat, but brought up to date (schedstat shows the
 * running thread's value as of its last tick or switch).
 */
static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts))
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static void write_truth(int tid, const char *phase, const char *comm, uint64_t ns)
{
	pthread_mutex_lock(&truth_lock);
	fprintf(truth, "%d\t%s\t%s\t%llu\n", tid, phase, comm,
		(unsigned long long)ns);
	fflush(truth);
	pthread_mutex_unlock(&truth_lock);
}

/* Truth for the calling thread (churn threads, main). */
static void record_truth(const char *phase)
{
	char comm[17] = "";

	prctl(PR_GET_NAME, comm);
	write_truth(gettid(), phase, comm, thread_cpu_ns());
}

/*
 * Truth for a parked thread, read by main from the kernel's accounting:
 * /proc/self/task/TID/schedstat is exact for a thread that is blocked.
 */
static uint64_t schedstat_ns(int tid)
{
	char path[64];
	unsigned long long ns = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/task/%d/schedstat", tid);
	f = fopen(path, "r");
	if (f) {
		if (fscanf(f, "%llu", &ns) != 1)
			ns = 0;
		fclose(f);
	}
	return ns;
}

/* Parked threads post @parked when done and wait for @release. */
static sem_t parked, release;

struct job {
	bool park;		/* truth read by main while parked (see run_job) */
	const char *phase;
	char name[16];
	uint64_t units;
	int iters;
	int pipe_in, pipe_out;	/* mixed: blocking partner, or -1 */
	int tid;
};

static void *run_job(void *arg)
{
	struct job *j = arg;

	j->tid = gettid();
	prctl(PR_SET_NAME, j->name);
	if (j->iters == 0) {
		burn(j->units);
	} else {
		for (int i = 0; i < j->iters; i++) {
			char c = 0;

			burn(j->units);
			if (j->pipe_out >= 0 && write(j->pipe_out, &c, 1) != 1)
				break;
			if (j->pipe_in >= 0 && read(j->pipe_in, &c, 1) != 1)
				break;
			if (j->pipe_in < 0) {
				struct timespec ts = { 0, 200000 };

				nanosleep(&ts, NULL);
			}
		}
	}
	if (!j->park) {
		record_truth(j->phase);
		return NULL;
	}
	/*
	 * A thread cannot measure what it spends after measuring itself:
	 * writing the truth line, glibc's exit path (madvise of its stack,
	 * TLB shootdowns: milliseconds in a TCG guest). So a parked thread
	 * blocks, main reads its schedstat, and then it leaves with a bare
	 * exit(2): no glibc teardown, and main, the last thread standing,
	 * pays for the address space's teardown.
	 */
	sem_post(&parked);
	while (sem_wait(&release) && errno == EINTR)
		;
	syscall(SYS_exit, 0);
	return NULL;
}

static int run_jobs(struct job *jobs, int n)
{
	pthread_t *t = calloc(n, sizeof(*t));
	int i, started, nparked = 0, err = 0;
	pthread_attr_t attr;

	if (!t)
		return ENOMEM;

	/*
	 * Small stacks: what the process unmaps when it exits, after its
	 * last truth line, stays small (it is CPU the truth cannot see).
	 */
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 256 * 1024);
	for (i = 0; i < n; i++) {
		err = pthread_create(&t[i], &attr, run_job, &jobs[i]);
		if (err)
			break;
		nparked += jobs[i].park;
	}
	started = i;
	for (i = 0; i < nparked; i++)
		while (sem_wait(&parked) && errno == EINTR)
			;
	for (i = 0; i < started; i++)
		if (jobs[i].park)
			write_truth(jobs[i].tid, jobs[i].phase, jobs[i].name,
				    schedstat_ns(jobs[i].tid));
	for (i = 0; i < nparked; i++)
		sem_post(&release);
	/* The kernel clears each tid and wakes pthread_join, even after SYS_exit. */
	for (i = 0; i < started; i++)
		pthread_join(t[i], NULL);
	pthread_attr_destroy(&attr);
	free(t);
	return err;
}

static int serial_parallel(int threads, uint64_t units)
{
	struct job serial = { .park = true, .phase = "serial", .name = "serial",
			      .units = units };
	struct job *par = calloc(threads, sizeof(*par));
	int err;

	if (!par)
		return ENOMEM;
	err = run_jobs(&serial, 1);
	for (int i = 0; i < threads && !err; i++) {
		par[i].park = true;
		par[i].phase = "parallel";
		snprintf(par[i].name, sizeof(par[i].name), "par-%02d", i % 100);
		par[i].units = units / threads;
	}
	if (!err)
		err = run_jobs(par, threads);
	free(par);
	return err;
}

static int shares(uint64_t units)
{
	struct job j[4];

	for (int i = 0; i < 4; i++) {
		j[i] = (struct job){ .park = true, .phase = "share",
				     .units = units * (i + 1) / 10 };
		snprintf(j[i].name, sizeof(j[i].name), "share-%d0", i + 1);
	}
	return run_jobs(j, 4);
}

static int churn(int count, uint64_t units)
{
	struct job j[8];
	int err = 0;

	for (int done = 0; done < count && !err; done += 8) {
		int n = count - done < 8 ? count - done : 8;

		for (int i = 0; i < n; i++) {
			j[i] = (struct job){ .phase = "churn", .units = units };
			snprintf(j[i].name, sizeof(j[i].name), "churn");
		}
		err = run_jobs(j, n);
	}
	return err;
}

static int mixed(int threads, int iters, uint64_t units)
{
	struct job *j = calloc(threads, sizeof(*j));
	int p[2][2], err;

	if (!j)
		return ENOMEM;
	if (pipe(p[0]) || pipe(p[1])) {
		free(j);
		return errno;
	}
	for (int i = 0; i < threads; i++) {
		j[i] = (struct job){ .park = true, .phase = "mixed", .units = units,
				     .iters = iters, .pipe_in = -1, .pipe_out = -1 };
		snprintf(j[i].name, sizeof(j[i].name), "mixed-%02d", i % 100);
	}
	/* Threads 0 and 1 ping-pong through pipes; the rest sleep between bursts. */
	if (threads >= 2) {
		j[0].pipe_out = p[0][1]; j[0].pipe_in = p[1][0];
		j[1].pipe_in = p[0][0]; j[1].pipe_out = p[1][1];
	}
	err = run_jobs(j, threads);
	free(j);
	return err;
}

static void usage(void)
{
	fprintf(stderr, "usage: lab-work serial-parallel THREADS UNITS | shares UNITS |\n"
		"       churn COUNT UNITS | mixed THREADS ITERS UNITS\n");
	exit(2);
}

int main(int argc, char **argv)
{
	const char *path = getenv("LAB_TRUTH");
	int err;

	if (argc < 3)
		usage();
	sem_init(&parked, 0, 0);
	sem_init(&release, 0, 0);
	truth = path ? fopen(path, "w") : stderr;
	if (!truth) {
		fprintf(stderr, "lab-work: %s: %s\n", path, strerror(errno));
		return 1;
	}
	if (!strcmp(argv[1], "serial-parallel") && argc == 4)
		err = serial_parallel(atoi(argv[2]), strtoull(argv[3], NULL, 0));
	else if (!strcmp(argv[1], "shares") && argc == 3)
		err = shares(strtoull(argv[2], NULL, 0));
	else if (!strcmp(argv[1], "churn") && argc == 4)
		err = churn(atoi(argv[2]), strtoull(argv[3], NULL, 0));
	else if (!strcmp(argv[1], "mixed") && argc == 5)
		err = mixed(atoi(argv[2]), atoi(argv[3]), strtoull(argv[4], NULL, 0));
	else
		usage();
	record_truth("main");
	{
		struct rusage ru;

		getrusage(RUSAGE_SELF, &ru);
		fprintf(truth, "0\trusage\t-\t%llu\n", (unsigned long long)
			((ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000ULL +
			 (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000ULL));
	}
	if (err)
		fprintf(stderr, "lab-work: %s\n", strerror(err));
	return err ? 1 : 0;
}
