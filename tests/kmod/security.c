// SPDX-License-Identifier: GPL-2.0
/*
 * tprof-ktest: who may see what, and the races around a session's start
 * and end (issue 11). Each test names the kernel path it reaches:
 *   deny KIND [PATH]   unprivileged; the target stops being profilable:
 *                      setuid (exec of a setuid-root PATH, racing ENABLE),
 *                      0711 (exec of an unreadable PATH), prctl
 *                      (PR_SET_DUMPABLE 0): no sample of the secret code,
 *                      a DENIED record with the reason, EOF
 *   limits             unprivileged: per-user sessions, the locked-memory
 *                      charge (and its release), INFO's figures
 *   hold-sessions N OK ERR  unprivileged: opens N sessions on its own
 *                      processes, expects OK of them to succeed and the
 *                      next to fail with ERR, holds them until stdin ends
 *   exit-order         many threads exiting from a large mm: PROC_EXIT is
 *                      later than every THREAD_EXIT
 *   enable-death       ENABLE racing the target's immediate exit
 *   kstack-own         kernel stacks never show tprof.ko's own frames
 *   clock              accounting when rq_clock_task lags local_clock
 *   lockdown LOCKED    kernel stacks refused (LOCKED=1) or allowed
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ktest.h"

static int ncpu_online(void)
{
	return (int)sysconf(_SC_NPROCESSORS_ONLN);
}

#define TPROF_DEFAULT_RING_BYTES_K	256	/* kmod/tprof.h, in KiB */


#define PUBLIC __attribute__((noinline, section("tprof_public")))
#define SECRET __attribute__((noinline, section("tprof_secret")))

extern char __start_tprof_public[], __stop_tprof_public[];
extern char __start_tprof_secret[], __stop_tprof_secret[];
static volatile u64 sec_sink;

static u64 cpu_now(void)
{
	return thread_cpu_ns();
}

PUBLIC void pub_spin(u64 ns)
{
	u64 end = cpu_now() + ns, i;

	while (cpu_now() < end)
		for (i = 0; i < 100000; i++)
			sec_sink += i * 3;
}

SECRET void secret_spin(u64 ns)
{
	u64 end = cpu_now() + ns, i;

	while (cpu_now() < end)
		for (i = 0; i < 100000; i++)
			sec_sink += i * 5;
}

/* Sample user pcs and times, for the range checks after the run. */
struct pcs {
	u64 *pc, *time;
	size_t n, cap;
	u64 kernel_tprof;	/* samples with a kernel ip in tprof's sampler */
	u64 with_kernel;	/* samples with any kernel ip */
};

static void pcs_cb(struct sum *s, const struct tprof_rec_sample *r,
		   const u64 *ips)
{
	struct pcs *p = s->priv;

	if (p->n == p->cap) {
		p->cap = p->cap ? 2 * p->cap : 4096;
		p->pc = realloc(p->pc, p->cap * sizeof(u64));
		p->time = realloc(p->time, p->cap * sizeof(u64));
		if (!p->pc || !p->time)
			die("realloc");
	}
	p->pc[p->n] = r->nr_user ? ips[r->nr_kernel] : 0;
	p->time[p->n++] = r->hdr.time_ns;
}

static size_t pcs_in(const struct pcs *p, u64 lo, u64 hi)
{
	size_t i, n = 0;

	for (i = 0; i < p->n; i++)
		n += p->pc[i] >= lo && p->pc[i] < hi;
	return n;
}

static size_t pcs_after(const struct pcs *p, u64 t)
{
	size_t i, n = 0;

	for (i = 0; i < p->n; i++)
		n += p->time[i] > t;
	return n;
}

static int auxv_open(pid_t pid)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/auxv", pid);
	return open(path, O_RDONLY | O_CLOEXEC);
}

/* ENABLE as an unprivileged caller does it: with the auxv proof. */
/* ENABLE with an auxv proof; *out (when given) has what came back. */
static int enable_proof_as(int fd, pid_t pid, u32 ring_bytes,
			   unsigned long cmd, struct tprof_ioc_enable *out)
{
	struct tprof_ioc_enable e = {
		.size = sizeof(e),
		.flags = TPROF_F_AUXV_PROOF,
		.pid = pid,
		.period_ns = 1 * MS,
		.ring_bytes = ring_bytes,
	};
	int ret;

	e.auxv_fd = auxv_open(pid);
	if (e.auxv_fd < 0)
		return -errno;
	ret = ioctl(fd, cmd, &e) ? -errno : 0;
	close(e.auxv_fd);
	if (out)
		*out = e;
	return ret;
}

static int enable_proof(int fd, pid_t pid, u32 ring_bytes)
{
	return enable_proof_as(fd, pid, ring_bytes, TPROF_IOC_ENABLE, NULL);
}

struct deny_arg {
	const char *kind;
	const char *path;
	u64 pre_ns;
};

/*
 * AppArmor's change_profile without exec: the caller's credentials are
 * replaced, with no exec and the same ids (tests/cases/33-deny.sh loads
 * the profiles). Return: 0 or -errno.
 */
static int aa_change_profile_raw(const char *profile)
{
	static const char *const attr[] = {
		"/proc/self/attr/apparmor/current", "/proc/self/attr/current",
	};
	char cmd[128];
	int fd, len, ret = -ENOENT;
	size_t i;

	len = snprintf(cmd, sizeof(cmd), "changeprofile %s", profile);
	for (i = 0; i < sizeof(attr) / sizeof(attr[0]) && ret == -ENOENT; i++) {
		fd = open(attr[i], O_WRONLY | O_CLOEXEC);
		if (fd < 0) {
			ret = -errno;
			continue;
		}
		ret = write(fd, cmd, len) == len ? 0 : -errno;
		close(fd);
	}
	return ret;
}

