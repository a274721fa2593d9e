// SPDX-License-Identifier: GPL-2.0
/*
 * tprof-ktest: in-guest tests of tprof.ko through its ioctls (no
 * tprof-read). `tprof-ktest TEST [ARGS]` prints TAP-like lines
 * ("ok - ...", "not ok - ...", "# ...") and exits non-zero on failure.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ktest.h"


static int ncpu;
static char self_exe[PATH_MAX];

static long long absdiff(u64 a, u64 b)
{
	return a > b ? (long long)(a - b) : (long long)(b - a);
}

/* ---------------------------------------------------------------- */
/* The workload child: threads in roles, synchronized by barriers.  */

enum { WL_SPIN, WL_SYSCALL, WL_SPIN_SLEEP };

struct wl {
	int nser;		/* role 1 threads: run first */
	int npar;		/* role 2 threads: run after role 1 finished */
	u64 ser_ns, par_ns;	/* CPU time per thread (when iters == 0) */
	u64 ser_iters, par_iters;
	int mode;		/* WL_* */
	u64 run_ns;		/* WL_SPIN_SLEEP: wall-clock duration */
	bool keep;		/* threads stay (blocked) until child_finish() */
	bool late;		/* threads are created after go */
	bool exit_after_done;	/* main exits (code 5) right after "D" */
	int nshort;		/* after go: this many sequential short threads */
	u64 short_ns;		/* CPU time of each */
	int exec_thread;	/* 1: leader execs, 2: a non-leader thread, 3: su */
};

struct wl_thread {
	struct wl *w;
	int role;
	pthread_t th;
};

static pthread_barrier_t bar_start, bar_par, bar_done, bar_end;

static void wl_work(struct wl *w, int role)
{
	u64 ns = role == 1 ? w->ser_ns : w->par_ns;
	u64 iters = role == 1 ? w->ser_iters : w->par_iters;
	u64 end;

	switch (w->mode) {
	case WL_SPIN:
		if (iters)
			spin_iters(iters);
		else
			spin_cpu(ns);
		break;
	case WL_SYSCALL: {
		/*
		 * Reads of /dev/zero: clearing 64 KiB of user memory keeps
		 * nearly all of the CPU time in the kernel, so the share of
		 * samples with kernel frames is far above any bound a test
		 * sets, whatever the emulator's user/kernel speed ratio.
		 */
		static char zbuf[64 << 10];
		int zfd = open("/dev/zero", O_RDONLY | O_CLOEXEC);

		end = thread_cpu_ns() + ns;
		while (zfd >= 0 && thread_cpu_ns() < end)
			if (read(zfd, zbuf, sizeof(zbuf)) < 0)
				break;
		if (zfd >= 0)
			close(zfd);
		break;
	}
	case WL_SPIN_SLEEP:
		end = now_ns() + w->run_ns;
		while (now_ns() < end) {
			spin_cpu(200 * US);
			usleep(100);
		}
		break;
	}
}

static void *wl_thread_fn(void *arg)
{
	struct wl_thread *t = arg;
	struct wl *w = t->w;

	if (!w->late)
		child_report("R %d %d\n", gettid_(), t->role);
	pthread_barrier_wait(&bar_start);
	if (t->role == 2)
		pthread_barrier_wait(&bar_par);
	wl_work(w, t->role);
	if (t->role == 1)
		pthread_barrier_wait(&bar_par);
	child_report("T %d %d %llu\n", gettid_(), t->role,
		     (unsigned long long)thread_cpu_ns());
	pthread_barrier_wait(&bar_done);
	if (w->keep)
		pthread_barrier_wait(&bar_end);
	return NULL;
}

static void *short_fn(void *arg)
{
	struct wl *w = arg;

	spin_cpu(w->short_ns);
	child_report("T %d 3 %llu\n", gettid_(),
		     (unsigned long long)thread_cpu_ns());
	return NULL;
}

static void *exec_fn(void *arg)
{
	(void)arg;
	execl(self_exe, "tprof-ktest", "exec-child", (char *)NULL);
	_exit(97);
}

static void wl_start_threads(struct wl *w, struct wl_thread *ts, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		ts[i].w = w;
		ts[i].role = i < w->nser ? 1 : 2;
		if (pthread_create(&ts[i].th, NULL, wl_thread_fn, &ts[i]))
			_exit(96);
	}
}

/* Threads: of /proc/self/status, or -1. */
static int nthreads_self(void)
{
	char line[256];
	FILE *f = fopen("/proc/self/status", "r");
	int n = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Threads: %d", &n) == 1)
			break;
	fclose(f);
	return n;
}

/*
 * Once every other thread is reaped (release_task() added its runtime to
 * the process's), reports their CPU time: the process clock minus ours.
 */
static void report_dead_cpu(void)
{
	struct timespec ts;
	u64 self, all;
	int i;

	for (i = 0; i < 10000 && nthreads_self() != 1; i++)
		usleep(1000);
	self = thread_cpu_ns();
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	all = ts.tv_sec * 1000000000ULL + ts.tv_nsec;
	child_report("S %llu\n", (unsigned long long)(all - self));
}

static void wl_main(void *arg)
{
	struct wl *w = arg;
	int n = w->nser + w->npar, i;
	struct wl_thread *ts = calloc(n ? n : 1, sizeof(*ts));

	pthread_barrier_init(&bar_start, NULL, n + 1);
	pthread_barrier_init(&bar_par, NULL, n ? n : 1);
	pthread_barrier_init(&bar_done, NULL, n + 1);
	pthread_barrier_init(&bar_end, NULL, n + 1);
	if (!w->late)
		wl_start_threads(w, ts, n);
	child_report("R %d 0\n", gettid_());
	child_wait_go();
	if (w->exec_thread == 1) {
		execl(self_exe, "tprof-ktest", "exec-child", (char *)NULL);
		_exit(97);
	}
	if (w->exec_thread == 3) {	/* a setuid-root program */
		int null = open("/dev/null", O_RDWR);

		dup2(null, 1);
		dup2(null, 2);
		execl("/usr/bin/su", "su", "--help", (char *)NULL);
		_exit(97);
	}
	if (w->exec_thread == 2) {
		pthread_t th;

		pthread_create(&th, NULL, exec_fn, NULL);
		pause();
	}
	for (i = 0; i < w->nshort; i++) {
		pthread_t th;

		if (pthread_create(&th, NULL, short_fn, w))
			_exit(95);
		pthread_join(th, NULL);
	}
	if (w->nshort && !n)
		report_dead_cpu();
	if (w->late)
		wl_start_threads(w, ts, n);
	pthread_barrier_wait(&bar_start);
	pthread_barrier_wait(&bar_done);
	child_report("D\n");
	if (w->exit_after_done)
		exit(5);
	child_wait_go();
	if (w->keep)
		pthread_barrier_wait(&bar_end);
	for (i = 0; i < n; i++)
		pthread_join(ts[i].th, NULL);
	_exit(0);
}

/* The exec'd image: burns 100 ms of CPU, exits 3. */
static int exec_child(void)
{
	spin_cpu(100 * MS);
	return 3;
}

/* ---------------------------------------------------------------- */
/* Common run: spawn, enable, go, wait for "D", snapshot, disable.   */

struct run {
	struct child c;
	struct report rep;
	struct sum s;
	struct tprof_ioc_stats st;
	u64 base[4096], end[4096];	/* schedstat per "R" thread */
	int fd;
	int enable_ret;
};

static void run_start(struct run *r, struct wl *w, u64 period, u32 flags,
		      u32 ring)
{
	int i, want = w->late ? 1 : w->nser + w->npar + 1;

	memset(&r->rep, 0, sizeof(r->rep));
	spawn(&r->c, wl_main, w);
	if (!collect(&r->c, &r->rep, want, false, 60000, -1, NULL))
		die("workload did not get ready");
	sum_init(&r->s, r->c.pid);
	r->fd = dev_open();
	r->enable_ret = enable(r->fd, r->c.pid, period, flags, ring);
	for (i = 0; i < r->rep.ready && i < 4096; i++)
		r->base[i] = schedstat_ns(r->c.pid, r->rep.rtid[i]);
}

/* Waits for "D" while reading (if @read). */
static bool run_wait(struct run *r, bool read)
{
	child_go(&r->c);
	return collect(&r->c, &r->rep, 0, true, 300000, r->fd,
		       read ? &r->s : NULL);
}

/*
 * Lets the threads settle (blocked), DISABLEs, snapshots schedstat (the
 * module and schedstat then cover the same interval), reads to EOF.
 */
static bool run_stop(struct run *r)
{
	bool eof;
	int i;

	usleep(200000);
	ok(disable(r->fd) == 0, "DISABLE succeeds");
	for (i = 0; i < r->rep.ready && i < 4096; i++)
		r->end[i] = schedstat_ns(r->c.pid, r->rep.rtid[i]);
	eof = read_to_eof(r->fd, &r->s, 30000);
	get_stats(r->fd, &r->st);
	return eof;
}

