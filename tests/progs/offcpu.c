// SPDX-License-Identifier: GPL-2.0
/*
 * Off-CPU workloads (tests/cases/54-off-cpu.sh). Each worker thread reads
 * what the kernel says of it at its end, and main prints it once every
 * worker is joined (printing from the workers would make them wait for
 * stdout's lock and the file after their truth was taken), as the truth
 * the profile is checked against:
 *
 *   worker TID LIFE_NS CPU_NS RUN_DELAY_NS BLOCK_NS SLEEP_NS
 *
 * LIFE_NS is CLOCK_MONOTONIC from the first to the last line of the
 * worker's function (the samples to compare are those under it), CPU_NS
 * the CPU time it ran there (its own CPU clock, sum_exec_runtime), and
 * RUN_DELAY_NS its runqueue wait (/proc/thread-self/schedstat), BLOCK_NS
 * and SLEEP_NS schedstats' sum_block_runtime and sum_sleep_runtime (the
 * latter includes the former; -1 unless kernel.sched_schedstats is on),
 * each from just before to just after that function: SLEEP_NS +
 * RUN_DELAY_NS is the kernel's own off-CPU time of it, which leaves out
 * irq time (CONFIG_IRQ_TIME_ACCOUNTING: neither CPU_NS nor a wait).
 *
 *   offcpu sleep N          one worker: N x (50 ms spinning, 50 ms
 *                           nanosleep in sleep_phase())
 *   offcpu mutex T N US     T workers fighting over one pthread_mutex: N x
 *                           (take_lock(), US us spinning, unlock, US us)
 *   offcpu dio DEV N        one worker: N O_DIRECT 4 KiB reads of block
 *                           device DEV in read_direct()
 *   offcpu spin T MS        T workers spinning for MS ms of their own CPU
 *                           time each (more than the CPUs: preempted)
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))
/* after a call: it cannot be a tail call, its caller keeps its frame */
#define NO_TAIL_CALL() __asm__ volatile("" ::: "memory")

static uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static volatile uint64_t sink;

/* Spins for ns of this thread's CPU time. */
static NOINLINE void spin_cpu(uint64_t ns)
{
	uint64_t end = clock_ns(CLOCK_THREAD_CPUTIME_ID) + ns;
	uint64_t x = sink;

	while (clock_ns(CLOCK_THREAD_CPUTIME_ID) < end) {
		for (int i = 0; i < 1000; i++)
			x = x * 6364136223846793005ULL + 1442695040888963407ULL;
	}
	sink = x;
}

/*
 * The file's text into buf (NUL-terminated), with no stdio and no malloc:
 * a thread's first malloc() makes its arena (mmap, munmap), which waits
 * for the mm's lock behind the other threads' page faults.
 */
static int read_text(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = 0;
	return 0;
}

/* schedstats' value (ms with decimals) of key in /proc/thread-self/sched. */
static int64_t sched_field(const char *text, const char *key)
{
	const char *line = text;
	size_t klen = strlen(key);

	while (line && *line) {
		unsigned long long ms, frac;
		const char *colon = strchr(line, ':');

		if (!strncmp(line, key, klen) && line[klen] == ' ' && colon &&
		    sscanf(colon + 1, " %llu.%6llu", &ms, &frac) == 2)
			return (int64_t)(ms * 1000000ULL + frac);
		line = strchr(line, '\n');
		if (line)
			line++;
	}
	return -1;
}

/* One worker's truth, taken by itself. */
struct truth {
	uint64_t start, cpu_start;
	long tid;
	uint64_t life, cpu;
	unsigned long long delay;
	int64_t block, sleep;
};

static struct truth truths[256];
static long nworkers;
static __thread struct truth *self;

static void truth_begin(void)
{
	self->start = clock_ns(CLOCK_MONOTONIC);
	self->cpu_start = clock_ns(CLOCK_THREAD_CPUTIME_ID);
}

static void truth_end(void)
{
	struct truth *t = self;

	t->cpu = clock_ns(CLOCK_THREAD_CPUTIME_ID) - t->cpu_start;
	t->life = clock_ns(CLOCK_MONOTONIC) - t->start;
	t->tid = (long)gettid();
}

/* schedstat's run delay of this thread so far, 0 if unknown */
static unsigned long long run_delay(void)
{
	unsigned long long rt, delay;
	char buf[64];

	if (read_text("/proc/thread-self/schedstat", buf, sizeof(buf)) ||
	    sscanf(buf, "%llu %llu", &rt, &delay) != 2)
		return 0;
	return delay;
}

/*
 * What the kernel counted of this thread's waits so far: its run delay,
 * and schedstats' block and sleep time (-1 where schedstats are off).
 * The run delay is read next to the worker function (last before it,
 * first after it): a preemption between that read and the function is
 * in the delay but not under the function's samples, and reading
 * /proc/thread-self/sched (8 KB of text) is a long window. Read first,
 * it put CI's 16 spinners' run delay 5.9% over their samples.
 */
static void kernel_waits(bool before, unsigned long long *delay,
			 int64_t *block, int64_t *sleep)
{
	static __thread char text[8192];
	char buf[16];

	if (!before)
		*delay = run_delay();
	*block = *sleep = -1;
	if (!read_text("/proc/sys/kernel/sched_schedstats", buf, sizeof(buf)) &&
	    atoi(buf) && !read_text("/proc/thread-self/sched", text, sizeof(text))) {
		*block = sched_field(text, "sum_block_runtime");
		*sleep = sched_field(text, "sum_sleep_runtime");
	}
	if (before)
		*delay = run_delay();
}