/* label: what open(/proc/PID/auxv), ptrace's read check, gave after it */
static int label_auxv_errno = -1;

static void deny_child(void *arg)
{
	struct deny_arg *a = arg;

	child_report("R %d 0\n", gettid_());
	child_wait_go();
	pub_spin(a->pre_ns);
	if (strcmp(a->kind, "setuid")) {
		/* The control: public code sampled once ENABLE is done. */
		child_wait_go();
		pub_spin(100 * MS);
	}
	if (!strcmp(a->kind, "prctl") || !strcmp(a->kind, "label") ||
	    !strcmp(a->kind, "keepcaps")) {
		child_report("X %lx %lx\n", (unsigned long)__start_tprof_secret,
			     (unsigned long)__stop_tprof_secret);
		if (!strcmp(a->kind, "prctl"))
			prctl(PR_SET_DUMPABLE, 0);
		else if (!strcmp(a->kind, "keepcaps"))
			/* new credentials (commit_creds()), the same label */
			prctl(PR_SET_KEEPCAPS, 1);
		else if (aa_change_profile_raw("tprof_ktest_b"))
			_exit(95);
		secret_spin(300 * MS);
		child_report("D\n");
		child_wait_go();
		_exit(0);
	}
	if (dup2(child_report_fd(), 3) != 3)
		_exit(96);
	execl(a->path, "secret", "1500", (char *)NULL);
	_exit(97);
}

/*
 * One target: ENABLE right after go (the exec kinds race it), read to
 * EOF. Return: the ENABLE result.
 */
static int deny_once(struct deny_arg *a, struct sum *s, struct pcs *p,
		     struct report *rep, u32 ring_bytes)
{
	struct tprof_ioc_enable e = {
		.size = sizeof(e), .flags = TPROF_F_AUXV_PROOF,
		.period_ns = 1 * MS, .ring_bytes = ring_bytes,
	};
	struct child c;
	int fd, ret, status;

	memset(rep, 0, sizeof(*rep));
	spawn(&c, deny_child, a);
	if (!collect(&c, rep, 1, false, 60000, -1, NULL))
		die("deny: target not ready");
	sum_init(s, c.pid);
	s->on_sample = pcs_cb;
	s->priv = p;
	fd = dev_open();
	/* auxv is opened before go: an exec after it invalidates the proof. */
	e.pid = c.pid;
	e.auxv_fd = auxv_open(c.pid);
	child_go(&c);
	ret = e.auxv_fd < 0 ? -EACCES : enable_raw(fd, &e);
	if (e.auxv_fd >= 0)
		close(e.auxv_fd);
	if (strcmp(a->kind, "setuid"))
		child_go(&c);
	collect(&c, rep, 0, true, 60000, ret ? -1 : fd, ret ? NULL : s);
	/* keepcaps: not denied, the session ends with the process */
	if (!strcmp(a->kind, "keepcaps"))
		child_finish(&c);
	if (!ret && !read_to_eof(fd, s, 60000))
		note("deny: no EOF within 60 s");
	if (!strcmp(a->kind, "label")) {
		/* the child waits for go: ptrace's own check of it now */
		int afd = auxv_open(c.pid);

		label_auxv_errno = afd < 0 ? errno : 0;
		if (afd >= 0)
			close(afd);
	}
	if (!strcmp(a->kind, "prctl") || !strcmp(a->kind, "label")) {
		child_finish(&c);
	} else if (strcmp(a->kind, "keepcaps")) {
		waitpid(c.pid, &status, 0);
		close(c.go_w);
		close(c.rep_r);
	}
	close(fd);
	return ret;
}

