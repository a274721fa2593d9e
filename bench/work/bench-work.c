// SPDX-License-Identifier: GPL-2.0
/*
 * bench-work: workloads and helpers for `make bench` (the bench/guest scripts).
 * Every workload appends one line of key=value pairs to $BENCH_RESULT (or
 * stderr) with its own CPU time as the scheduler accounted it
 * (CLOCK_PROCESS_CPUTIME_ID: sum_exec_runtime, work_cpu_ns) and as getrusage
 * reports it (work_ru_ns; `run` can only see rusage), so the guest's
 * emulated wall clock is never the only measure:
 *
 *   bench-work spin THREADS DEPTH UNITS   THREADS threads, each recursing
 *       DEPTH frames deep (frame pointers) and burning UNITS fixed work
 *       units there: fixed work, so profiling overhead shows as extra time.
 *   bench-work pingpong proc|thread ROUNDS [fifo]  1-byte pipe ping-pong
 *       between two processes (fork) or two threads of one process, both
 *       pinned to CPU 0 so the cost is the context switch itself. fifo:
 *       both SCHED_FIFO (root): a wakeup never preempts the waker, which
 *       blocks in its read, two sleeps a round, every run alike; under
 *       SCHED_OTHER whether the woken one preempts (one sleep a round, and
 *       a cheaper read) is settled early in a run, by the timing of the
 *       first rounds, and a profiler's own cost can tip it either way.
 *   bench-work idle SECONDS                sleep (an unrelated profiled target)
 *   bench-work forks N FILE SECONDS        fork N short-lived children, one
 *       at a time (each exits at once, and is waited for), then create FILE
 *       and sleep: a process tree that has had N children and is now idle
 *       (a CHILDREN session's table after N exits).
 *   bench-work clock MS                    spin MS ms of CLOCK_MONOTONIC and
 *       print the thread's CPU time against it (the guest's clocks agree?)
 *   bench-work run FILE -- CMD...          run CMD, append its tree's rusage
 *       (CMD and every child it waited for) and wall time to FILE.
 *   bench-work rawstats FILE               STATS of a tprof-read --save-raw
 *       stream, and SAMPLE count (off_samples: off-CPU ones) and mean user
 *       frames, as key=value
 *       (timer_arms and sched_ins are 0 from modules before ec39646).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "uapi/tprof.h"

#define UREC_STATS	0xF003	/* userspace/stream/records.h TPROF_UREC_STATS */

static volatile uint64_t sink;