static int run_finish(struct run *r)
{
	int status = child_finish(&r->c);

	close(r->fd);
	return status;
}

/* ---------------------------------------------------------------- */

/* N spinners: weights vs module on-CPU vs schedstat. */
static int t_spin(int n)
{
	const u64 P = 1 * MS;
	struct wl w = { .npar = n, .par_ns = 150 * MS, .keep = true };
	long long worst_w = 0, worst_k = 0;
	double worst_kp = 0;
	int i, nw = 0, nk = 0, seen = 0, existing = 0;
	struct run r;

	run_start(&r, &w, P, 0, 0);
	ok(r.enable_ret == 0, "spin %d: ENABLE (%s)", n, strerror(-r.enable_ret));
	ok(run_wait(&r, true), "spin %d: workload done", n);
	ok(run_stop(&r), "spin %d: EOF after DISABLE", n);
	for (i = 0; i < r.rep.ready; i++) {
		struct thr *t = thr_find(&r.s, r.rep.rtid[i]);
		u64 kern = r.end[i] - r.base[i];
		long long dw, dk;

		if (r.rep.rrole[i] != 2)
			continue;
		if (!t || t->nstat != 1) {
			note("tid %d: no THREAD_STAT", r.rep.rtid[i]);
			nw++;
			continue;
		}
		seen++;
		existing += t->nexisting >= 1;
		dw = absdiff(t->weight + t->st.lost_weight_ns, t->st.on_cpu_ns);
		dk = absdiff(t->st.on_cpu_ns, kern);
		note("tid %d: samples %llu weight %llu on_cpu %llu schedstat %llu",
		     t->tid, (unsigned long long)t->samples,
		     (unsigned long long)t->weight,
		     (unsigned long long)t->st.on_cpu_ns,
		     (unsigned long long)kern);
		if (dw > worst_w)
			worst_w = dw;
		if (dk > worst_k)
			worst_k = dk;
		if (kern && (double)dk / kern > worst_kp)
			worst_kp = (double)dk / kern;
		if (dw > within_p(P) || t->weight != t->st.weight_ns -
		    t->st.lost_weight_ns)
			nw++;
		if (!kern || dk > (long long)(kern / 100))
			nk++;
	}
	ok(seen == n, "spin %d: THREAD_STAT for all %d spinners (%d)", n, n, seen);
	ok(existing == n, "spin %d: THREAD (EXISTING) record for every spinner (%d)",
	   n, existing);
	ok(nw == 0 && seen,
	   "spin %d: per-thread sample weight within P+50us of module on-CPU ns (worst %lld ns, P=%llu)",
	   n, worst_w, (unsigned long long)P);
	ok(nk == 0 && seen,
	   "spin %d: module on-CPU ns within 1%% of schedstat (worst %lld ns, %.3f%%)",
	   n, worst_k, worst_kp * 100);
	ok(r.s.bad == 0 && r.st.lost_samples == 0,
	   "spin %d: no malformed records (%llu), no lost samples (%llu)", n,
	   (unsigned long long)r.s.bad, (unsigned long long)r.st.lost_samples);
	ok(r.st.samples == r.s.samples && r.st.samples_weight_ns == r.s.weight,
	   "spin %d: STATS samples/weight match the records (%llu/%llu)", n,
	   (unsigned long long)r.st.samples, (unsigned long long)r.s.samples);
	note("late samples %llu, late periods %llu, sample path %llu ns / %llu calls",
	     (unsigned long long)r.s.late,
	     (unsigned long long)r.st.late_timer_periods,
	     (unsigned long long)r.st.sample_path_ns,
	     (unsigned long long)r.st.sample_path_calls);
	ok(WIFEXITED(run_finish(&r)), "spin %d: workload exits", n);
	sum_free(&r.s);
	return 0;
}

static u64 calibrate(u64 ns)
{
	u64 t0 = thread_cpu_ns(), t1, iters = 200000;

	for (;;) {
		spin_iters(iters);
		t1 = thread_cpu_ns();
		if (t1 - t0 > 20 * MS)
			break;
		iters *= 2;
		t0 = thread_cpu_ns();
	}
	return (u64)((double)iters * ns / (t1 - t0));
}

/* Go #35057: equal work serial, then on NCPU threads, sampled every P ns. */
static int t_phases(u64 P)
{
	u64 k = calibrate(400 * MS);
	struct wl w = { .nser = 1, .npar = ncpu, .ser_iters = k,
			.par_iters = k / ncpu, .keep = true };
	u64 samp[3] = { 0 }, kern[3] = { 0 }, oncpu[3] = { 0 };
	struct run r;
	int i, role;

	run_start(&r, &w, P, 0, 0);
	note("phases: period %llu us", (unsigned long long)(P / 1000));
	ok(r.enable_ret == 0, "phases: ENABLE");
	ok(run_wait(&r, true), "phases: workload done");
	ok(run_stop(&r), "phases: EOF after DISABLE");
	for (i = 0; i < r.rep.ready; i++) {
		struct thr *t = thr_find(&r.s, r.rep.rtid[i]);

		role = r.rep.rrole[i];
		if (role < 1 || role > 2 || !t)
			continue;
		samp[role] += t->weight + t->st.lost_weight_ns;
		kern[role] += r.end[i] - r.base[i];
		oncpu[role] += t->st.on_cpu_ns;
	}
	for (role = 1; role <= 2; role++) {
		const char *name = role == 1 ? "serial" : "parallel";
		double d = kern[role] ? (double)absdiff(samp[role], kern[role]) /
			   kern[role] : 1;

		note("%s: sampled %llu ns, module on-CPU %llu ns, schedstat %llu ns",
		     name, (unsigned long long)samp[role],
		     (unsigned long long)oncpu[role],
		     (unsigned long long)kern[role]);
		ok(kern[role] && d <= 0.03,
		   "phases: %s sampled CPU within 3%% of kernel-accounted CPU at %llu Hz (%.2f%%)",
		   name, (unsigned long long)(1000 * MS / P), d * 100);
	}
	note("parallel/serial CPU ratio %.2f", kern[1] ? (double)kern[2] / kern[1] : 0);
	ok(WIFEXITED(run_finish(&r)), "phases: workload exits");
	sum_free(&r.s);
	return 0;
}