int t_deny(const char *kind, const char *path)
{
	/* Under TCG, allocating large rings takes up to seconds. */
	static const u64 race_pre_ms[] = { 0, 0, 100, 400, 1000, 2000, 3000 };
	static const char *const why[] = {
		"?", "CREDS", "DUMPABLE", "PTRACE", "LABEL",
	};
	bool race = !strcmp(kind, "setuid");
	/*
	 * caps: an exec of a file with capabilities keeps the ids, and is a
	 * secure exec: denied where its credentials are committed (CREDS),
	 * before the new image is mapped: no MMAP record of it.
	 */
	bool caps = !strcmp(kind, "caps");
	bool label = !strcmp(kind, "label");
	/* the control of label: credentials replaced, the label kept */
	bool keep = !strcmp(kind, "keepcaps");
	u32 want = race || caps ? TPROF_DENIED_CREDS :
		   label ? TPROF_DENIED_LABEL : TPROF_DENIED_DUMPABLE;
	size_t new_maps = 0;
	int iters = race ? (int)(sizeof(race_pre_ms) / sizeof(race_pre_ms[0])) : 1;
	size_t secret = 0, pub = 0, after = 0, bad = 0;
	int enabled = 0, refused = 0, denied = 0, eof = 0, nexec = 0, i;
	struct rlimit rl;
	u32 ring = 0;

	ok(geteuid() != 0, "deny %s: running unprivileged (uid %d)", kind,
	   geteuid());
	/* Large rings widen the window between the check and publish. */
	if (race && !getrlimit(RLIMIT_MEMLOCK, &rl) && rl.rlim_cur == RLIM_INFINITY)
		ring = 16 << 20;
	for (i = 0; i < iters; i++) {
		struct deny_arg a = {
			.kind = kind, .path = path,
			.pre_ns = (race ? race_pre_ms[i] : 0) * MS,
		};
		struct pcs p = { 0 };
		struct report rep;
		struct sum s;
		int ret;

		ret = deny_once(&a, &s, &p, &rep, ring);
		if (ret) {
			refused++;
			/* The proof is stale (EPERM), or the image already ended. */
			ok(ret == -EPERM || ret == -EACCES || ret == -ESRCH,
			   "deny %s #%d: a refused ENABLE says EPERM or ESRCH (%s)",
			   kind, i, strerror(-ret));
		} else {
			enabled++;
			eof += s.eof;
			nexec += s.nexec;
			bad += s.bad;
			if (keep)
				denied += s.ndenied;
			else if (s.ndenied == 1 && s.denied_reason == want)
				denied++;
			else
				note("deny %s #%d: %d DENIED records, reason %s",
				     kind, i, s.ndenied,
				     s.denied_reason < 5 ? why[s.denied_reason] : "?");
			if (!rep.has_x)
				note("deny %s #%d: the secret code never named its range",
				     kind, i);
			secret += pcs_in(&p, rep.x_start, rep.x_end);
			for (size_t j = 0; j < (size_t)s.nmmap && j < 16; j++)
				if (rep.has_x && s.mmap[j].start < rep.x_end &&
				    s.mmap[j].end > rep.x_start)
					new_maps++;
			pub += pcs_in(&p, (u64)(uintptr_t)__start_tprof_public,
				      (u64)(uintptr_t)__stop_tprof_public);
			if (s.ndenied)
				after += pcs_after(&p, s.denied_time);
			note("deny %s #%d: %zu samples, %zu public, first pc %llx (public %p..%p)",
			     kind, i, p.n, pcs_in(&p, (u64)(uintptr_t)__start_tprof_public,
						  (u64)(uintptr_t)__stop_tprof_public),
			     (unsigned long long)(p.n ? p.pc[0] : 0),
			     (void *)__start_tprof_public, (void *)__stop_tprof_public);
		}
		free(p.pc);
		free(p.time);
		sum_free(&s);
	}
	note("deny %s: ENABLE succeeded %d times, refused %d times (rings %u KiB/CPU)",
	     kind, enabled, refused, ring >> 10);
	ok(enabled > 0, "deny %s: at least one session started before the change (%d)",
	   kind, enabled);
	if (keep) {
		ok(denied == 0 && secret > 0,
		   "deny keepcaps: new credentials with the same LSM label keep the session: the code after prctl(PR_SET_KEEPCAPS) sampled (%zu samples), %d DENIED",
		   secret, denied);
		ok(eof == enabled, "deny keepcaps: each session reached EOF (%d of %d)",
		   eof, enabled);
		ok(bad == 0, "deny keepcaps: no malformed or foreign records (%zu)", bad);
		return 0;
	}
	ok(secret == 0, "deny %s: no sample of the new/secret code (%zu)", kind,
	   secret);
	ok(after == 0, "deny %s: no sample later than the DENIED record (%zu)",
	   kind, after);
	ok(denied == enabled, "deny %s: each session ended with DENIED reason %s (%d of %d)",
	   kind, why[want], denied, enabled);
	ok(eof == enabled, "deny %s: each session reached EOF (%d of %d)", kind,
	   eof, enabled);
	if (race || caps)
		ok(nexec == 0, "deny %s: no EXEC record of the new image (%d)",
		   kind, nexec);
	if (caps)
		ok(new_maps == 0, "deny %s: no MMAP record of the new image (%zu)",
		   kind, new_maps);
	ok(bad == 0, "deny %s: no malformed or foreign records (%zu)", kind, bad);
	/* the truth from outside: the LSM now refuses what the proof was */
	if (label)
		ok(label_auxv_errno == EACCES,
		   "deny label: ptrace's own read check refuses the target after its change_profile (open /proc/PID/auxv: %s)",
		   label_auxv_errno > 0 ? strerror(label_auxv_errno) :
		   label_auxv_errno ? "not tried" : "opened");
	if (!race)
		ok(pub > 0, "deny %s: control: samples of the public code before the change (%zu)",
		   kind, pub);
	return 0;
}

static volatile sig_atomic_t exec_go;

static void on_exec_go(int sig)
{
	(void)sig;
	exec_go = 1;
}

/*
 * A target for tprof-read: CPU in public code until SIGUSR1 (the test sends
 * it once tprof-read says its session is enabled) or MS ms of it, then
 * 300 ms more (the samples before), then exec PATH (with fd 3 open on
 * /dev/null for the secret's range line). A fixed time raced tprof-read's
 * start under a slow emulated debug kernel: it attached after the exec.
 */
int t_exec_after(int ms, const char *path)
{
	int null = open("/dev/null", O_WRONLY);
	u64 end = cpu_now() + (u64)ms * MS;

	signal(SIGUSR1, on_exec_go);
	while (!exec_go && cpu_now() < end)
		pub_spin(10 * MS);
	pub_spin(300 * MS);
	if (null < 0 || dup2(null, 3) != 3)
		return 1;
	execl(path, "secret", "1000", (char *)NULL);
	return 1;
}

/* ---------------------------------------------------------------- */

static int get_info(int fd, struct tprof_ioc_info *info)
{
	memset(info, 0, sizeof(*info));
	return ioctl(fd, TPROF_IOC_INFO, info) ? -errno : 0;
}

