// SPDX-License-Identifier: GPL-2.0
/*
 * tprof-ktest: tprof.ko's trust boundary (issue 22). Run as root: each test
 * forks what must stay root, then drops to uid 65534 (nobody) itself, with
 * RLIMIT_NPROC and RLIMIT_MEMLOCK lifted first, and profiles as a member of
 * group tprof would (the case makes /dev/tprof 0666).
 *   trust chain N...    descendants at ENABLE: a chain of N processes (each
 *                       the child of the one before) as the target's tree;
 *                       ENABLE with TPROF_F_CHILDREN is fast (< 1 s), a root
 *                       INFO never waits long (< 250 ms) meanwhile (both
 *                       times CASE_TIMEOUT_SCALE, the best of 3), exactly
 *                       TPROF_MAX_PROCS followed (pending a proof or not)
 *                       and the rest counted DROPPED (a record each, or one
 *                       with TPROF_RF_PROC_COUNT), as TOTALS says. Each N
 *                       in turn; a larger one is not started when the one
 *                       before shows it would stall the kernel.
 *   trust denied-child SETUID_PATH
 *                       a child that execs a setuid-root image gets DENIED
 *                       (CREDS), nothing of it after, and root may then
 *                       start a session on it (no EBUSY: it left the tree)
 *   trust yama          ptrace_scope 1 (set by the case): a child the caller
 *                       may not attach to (Yama: not its ancestor, no
 *                       PR_SET_PTRACER) never has its stack copied into a
 *                       snapshot session, forked after ENABLE or there
 *                       before it: nothing of it but PROC (pending) until
 *                       the caller, unable to prove it, says so (PROVE -1):
 *                       DENIED (PTRACE); controls: read mode follows it
 *                       once proven, the caller's own tree at once
 *   trust stale-tid     a non-leader exec in a denied descendant D closes
 *                       the slot of its old tid: a thread of the target
 *                       that gets that tid next (ns_last_pid, set by a
 *                       root helper) is sampled as the target's
 *   trust eagain [SESSIONS FORKS READERS]
 *                       "decide later" (the target's exec_update_lock held
 *                       for read, by other processes of the user reading
 *                       its /proc/PID/io and maps) is not "allowed":
 *                       nothing of a non-dumpable process's new threads and
 *                       children, and a non-dumpable descendant at ENABLE
 *                       is never admitted (DENIED, or left pending)
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ktest.h"

#define NOBODY		65534
#define SEC		1000000000ULL

typedef uint16_t u16;

/* The harness's timeout scale (the debug kernel's 4): time bounds grow by it. */
static u64 g_scale = 1;

static const char *const why_s[] = { "none", "CREDS", "DUMPABLE", "PTRACE" };

static const char *why_name(u32 r)
{
	return r < sizeof(why_s) / sizeof(why_s[0]) ? why_s[r] : "?";
}

static int open_proc(pid_t pid, const char *name)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/%s", pid, name);
	return open(path, O_RDONLY | O_CLOEXEC);
}

/* ------------------------------------------------------------------ */
/* Records of a multi-process session, kept as events to judge after. */

/* ev.aux bits of a SAMPLE */
#define EV_SECRET_PC	0x1U	/* user pc in the secret range */
#define EV_USTACK	0x2U	/* its USTACK record came with it */
#define EV_MARKER	0x4U	/* ... holding the marker bytes */
#define EV_USER		0x8U	/* it has user frames */

struct ev {
	u64 time;
	u32 pid;
	u16 type;
	u16 flags;
	u32 aux;		/* DENIED: reason; SAMPLE: EV_*; PROC: ppid */
	u32 tid;		/* SAMPLE, THREAD_EXIT/STAT: the thread */
	u64 val;		/* SAMPLE: weight; THREAD_EXIT/STAT: on-CPU */
};

struct evs {
	struct ev *v;
	size_t n, cap;
	u64 lost_records, lost_samples, bad;
	bool eof;
	const unsigned char *marker;	/* searched in USTACK bytes */
	size_t mlen;
	u64 xlo, xhi;			/* secret code: [xlo, xhi) */
};

static void evs_free(struct evs *e)
{
	free(e->v);
	memset(e, 0, sizeof(*e));
}

static struct ev *ev_add(struct evs *e, const struct tprof_rec_hdr *h, u32 pid)
{
	struct ev *v;

	if (e->n == e->cap) {
		e->cap = e->cap ? 2 * e->cap : 4096;
		e->v = realloc(e->v, e->cap * sizeof(*e->v));
		if (!e->v)
			die("realloc");
	}
	v = &e->v[e->n++];
	v->time = h->time_ns;
	v->pid = pid;
	v->type = h->type;
	v->flags = h->flags;
	v->aux = 0;
	v->tid = 0;
	v->val = 0;
	return v;
}

static void ev_parse(struct evs *e, const char *buf, size_t len)
{
	const struct tprof_rec_hdr *prev = NULL;
	size_t off = 0;

	while (off < len) {
		const struct tprof_rec_hdr *h = (const void *)(buf + off);
		struct ev *v;

		if (len - off < sizeof(*h) || h->size < sizeof(*h) ||
		    h->size % 8 || h->size > len - off) {
			e->bad++;
			return;
		}
		switch (h->type) {
		case TPROF_REC_SAMPLE: {
			const struct tprof_rec_sample *r = (const void *)h;
			const u64 *ips = (const u64 *)(r + 1);

			v = ev_add(e, h, r->pid);
			v->tid = r->tid;
			v->val = r->weight_ns;
			if (r->nr_user)
				v->aux |= EV_USER;
			if (r->nr_user && ips[r->nr_kernel] >= e->xlo &&
			    ips[r->nr_kernel] < e->xhi)
				v->aux |= EV_SECRET_PC;
			break;
		}
		case TPROF_REC_USTACK: {
			const struct tprof_rec_ustack *u = (const void *)h;
			const unsigned char *st = (const void *)(u + 1);

			/* read() never splits a group: its SAMPLE is the last event */
			if (!prev || prev->type != TPROF_REC_SAMPLE || !e->n ||
			    h->size < sizeof(*u) + u->stack_bytes) {
				e->bad++;
				break;
			}
			v = &e->v[e->n - 1];
			v->aux |= EV_USTACK;
			if (e->mlen && u->stack_bytes >= e->mlen &&
			    memmem(st, u->stack_bytes, e->marker, e->mlen))
				v->aux |= EV_MARKER;
			break;
		}
		case TPROF_REC_LOST: {
			const struct tprof_rec_lost *r = (const void *)h;

			e->lost_records += r->lost_records;
			e->lost_samples += r->lost_samples;
			break;
		}
		case TPROF_REC_THREAD:
			ev_add(e, h, ((const struct tprof_rec_thread *)h)->pid);
			break;
		case TPROF_REC_THREAD_EXIT:
		case TPROF_REC_THREAD_STAT: {
			const struct tprof_rec_thread_stat *r = (const void *)h;

			v = ev_add(e, h, r->pid);
			v->tid = r->tid;
			v->val = r->on_cpu_ns;
			break;
		}
		case TPROF_REC_EXEC:
			ev_add(e, h, ((const struct tprof_rec_exec *)h)->pid);
			break;
		case TPROF_REC_MMAP:
			ev_add(e, h, ((const struct tprof_rec_mmap *)h)->pid);
			break;
		case TPROF_REC_PROC_EXIT:
			ev_add(e, h, ((const struct tprof_rec_proc_exit *)h)->pid);
			break;
		case TPROF_REC_PROC: {
			const struct tprof_rec_proc *r = (const void *)h;

			ev_add(e, h, r->pid)->aux = r->ppid;
			break;
		}
		case TPROF_REC_DENIED: {
			const struct tprof_rec_denied *r = (const void *)h;

			ev_add(e, h, r->pid)->aux = r->reason;
			break;
		}
		case TPROF_REC_THREAD_OFF:
		case TPROF_REC_THROTTLE:
			break;
		default:
			e->bad++;
		}
		prev = h;
		off += h->size;
	}
}

static char tbuf[4 << 20] __attribute__((aligned(8)));

/* Reads what is there. Return: 1 at EOF, 0 when drained, -errno. */
static int ev_drain(int fd, struct evs *e)
{
	for (;;) {
		ssize_t n = read(fd, tbuf, sizeof(tbuf));

		if (n > 0) {
			ev_parse(e, tbuf, n);
			continue;
		}
		if (n == 0) {
			e->eof = true;
			return 1;
		}
		if (errno == EINTR)
			continue;
		return errno == EAGAIN ? 0 : -errno;
	}
}

static bool ev_to_eof(int fd, struct evs *e, int timeout_ms)
{
	u64 end = now_ns() + (u64)timeout_ms * MS;

	while (now_ns() < end) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		int r = ev_drain(fd, e);

		if (r)
			return r == 1;
		poll(&p, 1, 50);
	}
	return false;
}

/* A PROC record of totals or a count: its pid field is no process. */
static bool ev_counts(const struct ev *v)
{
	return v->type == TPROF_REC_PROC &&
	       (v->flags & (TPROF_RF_PROC_TOTALS | TPROF_RF_PROC_COUNT));
}

/* Events of @type (0: any) of @pid (0: any pid), after @t (0: all). */
static size_t ev_count(const struct evs *e, u16 type, u32 pid, u64 t)
{
	size_t i, n = 0;

	for (i = 0; i < e->n; i++)
		n += (!type || e->v[i].type == type) &&
		     (!pid || e->v[i].pid == pid) && e->v[i].time > t &&
		     !ev_counts(&e->v[i]);
	return n;
}

/* SAMPLEs of @pid (0: any) with all of @aux. */
static size_t ev_samples(const struct evs *e, u32 pid, u32 aux)
{
	size_t i, n = 0;

	for (i = 0; i < e->n; i++)
		n += e->v[i].type == TPROF_REC_SAMPLE &&
		     (!pid || e->v[i].pid == pid) &&
		     (e->v[i].aux & aux) == aux;
	return n;
}