/* ---- sleep: 50 ms on, 50 ms asleep ---- */

static NOINLINE void sleep_phase(void)
{
	struct timespec ts = { 0, 50 * 1000 * 1000 };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static NOINLINE void *sleeper(void *arg)
{
	long n = (long)arg;

	truth_begin();
	for (long i = 0; i < n; i++) {
		spin_cpu(50 * 1000 * 1000);
		sleep_phase();
	}
	truth_end();
	return NULL;
}

/* ---- mutex: T threads, one lock ---- */

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static long mutex_iters, mutex_hold_ns;

static NOINLINE void take_lock(void)
{
	pthread_mutex_lock(&lock);
	NO_TAIL_CALL();
}

static NOINLINE void *contender(void *arg)
{
	(void)arg;
	truth_begin();
	for (long i = 0; i < mutex_iters; i++) {
		take_lock();
		spin_cpu(mutex_hold_ns);
		pthread_mutex_unlock(&lock);
		spin_cpu(mutex_hold_ns);
	}
	truth_end();
	return NULL;
}

/* ---- dio: O_DIRECT reads of a block device ---- */

static const char *dio_dev;
static long dio_reads;

static NOINLINE ssize_t read_direct(int fd, void *buf, off_t off)
{
	ssize_t n = pread(fd, buf, 4096, off);

	NO_TAIL_CALL();
	return n;
}

static NOINLINE void *dio_reader(void *arg)
{
	void *buf;
	off_t size;
	int fd;

	(void)arg;
	truth_begin();
	fd = open(dio_dev, O_RDONLY | O_DIRECT);
	if (fd < 0 || posix_memalign(&buf, 4096, 4096)) {
		fprintf(stderr, "offcpu: %s: %s\n", dio_dev, strerror(errno));
		exit(1);
	}
	size = lseek(fd, 0, SEEK_END);
	if (size < 4096) {
		fprintf(stderr, "offcpu: %s: too small\n", dio_dev);
		exit(1);
	}
	for (long i = 0; i < dio_reads; i++) {
		off_t off = (off_t)((uint64_t)i * 7919 % (uint64_t)(size / 4096)) * 4096;

		if (read_direct(fd, buf, off) != 4096) {
			fprintf(stderr, "offcpu: read %s: %s\n", dio_dev,
				strerror(errno));
			exit(1);
		}
	}
	truth_end();
	close(fd);
	free(buf);
	return NULL;
}

/* ---- spin: more spinners than CPUs ---- */

static long spin_ms;

static NOINLINE void *spinner(void *arg)
{
	(void)arg;
	truth_begin();
	spin_cpu((uint64_t)spin_ms * 1000000ULL);
	truth_end();
	return NULL;
}

struct start {
	void *(*fn)(void *);
	void *arg;
	struct truth *t;
};

/*
 * The worker function with the kernel's figures read around it: its run
 * delay in between, and schedstats' totals (its whole life) after it.
 */
static void *thread_main(void *p)
{
	struct start *st = p;
	void *ret;

	unsigned long long d0, d1;
	int64_t b0, b1, s0, s1;

	self = st->t;
	kernel_waits(true, &d0, &b0, &s0);
	ret = st->fn(st->arg);
	kernel_waits(false, &d1, &b1, &s1);
	self->delay = d1 - d0;
	self->block = b0 < 0 || b1 < 0 ? -1 : b1 - b0;
	self->sleep = s0 < 0 || s1 < 0 ? -1 : s1 - s0;
	return ret;
}

static void run(long nthreads, void *(*fn)(void *), void *arg)
{
	static struct start starts[256];
	pthread_t th[256];

	if (nthreads < 1 || nthreads > 256) {
		fprintf(stderr, "offcpu: 1..256 threads\n");
		exit(2);
	}
	nworkers = nthreads;
	for (long i = 0; i < nthreads; i++) {
		starts[i] = (struct start){ fn, arg, &truths[i] };
		if (pthread_create(&th[i], NULL, thread_main, &starts[i])) {
			fprintf(stderr, "offcpu: pthread_create failed\n");
			exit(1);
		}
	}
	for (long i = 0; i < nthreads; i++)
		pthread_join(th[i], NULL);
	for (long i = 0; i < nworkers; i++)
		printf("worker %ld %llu %llu %llu %lld %lld\n", truths[i].tid,
		       (unsigned long long)truths[i].life,
		       (unsigned long long)truths[i].cpu, truths[i].delay,
		       (long long)truths[i].block, (long long)truths[i].sleep);
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "sleep")) {
		run(1, sleeper, (void *)atol(argv[2]));
	} else if (argc == 5 && !strcmp(argv[1], "mutex")) {
		mutex_iters = atol(argv[3]);
		mutex_hold_ns = atol(argv[4]) * 1000;
		run(atol(argv[2]), contender, NULL);
	} else if (argc == 4 && !strcmp(argv[1], "dio")) {
		dio_dev = argv[2];
		dio_reads = atol(argv[3]);
		run(1, dio_reader, NULL);
	} else if (argc == 4 && !strcmp(argv[1], "spin")) {
		spin_ms = atol(argv[3]);
		run(atol(argv[2]), spinner, NULL);
	} else {
		fprintf(stderr, "usage: offcpu sleep N | mutex T N US | dio DEV N | spin T MS\n");
		return 2;
	}
	return 0;
}