static void idle_child(void *arg)
{
	(void)arg;
	child_report("R %d 0\n", gettid_());
	child_wait_go();
	_exit(0);
}

/* Unprivileged: sessions per user and the locked-memory charge. */
int t_limits(void)
{
	struct tprof_ioc_info info;
	struct tprof_ioc_enable e;
	struct child c[6];
	int fd[6], i, n = 0, ret;
	u64 locked0, per, held, limit;
	struct rlimit rl;

	ok(geteuid() != 0, "limits: running unprivileged (uid %d)", geteuid());
	fd[0] = dev_open();
	ok(get_info(fd[0], &info) == 0 && info.ring_kb_per_cpu == 516 &&
	   info.max_user_sessions == 4 && info.nr_rings >= (u32)ncpu_online(),
	   "limits: INFO: ring_kb_per_cpu %u, max_user_sessions %u, nr_rings %u",
	   info.ring_kb_per_cpu, info.max_user_sessions, info.nr_rings);
	locked0 = info.user_locked_kb;
	/*
	 * The sessions' count is what is tested here, not what they lock:
	 * rings of 128 KiB, so that 4 sessions' rings and tables (832 KiB
	 * each) stay under ulimit -l + ring_kb_per_cpu on any CPU count.
	 */
	per = (u64)info.nr_rings * 128;
	close(fd[0]);
	/* All children first: a child must not inherit a session's file. */
	for (i = 0; i < 6; i++) {
		struct report rep = { 0 };

		spawn(&c[i], idle_child, NULL);
		if (!collect(&c[i], &rep, 1, false, 60000, -1, NULL))
			die("limits: child not ready");
	}
	for (i = 0; i < 6; i++)
		fd[i] = dev_open();
	for (i = 0; i < 4; i++)
		n += enable_proof(fd[i], c[i].pid, 128 << 10) == 0;
	ok(n == 4, "limits: 4 sessions of one user start (%d)", n);
	get_info(fd[5], &info);
	ok(info.user_sessions == 4, "limits: INFO counts the user's 4 sessions (%u)",
	   info.user_sessions);
	/* Rings, and each session's thread table on top. */
	ok(info.user_locked_kb >= locked0 + 4 * per &&
	   info.user_locked_kb <= locked0 + 4 * (per + 100 * 1024),
	   "limits: their rings and tables are charged to the user: %llu KiB more (rings alone %llu)",
	   (unsigned long long)(info.user_locked_kb - locked0),
	   (unsigned long long)(4 * per));
	ret = enable_proof_as(fd[4], c[4].pid, 128 << 10, TPROF_IOC_ENABLE, &e);
	ok(ret == -EBUSY && e.refused == TPROF_REFUSED_USER_SESSIONS,
	   "limits: the 5th session is refused EBUSY, by max_user_sessions (%s, refused %u)",
	   strerror(-ret), e.refused);
	close(fd[0]);
	close(fd[1]);
	getrlimit(RLIMIT_MEMLOCK, &rl);
	get_info(fd[5], &info);
	held = info.user_locked_kb;
	limit = (rl.rlim_cur >> 10) + (u64)info.ring_kb_per_cpu * info.nr_rings;
	ret = enable_proof_as(fd[4], c[4].pid, 64 << 20, TPROF_IOC_ENABLE, &e);
	ok(ret == -ENOMEM, "limits: rings of 64 MiB x %u CPUs over ulimit -l %llu KiB are refused ENOMEM (%s)",
	   info.nr_rings, (unsigned long long)rl.rlim_cur >> 10, strerror(-ret));
	/* what tprof-read names: the limit, and what the user holds */
	ok(e.refused == TPROF_REFUSED_MEMLOCK && e.held_kb == held &&
	   e.limit_kb == limit &&
	   e.need_kb >= (u64)info.nr_rings * (64 << 10) &&
	   e.need_kb <= (u64)info.nr_rings * (64 << 10) + 100 * 1024,
	   "limits: it says the locked-memory limit refused: need %u KiB, held %u (INFO: %llu), limit %u (ulimit -l + allowance: %llu)",
	   e.need_kb, e.held_kb, (unsigned long long)held, e.limit_kb,
	   (unsigned long long)limit);
	ret = enable_proof_as(fd[4], c[4].pid, 64 << 20, TPROF_IOC_ENABLE_V1, &e);
	ok(ret == -ENOMEM && !e.refused && !e.need_kb,
	   "limits: the first modules' ENABLE number still works, and writes nothing back (%s, refused %u)",
	   strerror(-ret), e.refused);
	ret = enable_proof(fd[4], c[4].pid, 0);
	ok(ret == 0, "limits: a default session fits again once one ended (%s)",
	   strerror(-ret));
	close(fd[2]);
	close(fd[3]);
	close(fd[4]);
	get_info(fd[5], &info);
	ok(info.user_sessions == 0 && info.user_locked_kb == locked0,
	   "limits: closing them releases sessions (%u) and locked memory (%llu KiB, was %llu)",
	   info.user_sessions, (unsigned long long)info.user_locked_kb,
	   (unsigned long long)locked0);
	close(fd[5]);
	for (i = 0; i < 6; i++)
		child_finish(&c[i]);
	return 0;
}