/* The first DENIED record of @pid, or NULL. */
static const struct ev *ev_denied(const struct evs *e, u32 pid)
{
	size_t i;

	for (i = 0; i < e->n; i++)
		if (e->v[i].type == TPROF_REC_DENIED && e->v[i].pid == pid)
			return &e->v[i];
	return NULL;
}

/* Reads @fd until @pid's DENIED record (30 s at most, or EOF). */
static const struct ev *ev_wait_denied(int fd, struct evs *e, u32 pid)
{
	u64 t0 = now_ns();

	while (!ev_denied(e, pid) && now_ns() - t0 < 30 * SEC) {
		struct pollfd pf = { .fd = fd, .events = POLLIN };

		if (ev_drain(fd, e))
			break;
		poll(&pf, 1, 50);
	}
	return ev_denied(e, pid);
}

/* What must never follow DENIED: records that report the process. */
static bool ev_reports(u16 type)
{
	return type == TPROF_REC_SAMPLE || type == TPROF_REC_THREAD ||
	       type == TPROF_REC_EXEC || type == TPROF_REC_MMAP ||
	       type == TPROF_REC_PROC;
}

/* Such records of @pid later than its DENIED record (0 without one). */
static size_t ev_after_denied(const struct evs *e, u32 pid)
{
	const struct ev *d = ev_denied(e, pid);
	size_t i, n = 0;

	if (!d)
		return 0;
	for (i = 0; i < e->n; i++)
		n += e->v[i].pid == pid && ev_reports(e->v[i].type) &&
		     e->v[i].time > d->time && !ev_counts(&e->v[i]);
	return n;
}

/* ------------------------------------------------------------------ */
/* Helper processes with a line protocol both ways. */

struct proc {
	pid_t pid;
	int cmd_w;		/* to it */
	int rep_r;		/* from it */
	char buf[8192];
	size_t len;
};

static int g_cmd_r = -1, g_rep_w = -1;	/* in the helper */

/* In a helper: a line to the parent (its children inherit the pipe). */
static void say(const char *fmt, ...)
{
	char line[256];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (write(g_rep_w, line, n) != n)
		_exit(98);
}

/* In a helper: the parent's next line; false at EOF. */
static bool hear(char *line, size_t n)
{
	size_t i = 0;
	char c;

	while (read(g_cmd_r, &c, 1) == 1) {
		if (c == '\n') {
			line[i] = 0;
			return true;
		}
		if (i + 1 < n)
			line[i++] = c;
	}
	return false;
}

static void proc_spawn(struct proc *p, void (*fn)(void *), void *arg)
{
	int cmd[2], rep[2];

	if (pipe2(cmd, O_CLOEXEC) || pipe2(rep, O_CLOEXEC))
		die("pipe");
	fflush(stdout);
	memset(p, 0, sizeof(*p));
	p->pid = fork();
	if (p->pid < 0)
		die("fork");
	if (!p->pid) {
		close(cmd[1]);
		close(rep[0]);
		g_cmd_r = cmd[0];
		g_rep_w = rep[1];
		prctl_death();
		fn(arg);
		_exit(0);
	}
	close(cmd[0]);
	close(rep[1]);
	p->cmd_w = cmd[1];
	p->rep_r = rep[0];
	fcntl(p->rep_r, F_SETFL, O_NONBLOCK);
}

static void tell(struct proc *p, const char *fmt, ...)
{
	char line[256];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (write(p->cmd_w, line, n) != n)
		die("tell %d", p->pid);
}

/*
 * The helper's next line (without its newline) into @line; meanwhile the
 * session on @fd (if >= 0) is drained into @e. False on timeout or EOF.
 */
static bool await(struct proc *p, char *line, size_t n, int timeout_ms,
		  int fd, struct evs *e)
{
	u64 end = now_ns() + (u64)timeout_ms * MS;

	for (;;) {
		struct pollfd pf[2] = {
			{ .fd = p->rep_r, .events = POLLIN },
			{ .fd = fd, .events = POLLIN },
		};
		char *nl = memchr(p->buf, '\n', p->len);
		ssize_t k;

		if (nl) {
			size_t used = nl + 1 - p->buf;

			*nl = 0;
			k = used - 1 < n - 1 ? (ssize_t)(used - 1) : (ssize_t)(n - 1);
			memcpy(line, p->buf, k);
			line[k] = 0;
			memmove(p->buf, nl + 1, p->len - used);
			p->len -= used;
			return true;
		}
		if (fd >= 0)
			ev_drain(fd, e);
		if (now_ns() > end)
			return false;
		poll(pf, fd >= 0 ? 2 : 1, 50);
		k = read(p->rep_r, p->buf + p->len, sizeof(p->buf) - p->len);
		if (k > 0)
			p->len += k;
		else if (k == 0 || (errno != EAGAIN && errno != EINTR))
			return false;
	}
}

/* Waits for a line starting with @prefix, skipping others. */
static bool await_prefix(struct proc *p, const char *prefix, char *line,
			 size_t n, int timeout_ms, int fd, struct evs *e)
{
	u64 end = now_ns() + (u64)timeout_ms * MS;

	while (now_ns() < end) {
		int left = (int)((end - now_ns()) / MS) + 1;

		if (!await(p, line, n, left, fd, e))
			return false;
		if (!strncmp(line, prefix, strlen(prefix)))
			return true;
	}
	return false;
}

/* Ends a helper: EOF on its commands, SIGKILL, reap. Return: wait status. */
static int proc_end(struct proc *p)
{
	int status = -1;

	close(p->cmd_w);
	kill(p->pid, SIGKILL);
	waitpid(p->pid, &status, 0);
	close(p->rep_r);
	return status;
}

/* ------------------------------------------------------------------ */
/* The root helper: forked before the test drops its privileges. */

static struct proc root_h;
static bool have_root_h;

static volatile int info_run;
static u64 info_max_ns, info_calls, info_slow;

static void *info_loop(void *arg)
{
	int fd = *(int *)arg;

	while (info_run) {
		struct tprof_ioc_info info = { 0 };
		u64 t0 = now_ns(), dt;

		if (ioctl(fd, TPROF_IOC_INFO, &info))
			break;
		dt = now_ns() - t0;
		if (dt > info_max_ns)
			info_max_ns = dt;
		info_slow += dt > 250 * MS;
		info_calls++;
		usleep(10000);
	}
	return NULL;
}

/*
 * Commands: "E PID" ENABLE a privileged session on PID (no proof) and
 * keep it, "Q" report its STATS samples ("Q ret samples"), "C" close it,
 * "I" start the INFO loop on a fresh /dev/tprof,
 * "S" stop it and report its worst latency, "N PID" make PID + 1 the next
 * pid handed out (ns_last_pid).
 */
static void root_main(void *arg)
{
	int sfd = -1, ifd = -1, pid;
	pthread_t th;
	char line[128];

	(void)arg;
	while (hear(line, sizeof(line))) {
		if (sscanf(line, "E %d", &pid) == 1) {
			int ret;

			if (sfd >= 0)
				close(sfd);
			sfd = dev_open();
			ret = enable(sfd, pid, 1 * MS, 0, 0);
			say("E %d\n", ret);
		} else if (line[0] == 'C') {
			if (sfd >= 0)
				close(sfd);
			sfd = -1;
			say("C\n");
		} else if (line[0] == 'I') {
			ifd = dev_open();
			info_max_ns = info_calls = info_slow = 0;
			info_run = 1;
			if (pthread_create(&th, NULL, info_loop, &ifd))
				_exit(90);
			say("I\n");
		} else if (sscanf(line, "N %d", &pid) == 1) {
			/* the next pid the kernel hands out is pid + 1 */
			FILE *f = fopen("/proc/sys/kernel/ns_last_pid", "w");
			int ret = f && fprintf(f, "%d", pid) > 0 ? 0 : -1;

			if (f && fclose(f))
				ret = -1;
			say("N %d\n", ret);
		} else if (line[0] == 'Q') {
			struct tprof_ioc_stats st;
			int ret = sfd >= 0 ? get_stats(sfd, &st) : -EBADF;

			say("Q %d %llu\n", ret,
			    ret ? 0ULL : (unsigned long long)st.samples);
		} else if (line[0] == 'S') {
			info_run = 0;
			pthread_join(th, NULL);
			close(ifd);
			say("S %llu %llu %llu\n", (unsigned long long)info_max_ns,
			    (unsigned long long)info_calls,
			    (unsigned long long)info_slow);
		}
	}
	_exit(0);
}

static bool root_cmd(const char *cmd, char *reply, size_t n)
{
	if (!have_root_h)
		return false;
	tell(&root_h, "%s\n", cmd);
	return await(&root_h, reply, n, 120000, -1, NULL);
}

/*
 * Root: fork the root helper (if @helper), lift the limits a user's tree
 * of thousands of processes and large rings need, then become nobody,
 * dumpable again (a change of euid made it not), as setpriv and an exec
 * would leave it. Already unprivileged: nothing (no root helper).
 */
static void become_nobody(bool helper)
{
	struct rlimit inf = { RLIM_INFINITY, RLIM_INFINITY };

	if (geteuid() != 0) {
		note("running unprivileged already (uid %d): no root helper",
		     geteuid());
		return;
	}
	if (helper) {
		proc_spawn(&root_h, root_main, NULL);
		have_root_h = true;
	}
	if (setrlimit(RLIMIT_NPROC, &inf) || setrlimit(RLIMIT_MEMLOCK, &inf))
		die("setrlimit");
	if (setgroups(0, NULL) || setresgid(NOBODY, NOBODY, NOBODY) ||
	    setresuid(NOBODY, NOBODY, NOBODY))
		die("dropping to uid %d", NOBODY);
	if (prctl(PR_SET_DUMPABLE, 1))
		die("PR_SET_DUMPABLE");
}

/* An unprivileged ENABLE: @flags plus the auxv or mem proof of @pid. */
static int enable_as_user(int fd, pid_t pid, u32 flags, u64 period,
			  u32 ring_bytes, u32 snap_bytes)
{
	struct tprof_ioc_enable e = {
		.size = sizeof(e), .flags = flags, .pid = pid,
		.period_ns = period, .ring_bytes = ring_bytes,
		.snapshot_bytes = snap_bytes,
	};
	int ret, pfd;

	pfd = open_proc(pid, flags & TPROF_F_MEM_PROOF ? "mem" : "auxv");
	if (pfd < 0)
		return -errno;
	if (flags & TPROF_F_MEM_PROOF)
		e.mem_fd = pfd;
	else
		e.auxv_fd = pfd;
	ret = enable_raw(fd, &e);
	close(pfd);
	return ret;
}

