// SPDX-License-Identifier: GPL-2.0
/*
 * Waits whose waker is known (tests/cases/68-wakers.sh). Each mode
 * measures its own waits and says who ended them, from its own tids
 * (gettid()); main prints the truth once the threads are joined. OFF_NS
 * is the waits' time off the CPU: CLOCK_MONOTONIC around the call that
 * waits less the thread's CPU time in it (its own CPU clock), which under
 * emulation is not small (the syscall's way in and out, the wakeup path);
 * SLEPT_NS of it the time asleep: less the thread's run delay there
 * (/proc/thread-self/schedstat), the time it was preempted or woken and
 * not yet running. Each is measured inside the function named below:
 *
 *   wakers pipe N US        a producer thread writes a byte every US us
 *                           (nanosleep; in producer_write()), a consumer
 *                           reads them one by one
 *                           in consumer_read():
 *                           pipe PRODUCER_TID CONSUMER_TID OFF_NS SLEPT_NS N
 *   wakers mutex N A_US B_US  holders a and b take turns holding one
 *                           pthread_mutex for A_US / B_US us while a
 *                           waiter blocks on it in lock_wait(); each
 *                           holder unlocks in its own function
 *                           (release_a(), release_b()); per acquisition
 *                           the waiter adds its wait to the holder that
 *                           released:
 *                           holder TID OFF_NS SLEPT_NS COUNT   (a, then b)
 *                           waiter TID
 *   wakers sleep N US       nanosleep in sleep_wait(), woken by the timer:
 *                           sleep TID OFF_NS SLEPT_NS N
 *   wakers fifo-read PATH N  N one-byte reads of FIFO PATH in fifo_wait():
 *                           fiforead TID OFF_NS SLEPT_NS N
 *   wakers fifo-write PATH N US  opens PATH, writes N bytes, US us apart,
 *                           as "rootwriter" (its comm):
 *                           fifowrite TID
 *   wakers exit N MIB       N threads leave by a bare exit(2) while a
 *                           "locker" thread holds the mm's mmap lock for
 *                           writing (mprotect() of MIB MiB of 4 KiB
 *                           pages), both on one CPU: a leaving thread runs
 *                           when the locker is preempted there and waits
 *                           in do_exit() (exit_mm()'s mmap_read_lock()),
 *                           and the locker's unlock wakes it:
 *                           exit LOCKER_TID N MPROTECT_NS
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <fcntl.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <stdatomic.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))
/* after a call: it cannot be a tail call, its caller keeps its frame */
#define NO_TAIL_CALL() __asm__ volatile("" ::: "memory")

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static uint64_t cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/*
 * This thread's run delay (/proc/thread-self/schedstat's second field:
 * time runnable on a runqueue, sched_info), through an fd kept per thread.
 */
static __thread int schedstat_fd = -1;

static uint64_t run_delay_ns(void)
{
	char buf[128];
	ssize_t n;

	if (schedstat_fd < 0)
		schedstat_fd = open("/proc/thread-self/schedstat",
				    O_RDONLY | O_CLOEXEC);
	n = schedstat_fd < 0 ? -1 : pread(schedstat_fd, buf, sizeof(buf) - 1, 0);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	return strtoull(strchr(buf, ' ') ? strchr(buf, ' ') + 1 : "0", NULL, 10);
}

/*
 * A wait, measured by its thread: wait_begin(w), the call, wait_end(w),
 * all inside the function the profile's samples are summed under.
 * wait_end() adds the time off the CPU (wall less CPU time) to *off and
 * of it the time asleep (less the run delay: preempted, or woken and not
 * yet running) to *slept.
 */
struct wait_clock {
	uint64_t wall, cpu, delay;
};

static void wait_begin(struct wait_clock *w)
{
	w->delay = run_delay_ns();
	w->wall = now_ns();
	w->cpu = cpu_ns();
}

static void wait_end(const struct wait_clock *w, uint64_t *off,
		     uint64_t *slept)
{
	uint64_t cpu = cpu_ns(), wall = now_ns(), delay = run_delay_ns();
	uint64_t d = wall - w->wall, c = cpu - w->cpu, r = delay - w->delay;
	uint64_t o = d > c ? d - c : 0;

	*off += o;
	*slept += o > r ? o - r : 0;
}

static int tid(void)
{
	return (int)syscall(SYS_gettid);
}

static void name(const char *n)
{
	prctl(PR_SET_NAME, n, 0, 0, 0);
}

static void sleep_us(long us)
{
	struct timespec ts = { us / 1000000, (us % 1000000) * 1000 };

	while (nanosleep(&ts, &ts))
		;
}

static void die(const char *what)
{
	perror(what);
	exit(1);
}

/* ---- pipe ---- */
static int pfd[2];
static long n_iter, us_a, us_b;
static int producer_tid, consumer_tid;
static uint64_t pipe_off, pipe_slept;