/* Unprivileged: hold N sessions while another user (root) tries its own. */
int t_hold_sessions(int n, int want_ok, int want_err)
{
	struct child *c = calloc(n, sizeof(*c));
	int *fd = calloc(n, sizeof(*fd));
	int i, good = 0, err = 0;
	char b;

	if (!c || !fd)
		die("calloc");
	for (i = 0; i < n; i++) {
		struct report rep = { 0 };

		spawn(&c[i], idle_child, NULL);
		if (!collect(&c[i], &rep, 1, false, 60000, -1, NULL))
			die("hold: child not ready");
	}
	for (i = 0; i < n; i++) {
		int ret;

		fd[i] = dev_open();
		ret = enable_proof(fd[i], c[i].pid, 4096);
		if (!ret)
			good++;
		else if (!err)
			err = -ret;
	}
	ok(good == want_ok && err == want_err,
	   "hold-sessions: %d of %d sessions start, then %s (want %d, then %s)",
	   good, n, strerror(err), want_ok, strerror(want_err));
	printf("holding\n");
	fflush(stdout);
	while (read(0, &b, 1) > 0)
		;
	for (i = 0; i < n; i++) {
		close(fd[i]);
		child_finish(&c[i]);
	}
	free(c);
	free(fd);
	return 0;
}

/* ---------------------------------------------------------------- */

static pthread_barrier_t eo_bar;

static void *eo_thread(void *arg)
{
	(void)arg;
	pthread_barrier_wait(&eo_bar);
	for (;;)
		spin_cpu(1 * MS);
	return NULL;
}

/* 24 spinning threads over a large mm, then exit_group(7). */
static void eo_child(void *arg)
{
	size_t len = 128 << 20, i;
	pthread_t th;
	char *m;

	(void)arg;
	m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		 -1, 0);
	if (m == MAP_FAILED)
		_exit(90);
	for (i = 0; i < len; i += 4096)
		m[i] = 1;
	pthread_barrier_init(&eo_bar, NULL, 25);
	for (i = 0; i < 24; i++)
		if (pthread_create(&th, NULL, eo_thread, NULL))
			_exit(91);
	child_report("R %d 0\n", gettid_());
	child_wait_go();
	pthread_barrier_wait(&eo_bar);
	spin_cpu(30 * MS);
	exit(7);
}

/* Many threads exiting at once from a large mm: PROC_EXIT comes last. */
int t_exit_order(int iters)
{
	int i, late = 0, noproc = 0, codes = 0, eofs = 0, missing = 0;

	for (i = 0; i < iters; i++) {
		struct report rep = { 0 };
		struct child c;
		struct sum s;
		size_t k;
		int fd, status;

		spawn(&c, eo_child, NULL);
		if (!collect(&c, &rep, 1, false, 120000, -1, NULL))
			die("exit-order: child not ready");
		sum_init(&s, c.pid);
		fd = dev_open();
		if (enable(fd, c.pid, 1 * MS, 0, 0))
			die("exit-order: ENABLE");
		child_go(&c);
		eofs += read_to_eof(fd, &s, 60000);
		waitpid(c.pid, &status, 0);
		close(c.go_w);
		close(c.rep_r);
		close(fd);
		noproc += s.nproc_exit != 1;
		codes += s.exit_code != 7 << 8;
		if (s.nproc_exit && s.max_exit_time > s.proc_exit_time) {
			late++;
			note("exit-order #%d: a THREAD_EXIT %llu ns after PROC_EXIT",
			     i, (unsigned long long)(s.max_exit_time -
						     s.proc_exit_time));
		}
		for (k = 0; k < s.n; k++)
			missing += s.t[k].samples && s.t[k].nexit != 1;
		sum_free(&s);
	}
	ok(eofs == iters, "exit-order: every session reached EOF (%d of %d)",
	   eofs, iters);
	ok(noproc == 0 && codes == 0,
	   "exit-order: one PROC_EXIT with status 7<<8 each (%d without, %d wrong codes)",
	   noproc, codes);
	ok(missing == 0, "exit-order: every sampled thread has one THREAD_EXIT (%d missing)",
	   missing);
	ok(late == 0, "exit-order: no THREAD_EXIT later than PROC_EXIT (%d of %d runs had one)",
	   late, iters);
	return 0;
}

/* ENABLE right as the target exits: ESRCH, or a whole session to EOF. */
int t_enable_death(int iters)
{
	int i, esrch = 0, started = 0, ended = 0, other = 0, proc = 0;

	for (i = 0; i < iters; i++) {
		struct sum s;
		pid_t pid;
		int fd, ret, status;

		fd = dev_open();
		pid = fork();
		if (pid < 0)
			die("fork");
		if (!pid) {
			spin_cpu((u64)(i % 7) * 300 * US);
			_exit(3);
		}
		ret = enable(fd, pid, 100 * US, 0, 4096);
		sum_init(&s, pid);
		if (ret == -ESRCH) {
			esrch++;
		} else if (ret) {
			other++;
			note("enable-death #%d: ENABLE %s", i, strerror(-ret));
		} else {
			started++;
			ended += read_to_eof(fd, &s, 20000);
			proc += s.nproc_exit == 1 && s.exit_code == 3 << 8;
		}
		waitpid(pid, &status, 0);
		close(fd);
		sum_free(&s);
	}
	note("enable-death: %d started, %d ESRCH", started, esrch);
	ok(other == 0, "enable-death: ENABLE gives 0 or ESRCH only (%d other)", other);
	ok(ended == started, "enable-death: every started session reaches EOF (%d of %d)",
	   ended, started);
	ok(proc == started, "enable-death: each with one PROC_EXIT, status 3<<8 (%d of %d)",
	   proc, started);
	return 0;
}