/*
 * @test's unprivileged CHILDREN session on its target P, 1 ms periods,
 * said with ok(). Return: its fd, or -1 (ENABLE refused).
 */
static int tree_session(const char *test, pid_t pid)
{
	int fd = dev_open();
	int ret = enable_as_user(fd, pid, TPROF_F_CHILDREN | TPROF_F_AUXV_PROOF,
				 1 * MS, 0, 0);

	ok(ret == 0, "%s: unprivileged ENABLE with CHILDREN on P %d (%s)",
	   test, pid, strerror(-ret));
	if (!ret)
		return fd;
	close(fd);
	return -1;
}

/* An idle process of the user: "R pid", then nothing until EOF. */
static void idle_main(void *arg)
{
	char line[64];

	(void)arg;
	say("R %d\n", getpid());
	while (hear(line, sizeof(line)))
		;
	_exit(0);
}

/*
 * A session on an idle process of the user, held while a test times or
 * repeats ENABLEs: the probes stay registered, instead of being
 * registered with the first session and unregistered with the last (RCU
 * and text-poke syncs: up to a second under TCG, seconds with busy CPUs).
 * Return: its fd (close it, then proc_end(@idle)).
 */
static int keeper_start(struct proc *idle)
{
	char line[64];
	int fd, ret;

	proc_spawn(idle, idle_main, NULL);
	if (!await(idle, line, sizeof(line), 60000, -1, NULL))
		die("idle helper not ready");
	fd = dev_open();
	ret = enable_as_user(fd, idle->pid, TPROF_F_AUXV_PROOF, 1 * SEC, 4096, 0);
	if (ret)
		note("no keeper session: %s", strerror(-ret));
	return fd;
}

/* ------------------------------------------------------------------ */
/*
 * chain: N processes, each the child of the one before. They share one mm
 * (CLONE_VM; each on its own 4 KiB of a common stack area) so that tens of
 * thousands fit in the guest, and all run on one CPU so that each forks
 * the next as soon as the one before sleeps. Each waits for its child and
 * exits once it reaped it: killing the deepest one collapses the chain
 * from the bottom, and no exit has children to hand to a reaper (that
 * search walks up the ancestors: quadratic in a chain, a minute on 6.1
 * when all of it is killed at once).
 */

#define CH_STACK	4096
#define CH_FLAGS	(CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | \
			 CLONE_SYSVSEM | SIGCHLD)

static struct {
	int n;
	char *stacks;
	pid_t *pids;
	int ready_w;
} ch;

static void ch_say(const char *s)
{
	if (write(ch.ready_w, s, strlen(s)) < 0)
		syscall(SYS_exit, 1);
}