/* the consumer's waker: its release site (71's waker stacks) */
static NOINLINE void producer_write(void)
{
	if (write(pfd[1], "x", 1) != 1)
		die("write");
	NO_TAIL_CALL();
}

static void *producer(void *arg)
{
	(void)arg;
	name("producer");
	producer_tid = tid();
	for (long i = 0; i < n_iter; i++) {
		sleep_us(us_a);
		producer_write();
	}
	return NULL;
}

static NOINLINE ssize_t consumer_read(char *c)
{
	struct wait_clock w;
	ssize_t r;

	wait_begin(&w);
	r = read(pfd[0], c, 1);
	wait_end(&w, &pipe_off, &pipe_slept);
	return r;
}

static void *consumer(void *arg)
{
	char c;

	(void)arg;
	name("consumer");
	consumer_tid = tid();
	for (long i = 0; i < n_iter; i++)
		if (consumer_read(&c) != 1)
			die("read");
	return NULL;
}

static void run_pipe(void)
{
	pthread_t p, c;

	if (pipe(pfd))
		die("pipe");
	pthread_create(&c, NULL, consumer, NULL);
	pthread_create(&p, NULL, producer, NULL);
	pthread_join(p, NULL);
	pthread_join(c, NULL);
	printf("pipe %d %d %llu %llu %ld\n", producer_tid, consumer_tid,
	       (unsigned long long)pipe_off, (unsigned long long)pipe_slept,
	       n_iter);
}

/* ---- mutex ---- */
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static sem_t go[2], held;
static volatile int releaser;		/* 0: a, 1: b; set while held */
static int holder_tid[2], waiter_tid;
static uint64_t held_off[2], held_slept[2], held_count[2];

static NOINLINE void release_a(void)
{
	releaser = 0;
	pthread_mutex_unlock(&m);
	NO_TAIL_CALL();
}

static NOINLINE void release_b(void)
{
	releaser = 1;
	pthread_mutex_unlock(&m);
	NO_TAIL_CALL();
}

static void *holder(void *arg)
{
	int h = (int)(intptr_t)arg;

	name(h ? "holder_b" : "holder_a");
	holder_tid[h] = tid();
	for (long i = h; i < n_iter; i += 2) {
		sem_wait(&go[h]);
		pthread_mutex_lock(&m);
		sem_post(&held);
		sleep_us(h ? us_b : us_a);
		if (h)
			release_b();
		else
			release_a();
	}
	return NULL;
}

/* the wait goes to the holder that released (it said so before) */
static NOINLINE void lock_wait(void)
{
	struct wait_clock w;
	uint64_t off = 0, slept = 0;
	int r;

	wait_begin(&w);
	pthread_mutex_lock(&m);
	r = releaser;
	wait_end(&w, &off, &slept);
	held_off[r] += off;
	held_slept[r] += slept;
	held_count[r]++;
}

static void *waiter(void *arg)
{
	(void)arg;
	name("waiter");
	waiter_tid = tid();
	for (long i = 0; i < n_iter; i++) {
		sem_post(&go[i & 1]);
		sem_wait(&held);
		lock_wait();
		pthread_mutex_unlock(&m);
	}
	return NULL;
}

static void run_mutex(void)
{
	pthread_t a, b, w;

	sem_init(&go[0], 0, 0);
	sem_init(&go[1], 0, 0);
	sem_init(&held, 0, 0);
	pthread_create(&a, NULL, holder, (void *)0);
	pthread_create(&b, NULL, holder, (void *)1);
	pthread_create(&w, NULL, waiter, NULL);
	pthread_join(w, NULL);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	for (int h = 0; h < 2; h++)
		printf("holder %d %llu %llu %llu\n", holder_tid[h],
		       (unsigned long long)held_off[h],
		       (unsigned long long)held_slept[h],
		       (unsigned long long)held_count[h]);
	printf("waiter %d\n", waiter_tid);
}

/* ---- sleep ---- */
static int sleeper_tid;
static uint64_t sleep_off, sleep_slept;

static NOINLINE void sleep_wait(void)
{
	struct wait_clock w;

	wait_begin(&w);
	sleep_us(us_a);
	wait_end(&w, &sleep_off, &sleep_slept);
}

static void *sleeper(void *arg)
{
	(void)arg;
	name("sleeper");
	sleeper_tid = tid();
	for (long i = 0; i < n_iter; i++)
		sleep_wait();
	return NULL;
}

static void run_sleep(void)
{
	pthread_t t;

	pthread_create(&t, NULL, sleeper, NULL);
	pthread_join(t, NULL);
	printf("sleep %d %llu %llu %ld\n", sleeper_tid,
	       (unsigned long long)sleep_off, (unsigned long long)sleep_slept,
	       n_iter);
}