/* ---------------------------------------------------------------- */

/*
 * The functions of tprof.ko's sampling path (they run with IRQs off, so no
 * sample can interrupt them: a kernel stack that shows one was unwound
 * from inside the sampler). Ranges from /proc/kallsyms: each symbol to the
 * module's next one.
 */
static const char *const sampler_fns[] = {
	"tprof_probe_sched_switch", "tprof_sampler_switch",
	"tprof_sampler_dead", "tprof_take_sample", "tprof_maybe_sample",
	"tprof_stack_kernel", "tprof_timer_fn", "tprof_finalize",
	"tprof_defer_kstack",
};

struct ksym {
	u64 addr;
	bool sampler;
};

static int ksym_cmp(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static struct ksym *tprof_syms(size_t *n)
{
	FILE *f = fopen("/proc/kallsyms", "r");
	struct ksym *v = NULL;
	size_t cap = 0, k;
	char line[512], name[256], type;
	unsigned long long a;

	*n = 0;
	if (!f)
		return NULL;
	while (fgets(line, sizeof(line), f)) {
		if (!strstr(line, "[tprof]") ||
		    sscanf(line, "%llx %c %255s", &a, &type, name) != 3 ||
		    (type != 't' && type != 'T') || !a)
			continue;
		if (*n == cap) {
			cap = cap ? 2 * cap : 256;
			v = realloc(v, cap * sizeof(*v));
			if (!v)
				die("realloc");
		}
		v[*n].addr = a;
		v[*n].sampler = false;
		for (k = 0; k < sizeof(sampler_fns) / sizeof(sampler_fns[0]); k++)
			if (!strncmp(name, sampler_fns[k], strlen(sampler_fns[k])))
				v[*n].sampler = true;
		(*n)++;
	}
	fclose(f);
	qsort(v, *n, sizeof(*v), ksym_cmp);
	return v;
}

static struct ksym *g_syms;
static size_t g_nsyms;

static bool in_sampler(u64 ip)
{
	size_t i;

	for (i = 0; i + 1 < g_nsyms; i++)
		if (g_syms[i].sampler && ip >= g_syms[i].addr &&
		    ip < g_syms[i + 1].addr)
			return true;
	return false;
}

static void ks_cb(struct sum *s, const struct tprof_rec_sample *r,
		  const u64 *ips)
{
	struct pcs *p = s->priv;
	unsigned int i;

	p->n++;
	if (r->nr_kernel)
		p->with_kernel++;
	for (i = 0; i < r->nr_kernel; i++) {
		if (in_sampler(ips[i])) {
			p->kernel_tprof++;
			break;
		}
	}
}

static void *ks_thread(void *arg)
{
	spin_cpu(*(u64 *)arg);
	return NULL;
}

/* 2 x ncpu user-mode spinners: preempted (and deferred) samples galore. */
static void ks_child(void *arg)
{
	int n = 2 * ncpu_online(), i;
	pthread_t *th = calloc(n, sizeof(*th));
	u64 ns = 300 * MS;

	(void)arg;
	child_report("R %d 0\n", gettid_());
	child_wait_go();
	for (i = 0; i < n; i++)
		pthread_create(&th[i], NULL, ks_thread, &ns);
	for (i = 0; i < n; i++)
		pthread_join(th[i], NULL);
	child_report("D\n");
	child_wait_go();
	_exit(0);
}

int t_kstack_own(void)
{
	struct pcs p = { 0 };
	struct report rep = { 0 };
	struct child c;
	struct sum s;
	int fd;

	g_syms = tprof_syms(&g_nsyms);
	if (!g_nsyms)
		die("kstack-own: no [tprof] symbols in /proc/kallsyms");
	spawn(&c, ks_child, NULL);
	if (!collect(&c, &rep, 1, false, 60000, -1, NULL))
		die("kstack-own: child not ready");
	sum_init(&s, c.pid);
	s.on_sample = ks_cb;
	s.priv = &p;
	fd = dev_open();
	ok(enable(fd, c.pid, 200 * US, TPROF_F_KERNEL_STACK, 0) == 0,
	   "kstack-own: ENABLE with kernel stacks");
	child_go(&c);
	collect(&c, &rep, 0, true, 300000, fd, &s);
	disable(fd);
	read_to_eof(fd, &s, 30000);
	note("kstack-own: %zu samples, %llu with kernel frames, of user-mode spinners",
	     p.n, (unsigned long long)p.with_kernel);
	ok(p.n >= 100, "kstack-own: enough samples (%zu)", p.n);
	ok(p.kernel_tprof == 0,
	   "kstack-own: no kernel stack shows tprof.ko's sampling path (%llu of %zu)",
	   (unsigned long long)p.kernel_tprof, p.n);
	close(fd);
	child_finish(&c);
	sum_free(&s);
	free(g_syms);
	return 0;
}

/* ---------------------------------------------------------------- */

/*
 * rq->clock - rq->clock_task (ms), the largest over CPUs, from the
 * scheduler's debug file: irq (and steal) time that rq_clock_task()
 * leaves out with CONFIG_IRQ_TIME_ACCOUNTING; -1 if unreadable.
 */
static double clock_task_lag_ms(void)
{
	FILE *f = fopen("/sys/kernel/debug/sched/debug", "r");
	double clock = -1, task, lag = -1;
	char line[256];

	if (!f)
		f = fopen("/proc/sched_debug", "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, " .clock : %lf", &clock) == 1)
			continue;
		if (sscanf(line, " .clock_task : %lf", &task) == 1 && clock >= 0) {
			if (clock - task > lag)
				lag = clock - task;
			clock = -1;
		}
	}
	fclose(f);
	return lag;
}

static pthread_barrier_t ck_bar;

static void *ck_thread(void *arg)
{
	(void)arg;
	child_report("R %d 2\n", gettid_());
	pthread_barrier_wait(&ck_bar);
	spin_cpu(200 * MS);
	pthread_barrier_wait(&ck_bar);	/* parked while the test reads */
	pthread_barrier_wait(&ck_bar);
	return NULL;
}

static void ck_child(void *arg)
{
	pthread_t th[4];
	int i;

	(void)arg;
	pthread_barrier_init(&ck_bar, NULL, 5);
	for (i = 0; i < 4; i++)
		pthread_create(&th[i], NULL, ck_thread, NULL);
	child_wait_go();
	pthread_barrier_wait(&ck_bar);
	pthread_barrier_wait(&ck_bar);
	child_report("D\n");
	child_wait_go();
	pthread_barrier_wait(&ck_bar);
	for (i = 0; i < 4; i++)
		pthread_join(th[i], NULL);
	_exit(0);
}

/*
 * Sampled CPU per thread against the scheduler's own figure (schedstat,
 * read while the threads are parked after DISABLE), at a short period, on
 * a kernel whose rq_clock_task lags local_clock: extrapolating from
 * se.exec_start there inflates every in-slice estimate by the lag (seconds
 * on the debug kernel under TCG). The irq slack (within_p()) covers the one
 * hardirq a last sample may count, which the kernel takes back later.
 */
int t_clock(void)
{
	const u64 P = 200 * US;
	double lag = clock_task_lag_ms();
	static u64 base[4096];
	struct report rep = { 0 };
	struct child c;
	struct sum s;
	int fd, i, bad = 0, seen = 0;

	note("clock: rq clock - clock_task = %.3f ms (largest over CPUs)", lag);
	spawn(&c, ck_child, NULL);
	if (!collect(&c, &rep, 4, false, 60000, -1, NULL))
		die("clock: child not ready");
	sum_init(&s, c.pid);
	fd = dev_open();
	ok(enable(fd, c.pid, P, 0, 0) == 0, "clock: ENABLE");
	/* Parked at the barrier: the scheduler's figure from ENABLE on. */
	for (i = 0; i < rep.ready && i < 4096; i++)
		base[i] = schedstat_ns(c.pid, rep.rtid[i]);
	child_go(&c);
	collect(&c, &rep, 0, true, 300000, fd, &s);
	usleep(200000);
	disable(fd);
	read_to_eof(fd, &s, 30000);
	for (i = 0; i < rep.ready && i < 4096; i++) {
		struct thr *t;
		u64 w, truth;

		if (rep.rrole[i] != 2)
			continue;
		seen++;
		truth = schedstat_ns(c.pid, rep.rtid[i]) - base[i];
		t = thr_find(&s, rep.rtid[i]);
		w = t ? t->st.weight_ns : 0;
		if (!t || !t->nstat ||
		    llabs((long long)w - (long long)truth) > within_p(2 * P)) {
			bad++;
			note("clock: tid %d sampled %llu ns, schedstat %llu ns", rep.rtid[i],
			     (unsigned long long)w, (unsigned long long)truth);
		}
	}
	ok(seen == 4 && bad == 0,
	   "clock: each thread's sampled CPU is within 2 periods (and the irq slack) of schedstat (%d of %d off)",
	   bad, seen);
	close(fd);
	child_finish(&c);
	sum_free(&s);
	if (lag < 0)
		printf("skip - clock: no scheduler debug file: cannot tell whether the clocks differ here\n");
	else if (lag < 5)
		printf("skip - clock: rq_clock_task does not lag here (%.3f ms): the check above proves nothing about it on this kernel\n",
		       lag);
	else
		ok(true, "clock: the check ran where rq_clock_task lags local_clock by %.1f ms",
		   lag);
	return 0;
}

/* ---------------------------------------------------------------- */

static void *pr_thread(void *arg)
{
	(void)arg;
	child_report("N %d\n", gettid_());
	spin_cpu(300 * US);
	return NULL;
}

/* Churn: N short threads, one after another, each named before it spins. */
static void pr_child(void *arg)
{
	int n = *(int *)arg, i;
	pthread_t th;

	child_report("R %d 0\n", gettid_());
	child_wait_go();
	for (i = 0; i < n; i++) {
		if (pthread_create(&th, NULL, pr_thread, NULL))
			_exit(95);
		pthread_join(th, NULL);
	}
	child_report("D\n");
	child_wait_go();
	_exit(0);
}

/*
 * SET_THREAD_PERIOD on every other thread as it runs and exits, while
 * slots are buried and reclaimed (run with a small table): no thread gets
 * a period that was asked for another one.
 */
int t_period_race(int n)
{
	const u64 P = 500 * US, P2 = 3 * MS;
	static char asked[1 << 22];
	struct report rep = { 0 };
	struct child c;
	struct sum s;
	int fd, i, sent = 0, wrong = 0, got = 0;
	char line[64];
	size_t len = 0;

	spawn(&c, pr_child, &n);
	if (!collect(&c, &rep, 1, false, 60000, -1, NULL))
		die("period-race: child not ready");
	sum_init(&s, c.pid);
	fd = dev_open();
	ok(enable(fd, c.pid, P, 0, 0) == 0, "period-race: ENABLE");
	child_go(&c);
	/* Read "N tid" lines ourselves: ask for every other thread at once. */
	for (;;) {
		ssize_t k = read(c.rep_r, line + len, 1);
		int tid;

		if (k <= 0) {
			struct pollfd pf = { .fd = c.rep_r, .events = POLLIN };

			if (k == 0)
				break;
			drain(fd, &s);
			poll(&pf, 1, 100);
			continue;
		}
		if (line[len] != '\n' && ++len < sizeof(line) - 1)
			continue;
		line[len] = 0;
		len = 0;
		if (line[0] == 'D')
			break;
		if (sscanf(line, "N %d", &tid) == 1 && tid > 0 &&
		    tid < (int)sizeof(asked) && (tid & 1)) {
			asked[tid] = 1;
			sent += set_period(fd, tid, P2) == 0;
		}
	}
	disable(fd);
	read_to_eof(fd, &s, 30000);
	for (i = 0; i < (int)s.n; i++) {
		const struct thr *t = &s.t[i];

		if (t->nexit && t->st.period_ns == P2) {
			got++;
			if (t->tid >= sizeof(asked) || !asked[t->tid])
				wrong++;
		}
		if (t->period_seen == P2 && (t->tid >= sizeof(asked) || !asked[t->tid]))
			wrong++;
	}
	note("period-race: %d threads, %d requests landed before exit, %d threads ended at 2P",
	     n, sent, got);
	ok(wrong == 0, "period-race: no thread took a period asked for another (%d did)",
	   wrong);
	close(fd);
	child_finish(&c);
	sum_free(&s);
	return 0;
}

/* ---------------------------------------------------------------- */

static int pp_ab[2], pp_ba[2];

static void *pp_thread(void *arg)
{
	int n = *(int *)arg, i;
	char b = 0;

	for (i = 0; i < n; i++) {
		if (read(pp_ab[0], &b, 1) != 1 || write(pp_ba[1], &b, 1) != 1)
			break;
	}
	return NULL;
}

static void pp_child(void *arg)
{
	int n = *(int *)arg, i;
	pthread_t th;
	char b = 0;

	if (pipe(pp_ab) || pipe(pp_ba))
		_exit(90);
	pthread_create(&th, NULL, pp_thread, &n);
	child_report("R %d 0\n", gettid_());
	child_wait_go();
	for (i = 0; i < n; i++) {
		if (write(pp_ab[1], &b, 1) != 1 || read(pp_ba[0], &b, 1) != 1)
			break;
	}
	pthread_join(th, NULL);
	child_report("D\n");
	child_wait_go();
	_exit(0);
}

/*
 * Two profiled threads ping-ponging over pipes: the timer is re-armed at
 * a small fraction of their switch-ins (lazy re-arm), and the CPU time is
 * still all accounted (module on-CPU against schedstat is case 20's job).
 * The period is long against a round trip even on the debug kernel (5x
 * slower): a switch-in after an expiry re-arms by design, and an arm at
 * every switch (the old module) is 1.0 whatever the period.
 */
int t_pingpong(int n)
{
	struct tprof_ioc_stats st;
	struct report rep = { 0 };
	struct child c;
	struct sum s;
	int fd;
	double per;

	spawn(&c, pp_child, &n);
	if (!collect(&c, &rep, 1, false, 60000, -1, NULL))
		die("pingpong: child not ready");
	sum_init(&s, c.pid);
	fd = dev_open();
	ok(enable(fd, c.pid, 20 * MS, 0, 0) == 0, "pingpong: ENABLE");
	child_go(&c);
	collect(&c, &rep, 0, true, 600000, fd, &s);
	get_stats(fd, &st);
	disable(fd);
	read_to_eof(fd, &s, 30000);
	per = st.sched_ins ? (double)st.timer_arms / st.sched_ins : 1;
	note("pingpong: %d round trips: %llu switch-ins, %llu timer arms (%.3f per switch-in), %llu samples",
	     n, (unsigned long long)st.sched_ins,
	     (unsigned long long)st.timer_arms, per,
	     (unsigned long long)st.samples);
	ok(st.sched_ins >= (u64)n, "pingpong: the switches were seen (%llu)",
	   (unsigned long long)st.sched_ins);
	ok(per <= 0.3, "pingpong: at most 0.3 timer arms per switch-in (%.3f)", per);
	close(fd);
	child_finish(&c);
	sum_free(&s);
	return 0;
}

/* Kernel stacks under lockdown (LOCKED=1: confidentiality is on). */
int t_lockdown(int locked)
{
	struct report rep = { 0 };
	struct child c;
	int fd, ret;

	spawn(&c, idle_child, NULL);
	if (!collect(&c, &rep, 1, false, 60000, -1, NULL))
		die("lockdown: child not ready");
	fd = dev_open();
	ret = enable(fd, c.pid, 0, TPROF_F_KERNEL_STACK, 0);
	if (locked)
		ok(ret == -EPERM, "lockdown: kernel stacks refused under confidentiality lockdown (%s)",
		   strerror(-ret));
	else
		ok(ret == 0, "lockdown: kernel stacks allowed without lockdown (%s)",
		   strerror(-ret));
	close(fd);
	fd = dev_open();
	ret = enable(fd, c.pid, 0, 0, 0);
	ok(ret == 0, "lockdown: user stacks stay allowed (%s)", strerror(-ret));
	close(fd);
	child_finish(&c);
	return 0;
}