/* Threads created after ENABLE: THREAD, samples, THREAD_EXIT. */
static int t_late(void)
{
	const u64 P = 1 * MS;
	struct wl w = { .npar = 4, .par_ns = 100 * MS, .late = true };
	int i, good_rec = 0, good_w = 0, good_cpu = 0, status;
	u64 all_cpu = 0, ru_cpu;
	struct rusage ru;
	struct run r;

	run_start(&r, &w, P, 0, 0);
	ok(r.enable_ret == 0, "late: ENABLE");
	ok(run_wait(&r, true), "late: workload done");
	ok(run_stop(&r), "late: EOF after DISABLE");
	for (i = 0; i < r.rep.n; i++) {
		struct thr *t = thr_find(&r.s, r.rep.e[i].tid);
		long long d;

		if (!t)
			continue;
		if (t->nthread >= 1 && !t->nexisting && t->nexit == 1 &&
		    t->samples > 0)
			good_rec++;
		if (absdiff(t->weight + t->st.lost_weight_ns, t->st.on_cpu_ns) <=
		    within_p(P))
			good_w++;
		d = absdiff(t->st.on_cpu_ns, r.rep.e[i].cpu);
		note("tid %d: self cputime %llu, THREAD_EXIT on_cpu %llu, samples %llu",
		     t->tid, (unsigned long long)r.rep.e[i].cpu,
		     (unsigned long long)t->st.on_cpu_ns,
		     (unsigned long long)t->samples);
		/* It read its clock before its barrier and exit path. */
		if (t->st.on_cpu_ns + 50 * US >= r.rep.e[i].cpu)
			good_cpu++;
		(void)d;
	}
	for (i = 0; i < (int)r.s.n; i++)
		all_cpu += r.s.t[i].st.on_cpu_ns;
	if (write(r.c.go_w, "x", 1) != 1 || wait4(r.c.pid, &status, 0, &ru) != r.c.pid)
		die("wait4");
	ru_cpu = (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000ULL +
		 (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000ULL;
	note("late: all threads' on_cpu %llu, process rusage %llu",
	     (unsigned long long)all_cpu, (unsigned long long)ru_cpu);
	/*
	 * An exiting thread's runtime joins its process's (what rusage
	 * reports) in __exit_signal(); what it runs after that, up to its
	 * final switch-out, only the module counts: under TCG on PREEMPT_RT
	 * up to about a millisecond a thread (CI: 3.9 ms over for 4 threads).
	 */
	ok(all_cpu <= ru_cpu + (1 + 2 * (u64)r.rep.n) * MS,
	   "late: the threads' on_cpu sum does not exceed the process's rusage CPU (and 2 ms an exited thread's exit path)");
	ok(r.rep.n == 4 && good_rec == 4,
	   "late: 4 new threads each have THREAD (not EXISTING), samples, one THREAD_EXIT (%d)",
	   good_rec);
	ok(good_w == 4, "late: their weights are within P of THREAD_EXIT on_cpu");
	ok(good_cpu == 4,
	   "late: THREAD_EXIT on_cpu covers each thread's own CPU clock");
	ok(WIFEXITED(status), "late: workload exits");
	close(r.c.go_w);
	close(r.c.rep_r);
	close(r.fd);
	sum_free(&r.s);
	return 0;
}

/*
 * 1000 short threads, each well under one period. The period grows with
 * CASE_TIMEOUT_SCALE: thread creation and exit alone cost milliseconds of
 * CPU on the KASAN+lockdep kernel under TCG.
 */
static int t_short(void)
{
	const char *sc = getenv("CASE_TIMEOUT_SCALE");
	const int scale = sc ? atoi(sc) : 1;
	const u64 P = 20 * MS * (scale > 1 ? scale : 1);
	struct wl w = { .nshort = 1000, .short_ns = 300 * US };
	int i, nexit = 0, nthread = 0, under = 0, sampled = 0;
	u64 W = 0, C = 0;
	double tol;
	struct run r;

	run_start(&r, &w, P, 0, 0);
	ok(r.enable_ret == 0, "short: ENABLE");
	ok(run_wait(&r, true), "short: workload done");
	ok(run_stop(&r), "short: EOF after DISABLE");
	for (i = 0; i < r.rep.n; i++) {
		struct thr *t = thr_find(&r.s, r.rep.e[i].tid);

		if (!t)
			continue;
		nthread += t->nthread >= 1;
		if (t->nexit != 1)
			continue;
		nexit++;
		under += t->st.on_cpu_ns < P;
		sampled += t->samples > 0;
		W += t->weight + t->st.lost_weight_ns;
		C += t->st.on_cpu_ns;
	}
	tol = 5 * __builtin_sqrt((double)C * P);
	note("short: THREAD_EXIT on_cpu sum %llu, the dead threads' CPU by the process clock %llu",
	     (unsigned long long)C, (unsigned long long)r.rep.dead_cpu);
	/*
	 * The whole exit path is the threads' CPU time: THREAD_EXIT covers it
	 * up to the final switch-out, the process clock only up to
	 * release_task() (what runs after it, 50-250 us a thread under TCG,
	 * is nobody's): at least the clock, less 2%, and not far above it.
	 */
	ok(r.rep.has_dead_cpu && C + C / 50 + 1 * MS >= r.rep.dead_cpu &&
	   C <= r.rep.dead_cpu + r.rep.dead_cpu / 2 + 1 * MS,
	   "short: THREAD_EXIT on_cpu sum (%llu) covers the exited threads' process clock (%llu) within 2%%",
	   (unsigned long long)C, (unsigned long long)r.rep.dead_cpu);
	note("short: %d threads, %d under one period, %d sampled; weight %llu vs on-CPU %llu (tolerance %.0f)",
	     nexit, under, sampled, (unsigned long long)W, (unsigned long long)C,
	     tol);
	ok(r.rep.n == 1000 && nexit == 1000 && nthread == 1000,
	   "short: THREAD and THREAD_EXIT for all 1000 threads (%d, %d)",
	   nthread, nexit);
	ok(under >= 900, "short: at least 900 of them ran less than one period (%d)",
	   under);
	ok(sampled > 0 && absdiff(W, C) <= tol,
	   "short: their summed sample weight matches their on-CPU time within 5 sigma");
	ok(r.st.threads_seen >= 1000 && !r.st.threads_dropped,
	   "short: STATS threads_seen >= 1000 (%llu), none dropped (%llu)",
	   (unsigned long long)r.st.threads_seen,
	   (unsigned long long)r.st.threads_dropped);
	ok(WIFEXITED(run_finish(&r)), "short: workload exits");
	sum_free(&r.s);
	return 0;
}

static u64 max_sample_time;

static void track_time(struct sum *s, const struct tprof_rec_sample *r,
		       const u64 *ips)
{
	(void)s;
	(void)ips;
	if (r->hdr.time_ns > max_sample_time)
		max_sample_time = r->hdr.time_ns;
}

/* exec (by the leader or by another thread), PROC_EXIT, EOF. */
static int t_exec(int how)
{
	const u64 P = 1 * MS;
	struct wl w = { .npar = 0, .exec_thread = how };
	const char *name = how == 1 ? "exec" : "exec-thread";
	struct tprof_rec_exec *e;
	struct run r;
	int status;
	bool eof;

	max_sample_time = 0;
	run_start(&r, &w, P, 0, 0);
	r.s.on_sample = track_time;
	ok(r.enable_ret == 0, "%s: ENABLE", name);
	child_go(&r.c);
	eof = read_to_eof(r.fd, &r.s, 60000);
	ok(eof, "%s: reader sees EOF after the exec'd image exits", name);
	waitpid(r.c.pid, &status, 0);
	ok(WIFEXITED(status) && WEXITSTATUS(status) == 3,
	   "%s: exec'd image ran and exited 3", name);
	ok(r.s.nexec == 1, "%s: one EXEC record (%d)", name, r.s.nexec);
	e = &r.s.exec[0];
	if (r.s.nexec >= 1) {
		ok(e->tid == (u32)r.c.pid && !strcmp((char *)e->comm, "tprof-ktest"),
		   "%s: EXEC tid is the pid, comm %s", name, e->comm);
		if (how == 1) {
			ok(e->old_tid == (u32)r.c.pid, "%s: EXEC old_tid is the pid", name);
		} else {
			struct thr *t = thr_find(&r.s, e->old_tid);

			ok(e->old_tid != (u32)r.c.pid && t && t->nthread >= 1 &&
			   t->nexit == 1,
			   "%s: EXEC old_tid %u is the exec'ing thread (THREAD + THREAD_EXIT)",
			   name, e->old_tid);
		}
		ok(max_sample_time > e->hdr.time_ns,
		   "%s: samples continue after the exec", name);
	}
	ok(r.s.nproc_exit == 1 && r.s.exit_code == 3 << 8,
	   "%s: PROC_EXIT with exit code 0x%x", name, r.s.exit_code);
	if (how == 1) {
		struct thr *t = thr_find(&r.s, r.c.pid);

		ok(t && t->nexit == 1 &&
		   absdiff(t->weight + t->st.lost_weight_ns, t->st.on_cpu_ns) <=
		   within_p(P) && t->st.on_cpu_ns >= 100 * MS,
		   "%s: leader THREAD_EXIT on_cpu %llu >= 100 ms, weights within P",
		   name, t ? (unsigned long long)t->st.on_cpu_ns : 0ULL);
	} else {
		struct thr *t = thr_find(&r.s, r.c.pid);

		/* The old leader died in de_thread(); the exec'd one later. */
		ok(t && t->nexit == 2 && t->st.on_cpu_ns >= 100 * MS &&
		   t->st.weight_ns + P >= t->st.on_cpu_ns &&
		   (long long)t->st.weight_ns <= (long long)t->st.on_cpu_ns + within_p(P),
		   "%s: two THREAD_EXITs for the pid; the exec'd one has on_cpu %llu >= 100 ms, weights within P",
		   name, t ? (unsigned long long)t->st.on_cpu_ns : 0ULL);
	}
	ok(r.s.bad == 0, "%s: no malformed records", name);
	close(r.c.go_w);
	close(r.c.rep_r);
	close(r.fd);
	sum_free(&r.s);
	return 0;
}

/* Blocking reader: target exit => PROC_EXIT, then read() returns 0. */
static int t_eof(void)
{
	struct wl w = { .npar = 2, .par_ns = 50 * MS, .exit_after_done = true };
	struct run r;
	int status, fl;
	ssize_t n;
	static char buf[1 << 16] __attribute__((aligned(8)));

	run_start(&r, &w, 1 * MS, 0, 0);
	ok(r.enable_ret == 0, "eof: ENABLE");
	fl = fcntl(r.fd, F_GETFL);
	fcntl(r.fd, F_SETFL, fl & ~O_NONBLOCK);
	child_go(&r.c);
	alarm(120);
	while ((n = read(r.fd, buf, sizeof(buf))) > 0)
		parse(&r.s, buf, n);
	alarm(0);
	ok(n == 0, "eof: blocking read() returns 0 after the target exited");
	ok(r.s.nproc_exit == 1 && r.s.exit_code == 5 << 8,
	   "eof: PROC_EXIT seen with exit code 0x%x", r.s.exit_code);
	ok(r.s.samples > 0 && r.s.bad == 0, "eof: samples (%llu) and no malformed records",
	   (unsigned long long)r.s.samples);
	n = read(r.fd, buf, sizeof(buf));
	ok(n == 0, "eof: read() keeps returning 0");
	ok(get_stats(r.fd, &r.st) == 0, "eof: STATS works after the session ended");
	ok(disable(r.fd) == 0, "eof: DISABLE after the end is harmless");
	waitpid(r.c.pid, &status, 0);
	close(r.c.go_w);
	close(r.c.rep_r);
	close(r.fd);
	sum_free(&r.s);
	return 0;
}

/* The reader dies mid-session: the session is torn down with its file. */
static int t_kill_reader(void)
{
	/*
	 * 5 s: the workload must outlive the killed reader's teardown and the
	 * new session's start (each registers the probes anew: a kprobe is
	 * text patching, slow on the emulated debug kernel; 1.5 s ran out).
	 */
	struct wl w = { .npar = 2, .mode = WL_SPIN_SLEEP, .run_ns = 5000 * MS };
	struct child c;
	struct report rep = { 0 };
	struct sum s;
	pid_t rd;
	int status, fd, ret = -1, i;
	u64 t0;

	spawn(&c, wl_main, &w);
	if (!collect(&c, &rep, 3, false, 60000, -1, NULL))
		die("workload not ready");
	fflush(stdout);
	rd = fork();
	if (!rd) {
		struct sum rs;

		fd = dev_open();
		sum_init(&rs, c.pid);
		if (enable(fd, c.pid, 100 * US, 0, 0))
			_exit(2);
		for (;;) {
			drain(fd, &rs);
			usleep(1000);
		}
	}
	child_go(&c);
	usleep(500000);
	ok(waitpid(rd, &status, WNOHANG) == 0, "kill-reader: reader is running");
	kill(rd, SIGKILL);
	waitpid(rd, &status, 0);
	ok(WIFSIGNALED(status), "kill-reader: reader killed");
	fd = dev_open();
	t0 = now_ns();
	for (i = 0; i < 50; i++) {
		ret = enable(fd, c.pid, 100 * US, 0, 0);
		if (ret != -EBUSY)
			break;
		usleep(20000);
	}
	ok(ret == 0, "kill-reader: a new session on the same target (%s, %.0f ms after the kill)",
	   strerror(-ret), (now_ns() - t0) / 1e6);
	sum_init(&s, c.pid);
	usleep(200000);
	drain(fd, &s);
	ok(s.samples > 0, "kill-reader: the new session samples (%llu)",
	   (unsigned long long)s.samples);
	close(fd);
	collect(&c, &rep, 0, true, 60000, -1, NULL);
	ok(WIFEXITED(child_finish(&c)), "kill-reader: workload exits");
	sum_free(&s);
	return 0;
}

/* NS sessions on NS processes at once; EBUSY for a second one. */
static int t_multi(int ns)
{
	const u64 P = 1 * MS;
	struct wl w = { .npar = 1, .par_ns = 100 * MS, .keep = true };
	struct child *c = calloc(ns, sizeof(*c));
	struct report *rep = calloc(ns, sizeof(*rep));
	struct sum *s = calloc(ns, sizeof(*s));
	int *fd = calloc(ns, sizeof(int));
	int i, en = 0, eofs = 0, own = 0, acc = 0, fd2;

	for (i = 0; i < ns; i++) {
		spawn(&c[i], wl_main, &w);
		if (!collect(&c[i], &rep[i], 2, false, 60000, -1, NULL))
			die("workload not ready");
		fd[i] = dev_open();
		sum_init(&s[i], c[i].pid);
		en += enable(fd[i], c[i].pid, P, 0, 0) == 0;
	}
	ok(en == ns, "multi %d: %d sessions enabled at once", ns, en);
	fd2 = dev_open();
	ok(enable(fd2, c[0].pid, P, 0, 0) == -EBUSY,
	   "multi %d: a second session on a profiled process gets EBUSY", ns);
	ok(enable(fd[0], c[1].pid, P, 0, 0) == -EBUSY,
	   "multi %d: a second ENABLE on the same file gets EBUSY", ns);
	close(fd2);
	for (i = 0; i < ns; i++)
		child_go(&c[i]);
	for (i = 0; i < ns; i++)
		collect(&c[i], &rep[i], 0, true, 120000, fd[i], &s[i]);
	for (i = 0; i < ns; i++) {
		size_t j;
		bool good = true;

		disable(fd[i]);
		eofs += read_to_eof(fd[i], &s[i], 30000);
		own += s[i].samples > 0 && s[i].bad == 0;
		for (j = 0; j < s[i].n; j++) {
			struct thr *t = &s[i].t[j];

			if (t->nstat && absdiff(t->weight + t->st.lost_weight_ns,
						t->st.on_cpu_ns) > within_p(P))
				good = false;
		}
		acc += good && s[i].n > 0;
		close(fd[i]);
		child_finish(&c[i]);
		sum_free(&s[i]);
	}
	ok(eofs == ns, "multi %d: every reader sees EOF after DISABLE", ns);
	ok(own == ns, "multi %d: every session has samples, all of its own process", ns);
	ok(acc == ns, "multi %d: every session's weights are within P of on-CPU", ns);
	free(c);
	free(rep);
	free(s);
	free(fd);
	return 0;
}

/*
 * SET_THREAD_PERIOD: B at 4P before it runs, A stays at P; C (which runs
 * first, alone) moves to 2P while it runs.
 */
static int t_period(void)
{
	const u64 P = 1 * MS;
	struct wl w = { .nser = 1, .ser_ns = 300 * MS, .npar = 2, .par_ns = 120 * MS,
			.keep = true };
	struct tprof_ioc_thread_period tp = { 0 };
	struct thr *a = NULL, *b = NULL, *cc = NULL;
	int tida = 0, tidb = 0, tidc = 0, i;
	struct run r;

	run_start(&r, &w, P, 0, 0);
	ok(r.enable_ret == 0, "period: ENABLE");
	for (i = 0; i < r.rep.ready; i++) {
		if (r.rep.rrole[i] == 1)
			tidc = r.rep.rtid[i];
		if (r.rep.rrole[i] != 2)
			continue;
		if (!tida)
			tida = r.rep.rtid[i];
		else
			tidb = r.rep.rtid[i];
	}
	ok(set_period(r.fd, tidb, 4 * P) == 0, "period: SET_THREAD_PERIOD 4P on one thread");
	ok(set_period(r.fd, getpid(), P) == -ESRCH,
	   "period: a thread outside the target gets ESRCH");
	ok(set_period(r.fd, tida, TPROF_MIN_PERIOD_NS - 1) == -EINVAL,
	   "period: a period under 10 us gets EINVAL");
	tp.tid = tida;
	tp.__pad = 1;
	tp.period_ns = P;
	ok(ioctl(r.fd, TPROF_IOC_SET_THREAD_PERIOD, &tp) && errno == EINVAL,
	   "period: non-zero __pad gets EINVAL");
	child_go(&r.c);
	for (i = 0; i < 100; i++) {	/* until C has been sampled at P */
		struct thr *t;

		drain(r.fd, &r.s);
		t = thr_find(&r.s, tidc);
		if (t && t->samples >= 3)
			break;
		usleep(10000);
	}
	ok(set_period(r.fd, tidc, 2 * P) == 0,
	   "period: SET_THREAD_PERIOD 2P on a running thread");
	ok(collect(&r.c, &r.rep, 0, true, 300000, r.fd, &r.s),
	   "period: workload done");
	ok(run_stop(&r), "period: EOF after DISABLE");
	a = thr_find(&r.s, tida);
	b = thr_find(&r.s, tidb);
	cc = thr_find(&r.s, tidc);
	ok(cc && cc->first_period == P && cc->period_seen == 2 * P &&
	   cc->st.period_ns == 2 * P && !cc->bad_period &&
	   absdiff(cc->weight + cc->st.lost_weight_ns, cc->st.on_cpu_ns) <=
	   within_p(2 * P),
	   "period: the running thread switches from P to 2P; weights within 2P of on-CPU");
	ok(a && b && a->samples && b->samples, "period: both threads sampled");
	if (a && b) {
		note("A: %llu samples period %llu, B: %llu samples period %llu",
		     (unsigned long long)a->samples, (unsigned long long)a->period_seen,
		     (unsigned long long)b->samples, (unsigned long long)b->period_seen);
		ok(a->period_seen == P && a->st.period_ns == P,
		   "period: thread A keeps the session period");
		ok(b->period_seen == 4 * P && b->st.period_ns == 4 * P && !b->bad_period,
		   "period: thread B's samples carry 4P and weights are multiples of it");
		ok(absdiff(b->weight + b->st.lost_weight_ns, b->st.on_cpu_ns) <=
		   within_p(4 * P) &&
		   absdiff(a->weight + a->st.lost_weight_ns, a->st.on_cpu_ns) <=
		   within_p(P),
		   "period: each thread's weights are within its period of on-CPU");
		/* Late timers fold periods, never split them: at most one
		 * sample per passed 4P point. */
		ok(b->samples <= b->st.on_cpu_ns / (4 * P) + 1,
		   "period: thread B has at most one sample per 4P of CPU (%llu for %llu ns)",
		   (unsigned long long)b->samples,
		   (unsigned long long)b->st.on_cpu_ns);
	}
	ok(WIFEXITED(run_finish(&r)), "period: workload exits");
	sum_free(&r.s);
	return 0;
}

static int enable_e(int fd, struct tprof_ioc_enable *e)
{
	return enable_raw(fd, e);
}

/* Every error path of ENABLE, read() and the other ioctls (as root). */
static int t_errors(void)
{
	struct wl w = { .npar = 1, .mode = WL_SPIN_SLEEP, .run_ns = 400 * MS };
	struct tprof_ioc_enable e;
	struct tprof_ioc_stats st;
	struct {
		struct tprof_ioc_enable e;
		u64 extra;
	} big;
	struct child c;
	struct report rep = { 0 };
	static char buf[4096] __attribute__((aligned(8)));
	pid_t dead;
	int fd, fd2, afd, status, i, ret;
	char path[64];

	spawn(&c, wl_main, &w);
	if (!collect(&c, &rep, 2, false, 60000, -1, NULL))
		die("workload not ready");
	fd = dev_open();

#define E0() do { memset(&e, 0, sizeof(e)); e.size = sizeof(e); e.pid = c.pid; } while (0)
	ok(ioctl(fd, _IO(TPROF_IOC_MAGIC, 0x7f)) && errno == ENOTTY, "errors: unknown nr ENOTTY");
	ok(ioctl(fd, _IOW('x', 1, int), &i) && errno == ENOTTY, "errors: foreign magic ENOTTY");
	ok(ioctl(fd, _IOW(TPROF_IOC_MAGIC, 3, int), &i) && errno == ENOTTY,
	   "errors: DISABLE number with a payload ENOTTY");
	ok(read(fd, buf, sizeof(buf)) < 0 && errno == EINVAL, "errors: read() without a session EINVAL");
	ok(disable(fd) == -EINVAL, "errors: DISABLE without a session EINVAL");
	ok(get_stats(fd, &st) == -EINVAL, "errors: STATS without a session EINVAL");
	ok(set_period(fd, c.pid, 1 * MS) == -EINVAL, "errors: SET_THREAD_PERIOD without a session EINVAL");
	E0(); e.size = 8;
	ok(enable_e(fd, &e) == -EINVAL, "errors: size 8 EINVAL");
	E0(); e.size = 8192;
	ok(enable_e(fd, &e) == -EINVAL, "errors: size 8192 EINVAL");
	memset(&big, 0, sizeof(big));
	big.e.size = sizeof(big);
	big.e.pid = c.pid;
	big.extra = 1;
	ok(ioctl(fd, TPROF_IOC_ENABLE, &big) && errno == EINVAL,
	   "errors: larger struct with non-zero tail EINVAL");
	E0(); e.flags = 1U << 8;
	ok(enable_e(fd, &e) == -EINVAL, "errors: unknown flag EINVAL");
	E0(); e.flags = TPROF_F_NO_CPU_SAMPLES;
	ok(enable_e(fd, &e) == -EINVAL, "errors: NO_CPU_SAMPLES without OFF_CPU EINVAL");
	E0(); e.off_cpu_period_ns = 1 * MS;
	ok(enable_e(fd, &e) == -EINVAL, "errors: off-CPU period without OFF_CPU EINVAL");
	E0(); e.flags = TPROF_F_OFF_CPU; e.off_cpu_period_ns = TPROF_MIN_PERIOD_NS - 1;
	ok(enable_e(fd, &e) == -EINVAL, "errors: off-CPU period under 10 us EINVAL");
	E0(); e.__pad = 1;
	ok(enable_e(fd, &e) == -EINVAL, "errors: non-zero pad EINVAL");
	E0(); e.period_ns = TPROF_MIN_PERIOD_NS - 1;
	ok(enable_e(fd, &e) == -EINVAL, "errors: period under 10 us EINVAL");
	E0(); e.max_user_frames = TPROF_MAX_USER_FRAMES + 1;
	ok(enable_e(fd, &e) == -EINVAL, "errors: user frames over the cap EINVAL");
	E0(); e.max_kernel_frames = 4;
	ok(enable_e(fd, &e) == -EINVAL, "errors: kernel frames without KERNEL_STACK EINVAL");
	E0(); e.flags = TPROF_F_KERNEL_STACK; e.max_kernel_frames = TPROF_MAX_KERNEL_FRAMES + 1;
	ok(enable_e(fd, &e) == -EINVAL, "errors: kernel frames over the cap EINVAL");
	E0(); e.ring_bytes = 5000;
	ok(enable_e(fd, &e) == -EINVAL, "errors: ring size not a power of two EINVAL");
	E0(); e.ring_bytes = 2048;
	ok(enable_e(fd, &e) == -EINVAL, "errors: ring size under 4096 EINVAL");
	E0(); e.ring_bytes = 128U << 20;
	ok(enable_e(fd, &e) == -EINVAL, "errors: ring size over 64 MiB EINVAL");
	E0(); e.auxv_fd = 3;
	ok(enable_e(fd, &e) == -EINVAL, "errors: auxv_fd without AUXV_PROOF EINVAL");
	E0(); e.pid = 0;
	ok(enable_e(fd, &e) == -EINVAL, "errors: pid 0 EINVAL");
	E0(); e.cgroup_fd = 3;
	ok(enable_e(fd, &e) == -EINVAL, "errors: cgroup_fd without CGROUP EINVAL");
	E0(); e.flags = TPROF_F_CGROUP;
	ok(enable_e(fd, &e) == -EINVAL, "errors: CGROUP with a pid EINVAL");
	E0(); e.pid = 0; e.flags = TPROF_F_CGROUP; e.cgroup_fd = 9999;
	ok(enable_e(fd, &e) == -EBADF, "errors: CGROUP with a bad fd EBADF");
	afd = open("/tmp", O_RDONLY | O_DIRECTORY);
	E0(); e.pid = 0; e.flags = TPROF_F_CGROUP; e.cgroup_fd = afd;
	ok(afd >= 0 && enable_e(fd, &e) == -EBADF,
	   "errors: CGROUP with a directory that is not cgroup2 EBADF");
	close(afd);
	E0(); e.pid = -5;
	ok(enable_e(fd, &e) == -EINVAL, "errors: negative pid EINVAL");
	fflush(stdout);
	dead = fork();
	if (!dead)
		_exit(0);
	waitpid(dead, &status, 0);
	E0(); e.pid = dead;
	ok(enable_e(fd, &e) == -ESRCH, "errors: no such process ESRCH");
	E0(); e.pid = rep.rtid[0] == c.pid ? rep.rtid[1] : rep.rtid[0];
	ok(enable_e(fd, &e) == -ESRCH, "errors: a non-leader tid ESRCH");
	E0(); e.pid = 2;
	ok(enable_e(fd, &e) == -EINVAL, "errors: kernel thread (kthreadd) EINVAL");
	E0(); e.flags = TPROF_F_AUXV_PROOF; e.auxv_fd = 9999;
	ok(enable_e(fd, &e) == -EBADF, "errors: AUXV_PROOF with a bad fd EBADF");
	afd = open("/proc/self/auxv", O_RDONLY);
	E0(); e.flags = TPROF_F_AUXV_PROOF; e.auxv_fd = afd;
	ok(enable_e(fd, &e) == -EPERM, "errors: AUXV_PROOF with another process's auxv EPERM");
	close(afd);
	snprintf(path, sizeof(path), "/proc/%d/environ", c.pid);
	afd = open(path, O_RDONLY);
	E0(); e.flags = TPROF_F_AUXV_PROOF; e.auxv_fd = afd;
	ok(afd >= 0 && enable_e(fd, &e) == -EPERM, "errors: AUXV_PROOF with an environ fd EPERM");
	close(afd);

	/* Accepted: a larger struct with a zero tail, with a valid auxv proof. */
	snprintf(path, sizeof(path), "/proc/%d/auxv", c.pid);
	afd = open(path, O_RDONLY);
	memset(&big, 0, sizeof(big));
	big.e.size = sizeof(big);
	big.e.pid = c.pid;
	big.e.flags = TPROF_F_AUXV_PROOF;
	big.e.auxv_fd = afd;
	big.e.period_ns = TPROF_MIN_PERIOD_NS;
	ok(ioctl(fd, TPROF_IOC_ENABLE, &big) == 0,
	   "errors: larger struct with zero tail, 10 us period, auxv proof accepted (%s)",
	   strerror(errno));
	close(afd);
	E0();
	ok(enable_e(fd, &e) == -EBUSY, "errors: second ENABLE on a file EBUSY");
	fd2 = dev_open();
	ret = enable_e(fd2, &e);
	ok(ret == -EBUSY && e.refused == TPROF_REFUSED_TARGET_BUSY,
	   "errors: ENABLE of a profiled process EBUSY, and it says so (refused %u)",
	   e.refused);
	close(fd2);
	/* a caller that predates cgroup_fd: its struct ends at limit_kb */
	fd2 = dev_open();
	E0(); e.size = TPROF_SIZEOF_IOC_ENABLE_V1;
	ret = enable_e(fd2, &e);
	ok(ret == -EBUSY && e.refused == TPROF_REFUSED_TARGET_BUSY,
	   "errors: a %u-byte struct (before cgroup_fd) gets as far as publish (EBUSY, refused %u)",
	   TPROF_SIZEOF_IOC_ENABLE_V1, e.refused);
	close(fd2);
	child_go(&c);
	for (i = 0; i < 100; i++) {
		struct pollfd p = { .fd = fd, .events = POLLIN };

		if (poll(&p, 1, 100) == 1)
			break;
	}
	ok(read(fd, buf, 8) < 0 && errno == EINVAL, "errors: read() into a too small buffer EINVAL");
	ok(read(fd, buf, sizeof(buf)) > 0, "errors: read() of whole records works after that");
	close(fd);
	collect(&c, &rep, 0, true, 60000, -1, NULL);
	child_finish(&c);
	return 0;
}

/* Unprivileged caller (run under setpriv): ROOTPID is another user's. */
static int t_unpriv(pid_t rootpid)
{
	struct wl w = { .npar = 1, .par_ns = 80 * MS, .keep = true };
	struct tprof_ioc_enable e;
	struct child c;
	struct report rep = { 0 };
	struct sum s;
	char path[64];
	int fd, afd, afd2, ret;

	ok(geteuid() != 0, "unpriv: running as uid %d", geteuid());
	fd = dev_open();
	ok(enable(fd, rootpid, 0, 0, 0) == -EPERM,
	   "unpriv: ENABLE on another user's process EPERM");
	snprintf(path, sizeof(path), "/proc/%d/auxv", rootpid);
	afd2 = open(path, O_RDONLY);
	ok(afd2 < 0, "unpriv: /proc/PID/auxv of another user's process cannot be opened");
	spawn(&c, wl_main, &w);
	if (!collect(&c, &rep, 2, false, 60000, -1, NULL))
		die("workload not ready");
	ok(enable(fd, c.pid, 0, 0, 0) == -EPERM,
	   "unpriv: ENABLE on its own process without proof EPERM");
	snprintf(path, sizeof(path), "/proc/%d/auxv", c.pid);
	afd = open(path, O_RDONLY);
	memset(&e, 0, sizeof(e));
	e.size = sizeof(e);
	e.pid = rootpid;
	e.flags = TPROF_F_AUXV_PROOF;
	e.auxv_fd = afd;
	ok(enable_raw(fd, &e) == -EPERM,
	   "unpriv: another process's auxv fd does not prove access EPERM");
	e.pid = c.pid;
	e.flags = TPROF_F_AUXV_PROOF | TPROF_F_KERNEL_STACK;
	ok(enable_raw(fd, &e) == -EPERM,
	   "unpriv: kernel stacks need CAP_PERFMON EPERM");
	e.flags = TPROF_F_AUXV_PROOF;
	ret = enable_raw(fd, &e);
	ok(ret == 0, "unpriv: ENABLE on its own process with the auxv proof (%s)",
	   strerror(-ret));
	close(afd);
	sum_init(&s, c.pid);
	child_go(&c);
	collect(&c, &rep, 0, true, 60000, fd, &s);
	disable(fd);
	ret = read_to_eof(fd, &s, 30000);
	ok(ret && s.samples > 0,
	   "unpriv: samples (%llu) and EOF", (unsigned long long)s.samples);
	close(fd);
	child_finish(&c);
	sum_free(&s);

	/* The target execs a setuid-root program: the session must end. */
	if (access("/usr/bin/su", X_OK) == 0) {
		struct wl ws = { .exec_thread = 3 };
		int status;

		memset(&rep, 0, sizeof(rep));
		spawn(&c, wl_main, &ws);
		if (!collect(&c, &rep, 1, false, 60000, -1, NULL))
			die("workload not ready");
		fd = dev_open();
		snprintf(path, sizeof(path), "/proc/%d/auxv", c.pid);
		afd = open(path, O_RDONLY);
		e.pid = c.pid;
		e.flags = TPROF_F_AUXV_PROOF;
		e.auxv_fd = afd;
		ret = enable_raw(fd, &e);
		close(afd);
		sum_init(&s, c.pid);
		child_go(&c);
		ok(ret == 0 && read_to_eof(fd, &s, 30000),
		   "unpriv: a setuid exec by the target ends the session (EOF)");
		ok(s.nexec == 0 && s.nproc_exit == 0 && s.ndenied == 1 &&
		   s.denied_reason == TPROF_DENIED_CREDS,
		   "unpriv: no EXEC of the setuid image (%d), DENIED for its ids (%d, reason %u), no PROC_EXIT (%d)",
		   s.nexec, s.ndenied, s.denied_reason, s.nproc_exit);
		waitpid(c.pid, &status, 0);
		close(c.go_w);
		close(c.rep_r);
		close(fd);
		sum_free(&s);
	} else {
		printf("skip - unpriv: setuid exec: /usr/bin/su not found\n");
	}
	return 0;
}

/* A tiny ring at 50 kHz: drops are counted, weights still add up. */
static int t_overflow(void)
{
	const u64 P = 20 * US;
	/*
	 * 400 ms: on the debug kernel timers come milliseconds late and fold
	 * periods into few samples (115 in 2 x 100 ms once, all of which fit
	 * the 4 KiB rings of the CPUs they landed on).
	 */
	struct wl w = { .npar = 2, .par_ns = 400 * MS, .keep = true };
	int i, good = 0, n = 0;
	u64 stat_w = 0, stat_lost_w = 0;
	struct run r;

	run_start(&r, &w, P, 0, 4096);
	ok(r.enable_ret == 0, "overflow: ENABLE with a 4096-byte ring");
	ok(run_wait(&r, false), "overflow: workload done (reader asleep)");
	ok(drain(r.fd, &r.s) == 0, "overflow: drained");
	ok(run_stop(&r), "overflow: EOF after DISABLE");
	for (i = 0; i < r.rep.ready; i++) {
		struct thr *t = thr_find(&r.s, r.rep.rtid[i]);

		if (r.rep.rrole[i] != 2 || !t || !t->nstat)
			continue;
		n++;
		note("tid %u: on_cpu %llu, weight %llu = delivered %llu + lost %llu",
		     t->tid, (unsigned long long)t->st.on_cpu_ns,
		     (unsigned long long)t->st.weight_ns,
		     (unsigned long long)t->weight,
		     (unsigned long long)t->st.lost_weight_ns);
		if (t->st.weight_ns == t->weight + t->st.lost_weight_ns &&
		    absdiff(t->st.weight_ns, t->st.on_cpu_ns) <= within_p(P))
			good++;
	}
	for (i = 0; i < (int)r.s.n; i++) {
		stat_w += r.s.t[i].st.weight_ns;
		stat_lost_w += r.s.t[i].st.lost_weight_ns;
	}
	note("STATS: samples %llu lost %llu lost_weight %llu; LOST records %llu (%llu samples)",
	     (unsigned long long)r.st.samples,
	     (unsigned long long)r.st.lost_samples,
	     (unsigned long long)r.st.lost_weight_ns,
	     (unsigned long long)r.s.lost_recs,
	     (unsigned long long)r.s.lost_samples);
	ok(r.st.lost_samples > 0 && r.s.lost_recs > 0,
	   "overflow: samples were lost and LOST records delivered");
	/* The reader drained before DISABLE: every drop reached it. */
	ok(r.s.lost_samples == r.st.lost_samples && r.s.lost_weight == r.st.lost_weight_ns,
	   "overflow: LOST records account for every drop in STATS");
	ok(n == 2 && good == 2,
	   "overflow: per thread, delivered + lost weight == THREAD_STAT weight, within P of on-CPU");
	ok(r.st.samples_weight_ns == r.s.weight && r.st.lost_weight_ns == stat_lost_w &&
	   r.s.weight + r.st.lost_weight_ns == stat_w,
	   "overflow: session totals: delivered + lost weight == sum of thread weights");
	ok(r.s.bad == 0, "overflow: no malformed records");
	ok(WIFEXITED(run_finish(&r)), "overflow: workload exits");
	sum_free(&r.s);
	return 0;
}

/* User stacks of a separate (64-bit or -m32) target binary. */
struct stackchk {
	u64 fa, fb, fc;
	u32 abi;
	u64 n, good, wrong_abi, no_user, big_ip;
};

static bool in_fn(u64 ip, u64 f)
{
	return ip > f && ip < f + 0x400;
}

static void check_stack(struct sum *s, const struct tprof_rec_sample *r,
			const u64 *ips)
{
	struct stackchk *k = s->priv;
	const u64 *u = ips + r->nr_kernel;
	bool a = false, b = false;
	int i;

	k->n++;
	/* No user context: the sample hit the exit path after exit_mm(). */
	if (r->abi == TPROF_ABI_NONE && !r->nr_user)
		k->no_user++;
	else if (r->abi != k->abi)
		k->wrong_abi++;
	for (i = 0; i < r->nr_user; i++) {
		if (k->abi == TPROF_ABI_IA32 && u[i] > 0xffffffffULL)
			k->big_ip++;
		a |= in_fn(u[i], k->fa);
		b |= in_fn(u[i], k->fb);
	}
	if (r->nr_user >= 3 && a && b)
		k->good++;
}

static int t_stack(const char *prog, u32 abi)
{
	struct stackchk k = { .abi = abi };
	struct target tg;
	struct sum s;
	int fd, ret, status;

	if (!target_start(&tg, prog, NULL)) {
		ok(false, "stack %s: target started", prog);
		return 0;
	}
	k.fa = tg.v[0];
	k.fb = tg.v[1];
	k.fc = tg.v[2];
	fd = dev_open();
	sum_init(&s, tg.pid);
	s.priv = &k;
	s.on_sample = check_stack;
	ret = enable(fd, tg.pid, 1 * MS, 0, 0);
	ok(ret == 0, "stack %s: ENABLE (%s)", prog, strerror(-ret));
	target_go(&tg);
	ok(read_to_eof(fd, &s, 60000), "stack %s: EOF at target exit", prog);
	status = target_finish(&tg);
	ok(WIFEXITED(status) && !WEXITSTATUS(status), "stack %s: target exited 0", prog);
	note("samples %llu, with fa+fb frames %llu, wrong abi %llu, no user context %llu",
	     (unsigned long long)k.n, (unsigned long long)k.good,
	     (unsigned long long)k.wrong_abi, (unsigned long long)k.no_user);
	/*
	 * Late timers fold periods: count CPU time, not samples. The exit
	 * path (do_exit(), PF_EXITING) is the target's CPU time too,
	 * accounted to its end, with no user context: 20 of 142 samples
	 * under TCG on 6.1, up to half on the debug kernel (KASAN) when the
	 * host is busy.
	 */
	ok(s.weight >= 100 * MS && k.n - k.no_user >= 5 && k.wrong_abi == 0 &&
	   k.big_ip == 0,
	   "stack %s: %llu samples (%llu ms), all with abi %u (but %llu at exit)",
	   prog, (unsigned long long)k.n, (unsigned long long)(s.weight / MS),
	   abi, (unsigned long long)k.no_user);
	ok(k.good * 2 >= k.n - k.no_user && k.n > k.no_user,
	   "stack %s: most user stacks walk through fc <- fb <- fa (%llu of %llu with user context)",
	   prog, (unsigned long long)k.good,
	   (unsigned long long)(k.n - k.no_user));
	close(fd);
	sum_free(&s);
	return 0;
}

/*
 * Where user and kernel addresses are: x86-64's canonical halves (4-level
 * paging); arm64's TTBR0 and TTBR1 ranges, up to 52-bit VAs (Debian's
 * kernels: 48, so user space below 0x0001000000000000 and the kernel's
 * from 0xffff000000000000).
 */
#ifdef __aarch64__
#define KERNEL_START	0xfff0000000000000ULL
#define USER_END	0x0010000000000000ULL
#else
#define KERNEL_START	0xffff800000000000ULL
#define USER_END	0x0000800000000000ULL
#endif

struct kchk {
	u64 n, with_k, bad_k, bad_u;
	/* the first bad sample, for the log */
	u64 bad_ip, bad_flags;
	int bad_at, bad_nk, bad_nu;
};

static void check_kstack(struct sum *s, const struct tprof_rec_sample *r,
			 const u64 *ips)
{
	struct kchk *k = s->priv;
	int i;

	k->n++;
	if (r->nr_kernel)
		k->with_k++;
	for (i = 0; i < r->nr_kernel + r->nr_user; i++) {
		bool bad = i < r->nr_kernel ? ips[i] < KERNEL_START :
					      ips[i] >= USER_END;

		if (!bad)
			continue;
		if (!k->bad_k && !k->bad_u) {
			k->bad_ip = ips[i];
			k->bad_flags = r->hdr.flags;
			k->bad_at = i;
			k->bad_nk = r->nr_kernel;
			k->bad_nu = r->nr_user;
		}
		if (i < r->nr_kernel)
			k->bad_k++;
		else
			k->bad_u++;
	}
}

/* Kernel stacks (privileged): a target that runs mostly in the kernel. */
static int t_kstack(void)
{
	struct wl w = { .npar = 1, .par_ns = 100 * MS, .mode = WL_SYSCALL, .keep = true };
	struct tprof_ioc_enable e = { .size = sizeof(e), .flags = TPROF_F_KERNEL_STACK,
				      .period_ns = 500 * US, .max_kernel_frames = 64 };
	struct kchk k = { 0 };
	struct run r;

	run_start(&r, &w, 0, 0, 0);
	close(r.fd);
	r.fd = dev_open();
	e.pid = r.c.pid;
	r.enable_ret = enable_raw(r.fd, &e);
	r.s.priv = &k;
	r.s.on_sample = check_kstack;
	ok(r.enable_ret == 0, "kstack: ENABLE with KERNEL_STACK");
	ok(run_wait(&r, true), "kstack: workload done");
	ok(run_stop(&r), "kstack: EOF");
	note("samples %llu, with kernel frames %llu", (unsigned long long)k.n,
	     (unsigned long long)k.with_k);
	ok(k.n > 0 && k.with_k * 2 >= k.n,
	   "kstack: at least 50%% of samples of a /dev/zero read loop have kernel frames");
	if (k.bad_k || k.bad_u)
		note("bad: %llu kernel, %llu user; the first: ips[%d] = %#llx of %d kernel + %d user, flags %#llx",
		     (unsigned long long)k.bad_k, (unsigned long long)k.bad_u,
		     k.bad_at, (unsigned long long)k.bad_ip, k.bad_nk,
		     k.bad_nu, (unsigned long long)k.bad_flags);
	ok(k.bad_k == 0 && k.bad_u == 0,
	   "kstack: kernel ips are kernel addresses, user ips user addresses");
	ok(WIFEXITED(run_finish(&r)), "kstack: workload exits");
	sum_free(&r.s);
	return 0;
}

static volatile int hotplug_stop;

static void *hotplug_fn(void *arg)
{
	const char *path = arg;
	int n = 0;

	while (!hotplug_stop) {
		int fd = open(path, O_WRONLY);

		if (fd < 0)
			break;
		if (write(fd, n & 1 ? "1" : "0", 1) != 1) {
			close(fd);
			break;
		}
		close(fd);
		n++;
		usleep(300000);
	}
	if (n & 1) {
		int fd = open(path, O_WRONLY);

		if (fd >= 0 && write(fd, "1", 1) != 1)
			n = -n;
		if (fd >= 0)
			close(fd);
	}
	return (void *)(long)n;
}

/* NT threads at 10 kHz switching constantly, CPU hotplug meanwhile. */
static int t_stress(int nt, int secs)
{
	const u64 P = 100 * US;
	struct wl w = { .npar = nt, .mode = WL_SPIN_SLEEP,
			.run_ns = secs * 1000 * MS, .keep = true };
	static char cpu_path[] = "/sys/devices/system/cpu/cpu1/online";
	int i, n = 0, good = 0, exact = 0;
	long long over = 0, under = 0;
	pthread_t hp;
	void *hpn = NULL;
	struct run r;
	bool hot = access(cpu_path, W_OK) == 0;

	run_start(&r, &w, P, 0, 0);
	ok(r.enable_ret == 0, "stress: ENABLE %d threads at 10 kHz", nt);
	if (hot)
		pthread_create(&hp, NULL, hotplug_fn, cpu_path);
	ok(run_wait(&r, true), "stress: workload done");
	if (hot) {
		hotplug_stop = 1;
		pthread_join(hp, &hpn);
		note("cpu1 offline/online transitions: %ld", (long)hpn);
	}
	ok(run_stop(&r), "stress: EOF after DISABLE");
	for (i = 0; i < r.rep.ready; i++) {
		struct thr *t = thr_find(&r.s, r.rep.rtid[i]);

		if (r.rep.rrole[i] != 2 || !t || !t->nstat)
			continue;
		n++;
		exact += t->st.weight_ns == t->weight + t->st.lost_weight_ns;
		good += absdiff(t->st.weight_ns, t->st.on_cpu_ns) <=
			within_p(P);
		if ((long long)(t->st.weight_ns - t->st.on_cpu_ns) > over)
			over = t->st.weight_ns - t->st.on_cpu_ns;
		if ((long long)(t->st.on_cpu_ns - t->st.weight_ns) > under)
			under = t->st.on_cpu_ns - t->st.weight_ns;
	}
	note("weight - on_cpu: max %lld ns, min -%lld ns", over, under);
	note("samples %llu lost %llu late %llu on_cpu %llu",
	     (unsigned long long)r.st.samples, (unsigned long long)r.st.lost_samples,
	     (unsigned long long)r.st.late_timer_periods,
	     (unsigned long long)r.st.on_cpu_ns);
	ok(n == nt, "stress: THREAD_STAT for all %d threads (%d)", nt, n);
	ok(exact == n && good == n,
	   "stress: every thread's weights add up and are within P of on-CPU (%d, %d of %d)",
	   exact, good, n);
	ok(r.s.samples > 0 && r.s.bad == 0, "stress: samples and no malformed records");
	if (hot)
		ok((long)hpn > 0, "stress: CPU hotplug during the session");
	else
		printf("skip - stress: CPU hotplug: %s not writable\n", cpu_path);
	ok(WIFEXITED(run_finish(&r)), "stress: workload exits");
	sum_free(&r.s);
	return 0;
}

/* Short session on a short workload (module reload loop). */
static int t_quick(void)
{
	struct wl w = { .npar = 1, .par_ns = 30 * MS, .exit_after_done = true };
	struct run r;
	int status;

	run_start(&r, &w, 200 * US, 0, 0);
	child_go(&r.c);
	if (r.enable_ret || !read_to_eof(r.fd, &r.s, 30000) || !r.s.samples ||
	    r.s.nproc_exit != 1) {
		printf("quick: enable %d samples %llu proc_exit %d\n", r.enable_ret,
		       (unsigned long long)r.s.samples, r.s.nproc_exit);
		failures++;
	}
	waitpid(r.c.pid, &status, 0);
	close(r.fd);
	sum_free(&r.s);
	return 0;
}

/* Holds a session open for SECS seconds (for the rmmod test). */
static int t_hold(int secs)
{
	struct wl w = { .npar = 1, .mode = WL_SPIN_SLEEP, .run_ns = secs * 1000 * MS };
	struct run r;

	run_start(&r, &w, 1 * MS, 0, 0);
	if (r.enable_ret)
		failures++;
	printf("holding\n");
	fflush(stdout);
	run_wait(&r, true);
	run_finish(&r);
	return 0;
}

/* A target's ABI as the cases name it: ia32, arm64, or x86_64. */
static u32 abi_arg(const char *name)
{
	if (!strcmp(name, "ia32"))
		return TPROF_ABI_IA32;
	if (!strcmp(name, "arm64"))
		return TPROF_ABI_ARM64;
	return TPROF_ABI_X86_64;
}

int main(int argc, char **argv)
{
	const char *t = argc > 1 ? argv[1] : "";
	ssize_t n;

	setvbuf(stdout, NULL, _IOLBF, 0);
	ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	n = readlink("/proc/self/exe", self_exe, sizeof(self_exe) - 1);
	if (n > 0)
		self_exe[n] = 0;
	if (!strcmp(t, "exec-child"))
		return exec_child();
	if (!strcmp(t, "spin"))
		t_spin(argc > 2 ? atoi(argv[2]) : ncpu);
	else if (!strcmp(t, "phases"))
		t_phases((argc > 2 ? strtoull(argv[2], NULL, 10) : 1000) * 1000);
	else if (!strcmp(t, "late"))
		t_late();
	else if (!strcmp(t, "short"))
		t_short();
	else if (!strcmp(t, "exec"))
		t_exec(1);
	else if (!strcmp(t, "exec-thread"))
		t_exec(2);
	else if (!strcmp(t, "eof"))
		t_eof();
	else if (!strcmp(t, "kill-reader"))
		t_kill_reader();
	else if (!strcmp(t, "multi"))
		t_multi(argc > 2 ? atoi(argv[2]) : 2);
	else if (!strcmp(t, "period"))
		t_period();
	else if (!strcmp(t, "errors"))
		t_errors();
	else if (!strcmp(t, "unpriv") && argc > 2)
		t_unpriv(atoi(argv[2]));
	else if (!strcmp(t, "overflow"))
		t_overflow();
	else if (!strcmp(t, "stack") && argc > 3)
		t_stack(argv[2], abi_arg(argv[3]));
	else if (!strcmp(t, "kstack"))
		t_kstack();
	else if (!strcmp(t, "snapshot") && argc > 3)
		t_snapshot(argv[2], abi_arg(argv[3]));
	else if (!strcmp(t, "snapshot-below") && argc > 3)
		t_snapshot_below(argv[2], abi_arg(argv[3]));
	else if (!strcmp(t, "snapshot-chain") && argc > 3)
		t_snapshot_chain(argv[2], abi_arg(argv[3]));
	else if (!strcmp(t, "snapshot-edge") && argc > 3)
		t_snapshot_edge(argv[2], abi_arg(argv[3]));
	else if (!strcmp(t, "snapshot-lost") && argc > 2)
		t_snapshot_lost(argv[2]);
	else if (!strcmp(t, "snapshot-perm") && argc > 2)
		t_snapshot_perm(argv[2]);
	else if (!strcmp(t, "stress"))
		t_stress(argc > 2 ? atoi(argv[2]) : 200, argc > 3 ? atoi(argv[3]) : 3);
	else if (!strcmp(t, "quick"))
		t_quick();
	else if (!strcmp(t, "hold") && argc > 2)
		t_hold(atoi(argv[2]));
	else if (!strcmp(t, "deny") && argc > 2)
		t_deny(argv[2], argc > 3 ? argv[3] : "");
	else if (!strcmp(t, "limits"))
		t_limits();
	else if (!strcmp(t, "hold-sessions") && argc > 4)
		t_hold_sessions(atoi(argv[2]), atoi(argv[3]), atoi(argv[4]));
	else if (!strcmp(t, "exit-order"))
		t_exit_order(argc > 2 ? atoi(argv[2]) : 8);
	else if (!strcmp(t, "enable-death"))
		t_enable_death(argc > 2 ? atoi(argv[2]) : 100);
	else if (!strcmp(t, "kstack-own"))
		t_kstack_own();
	else if (!strcmp(t, "clock"))
		t_clock();
	else if (!strcmp(t, "mmap"))
		t_mmap();
	else if (!strcmp(t, "pingpong"))
		t_pingpong(argc > 2 ? atoi(argv[2]) : 20000);
	else if (!strcmp(t, "period-race"))
		t_period_race(argc > 2 ? atoi(argv[2]) : 2000);
	else if (!strcmp(t, "exec-after") && argc > 3)
		return t_exec_after(atoi(argv[2]), argv[3]);
	else if (!strcmp(t, "lockdown") && argc > 2)
		t_lockdown(atoi(argv[2]));
	else if (!strcmp(t, "uwalk") && argc > 2)
		t_uwalk(argv[2]);
	else if (!strcmp(t, "uwalk-perm") && argc > 2)
		t_uwalk_perm(argv[2]);
	else if (!strcmp(t, "uwalk-errors") && argc > 2)
		t_uwalk_errors(argv[2]);
	else if (!strcmp(t, "uwalk-secret") && argc > 2)
		t_uwalk_secret(argv[2]);
	else if (!strcmp(t, "budget-reopen"))
		t_budget_reopen();
	else if (!strcmp(t, "waker-stacks"))
		t_waker_stacks();
	else if (!strcmp(t, "uwalk-tail") && argc > 2)
		t_uwalk_tail(argv[2]);
	else if (!strcmp(t, "uwalk-bound") && argc > 2)
		t_uwalk_bound(argv[2]);
	else if (!strcmp(t, "uwalk-bench") && argc > 2)
		t_uwalk_bench(argv[2]);
	else if (!strcmp(t, "trust") && argc > 3 && !strcmp(argv[2], "chain"))
		t_trust_chain(argc - 3, argv + 3);
	else if (!strcmp(t, "trust") && argc > 3 &&
		 !strcmp(argv[2], "denied-child"))
		t_trust_denied_child(argv[3]);
	else if (!strcmp(t, "trust") && argc > 2 && !strcmp(argv[2], "yama"))
		t_trust_yama();
	else if (!strcmp(t, "trust") && argc > 2 &&
		 !strcmp(argv[2], "stale-tid"))
		t_trust_stale_tid();
	else if (!strcmp(t, "trust") && argc > 2 &&
		 !strcmp(argv[2], "writeback"))
		t_trust_writeback();
	else if (!strcmp(t, "trust") && argc > 2 &&
		 !strcmp(argv[2], "pending-root"))
		t_trust_pending_root();
	else if (!strcmp(t, "trust") && argc > 2 && !strcmp(argv[2], "eagain"))
		t_trust_eagain(argc > 3 ? atoi(argv[3]) : 100,
			       argc > 4 ? atoi(argv[4]) : 2,
			       argc > 5 ? atoi(argv[5]) : 4);
	else {
		fprintf(stderr, "usage: tprof-ktest TEST [ARGS]\n");
		return 2;
	}
	return failures ? 1 : 0;
}