/* ---- fifo ---- */
static uint64_t fifo_off, fifo_slept;

static NOINLINE ssize_t fifo_wait(int fd, char *c)
{
	struct wait_clock w;
	ssize_t r;

	wait_begin(&w);
	r = read(fd, c, 1);
	wait_end(&w, &fifo_off, &fifo_slept);
	return r;
}

static void run_fifo_read(const char *path)
{
	int fd = open(path, O_RDONLY);
	char c;

	if (fd < 0)
		die(path);
	name("fiforeader");
	for (long i = 0; i < n_iter; i++)
		if (fifo_wait(fd, &c) != 1)
			die("read");
	printf("fiforead %d %llu %llu %ld\n", tid(),
	       (unsigned long long)fifo_off, (unsigned long long)fifo_slept,
	       n_iter);
}

static void run_fifo_write(const char *path)
{
	int fd = open(path, O_WRONLY);

	if (fd < 0)
		die(path);
	name("rootwriter");
	printf("fifowrite %d\n", tid());
	fflush(stdout);
	for (long i = 0; i < n_iter; i++) {
		sleep_us(us_a);
		if (write(fd, "x", 1) != 1)
			die("write");
	}
}

/* ---- exit ---- */
static atomic_int exit_go;
static sem_t lock_go, lock_done;
static char *region;
static size_t region_bytes;
static int locker_tid;
static uint64_t mprotect_ns;

static void on_cpu0(void)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(0, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		die("sched_setaffinity");
}

/*
 * Leaves as soon as the locker is in its mprotect(): by exit(2) itself,
 * not glibc's thread exit (whose madvise() of the stack would wait on the
 * lock before do_exit()). The kernel clears the tid for pthread_join().
 */
static void *exiter(void *arg)
{
	(void)arg;
	on_cpu0();
	while (!atomic_load(&exit_go))
		sched_yield();
	syscall(SYS_exit, 0);
	return NULL;
}

static void *locker(void *arg)
{
	uint64_t t;

	(void)arg;
	name("locker");
	locker_tid = tid();
	on_cpu0();
	for (long i = 0; i < n_iter; i++) {
		sem_wait(&lock_go);
		atomic_store(&exit_go, 1);
		t = now_ns();
		if (mprotect(region, region_bytes, PROT_READ) ||
		    mprotect(region, region_bytes, PROT_READ | PROT_WRITE))
			die("mprotect");
		mprotect_ns += now_ns() - t;
		sem_post(&lock_done);
	}
	return NULL;
}

static void run_exit(void)
{
	pthread_t l, e;

	region = mmap(NULL, region_bytes, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (region == MAP_FAILED)
		die("mmap");
	/* a page table entry per 4 KiB: the mprotect() walks them all */
	madvise(region, region_bytes, MADV_NOHUGEPAGE);
	for (size_t o = 0; o < region_bytes; o += 4096)
		region[o] = 1;
	sem_init(&lock_go, 0, 0);
	sem_init(&lock_done, 0, 0);
	pthread_create(&l, NULL, locker, NULL);
	for (long i = 0; i < n_iter; i++) {
		atomic_store(&exit_go, 0);
		if (pthread_create(&e, NULL, exiter, NULL))
			die("pthread_create");
		sem_post(&lock_go);
		pthread_join(e, NULL);
		sem_wait(&lock_done);
	}
	pthread_join(l, NULL);
	printf("exit %d %ld %llu\n", locker_tid, n_iter,
	       (unsigned long long)mprotect_ns);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!strcmp(mode, "pipe") && argc == 4) {
		n_iter = atol(argv[2]);
		us_a = atol(argv[3]);
		run_pipe();
	} else if (!strcmp(mode, "mutex") && argc == 5) {
		n_iter = atol(argv[2]);
		us_a = atol(argv[3]);
		us_b = atol(argv[4]);
		run_mutex();
	} else if (!strcmp(mode, "sleep") && argc == 4) {
		n_iter = atol(argv[2]);
		us_a = atol(argv[3]);
		run_sleep();
	} else if (!strcmp(mode, "fifo-read") && argc == 4) {
		n_iter = atol(argv[3]);
		run_fifo_read(argv[2]);
	} else if (!strcmp(mode, "fifo-write") && argc == 5) {
		n_iter = atol(argv[3]);
		us_a = atol(argv[4]);
		run_fifo_write(argv[2]);
	} else if (!strcmp(mode, "exit") && argc == 4) {
		n_iter = atol(argv[2]);
		region_bytes = (size_t)atol(argv[3]) << 20;
		run_exit();
	} else {
		fprintf(stderr, "usage: wakers pipe N US | mutex N A_US B_US | sleep N US | fifo-read PATH N | fifo-write PATH N US | exit N MIB\n");
		return 2;
	}
	return 0;
}