/* Member @arg of the chain: fork the next one, wait for it, exit. */
static int ch_member(void *arg)
{
	long i = (long)arg;
	char line[64];
	int st;

	ch.pids[i] = syscall(SYS_getpid);
	syscall(SYS_prctl, PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
	if (syscall(SYS_getppid) != ch.pids[i - 1])
		syscall(SYS_exit, 0);
	if (i + 1 < ch.n) {
		if (clone(ch_member, ch.stacks + (i + 2) * CH_STACK, CH_FLAGS,
			  (void *)(i + 1)) < 0) {
			snprintf(line, sizeof(line), "F %ld %d\n", i + 1, errno);
			ch_say(line);
		} else {
			while (syscall(SYS_wait4, -1, &st, 0, NULL) < 0 &&
			       errno == EINTR)
				;
			syscall(SYS_exit, 0);
		}
	} else {
		ch_say("C\n");
	}
	for (;;)
#ifdef SYS_pause
		syscall(SYS_pause);
#else	/* arm64 has no pause(2): ppoll with no fds and no timeout */
		syscall(SYS_ppoll, NULL, 0, NULL, NULL);
#endif
	return 0;
}

/*
 * Builds the chain under a new process group; its root (member 0) is our
 * child. Return: the root's pid (> 0) once all N are there, or -1.
 */
static pid_t chain_build(int n, u64 *ns)
{
	int rd[2];
	char line[64] = "";
	u64 t0 = now_ns();
	pid_t root;
	ssize_t k;

	if (pipe2(rd, O_CLOEXEC))
		die("pipe");
	ch.n = n;
	ch.stacks = mmap(NULL, (size_t)(n + 1) * CH_STACK,
			 PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	ch.pids = mmap(NULL, (size_t)n * sizeof(pid_t), PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (ch.stacks == MAP_FAILED || ch.pids == MAP_FAILED)
		die("chain: mmap");
	ch.ready_w = rd[1];
	fflush(stdout);
	root = fork();
	if (root < 0)
		die("fork");
	if (!root) {
		cpu_set_t one;

		close(rd[0]);
		setpgid(0, 0);
		CPU_ZERO(&one);
		CPU_SET(sched_getcpu() > 0 ? sched_getcpu() : 0, &one);
		sched_setaffinity(0, sizeof(one), &one);
		prctl_death();
		ch.pids[0] = getpid();
		if (n == 1)
			ch_say("C\n");
		else if (clone(ch_member, ch.stacks + 2 * CH_STACK, CH_FLAGS,
			       (void *)1L) < 0)
			ch_say("F 1 0\n");
		else
			while (wait(NULL) < 0 && errno == EINTR)
				;
		if (n == 1)
			for (;;)
				pause();
		_exit(0);
	}
	setpgid(root, root);
	close(rd[1]);
	k = read(rd[0], line, sizeof(line) - 1);
	close(rd[0]);
	*ns = now_ns() - t0;
	if (k > 0 && line[0] == 'C')
		return root;
	line[k > 0 ? k : 0] = 0;
	note("chain: building %d processes failed: %s", n, line);
	kill(-root, SIGKILL);
	waitpid(root, NULL, 0);
	return -1;
}

/*
 * Kills the deepest member: the chain collapses from the bottom up, each
 * member reaping its child. Then its root (our child) is reaped. Should
 * that take long, the whole process group is killed.
 */
static void chain_kill(pid_t root, int n)
{
	u64 t0 = now_ns();
	int status, i;

	kill(ch.pids[n - 1] > 0 ? ch.pids[n - 1] : root, SIGKILL);
	for (i = 0; i < 1200 && waitpid(root, &status, WNOHANG) != root; i++)
		usleep(50000);
	if (i == 1200) {
		note("chain: no collapse within 60 s: the process group is killed");
		kill(-root, SIGKILL);
		waitpid(root, &status, 0);
	}
	note("chain: %d processes ended in %.2f s", n, (now_ns() - t0) / 1e9);
	munmap(ch.stacks, (size_t)(n + 1) * CH_STACK);
	munmap(ch.pids, (size_t)n * sizeof(pid_t));
}

static int u32_cmp(const void *a, const void *b)
{
	u32 x = *(const u32 *)a, y = *(const u32 *)b;

	return x < y ? -1 : x > y;
}

/*
 * One chain of @n. Return: ENABLE's duration in ns (0 when it did not
 * run).
 */
static u64 chain_once(int n)
{
	size_t followed = 0, dropped = 0, existing = 0, pending = 0, threads = 0,
	       denied, dup = 0, i;
	const struct ev *tot = NULL;
	u64 build_ns, t0, dt = 0, imax = 0, icalls = 0, islow = 0;
	u64 lim = g_scale * SEC, ilim = g_scale * 250 * MS;
	int want = n < TPROF_MAX_PROCS ? n : TPROF_MAX_PROCS;
	struct evs e = { 0 };
	char line[128];
	pid_t root;
	u32 *pids;
	int fd = -1, ret = 0, a;

	root = chain_build(n, &build_ns);
	ok(root > 0, "chain %d: a chain of %d processes, each the child of the one before (built in %.2f s)",
	   n, n, build_ns / 1e9);
	if (root <= 0)
		return 0;
	/*
	 * A host that deschedules the guest's one TCG thread for a second
	 * stretches anything: over the bounds (by less than 3 times), up
	 * to two more tries, on a fresh session each (a slow walk is slow
	 * every time).
	 */
	for (a = 1; a <= 3; a++) {
		if (fd >= 0)
			close(fd);
		fd = dev_open();
		if (root_cmd("I", line, sizeof(line)))
			usleep(50000);	/* a few INFOs before */
		t0 = now_ns();
		ret = enable_as_user(fd, root, TPROF_F_CHILDREN | TPROF_F_AUXV_PROOF,
				     1 * SEC, 1 << 20, 0);
		dt = now_ns() - t0;
		if (have_root_h) {
			usleep(50000);
			if (root_cmd("S", line, sizeof(line)))
				sscanf(line, "S %llu %llu %llu",
				       (unsigned long long *)&imax,
				       (unsigned long long *)&icalls,
				       (unsigned long long *)&islow);
		}
		if (ret || (dt < lim && (!have_root_h || imax < ilim)) ||
		    dt > 3 * lim || imax > 3 * ilim)
			break;
		note("chain %d: try %d: ENABLE took %.3f s, root's INFO waited up to %.3f s",
		     n, a, dt / 1e9, imax / 1e9);
	}
	if (a > 3)
		a = 3;
	ok(ret == 0, "chain %d: unprivileged ENABLE with CHILDREN on the chain's root (%s)",
	   n, strerror(-ret));
	ok(dt < lim, "chain %d: ENABLE took %.3f s (< %.0f s; try %d)", n,
	   dt / 1e9, lim / 1e9, a);
	if (have_root_h)
		ok(icalls > 0 && imax < ilim,
		   "chain %d: root's INFO every 10 ms meanwhile: worst wait %.3f s (< %.2f s; %llu calls, %llu over 0.25 s; try %d)",
		   n, imax / 1e9, ilim / 1e9, (unsigned long long)icalls,
		   (unsigned long long)islow, a);
	else
		printf("skip - chain %d: root's INFO latency: not run as root\n", n);
	if (!ret) {
		/* The records of ENABLE; then the totals, written at DISABLE. */
		ev_drain(fd, &e);
		disable(fd);
		ev_to_eof(fd, &e, 60000);
		pids = calloc(e.n + 1, sizeof(*pids));
		if (!pids)
			die("calloc");
		for (i = 0; i < e.n; i++) {
			const struct ev *v = &e.v[i];

			if (v->type == TPROF_REC_THREAD)
				threads++;
			if (v->type != TPROF_REC_PROC)
				continue;
			if (v->flags & TPROF_RF_PROC_TOTALS) {
				tot = v;
			} else if (v->flags & TPROF_RF_PROC_DROPPED) {
				/* one each, or all of ENABLE's in one */
				dropped += v->flags & TPROF_RF_PROC_COUNT ? v->aux : 1;
			} else {
				existing += !!(v->flags & TPROF_RF_PROC_EXISTING);
				pending += !!(v->flags & TPROF_RF_PROC_PENDING);
				pids[followed++] = v->pid;
			}
		}
		qsort(pids, followed, sizeof(*pids), u32_cmp);
		for (i = 1; i < followed; i++)
			dup += pids[i] == pids[i - 1];
		free(pids);
		denied = ev_count(&e, TPROF_REC_DENIED, 0, 0);
		note("chain %d: PROC records: %zu followed (%zu EXISTING, %zu PENDING), %zu DROPPED; %zu THREAD, %zu DENIED, %llu records lost; TOTALS: %s %u followed, %u not",
		     n, followed, existing, pending, dropped, threads, denied,
		     (unsigned long long)e.lost_records, tot ? "" : "none,",
		     tot ? tot->pid : 0, tot ? tot->aux : 0);
		ok(followed == (size_t)want && existing == followed && dup == 0,
		   "chain %d: exactly %d processes followed, target included, each once, all EXISTING (%zu, %zu EXISTING, %zu twice)",
		   n, want, followed, existing, dup);
		ok(followed + dropped == (size_t)n,
		   "chain %d: the rest is counted DROPPED: followed %zu + dropped %zu == %d",
		   n, followed, dropped, n);
		ok(threads == followed - pending,
		   "chain %d: one THREAD record per followed process not pending a proof (%zu of %zu)",
		   n, threads, followed - pending);
		if (tot)
			ok(tot->pid == followed && tot->aux == dropped,
			   "chain %d: the TOTALS record says the same: %u followed, %u not",
			   n, tot->pid, tot->aux);
		ok(denied == 0 && e.lost_records == 0 && e.bad == 0,
		   "chain %d: no DENIED, lost or malformed record (%zu, %llu, %llu)",
		   n, denied, (unsigned long long)e.lost_records,
		   (unsigned long long)e.bad);
	}
	t0 = now_ns();
	close(fd);
	note("chain %d: closing the session took %.3f s", n, (now_ns() - t0) / 1e9);
	chain_kill(root, n);
	evs_free(&e);
	return ret ? 0 : dt;
}

/*
 * Each size in turn. A walk that is quadratic in the chain's depth (and
 * runs under RCU and the module's global mutex) could take the next size
 * past the soft-lockup watchdog and the RCU stall timeout (both panic the
 * guest after 120 s). Under TCG it grows faster than quadratic (4,000 to
 * 15,000: 1.1 s to 55 s on 6.1, 2.2 s to 59 s on 6.12), so the next size
 * runs only if (next/this)^3 times this ENABLE stays under 30 s.
 */
int t_trust_chain(int argc, char **argv)
{
	struct proc idle;
	u64 last = 0;
	int i, prev = 0, keep;

	become_nobody(true);
	if (getenv("CASE_TIMEOUT_SCALE") && atoi(getenv("CASE_TIMEOUT_SCALE")) > 1)
		g_scale = atoi(getenv("CASE_TIMEOUT_SCALE"));
	keep = keeper_start(&idle);
	for (i = 0; i < argc; i++) {
		int n = atoi(argv[i]);
		double f, est;

		if (n < 2)
			die("chain: N must be at least 2 (%s)", argv[i]);
		f = prev ? (double)n / prev : 1;
		est = last / 1e9 * f * f * f;
		if (prev && est > 30) {
			ok(false, "chain %d: not run: ENABLE took %.2f s at %d, so up to %.0f s at %d: too close to the soft-lockup and RCU stall panics",
			   n, last / 1e9, prev, est, n);
			continue;
		}
		last = chain_once(n);
		prev = n;
	}
	close(keep);
	proc_end(&idle);
	if (have_root_h)
		proc_end(&root_h);
	return 0;
}

/* ------------------------------------------------------------------ */
/* denied-child: P forks C, which execs a setuid-root image. */

static void dc_parent(void *arg)
{
	const char *path = arg;
	char line[64];
	pid_t c;
	int status;

	say("R %d\n", getpid());
	if (!hear(line, sizeof(line)))
		_exit(0);
	fflush(stdout);
	c = fork();
	if (c < 0)
		_exit(91);
	if (!c) {
		prctl_death();
		if (dup2(g_rep_w, 3) != 3)
			_exit(96);
		/* long enough for root's ENABLE; the test kills it after */
		execl(path, "secret", "20000", (char *)NULL);
		_exit(97);
	}
	say("C %d\n", c);
	waitpid(c, &status, 0);
	say("W %d\n", status);
	while (hear(line, sizeof(line)))
		if (line[0] == 'Q')
			break;
	_exit(0);
}

int t_trust_denied_child(const char *path)
{
	struct evs e = { 0 };
	struct proc p;
	const struct ev *d;
	char line[128];
	int fd, rret = -1;
	pid_t c = 0;
	unsigned long long lo, hi;

	become_nobody(true);
	proc_spawn(&p, dc_parent, (void *)path);
	if (!await(&p, line, sizeof(line), 60000, -1, NULL))
		die("denied-child: P not ready");
	fd = tree_session("denied-child", p.pid);
	if (fd < 0)
		goto out;
	tell(&p, "F\n");
	/* "C pid" from P and "X lo hi" from the image, in either order */
	while ((!c || !e.xhi) && await(&p, line, sizeof(line), 60000, fd, &e)) {
		if (sscanf(line, "X %llx %llx", &lo, &hi) == 2) {
			e.xlo = lo;
			e.xhi = hi;
		}
		sscanf(line, "C %d", &c);
	}
	if (!c)
		die("denied-child: no child");
	if (!e.xhi)
		note("denied-child: the setuid image never named its range");
	/* The DENIED record of C, from its exec. */
	d = ev_wait_denied(fd, &e, c);
	ok(d && d->aux == TPROF_DENIED_CREDS,
	   "denied-child: C %d, exec'ing a setuid-root image, has a DENIED record, reason CREDS (%s)",
	   c, d ? why_name(d->aux) : "no DENIED record");
	/* While the user's session (P) lives on: root starts one on C. */
	if (have_root_h) {
		snprintf(line, sizeof(line), "E %d", c);
		if (root_cmd(line, line, sizeof(line)))
			sscanf(line, "E %d", &rret);
		ok(rret == 0,
		   "denied-child: root's ENABLE on the denied child succeeds while the user's session lives (%s)",
		   rret <= 0 ? strerror(-rret) : "?");
		root_cmd("C", line, sizeof(line));
	} else {
		printf("skip - denied-child: root's ENABLE on the denied child: not run as root\n");
	}
	kill(c, SIGKILL);	/* its real uid is ours */
	await_prefix(&p, "W ", line, sizeof(line), 60000, fd, &e);
	tell(&p, "Q\n");
	ok(ev_to_eof(fd, &e, 60000), "denied-child: the session ends when P exits");
	note("denied-child: %zu SAMPLE of C, %zu of P; records of C: %zu PROC, %zu THREAD, %zu EXEC, %zu MMAP",
	     ev_count(&e, TPROF_REC_SAMPLE, c, 0),
	     ev_count(&e, TPROF_REC_SAMPLE, p.pid, 0),
	     ev_count(&e, TPROF_REC_PROC, c, 0),
	     ev_count(&e, TPROF_REC_THREAD, c, 0),
	     ev_count(&e, TPROF_REC_EXEC, c, 0),
	     ev_count(&e, TPROF_REC_MMAP, c, 0));
	ok(e.xhi && ev_samples(&e, 0, EV_SECRET_PC) == 0,
	   "denied-child: no sample with a pc in the setuid image's code (%zu)",
	   ev_samples(&e, 0, EV_SECRET_PC));
	ok(ev_count(&e, TPROF_REC_EXEC, c, 0) == 0 && ev_after_denied(&e, c) == 0,
	   "denied-child: no EXEC of C (%zu), and no SAMPLE/THREAD/EXEC/MMAP/PROC of C after its DENIED (%zu)",
	   ev_count(&e, TPROF_REC_EXEC, c, 0), ev_after_denied(&e, c));
	ok(e.bad == 0, "denied-child: no malformed records (%llu)",
	   (unsigned long long)e.bad);
out:
	close(fd);
	proc_end(&p);
	if (have_root_h)
		proc_end(&root_h);
	evs_free(&e);
	return 0;
}

/* ------------------------------------------------------------------ */
/*
 * yama: P names the profiler its ptracer (PR_SET_PTRACER) and forks C; the
 * profiler is not an ancestor of either, so under ptrace_scope 1 it may
 * attach to P and not to C. C spins with a marker in its stack frame.
 */

#define MARK_LEN	64

/* Not a string in any binary: made at run time (mark_fill()). */
static unsigned char mark[MARK_LEN];

static void mark_fill(unsigned char *m)
{
	int i;

	for (i = 0; i < MARK_LEN; i++)
		m[i] = (unsigned char)(0xA5 ^ (i * 37) ^ (i >> 2) ^ 'T');
}

/* CPU in a frame whose locals hold the marker (the snapshot's top). */
__attribute__((noinline)) static void mark_spin(u64 ns)
{
	volatile unsigned char m[MARK_LEN];
	u64 end = thread_cpu_ns() + ns;
	int i;

	mark_fill((unsigned char *)m);
	while (thread_cpu_ns() < end) {
		spin_iters(20000);
		__asm__ volatile("" : : "r"(m) : "memory");
	}
	for (i = 0; i < MARK_LEN; i++)
		m[i] = 0;
}

struct yshm {
	volatile int cgo;	/* C may spin */
};

static struct yshm *yshm;

/*
 * P: "T PID" names PID its ptracer; "F" forks C, which reports "C pid",
 * waits for cgo, spins 300 ms with the marker, reports "D pid" and sleeps;
 * "K" kills and reaps C; EOF ends P.
 */
static void y_parent(void *arg)
{
	char line[64];
	pid_t c = 0;
	int status, tp;

	(void)arg;
	say("R %d\n", getpid());
	while (hear(line, sizeof(line))) {
		if (sscanf(line, "T %d", &tp) == 1) {
			say("T %d\n", prctl(PR_SET_PTRACER, tp, 0, 0, 0) ? -errno : 0);
		} else if (line[0] == 'F') {
			fflush(stdout);
			c = fork();
			if (c < 0)
				_exit(91);
			if (!c) {
				prctl_death();
				say("C %d\n", getpid());
				while (!yshm->cgo)
					usleep(1000);
				mark_spin(300 * MS);
				say("D %d\n", getpid());
				for (;;)
					pause();
			}
		} else if (line[0] == 'K') {
			if (c > 0) {
				kill(c, SIGKILL);
				waitpid(c, &status, 0);
			}
			c = 0;
			say("K\n");
		}
	}
	_exit(0);
}

enum y_kind { Y_AFTER, Y_BEFORE, Y_READ, Y_LAUNCH };
static const char *const y_name[] = {
	"C forked after ENABLE", "C there before ENABLE",
	"control: read mode (no snapshots)",
	"control: the profiler's own tree (launch)",
};

static int prove(int fd, pid_t pid, int pfd)
{
	struct tprof_ioc_prove pv = { .pid = pid, .fd = pfd };

	return ioctl(fd, TPROF_IOC_PROVE, &pv) ? -errno : 0;
}

/* C's PROC record, once it is there (60 s at most). */
static const struct ev *y_proc_of(int fd, struct evs *e, pid_t c)
{
	u64 end = now_ns() + 60 * SEC;
	size_t i;

	for (;;) {
		struct pollfd pf = { .fd = fd, .events = POLLIN };

		for (i = 0; i < e->n; i++)
			if (e->v[i].type == TPROF_REC_PROC &&
			    e->v[i].pid == (u32)c)
				return &e->v[i];
		if (now_ns() > end || ev_drain(fd, e))
			return NULL;
		poll(&pf, 1, 50);
	}
}

/*
 * In the profiler: one session on P (a helper of ours in Y_LAUNCH, else
 * our parent's) while C spins. A descendant the caller has not proven
 * joins pending (TPROF_RF_PROC_PENDING): like tprof-read, the profiler
 * then proves it with the /proc/C/mem (snapshots) or auxv it can open, or
 * -1 when it cannot; first, for the snapshot kinds, with P's mem fd, which
 * proves nothing of C. C spins while pending in Y_AFTER and Y_BEFORE, and
 * once proven in Y_READ. Prints the results. Return: failures.
 */
static int y_run(enum y_kind k, struct proc *p)
{
	bool snap = k != Y_READ;
	u32 flags = TPROF_F_CHILDREN | (snap ? TPROF_F_USER_SNAPSHOT |
					TPROF_F_MEM_PROOF : TPROF_F_AUXV_PROOF);
	const char *nm = y_name[k];
	struct evs e = { .marker = mark, .mlen = MARK_LEN };
	const struct ev *d, *pr;
	size_t us, hits, samples, rep;
	char line[128];
	int fd, mfd, pfd = -1, ret, perr = 0, tp = -1, f0 = failures;
	int pret = 1, wrong = 1;
	pid_t c = 0;

	mark_fill(mark);
	yshm->cgo = k == Y_AFTER || k == Y_LAUNCH;
	if (!await(p, line, sizeof(line), 60000, -1, NULL))
		die("yama: P not ready");
	if (k != Y_LAUNCH && k != Y_READ) {
		tell(p, "T %d\n", getpid());
		if (!await_prefix(p, "T ", line, sizeof(line), 60000, -1, NULL) ||
		    sscanf(line, "T %d", &tp) != 1 || tp)
			die("yama: PR_SET_PTRACER (%s)", line);
	}
	mfd = open_proc(p->pid, "mem");
	if (snap)
		ok(mfd >= 0, "yama %s: the profiler may open /proc/P/mem (%s)",
		   nm, mfd >= 0 ? "ok" : strerror(errno));
	fd = dev_open();
	if (k == Y_BEFORE) {
		tell(p, "F\n");
		if (!await_prefix(p, "C ", line, sizeof(line), 60000, -1, NULL))
			die("yama: no C");
		sscanf(line, "C %d", &c);
	}
	ret = enable_as_user(fd, p->pid, flags, 1 * MS, 1 << 20,
			     snap ? 8192 : 0);
	ok(ret == 0, "yama %s: ENABLE %s on P (%s)", nm,
	   snap ? "USER_SNAPSHOT|MEM_PROOF|CHILDREN" : "AUXV_PROOF|CHILDREN",
	   strerror(-ret));
	if (ret) {
		close(fd);
		if (mfd >= 0)
			close(mfd);
		return failures - f0;
	}
	if (k == Y_BEFORE)
		yshm->cgo = 1;
	if (k != Y_BEFORE) {
		tell(p, "F\n");
		if (!await_prefix(p, "C ", line, sizeof(line), 60000, fd, &e))
			die("yama: no C");
		sscanf(line, "C %d", &c);
	}
	pfd = open_proc(c, snap ? "mem" : "auxv");
	perr = pfd < 0 ? errno : 0;
	if (k == Y_LAUNCH)
		ok(!perr, "yama %s: premise: the profiler, C's ancestor, may open /proc/C/mem (%s)",
		   nm, perr ? strerror(perr) : "ok");
	else if (snap)
		ok(perr == EACCES || perr == EPERM,
		   "yama %s: premise: the profiler may not open /proc/C/mem (%s)",
		   nm, perr ? strerror(perr) : "it opened");
	else
		ok(!perr, "yama %s: premise: the profiler may open /proc/C/auxv (%s)",
		   nm, perr ? strerror(perr) : "ok");
	pr = y_proc_of(fd, &e, c);
	if (pr && (pr->flags & TPROF_RF_PROC_PENDING)) {
		if (snap && mfd >= 0)
			wrong = prove(fd, c, mfd);
		pret = prove(fd, c, pfd);
		note("yama %s: C joined pending; PROVE with P's mem fd: %s; with %s: %s",
		     nm, wrong == 1 ? "not tried" : strerror(-wrong),
		     pfd >= 0 ? "its own fd" : "-1", strerror(-pret));
	} else {
		note("yama %s: C's PROC record: %s", nm,
		     pr ? "not pending" : "none");
	}
	if (k == Y_READ)
		yshm->cgo = 1;
	if (!await_prefix(p, "D ", line, sizeof(line), 120000, fd, &e))
		note("yama %s: C did not report its spin done", nm);
	tell(p, "K\n");
	await_prefix(p, "K", line, sizeof(line), 60000, fd, &e);
	disable(fd);
	ev_to_eof(fd, &e, 60000);
	close(fd);
	if (pfd >= 0)
		close(pfd);
	if (mfd >= 0)
		close(mfd);

	samples = ev_samples(&e, c, 0);
	us = ev_samples(&e, c, EV_USTACK);
	hits = ev_samples(&e, c, EV_MARKER);
	rep = ev_count(&e, TPROF_REC_SAMPLE, c, 0) +
	      ev_count(&e, TPROF_REC_THREAD, c, 0) +
	      ev_count(&e, TPROF_REC_MMAP, c, 0) +
	      ev_count(&e, TPROF_REC_EXEC, c, 0);
	d = ev_denied(&e, c);
	note("yama %s: C %d: %zu SAMPLE, %zu with USTACK, %zu holding the marker; %zu PROC, %zu THREAD, %zu MMAP; DENIED %s; P: %zu SAMPLE",
	     nm, c, samples, us, hits, ev_count(&e, TPROF_REC_PROC, c, 0),
	     ev_count(&e, TPROF_REC_THREAD, c, 0),
	     ev_count(&e, TPROF_REC_MMAP, c, 0),
	     d ? why_name(d->aux) : "none", ev_samples(&e, p->pid, 0));
	switch (k) {
	case Y_AFTER:
	case Y_BEFORE:
		ok(hits == 0, "yama %s: no USTACK of C holds its stack's marker (%zu of %zu samples of C)",
		   nm, hits, samples);
		ok(rep == 0, "yama %s: no SAMPLE, THREAD, MMAP or EXEC record of C (%zu)",
		   nm, rep);
		if (wrong != 1)
			ok(wrong == -EPERM,
			   "yama %s: P's mem fd proves nothing of C: EPERM (%s)",
			   nm, strerror(-wrong));
		ok(d && d->aux == TPROF_DENIED_PTRACE,
		   "yama %s: C has a DENIED record, reason PTRACE, once the profiler says it cannot prove it (%s)",
		   nm, d ? why_name(d->aux) : "none");
		break;
	case Y_READ:
		ok(samples > 0 && !d,
		   "yama %s: C is followed: %zu samples, %s", nm, samples,
		   d ? "DENIED" : "no DENIED");
		ok(us == 0, "yama %s: and no USTACK (%zu)", nm, us);
		break;
	case Y_LAUNCH:
		ok(pr && !(pr->flags & TPROF_RF_PROC_PENDING),
		   "yama %s: C joins without a proof of its own (%s)", nm,
		   pr ? (pr->flags & TPROF_RF_PROC_PENDING ? "pending" : "admitted") :
		   "no PROC record");
		ok(us > 0 && hits > 0 && !d,
		   "yama %s: C is followed with snapshots: %zu USTACK, %zu with the marker (the check's own control), %s",
		   nm, us, hits, d ? "DENIED" : "no DENIED");
		break;
	}
	ok(e.bad == 0 && e.lost_records == 0,
	   "yama %s: no malformed or lost records (%llu, %llu)", nm,
	   (unsigned long long)e.bad, (unsigned long long)e.lost_records);
	evs_free(&e);
	return failures - f0;
}

int t_trust_yama(void)
{
	int k, status;
	FILE *f = fopen("/proc/sys/kernel/yama/ptrace_scope", "r");
	int scope = -1;

	if (!f) {
		printf("skip - yama: no /proc/sys/kernel/yama/ptrace_scope (Yama is not in this kernel)\n");
		return 0;
	}
	if (fscanf(f, "%d", &scope) != 1)
		scope = -1;
	fclose(f);
	if (scope != 1) {
		printf("skip - yama: ptrace_scope is %d, the test needs 1 (the case sets it)\n",
		       scope);
		return 0;
	}
	become_nobody(false);
	yshm = mmap(NULL, sizeof(*yshm), PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (yshm == MAP_FAILED)
		die("mmap");
	for (k = Y_AFTER; k <= Y_LAUNCH; k++) {
		struct proc p;
		pid_t x;

		if (k == Y_LAUNCH) {
			/* We fork P ourselves: we are its and C's ancestor. */
			proc_spawn(&p, y_parent, NULL);
			y_run(k, &p);
			proc_end(&p);
			continue;
		}
		/* P is ours; the profiler is P's sibling, not its ancestor. */
		proc_spawn(&p, y_parent, NULL);
		fflush(stdout);
		x = fork();
		if (x < 0)
			die("fork");
		if (!x) {
			prctl_death();
			_exit(y_run(k, &p) ? 1 : 0);
		}
		if (waitpid(x, &status, 0) != x || !WIFEXITED(status) ||
		    WEXITSTATUS(status))
			failures++;
		proc_end(&p);
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/*
 * eagain: other processes of the user hold the target's exec_update_lock
 * for read, briefly, as often as they can: procfs takes it for each open
 * of /proc/PID/maps (mm_access()) and each read of /proc/PID/io
 * (do_io_accounting()), before the ptrace check that then fails for a
 * non-dumpable process. A read of an io file opened while the target was
 * dumpable does little else, so it holds the lock for a larger share of
 * its time than an open of maps: reader 0 opens maps, the others read io.
 * A check that meets the lock held must defer, not allow.
 */

#define E_READERS	64

struct eshm {
	volatile pid_t target;		/* whose files the readers use; 0: none */
	volatile pid_t seen[E_READERS];	/* each reader's target, files open */
	volatile int stop;
	volatile int pause;		/* readers idle (files kept open) */
	volatile int c2go;		/* C2 may make itself non-dumpable */
	volatile int c2done;
	volatile unsigned long reads;
};

static struct eshm *eshm;

static void *e_reader(void *arg)
{
	long idx = (long)arg;
	char path[64], buf[4096];
	unsigned long n = 0, bad = 0;
	pid_t cur = 0;
	int io = -1;

	while (!eshm->stop) {
		pid_t t = eshm->target;
		int fd;

		if (t != cur) {
			if (io >= 0)
				close(io);
			io = idx && t ? open_proc(t, "io") : -1;
			cur = t;
			eshm->seen[idx] = t;
		}
		if (!t || eshm->pause) {
			usleep(1000);
			continue;
		}
		if (io >= 0) {
			bad += pread(io, buf, sizeof(buf), 0) < 0;
		} else {
			snprintf(path, sizeof(path), "/proc/%d/maps", t);
			fd = open(path, O_RDONLY | O_CLOEXEC);
			if (fd >= 0) {
				bad += read(fd, buf, sizeof(buf)) < 0;
				close(fd);
			}
		}
		if (++n % 256 == 0)
			__atomic_add_fetch(&eshm->reads, 256, __ATOMIC_RELAXED);
	}
	if (io >= 0)
		close(io);
	return (void *)bad;
}

static void e_readers(void *arg)
{
	int n = *(int *)arg;
	long i;
	pthread_t th;

	for (i = 1; i < n; i++)
		if (pthread_create(&th, NULL, e_reader, (void *)i))
			_exit(90);
	say("R %d\n", getpid());
	e_reader(NULL);
	_exit(0);
}

/*
 * Readers idle or not. Idle outside the window that matters: a session's
 * end waits for an RCU grace period, which busy CPUs make long (440 ms a
 * session on 6.12-rt under TCG).
 */
static void e_pause(int on)
{
	eshm->pause = on;
	if (!on)
		usleep(10000);	/* they wake from usleep(1 ms) */
}

/* The readers use @t's files (opened now, while it is dumpable). */
static void e_target(pid_t t, int nreaders)
{
	u64 end = now_ns() + 30 * SEC;
	int i;

	eshm->target = t;
	for (i = 0; i < nreaders && now_ns() < end; i++)
		while (eshm->seen[i] != t && now_ns() < end)
			usleep(1000);
}

static void *e_nothing(void *arg)
{
	return arg;
}

/*
 * P: "G" makes it non-dumpable ("T time" after), then it forks FORKS
 * children (each exits at once) and creates as many threads, spins 5 ms
 * of CPU (samples: checks that end in DENIED) and says "D"; "U" makes it
 * dumpable again for the next session. Each session is one trial: its
 * first check after the prctl either meets the lock held or denies P.
 */
static void e_parent(void *arg)
{
	int forks = *(int *)arg, i, status;
	char line[64];
	pthread_t th;

	say("R %d\n", getpid());
	while (hear(line, sizeof(line))) {
		if (line[0] == 'U') {
			prctl(PR_SET_DUMPABLE, 1);
			say("U\n");
			continue;
		}
		prctl(PR_SET_DUMPABLE, 0);
		say("T %llu\n", (unsigned long long)now_ns());
		for (i = 0; i < forks; i++) {
			pid_t c = fork();

			if (c < 0)
				_exit(91);
			if (!c)
				_exit(0);
			if (pthread_create(&th, NULL, e_nothing, NULL))
				_exit(92);
			pthread_join(th, NULL);
			waitpid(c, &status, 0);
		}
		spin_cpu(5 * MS);
		say("D\n");
	}
	_exit(0);
}

/* P2: forks C2, which becomes non-dumpable when told (c2go), and sleeps. */
static void e_parent2(void *arg)
{
	char line[64];
	pid_t c;

	(void)arg;
	fflush(stdout);
	c = fork();
	if (c < 0)
		_exit(91);
	if (!c) {
		prctl_death();
		say("C %d\n", getpid());
		while (!eshm->c2go)
			usleep(1000);
		prctl(PR_SET_DUMPABLE, 0);
		eshm->c2done = 1;
		for (;;)
			pause();
	}
	while (hear(line, sizeof(line)))
		;
	kill(c, SIGKILL);
	_exit(0);
}

/* New threads and children of a process that just became non-dumpable. */
static void e_forks(int iters, int forks, int nreaders)
{
	size_t leak[5] = { 0 }, p_denied = 0, c_denied = 0, leaked_runs = 0,
	       p_samples = 0, user_samples = 0;
	u64 t0, t_en = 0, t_run = 0, t_end = 0, t1;
	unsigned long reads0;
	struct proc p;
	char line[128];
	int i, runs = 0;

	proc_spawn(&p, e_parent, &forks);
	if (!await(&p, line, sizeof(line), 60000, -1, NULL))
		die("eagain: P not ready");
	e_target(p.pid, nreaders);
	t0 = now_ns();
	reads0 = eshm->reads;
	for (i = 0; i < iters; i++) {
		struct evs e = { 0 };
		unsigned long long tpr = 0;
		size_t n[5] = { 0 }, j;
		const struct ev *d;
		int fd, ret;

		fd = dev_open();
		t1 = now_ns();
		ret = enable_as_user(fd, p.pid, TPROF_F_CHILDREN | TPROF_F_AUXV_PROOF,
				     1 * MS, 16384, 0);
		t_en += now_ns() - t1;
		t1 = now_ns();
		if (ret) {
			ok(false, "eagain #%d: ENABLE (%s)", i, strerror(-ret));
			close(fd);
			break;
		}
		runs++;
		e_pause(0);
		tell(&p, "G\n");
		if (await_prefix(&p, "T ", line, sizeof(line), 60000, fd, &e))
			sscanf(line, "T %llu", &tpr);
		if (!await_prefix(&p, "D", line, sizeof(line), 120000, fd, &e))
			note("eagain #%d: P did not finish", i);
		t_run += now_ns() - t1;
		t1 = now_ns();
		e_pause(1);
		disable(fd);
		ev_to_eof(fd, &e, 60000);
		close(fd);
		t_end += now_ns() - t1;
		tell(&p, "U\n");
		await_prefix(&p, "U", line, sizeof(line), 60000, -1, NULL);
		/* P forked and made threads only after it was non-dumpable. */
		for (j = 0; j < e.n; j++) {
			const struct ev *v = &e.v[j];

			switch (v->type) {
			case TPROF_REC_PROC:
				n[0] += v->pid != (u32)p.pid &&
					!(v->flags & TPROF_RF_PROC_TOTALS);
				break;
			case TPROF_REC_THREAD:
				n[1] += !(v->flags & TPROF_RF_THREAD_EXISTING);
				break;
			case TPROF_REC_EXEC:
				n[2]++;
				break;
			case TPROF_REC_SAMPLE:
				n[3] += v->time > tpr;
				p_samples += v->time > tpr && v->pid == (u32)p.pid;
				user_samples += v->time > tpr && (v->aux & EV_USER);
				break;
			case TPROF_REC_MMAP:
				n[4] += v->time > tpr;
				break;
			case TPROF_REC_DENIED:
				if (v->pid == (u32)p.pid)
					p_denied += v->aux == TPROF_DENIED_DUMPABLE;
				else
					c_denied++;
				break;
			}
		}
		d = ev_denied(&e, p.pid);
		if (n[0] + n[1] + n[2] + n[3] + n[4]) {
			leaked_runs++;
			if (leaked_runs <= 5)
				note("eagain #%d: after P's prctl: %zu PROC, %zu THREAD, %zu EXEC, %zu SAMPLE, %zu MMAP; P's DENIED %s %.3f ms after the prctl",
				     i, n[0], n[1], n[2], n[3], n[4],
				     d ? why_name(d->aux) : "none",
				     d ? ((double)d->time - (double)tpr) / 1e6 : 0.0);
		}
		for (j = 0; j < 5; j++)
			leak[j] += n[j];
		evs_free(&e);
	}
	note("eagain: %d sessions on P, each with %d forks and %d threads after P's prctl; %d readers: %lu reads in %.1f s (ENABLE %.0f ms, run %.0f ms, DISABLE+close %.0f ms each)",
	     runs, forks, forks, nreaders, eshm->reads - reads0,
	     (now_ns() - t0) / 1e9, t_en / 1e6 / (runs ? runs : 1),
	     t_run / 1e6 / (runs ? runs : 1), t_end / 1e6 / (runs ? runs : 1));
	ok(runs == iters && p_denied == (size_t)iters,
	   "eagain: P has a DENIED record, reason DUMPABLE, in each session (%zu of %d)",
	   p_denied, iters);
	ok(leak[0] + leak[1] + leak[2] + leak[3] + leak[4] == 0,
	   "eagain: nothing of a non-dumpable P's new threads and children: %zu PROC, %zu THREAD, %zu EXEC, %zu SAMPLE (%zu of P, %zu with user frames), %zu MMAP records (in %zu of %d sessions; %zu children DENIED)",
	   leak[0], leak[1], leak[2], leak[3], p_samples, user_samples, leak[4], leaked_runs,
	   runs, c_denied);
	eshm->target = 0;
	proc_end(&p);
}

/* A non-dumpable descendant at ENABLE (the walk's check). */
static void e_walk(int iters, int nreaders)
{
	int i, leak = 0, denied = 0, pending = 0, runs = 0, other = 0;
	unsigned long reads0;
	struct proc p;
	char line[128];
	pid_t c = 0;
	u64 t0;

	proc_spawn(&p, e_parent2, NULL);
	if (!await_prefix(&p, "C ", line, sizeof(line), 60000, -1, NULL) ||
	    sscanf(line, "C %d", &c) != 1)
		die("eagain: no C2");
	e_target(c, nreaders);
	eshm->c2go = 1;
	while (!eshm->c2done)
		usleep(1000);
	reads0 = eshm->reads;
	t0 = now_ns();
	for (i = 0; i < iters; i++) {
		struct evs e = { 0 };
		const struct ev *d;
		int fd = dev_open(), ret;
		size_t j, adm, pend;

		e_pause(0);
		ret = enable_as_user(fd, p.pid, TPROF_F_CHILDREN | TPROF_F_AUXV_PROOF,
				     1 * SEC, 4096, 0);
		e_pause(1);
		if (ret) {
			note("eagain walk #%d: ENABLE %s", i, strerror(-ret));
			other++;
			close(fd);
			continue;
		}
		runs++;
		ev_drain(fd, &e);
		d = ev_denied(&e, c);
		/* a PROC record of it pending a proof says no more than /proc */
		for (j = 0, adm = 0, pend = 0; j < e.n; j++) {
			const struct ev *v = &e.v[j];

			if (v->pid != (u32)c || ev_counts(v))
				continue;
			if (v->type == TPROF_REC_PROC &&
			    (v->flags & TPROF_RF_PROC_PENDING))
				pend++;
			else if (v->type == TPROF_REC_PROC ||
				 v->type == TPROF_REC_THREAD)
				adm++;
		}
		leak += adm > 0;
		denied += d && d->aux == TPROF_DENIED_DUMPABLE;
		pending += !d && pend > 0 && !adm;
		close(fd);
		evs_free(&e);
	}
	note("eagain walk: %d ENABLEs on P2 with its non-dumpable child C2 %d there, %lu reads in %.1f s",
	     runs, c, eshm->reads - reads0, (now_ns() - t0) / 1e9);
	ok(other == 0, "eagain walk: every ENABLE on P2 succeeds (%d failed)",
	   other);
	ok(leak == 0 && denied + pending == runs,
	   "eagain walk: C2 is never admitted (PROC/THREAD in %d of %d sessions): DENIED DUMPABLE (%d), or left pending a proof (%d)",
	   leak, runs, denied, pending);
	eshm->target = 0;
	proc_end(&p);
}

int t_trust_eagain(int iters, int forks, int nreaders)
{
	struct proc rd, idle;
	char line[128];
	int keep;

	if (nreaders < 1 || nreaders > E_READERS)
		die("eagain: 1 to %d readers", E_READERS);
	become_nobody(false);
	eshm = mmap(NULL, sizeof(*eshm), PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (eshm == MAP_FAILED)
		die("mmap");
	proc_spawn(&rd, e_readers, &nreaders);
	if (!await(&rd, line, sizeof(line), 60000, -1, NULL))
		die("eagain: readers not ready");
	keep = keeper_start(&idle);
	e_forks(iters, forks, nreaders);
	e_walk(iters / 2, nreaders);
	close(keep);
	proc_end(&idle);
	eshm->stop = 1;
	proc_end(&rd);
	return 0;
}

/* ------------------------------------------------------------------ */
/*
 * stale-tid: P (the target) forks D; D's second thread T2 runs while D is
 * followed, D becomes non-dumpable (DENIED at its next sample), then T2
 * execs: it takes D's pid, and its own tid is free. Then P starts a thread
 * that gets T2's old tid. Before #22 the exec probe skipped a denied
 * process, T2's slot stayed, and P's new thread found it: never sampled
 * (D's process, denied), its records under D's pid.
 */

static volatile int st_go;

static void *st_t2(void *arg)
{
	(void)arg;
	say("T %d\n", gettid_());
	spin_cpu(60 * MS);
	while (!st_go)
		spin_cpu(1 * MS);
	execl("/bin/sleep", "sleep", "30", (char *)NULL);
	_exit(97);
}

static void *st_new(void *arg)
{
	(void)arg;
	say("U %d\n", gettid_());
	spin_cpu(200 * MS);
	return NULL;
}

static void st_on_usr1(int sig)
{
	(void)sig;
	st_go = 1;
}

/*
 * D: T2 and its own CPU while followed, then not dumpable, then (SIGUSR1:
 * P's command pipe is P's to read) T2 execs.
 */
static void st_d(void)
{
	pthread_t th;

	signal(SIGUSR1, st_on_usr1);
	if (pthread_create(&th, NULL, st_t2, NULL))
		_exit(90);
	spin_cpu(60 * MS);
	prctl(PR_SET_DUMPABLE, 0);
	spin_cpu(30 * MS);	/* a sample: DENIED (DUMPABLE) */
	say("D\n");
	pthread_join(th, NULL);	/* the exec ends this thread */
	_exit(96);
}

/* P: "F" forks D ("C pid"), "U" starts the new thread ("U tid"), "Q". */
static void st_p(void *arg)
{
	char line[64];
	pthread_t th;
	pid_t d;

	(void)arg;
	say("R %d\n", getpid());
	while (hear(line, sizeof(line))) {
		if (line[0] == 'F') {
			d = fork();
			if (d == 0)
				st_d();
			say("C %d\n", d);
		} else if (line[0] == 'U') {
			if (pthread_create(&th, NULL, st_new, NULL))
				_exit(91);
			pthread_join(th, NULL);
			say("W\n");
		} else if (line[0] == 'Q') {
			break;
		}
	}
	_exit(0);
}

int t_trust_stale_tid(void)
{
	struct evs e = { 0 };
	struct proc p;
	const struct ev *dn;
	char line[128];
	int fd, t2 = 0, u = 0, nret = -1, tries;
	pid_t d = 0;
	u64 t0, samples = 0, other = 0;

	/* kernels without CONFIG_CHECKPOINT_RESTORE (the debug one) have none */
	if (access("/proc/sys/kernel/ns_last_pid", F_OK)) {
		printf("skip - stale-tid: no /proc/sys/kernel/ns_last_pid (CONFIG_CHECKPOINT_RESTORE) to hand a tid on\n");
		return 0;
	}
	become_nobody(true);
	if (!have_root_h) {
		printf("skip - stale-tid: needs root for ns_last_pid\n");
		return 0;
	}
	proc_spawn(&p, st_p, NULL);
	if (!await_prefix(&p, "R ", line, sizeof(line), 60000, -1, NULL))
		die("stale-tid: P not ready");
	fd = tree_session("stale-tid", p.pid);
	if (fd < 0)
		goto out;
	tell(&p, "F\n");
	while ((!d || !t2) && await(&p, line, sizeof(line), 60000, fd, &e)) {
		sscanf(line, "C %d", &d);
		sscanf(line, "T %d", &t2);
	}
	if (!d || !t2)
		die("stale-tid: no D or T2");
	await_prefix(&p, "D", line, sizeof(line), 60000, fd, &e);
	t0 = now_ns();
	dn = ev_wait_denied(fd, &e, d);
	ok(dn && dn->aux == TPROF_DENIED_DUMPABLE,
	   "stale-tid: D %d, no longer dumpable, has a DENIED record (%s)", d,
	   dn ? why_name(dn->aux) : "none");
	/* D's T2 (tid t2) execs: it takes D's pid; t2 is free */
	kill(d, SIGUSR1);
	/*
	 * t2 is free once no task has it: the exec swaps tids with D's old
	 * leader, which de_thread() then releases (a while later on a slow
	 * kernel). /proc/PID finds threads too.
	 */
	for (tries = 0; tries < 200; tries++) {
		char path[64];

		snprintf(path, sizeof(path), "/proc/%d", t2);
		if (access(path, F_OK))
			break;
		usleep(50000);
	}
	/* P's next thread: tid t2 */
	for (tries = 0; tries < 10 && u != t2; tries++) {
		if (tries)
			usleep(200000);
		snprintf(line, sizeof(line), "N %d", t2 - 1);
		if (root_cmd(line, line, sizeof(line)))
			sscanf(line, "N %d", &nret);
		tell(&p, "U\n");
		if (!await_prefix(&p, "U ", line, sizeof(line), 60000, fd, &e))
			die("stale-tid: no new thread");
		sscanf(line, "U %d", &u);
		await_prefix(&p, "W", line, sizeof(line), 60000, fd, &e);
	}
	ok(nret == 0 && u == t2,
	   "stale-tid: P's new thread got T2's old tid %d (got %d, %d tries)",
	   t2, u, tries);
	ev_drain(fd, &e);
	kill(d, SIGKILL);
	tell(&p, "Q\n");
	ok(ev_to_eof(fd, &e, 60000), "stale-tid: the session ends when P exits");
	/*
	 * The thread with T2's old tid, as P's: its samples' weight within
	 * a period of its exact on-CPU time, and its THREAD_EXIT under P's
	 * pid (a stale slot gave D's pid and no sample).
	 */
	{
		u64 w = 0, on = 0;
		u32 exit_pid = 0;

		for (size_t i = 0; i < e.n; i++) {
			const struct ev *v = &e.v[i];

			if (v->type == TPROF_REC_SAMPLE && v->time >= t0 &&
			    v->pid == (u32)d)
				other++;
			if (v->tid != (u32)t2 || v->time < t0)
				continue;
			if (v->type == TPROF_REC_SAMPLE && v->pid == (u32)p.pid) {
				samples++;
				w += v->val;
			} else if (v->type == TPROF_REC_THREAD_EXIT) {
				exit_pid = v->pid;
				on = v->val;
			}
		}
		ok(u == t2 && exit_pid == (u32)p.pid && on >= 100 * MS &&
		   w + 1 * MS >= on && w <= on + 1 * MS,
		   "stale-tid: the thread with T2's old tid is P's: THREAD_EXIT under pid %u (P %d), %llu samples weigh %llu ns of its %llu ns on CPU",
		   exit_pid, p.pid, (unsigned long long)samples,
		   (unsigned long long)w, (unsigned long long)on);
	}
	ok(other == 0, "stale-tid: no sample under D's pid after its DENIED (%llu)",
	   (unsigned long long)other);
	ok(e.bad == 0, "stale-tid: no malformed records (%llu)",
	   (unsigned long long)e.bad);
out:
	close(fd);
	proc_end(&p);
	proc_end(&root_h);
	evs_free(&e);
	return 0;
}

/* ------------------------------------------------------------------ */
/*
 * writeback (issue 32 item 5): ENABLE's out-only fields (refused, need_kb,
 * held_kb, limit_kb) come back 0 when no limit refused it, whatever the
 * caller left there: EINVAL (root), EPERM (a user on pid 1), a success,
 * and, the control that the write-back works at all, a MEMLOCK refusal.
 */
static int wb_enable(int fd, struct tprof_ioc_enable *e)
{
	e->size = sizeof(*e);
	e->refused = 0xdeadbeef;
	e->need_kb = 0x11111111;
	e->held_kb = 0x22222222;
	e->limit_kb = 0x33333333;
	return enable_raw(fd, e);
}

static void wb_check(const char *what, int ret, int want,
		     const struct tprof_ioc_enable *e)
{
	ok(ret == want, "writeback %s: ENABLE returns %s (%s)", what,
	   want ? strerror(-want) : "0", strerror(-ret));
	ok(!e->refused && !e->need_kb && !e->held_kb && !e->limit_kb,
	   "writeback %s: refused, need_kb, held_kb, limit_kb are 0 (%#x %#x %#x %#x)",
	   what, e->refused, e->need_kb, e->held_kb, e->limit_kb);
}

int t_trust_writeback(void)
{
	struct tprof_ioc_enable e;
	struct rlimit lim = { 0, 0 };
	pid_t c;
	int fd, ret;

	fd = dev_open();
	memset(&e, 0, sizeof(e));
	e.pid = getpid();
	e.flags = 0x80000000U;
	wb_check("EINVAL (unknown flag, as root)", wb_enable(fd, &e), -EINVAL,
		 &e);
	close(fd);

	become_nobody(false);
	fd = dev_open();
	memset(&e, 0, sizeof(e));
	e.pid = 1;
	ret = wb_enable(fd, &e);
	wb_check("EPERM (a user on pid 1, no proof)", ret, -EPERM, &e);
	close(fd);

	fflush(stdout);
	c = fork();
	if (c < 0)
		die("fork");
	if (!c) {
		prctl_death();
		for (;;)
			pause();
	}
	fd = dev_open();
	memset(&e, 0, sizeof(e));
	e.pid = c;
	e.flags = TPROF_F_AUXV_PROOF;
	e.auxv_fd = open_proc(c, "auxv");
	ret = wb_enable(fd, &e);
	wb_check("success (a user on its child, auxv proof)", ret, 0, &e);
	if (e.auxv_fd >= 0)
		close(e.auxv_fd);
	close(fd);

	/* the control: a limit that refuses says so */
	if (setrlimit(RLIMIT_MEMLOCK, &lim))
		die("setrlimit");
	fd = dev_open();
	memset(&e, 0, sizeof(e));
	e.pid = c;
	e.flags = TPROF_F_AUXV_PROOF;
	e.auxv_fd = open_proc(c, "auxv");
	e.ring_bytes = 64U << 20;
	ret = wb_enable(fd, &e);
	ok(ret == -ENOMEM && e.refused == TPROF_REFUSED_MEMLOCK &&
	   e.need_kb > 0 && e.limit_kb < e.need_kb && e.held_kb != 0x22222222,
	   "writeback control: 64 MiB rings under RLIMIT_MEMLOCK 0: ENOMEM, refused MEMLOCK, need %u > limit %u KiB, held %u (%s, refused %#x)",
	   e.need_kb, e.limit_kb, e.held_kb, strerror(-ret), e.refused);
	if (e.auxv_fd >= 0)
		close(e.auxv_fd);
	close(fd);
	kill(c, SIGKILL);
	waitpid(c, NULL, 0);
	return 0;
}

/* ------------------------------------------------------------------ */
/*
 * pending-root: under Yama ptrace_scope 1, a user's CHILDREN session
 * holds P's child C pending (the profiler is P's sibling, as in the yama
 * test: P names it its ptracer, so it may attach to P, not to C). Root's
 * ENABLE on C succeeds meanwhile, and root's session gets C's samples: a
 * pending process blocks no one. The profiler's side, in the sibling:
 * its failures are its exit status.
 */
static int pending_root_run(struct proc *pp)
{
	u32 flags = TPROF_F_CHILDREN | TPROF_F_USER_SNAPSHOT | TPROF_F_MEM_PROOF;
	struct evs e = { .marker = mark, .mlen = MARK_LEN };
	unsigned long long rs = 0;
	const struct ev *pr;
	char line[128];
	struct proc p = *pp;
	int fd, ret, tp = -1, rret = 1, qret = 1;
	pid_t c = 0;

	tell(&p, "T %d\n", getpid());
	if (!await_prefix(&p, "T ", line, sizeof(line), 60000, -1, NULL) ||
	    sscanf(line, "T %d", &tp) != 1 || tp)
		die("pending-root: PR_SET_PTRACER (%s)", line);
	fd = dev_open();
	ret = enable_as_user(fd, p.pid, flags, 1 * MS, 1 << 20, 8192);
	ok(ret == 0, "pending-root: the user's ENABLE CHILDREN|USER_SNAPSHOT|MEM_PROOF on P (%s)",
	   strerror(-ret));
	if (ret)
		goto out;
	tell(&p, "F\n");
	if (!await_prefix(&p, "C ", line, sizeof(line), 60000, fd, &e))
		die("pending-root: no C");
	sscanf(line, "C %d", &c);
	pr = y_proc_of(fd, &e, c);
	ok(pr && (pr->flags & TPROF_RF_PROC_PENDING),
	   "pending-root: premise: C %d joined the user's session pending (%s)",
	   c, pr ? (pr->flags & TPROF_RF_PROC_PENDING ? "pending" : "admitted") :
	   "no PROC record");
	snprintf(line, sizeof(line), "E %d", c);
	if (root_cmd(line, line, sizeof(line)))
		sscanf(line, "E %d", &rret);
	ok(rret == 0, "pending-root: root's ENABLE on C while the user's session holds it pending: 0 (%s)",
	   rret == 1 ? "no reply" : strerror(-rret));
	yshm->cgo = 1;
	if (!await_prefix(&p, "D ", line, sizeof(line), 120000, fd, &e))
		note("pending-root: C did not report its spin done");
	if (rret == 0) {
		if (root_cmd("Q", line, sizeof(line)))
			sscanf(line, "Q %d %llu", &qret, &rs);
		ok(qret == 0 && rs > 0,
		   "pending-root: root's session samples C's 300 ms spin (%llu samples)",
		   rs);
	}
	root_cmd("C", line, sizeof(line));
	tell(&p, "K\n");
	await_prefix(&p, "K", line, sizeof(line), 60000, fd, &e);
	disable(fd);
	ev_to_eof(fd, &e, 60000);
	ok(ev_count(&e, TPROF_REC_SAMPLE, c, 0) == 0,
	   "pending-root: the user's session has no SAMPLE of C (%zu)",
	   ev_count(&e, TPROF_REC_SAMPLE, c, 0));
out:
	close(fd);
	evs_free(&e);
	return failures;
}

int t_trust_pending_root(void)
{
	char line[128];
	struct proc p;
	int status;
	pid_t x;

	become_nobody(true);
	mark_fill(mark);
	yshm = mmap(NULL, sizeof(*yshm), PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (yshm == MAP_FAILED)
		die("mmap");
	yshm->cgo = 0;
	/* P is ours; the profiler is P's sibling, not its ancestor */
	proc_spawn(&p, y_parent, NULL);
	if (!await(&p, line, sizeof(line), 60000, -1, NULL))
		die("pending-root: P not ready");
	fflush(stdout);
	x = fork();
	if (x < 0)
		die("fork");
	if (!x) {
		prctl_death();
		_exit(pending_root_run(&p) ? 1 : 0);
	}
	if (waitpid(x, &status, 0) != x || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		failures++;
	proc_end(&p);
	return 0;
}