static uint64_t now_ns(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static uint64_t tv_ns(struct timeval tv)
{
	return (uint64_t)tv.tv_sec * 1000000000ULL + tv.tv_usec * 1000ULL;
}

static uint64_t ru_ns(const struct rusage *ru)
{
	return tv_ns(ru->ru_utime) + tv_ns(ru->ru_stime);
}

static void result(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void result(const char *fmt, ...)
{
	const char *path = getenv("BENCH_RESULT");
	FILE *f = path && *path ? fopen(path, "a") : NULL;
	va_list ap;

	va_start(ap, fmt);
	vfprintf(f ? f : stderr, fmt, ap);
	va_end(ap);
	if (f)
		fclose(f);
}

/* ---- spin: fixed work at a fixed stack depth ---- */

static __attribute__((noinline)) uint64_t burn_unit(uint64_t x)
{
	for (int i = 0; i < 100000; i++)
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
	return x;
}

static __attribute__((noinline)) uint64_t deep(int depth, uint64_t units)
{
	uint64_t x = units;

	if (depth > 1) {
		x = deep(depth - 1, units);
	} else {
		for (uint64_t u = 0; u < units; u++)
			x ^= burn_unit(x + u);
	}
	/* not a tail call: every level keeps its frame */
	__asm__ volatile("" : "+r"(x) : : "memory");
	return x + 1;
}

struct spin_arg {
	int depth;
	uint64_t units;
};

static void *spin_thread(void *p)
{
	struct spin_arg *a = p;

	/* the thread's entry and start_thread/clone are ~3 frames */
	sink += deep(a->depth > 3 ? a->depth - 3 : 1, a->units);
	return NULL;
}

static int spin(int threads, int depth, uint64_t units)
{
	pthread_t *t = calloc(threads, sizeof(*t));
	struct spin_arg a = { depth, units };
	uint64_t w0 = now_ns(CLOCK_MONOTONIC), w1;
	struct rusage ru;
	int i;

	for (i = 0; i < threads; i++)
		if (pthread_create(&t[i], NULL, spin_thread, &a))
			return 1;
	for (i = 0; i < threads; i++)
		pthread_join(t[i], NULL);
	w1 = now_ns(CLOCK_MONOTONIC);
	getrusage(RUSAGE_SELF, &ru);
	/* nivcsw: how often others (a profiler's reader) took the CPU;
	 * minflt: page faults, whose clearing of pages is the target's CPU */
	result("work_cpu_ns=%llu work_ru_ns=%llu work_wall_ns=%llu nvcsw=%ld nivcsw=%ld minflt=%ld majflt=%ld\n",
	       (unsigned long long)now_ns(CLOCK_PROCESS_CPUTIME_ID),
	       (unsigned long long)ru_ns(&ru), (unsigned long long)(w1 - w0),
	       ru.ru_nvcsw, ru.ru_nivcsw, ru.ru_minflt, ru.ru_majflt);
	free(t);
	return 0;
}

/* ---- pingpong ---- */

static void pin0(void)
{
	cpu_set_t s;

	CPU_ZERO(&s);
	CPU_SET(0, &s);
	sched_setaffinity(0, sizeof(s), &s);
}

struct pp {
	int rd, wr;
	long rounds;
};

static void *pong(void *p)
{
	struct pp *a = p;
	char c;

	pin0();
	for (long i = 0; i < a->rounds; i++)
		if (read(a->rd, &c, 1) != 1 || write(a->wr, &c, 1) != 1)
			break;
	return NULL;
}

static int pingpong(const char *mode, long rounds, bool fifo)
{
	int ab[2], ba[2];
	struct pp other;
	uint64_t w0, w1, cpu, ru_total;
	struct rusage ru, ruc;
	pthread_t th;
	pid_t pid = 0;
	char c = 'x';
	bool proc = !strcmp(mode, "proc");

	if (pipe(ab) || pipe(ba))
		return 1;
	other = (struct pp){ ab[0], ba[1], rounds };
	pin0();
	/* inherited by the thread or the child */
	if (fifo && sched_setscheduler(0, SCHED_FIFO,
				       &(struct sched_param){ .sched_priority = 1 })) {
		perror("bench-work: SCHED_FIFO");
		return 1;
	}
	w0 = now_ns(CLOCK_MONOTONIC);
	if (proc) {
		pid = fork();
		if (pid == 0) {
			uint64_t ns;

			pong(&other);
			/* the parent adds this process's CPU time to its own */
			ns = now_ns(CLOCK_PROCESS_CPUTIME_ID);
			_exit(write(ba[1], &ns, sizeof(ns)) == sizeof(ns) ? 0 : 1);
		}
	} else if (pthread_create(&th, NULL, pong, &other)) {
		return 1;
	}
	for (long i = 0; i < rounds; i++)
		if (write(ab[1], &c, 1) != 1 || read(ba[0], &c, 1) != 1)
			return 1;
	cpu = 0;
	if (proc) {
		if (read(ba[0], &cpu, sizeof(cpu)) != sizeof(cpu))
			cpu = 0;
		waitpid(pid, NULL, 0);
	} else {
		pthread_join(th, NULL);
	}
	w1 = now_ns(CLOCK_MONOTONIC);
	cpu += now_ns(CLOCK_PROCESS_CPUTIME_ID);
	getrusage(RUSAGE_SELF, &ru);
	ru_total = ru_ns(&ru);
	if (proc) {
		getrusage(RUSAGE_CHILDREN, &ruc);
		ru_total += ru_ns(&ruc);
		ru.ru_nvcsw += ruc.ru_nvcsw;
		ru.ru_nivcsw += ruc.ru_nivcsw;
	}
	/* switches: blocked (the ping-pong's own) and preempted (others') */
	result("work_cpu_ns=%llu work_ru_ns=%llu work_wall_ns=%llu rounds=%ld nvcsw=%ld nivcsw=%ld minflt=%ld majflt=%ld\n",
	       (unsigned long long)cpu, (unsigned long long)ru_total,
	       (unsigned long long)(w1 - w0), rounds, ru.ru_nvcsw,
	       ru.ru_nivcsw, ru.ru_minflt, ru.ru_majflt);
	return 0;
}

/* ---- forks: N short-lived children, then idle ---- */

static int forks(long n, const char *file, int seconds)
{
	uint64_t w0 = now_ns(CLOCK_MONOTONIC);
	FILE *f;

	for (long i = 0; i < n; i++) {
		pid_t pid = fork();

		if (pid < 0)
			return 1;
		if (pid == 0)
			_exit(0);
		if (waitpid(pid, NULL, 0) != pid)
			return 1;
	}
	f = fopen(file, "w");
	if (!f)
		return 1;
	fprintf(f, "forked=%ld forks_wall_ns=%llu\n", n,
		(unsigned long long)(now_ns(CLOCK_MONOTONIC) - w0));
	fclose(f);
	sleep(seconds);
	return 0;
}

/* ---- run: the rusage of a whole command tree ---- */

static int run(const char *file, char **argv)
{
	uint64_t w0 = now_ns(CLOCK_MONOTONIC), w1;
	struct rusage ru;
	int st = 0;
	pid_t pid;
	FILE *f;

	pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0) {
		execvp(argv[0], argv);
		_exit(127);
	}
	if (wait4(pid, &st, 0, &ru) < 0)
		return 1;
	w1 = now_ns(CLOCK_MONOTONIC);
	f = fopen(file, "a");
	if (!f)
		return 1;
	fprintf(f, "tree_cpu_ns=%llu tree_wall_ns=%llu maxrss_kb=%ld rc=%d\n",
		(unsigned long long)ru_ns(&ru), (unsigned long long)(w1 - w0),
		ru.ru_maxrss,
		WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
	fclose(f);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
}

/* ---- rawstats ---- */

static int rawstats(const char *path)
{
	FILE *f = fopen(path, "r");
	struct tprof_rec_hdr h;
	struct tprof_ioc_stats st = { 0 };
	unsigned long long samples = 0, frames = 0, lost_recs = 0, ufault = 0;
	unsigned long long off_samples = 0;	/* TPROF_RF_OFF_CPU */
	/* bytes of SAMPLE and USTACK records; snapshots, partial ones */
	unsigned long long sbytes = 0, ustacks = 0, ubytes = 0, upartial = 0;
	unsigned long long hist[TPROF_MAX_USER_FRAMES + 1] = { 0 };
	unsigned int mode = 0, i;
	int have = 0;
	static unsigned char buf[1 << 16];

	if (!f)
		return 1;
	while (fread(&h, sizeof(h), 1, f) == 1) {
		size_t rest;

		if (h.size < sizeof(h) || h.size % 8)
			break;
		rest = h.size - sizeof(h);
		if (h.type == TPROF_REC_SAMPLE && rest <= sizeof(buf)) {
			struct tprof_rec_sample s;

			if (fread(buf, rest, 1, f) != 1)
				break;
			memcpy((char *)&s + sizeof(h), buf, sizeof(s) - sizeof(h));
			s.hdr = h;
			samples++;
			off_samples += !!(s.hdr.flags & TPROF_RF_OFF_CPU);
			sbytes += h.size;
			frames += s.nr_user;
			if (s.hdr.flags & TPROF_RF_USER_FAULT)
				ufault++;
			if (s.nr_user <= TPROF_MAX_USER_FRAMES)
				hist[s.nr_user]++;
		} else if (h.type == UREC_STATS && rest >= sizeof(st)) {
			if (fread(&st, sizeof(st), 1, f) != 1)
				break;
			fseek(f, rest - sizeof(st), SEEK_CUR);
			have = 1;
		} else {
			if (h.type == TPROF_REC_LOST)
				lost_recs++;
			if (h.type == TPROF_REC_USTACK) {
				sbytes += h.size;
				ubytes += h.size;
				ustacks++;
				upartial += !!(h.flags & TPROF_RF_USTACK_PARTIAL);
			}
			fseek(f, rest, SEEK_CUR);
		}
	}
	fclose(f);
	for (i = 0; i <= TPROF_MAX_USER_FRAMES; i++)
		if (hist[i] > hist[mode])
			mode = i;
	printf("records_samples=%llu mean_user_frames=%.1f mode_user_frames=%u "
	       "mode_share=%.2f user_fault_samples=%llu lost_records_seen=%llu",
	       samples, samples ? (double)frames / samples : 0.0, mode,
	       samples ? (double)hist[mode] / samples : 0.0, ufault, lost_recs);
	printf(" sample_bytes=%llu ustacks=%llu ustack_bytes=%llu ustack_partial=%llu"
	       " off_samples=%llu", sbytes, ustacks, ubytes, upartial, off_samples);
	if (have)
		printf(" samples=%llu lost_samples=%llu lost_records=%llu "
		       "user_stack_truncated=%llu user_stack_faults=%llu sample_path_ns=%llu "
		       "sample_path_calls=%llu late_timer_periods=%llu on_cpu_ns=%llu "
		       "timer_arms=%llu sched_ins=%llu",
		       (unsigned long long)st.samples,
		       (unsigned long long)st.lost_samples,
		       (unsigned long long)st.lost_records,
		       (unsigned long long)st.user_stack_truncated,
		       (unsigned long long)st.user_stack_faults,
		       (unsigned long long)st.sample_path_ns,
		       (unsigned long long)st.sample_path_calls,
		       (unsigned long long)st.late_timer_periods,
		       (unsigned long long)st.on_cpu_ns,
		       (unsigned long long)st.timer_arms,
		       (unsigned long long)st.sched_ins);
	printf("\n");
	return have ? 0 : 1;
}

static int clockcheck(int ms)
{
	uint64_t m0 = now_ns(CLOCK_MONOTONIC), c0 = now_ns(CLOCK_THREAD_CPUTIME_ID);
	uint64_t m1, c1;
	struct rusage ru;

	do {
		sink += burn_unit(sink);
		m1 = now_ns(CLOCK_MONOTONIC);
	} while (m1 - m0 < (uint64_t)ms * 1000000ULL);
	c1 = now_ns(CLOCK_THREAD_CPUTIME_ID);
	getrusage(RUSAGE_SELF, &ru);
	printf("clock_mono_ns=%llu clock_thread_cpu_ns=%llu clock_rusage_ns=%llu\n",
	       (unsigned long long)(m1 - m0), (unsigned long long)(c1 - c0),
	       (unsigned long long)ru_ns(&ru));
	return 0;
}

static int usage(void)
{
	fprintf(stderr, "usage: bench-work spin THREADS DEPTH UNITS | pingpong proc|thread ROUNDS [fifo] |\n"
		"       idle SECONDS | forks N FILE SECONDS | clock MS | run FILE -- CMD... |\n"
		"       rawstats FILE\n");
	return 2;
}

int main(int argc, char **argv)
{
	if (argc == 5 && !strcmp(argv[1], "spin"))
		return spin(atoi(argv[2]), atoi(argv[3]), strtoull(argv[4], NULL, 0));
	if ((argc == 4 || argc == 5) && !strcmp(argv[1], "pingpong"))
		return pingpong(argv[2], atol(argv[3]),
				argc == 5 && !strcmp(argv[4], "fifo"));
	if (argc == 3 && !strcmp(argv[1], "clock"))
		return clockcheck(atoi(argv[2]));
	if (argc == 3 && !strcmp(argv[1], "idle")) {
		sleep(atoi(argv[2]));
		return 0;
	}
	if (argc == 5 && !strcmp(argv[1], "forks"))
		return forks(atol(argv[2]), argv[3], atoi(argv[4]));
	if (argc >= 5 && !strcmp(argv[1], "run") && !strcmp(argv[3], "--"))
		return run(argv[2], argv + 4);
	if (argc == 3 && !strcmp(argv[1], "rawstats"))
		return rawstats(argv[2]);
	return usage();
}
