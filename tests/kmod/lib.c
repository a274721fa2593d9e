// SPDX-License-Identifier: GPL-2.0
/* ktest: helpers of the tprof.ko in-guest test client. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ktest.h"

int failures;

void ok(bool cond, const char *fmt, ...)
{
	va_list ap;

	fputs(cond ? "ok - " : "not ok - ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
	if (!cond)
		failures++;
}

void note(const char *fmt, ...)
{
	va_list ap;

	fputs("# ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

void die(const char *fmt, ...)
{
	va_list ap;

	fputs("not ok - fatal: ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf(" (%s)\n", strerror(errno));
	fflush(stdout);
	exit(1);
}

/*
 * How far a thread's sample weights may be from its on-CPU time for period
 * @p: one period, 50 us of clock skew, and the kernel's irq slack
 * (TPROF_IRQ_SLACK_US, tests/kernels' irq-slack-us: with irq time
 * accounting, a sample in a hardirq counts that hardirq so far as the
 * thread's; under TCG that can be milliseconds).
 */
long long within_p(u64 p)
{
	static long long slack = -1;

	if (slack < 0) {
		const char *e = getenv("TPROF_IRQ_SLACK_US");

		slack = e ? strtoll(e, NULL, 10) * 1000 : 0;
		if (slack < 0)
			slack = 0;
	}
	return (long long)p + 50000 + slack;
}

u64 now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

u64 thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

pid_t gettid_(void)
{
	return syscall(SYS_gettid);
}

/* Chain of real frames for stack-walk checks. */
volatile u64 sink;

__attribute__((noinline)) void spin_leaf(u64 n)
{
	u64 i;

	for (i = 0; i < n; i++)
		sink += i * 7;
}

__attribute__((noinline)) void spin_iters(u64 iters)
{
	spin_leaf(iters);
	__asm__ volatile("" ::: "memory");
}

void spin_cpu(u64 ns)
{
	u64 end = thread_cpu_ns() + ns;

	while (thread_cpu_ns() < end)
		spin_iters(20000);
}

void prctl_death(void)
{
	prctl(PR_SET_PDEATHSIG, SIGKILL);
}

/* First field of /proc/PID/task/TID/schedstat: sum_exec_runtime (ns). */
u64 schedstat_ns(pid_t pid, pid_t tid)
{
	char path[96];
	unsigned long long v = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/schedstat", pid, tid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (fscanf(f, "%llu", &v) != 1)
		v = 0;
	fclose(f);
	return v;
}

int dev_open(void)
{
	int fd = open(TPROF_DEVICE, O_RDWR | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0)
		die("open %s", TPROF_DEVICE);
	return fd;
}

int enable_raw(int fd, struct tprof_ioc_enable *e)
{
	return ioctl(fd, TPROF_IOC_ENABLE, e) ? -errno : 0;
}

int enable(int fd, pid_t pid, u64 period, u32 flags, u32 ring_bytes)
{
	struct tprof_ioc_enable e = {
		.size = sizeof(e),
		.flags = flags,
		.pid = pid,
		.period_ns = period,
		.ring_bytes = ring_bytes,
	};

	return enable_raw(fd, &e);
}

int disable(int fd)
{
	return ioctl(fd, TPROF_IOC_DISABLE) ? -errno : 0;
}

int get_stats(int fd, struct tprof_ioc_stats *st)
{
	memset(st, 0, sizeof(*st));
	return ioctl(fd, TPROF_IOC_STATS, st) ? -errno : 0;
}

int set_period(int fd, pid_t tid, u64 period)
{
	struct tprof_ioc_thread_period tp = { .tid = tid, .period_ns = period };

	return ioctl(fd, TPROF_IOC_SET_THREAD_PERIOD, &tp) ? -errno : 0;
}

void sum_init(struct sum *s, u32 pid)
{
	memset(s, 0, sizeof(*s));
	s->pid = pid;
}

void sum_free(struct sum *s)
{
	free(s->t);
	free(s->wk_up);
	free(s->wk_in);
	s->t = NULL;
	s->wk_up = s->wk_in = NULL;
}

static void add_key(struct wait_key **v, size_t *n, size_t *cap,
		    const struct tprof_rec_waker *w)
{
	if (*n == *cap) {
		*cap = *cap ? 2 * *cap : 256;
		*v = realloc(*v, *cap * sizeof(**v));
		if (!*v)
			die("realloc");
	}
	(*v)[(*n)++] = (struct wait_key){ w->tid, w->seq, w->waker_tid };
}

struct thr *thr_find(struct sum *s, u32 tid)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (s->t[i].tid == tid)
			return &s->t[i];
	return NULL;
}

struct thr *thr_get(struct sum *s, u32 tid)
{
	struct thr *t = thr_find(s, tid);

	if (t)
		return t;
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 64;
		s->t = realloc(s->t, s->cap * sizeof(*s->t));
		if (!s->t)
			die("realloc");
	}
	t = &s->t[s->n++];
	memset(t, 0, sizeof(*t));
	t->tid = tid;
	return t;
}

/*
 * The module's records as these tests read them: a decoder of their own,
 * apart from tprof-read's stream/records.c on purpose. These tests judge
 * what the module writes against the uapi header alone; sharing the
 * reader's decoder would let one misreading of the ABI pass on both
 * sides. They are stricter than the reader, too: a malformed record or a
 * broken group is counted (s->bad, s->bad_groups), never skipped.
 */

/* @h is a USTACK; @prev the record before it in the same read(), or NULL. */
static void parse_ustack(struct sum *s, const struct tprof_rec_hdr *h,
			 const struct tprof_rec_hdr *prev)
{
	const struct tprof_rec_ustack *u = (const void *)h;
	const struct tprof_rec_sample *r = (const void *)prev;
	u32 at = sizeof(*u) + ((u->stack_bytes + 7) & ~7U), chain = 0;
	const struct tprof_ustack_chain *c = (const void *)((const char *)h + at);

	/* TPROF_F_USTACK_CHAIN: the chain's header and outer ips after it */
	if (h->flags & TPROF_RF_USTACK_CHAIN)
		chain = h->size >= at + sizeof(*c) ?
			sizeof(*c) + c->nr_outer * 8 : sizeof(*c);
	if (h->size < sizeof(*u) || u->stack_bytes > u->stack_req ||
	    h->size != at + chain ||
	    !!(h->flags & TPROF_RF_USTACK_PARTIAL) !=
	    (u->stack_bytes < u->stack_req)) {
		s->bad++;
		return;
	}
	if (!prev || prev->type != TPROF_REC_SAMPLE ||
	    !(prev->flags & TPROF_RF_GROUP) || r->tid != u->tid ||
	    prev->time_ns != h->time_ns || r->abi != u->abi) {
		s->bad_groups++;
		return;
	}
	s->ustacks++;
	if (s->on_ustack)
		s->on_ustack(s, r, (const u64 *)(r + 1), u,
			     (const unsigned char *)(u + 1));
}

static void parse_one(struct sum *s, const struct tprof_rec_hdr *h)
{
	switch (h->type) {
	case TPROF_REC_SAMPLE: {
		const struct tprof_rec_sample *r = (const void *)h;
		struct thr *t;

		/* a waker's stack at a wakeup: no time of its own */
		if (h->flags & TPROF_RF_WAKE_STACK) {
			if (h->size != sizeof(*r) + 8U * r->nr_user ||
			    r->pid != s->pid || r->weight_ns || r->period_ns ||
			    r->nr_kernel || r->off_state ||
			    (h->flags & TPROF_RF_OFF_CPU)) {
				s->bad++;
				return;
			}
			s->wake_stacks++;
			if (s->on_wake_stack)
				s->on_wake_stack(s, r, (const u64 *)(r + 1));
			return;
		}

		if (h->size != sizeof(*r) + 8U * (r->nr_user + r->nr_kernel) ||
		    r->pid != s->pid || !r->weight_ns || !r->period_ns) {
			s->bad++;
			return;
		}
		t = thr_get(s, r->tid);
		if (!t->samples)
			t->first_period = r->period_ns;
		t->samples++;
		t->weight += r->weight_ns;
		t->period_seen = r->period_ns;
		if (r->weight_ns % r->period_ns)
			t->bad_period++;
		s->samples++;
		s->weight += r->weight_ns;
		if (h->flags & TPROF_RF_LATE)
			s->late++;
		if (s->on_sample)
			s->on_sample(s, r, (const u64 *)(r + 1));
		break;
	}
	case TPROF_REC_LOST: {
		const struct tprof_rec_lost *r = (const void *)h;

		s->lost_recs++;
		s->lost_samples += r->lost_samples;
		s->lost_weight += r->lost_weight_ns;
		s->lost_records += r->lost_records;
		break;
	}
	case TPROF_REC_THREAD: {
		const struct tprof_rec_thread *r = (const void *)h;
		struct thr *t;

		if (r->pid != s->pid) {
			s->bad++;
			return;
		}
		t = thr_get(s, r->tid);
		t->nthread++;
		if (h->flags & TPROF_RF_THREAD_EXISTING)
			t->nexisting++;
		break;
	}
	case TPROF_REC_THREAD_EXIT:
	case TPROF_REC_THREAD_STAT: {
		const struct tprof_rec_thread_stat *r = (const void *)h;
		struct thr *t;

		if (r->pid != s->pid) {
			s->bad++;
			return;
		}
		t = thr_get(s, r->tid);
		if (h->type == TPROF_REC_THREAD_EXIT) {
			t->nexit++;
			if (h->time_ns > s->max_exit_time)
				s->max_exit_time = h->time_ns;
		} else {
			t->nstat++;
		}
		t->st = *r;
		break;
	}
	case TPROF_REC_EXEC: {
		const struct tprof_rec_exec *r = (const void *)h;

		if (r->pid != s->pid)
			s->bad++;
		if (s->nexec < 4)
			s->exec[s->nexec] = *r;
		s->nexec++;
		break;
	}
	case TPROF_REC_PROC_EXIT: {
		const struct tprof_rec_proc_exit *r = (const void *)h;

		if (r->pid != s->pid)
			s->bad++;
		s->nproc_exit++;
		s->exit_code = r->exit_code;
		s->proc_exit_time = h->time_ns;
		break;
	}
	case TPROF_REC_MMAP: {
		const struct tprof_rec_mmap *r = (const void *)h;

		if (r->pid != s->pid || h->size != sizeof(*r) ||
		    r->end <= r->start || r->prot != TPROF_MMAP_EXEC)
			s->bad++;
		if (s->nmmap < 16)
			s->mmap[s->nmmap] = *r;
		s->nmmap++;
		break;
	}
	case TPROF_REC_DENIED: {
		const struct tprof_rec_denied *r = (const void *)h;

		if (r->pid != s->pid || h->size != sizeof(*r))
			s->bad++;
		s->ndenied++;
		s->denied_reason = r->reason;
		s->denied_time = h->time_ns;
		break;
	}
	case TPROF_REC_THREAD_OFF:
		/* off-CPU accounting (TPROF_F_OFF_CPU; case 54 checks it) */
		if (h->size != sizeof(struct tprof_rec_thread_off) ||
		    ((const struct tprof_rec_thread_off *)h)->pid != s->pid)
			s->bad++;
		break;
	case TPROF_REC_THROTTLE:
		/* the sampling budget stretched the periods (case 56) */
		if (h->size != sizeof(struct tprof_rec_throttle))
			s->bad++;
		break;
	case TPROF_REC_WAKER: {
		/* who ended an off-CPU sample's wait (case 68 checks whom) */
		const struct tprof_rec_waker *w = (const void *)h;

		if (h->size != sizeof(*w) || w->pid != s->pid ||
		    !(h->flags & TPROF_RF_GROUP) ||
		    ((h->flags & TPROF_RF_WAKER_WAKEUP) &&
		     (!w->seq || !w->waker_tid)) ||
		    w->kind < TPROF_WAKER_TASK || w->kind > TPROF_WAKER_SOFTIRQ ||
		    w->waker_comm[sizeof(w->waker_comm) - 1] ||
		    (!w->waker_tid && (w->waker_pid || w->waker_comm[0])) ||
		    (w->waker_tid && !w->waker_comm[0]))
			s->bad++;
		if (h->flags & TPROF_RF_WAKER_WAKEUP) {
			add_key(&s->wk_up, &s->n_up, &s->cap_up, w);
			break;
		}
		if (w->seq)
			add_key(&s->wk_in, &s->n_in, &s->cap_in, w);
		s->wakers++;
		break;
	}
	default:
		s->bad++;
	}
}

/*
 * @h is a UWALK; @prev the record before it in the same read(), @smp the
 * SAMPLE of the group being read, or NULL.
 */
static void parse_uwalk(struct sum *s, const struct tprof_rec_hdr *h,
			const struct tprof_rec_hdr *prev,
			const struct tprof_rec_hdr *smp)
{
	const struct tprof_rec_uwalk *w = (const void *)h;
	const struct tprof_rec_sample *r = (const void *)smp;

	if (h->size < sizeof(*w) || w->__pad || w->status > TPROF_UWALK_TRUNCATED ||
	    w->nr_tail > w->nr_frames ||
	    (h->flags & TPROF_RF_GROUP) ||
	    h->size != sizeof(*w) + 8ULL * w->nr_frames * w->words_per_frame) {
		s->bad++;
		return;
	}
	/* the last of its group: after the SAMPLE, or its USTACK */
	if (!prev || !smp || !(prev->flags & TPROF_RF_GROUP) ||
	    (prev->type != TPROF_REC_SAMPLE && prev->type != TPROF_REC_USTACK) ||
	    r->tid != w->tid || smp->time_ns != h->time_ns) {
		s->bad_groups++;
		return;
	}
	s->uwalks++;
	s->uwalk_frames += w->nr_frames;
	if (s->on_uwalk)
		s->on_uwalk(s, r, w, (const u64 *)(w + 1));
}

/* Is @h where the group of @prev may go on (read() never splits one)? */
static bool group_next_ok(const struct tprof_rec_hdr *prev,
			  const struct tprof_rec_hdr *h)
{
	/* a WAKER at a wakeup: the SAMPLE of the waker's stack */
	if (prev->type == TPROF_REC_WAKER &&
	    (prev->flags & TPROF_RF_WAKER_WAKEUP))
		return h->type == TPROF_REC_SAMPLE &&
		       (h->flags & TPROF_RF_WAKE_STACK) &&
		       h->time_ns == prev->time_ns &&
		       ((const struct tprof_rec_sample *)h)->tid ==
		       ((const struct tprof_rec_waker *)prev)->waker_tid;
	/* a WAKER: the off-CPU SAMPLE of its thread, at its time */
	if (prev->type == TPROF_REC_WAKER)
		return h->type == TPROF_REC_SAMPLE &&
		       (h->flags & TPROF_RF_OFF_CPU) &&
		       h->time_ns == prev->time_ns &&
		       ((const struct tprof_rec_sample *)h)->tid ==
		       ((const struct tprof_rec_waker *)prev)->tid;
	if (prev->type == TPROF_REC_SAMPLE)
		return h->type == TPROF_REC_USTACK || h->type == TPROF_REC_UWALK;
	if (prev->type == TPROF_REC_USTACK)
		return h->type == TPROF_REC_UWALK;
	return false;
}

void parse(struct sum *s, const char *buf, size_t len)
{
	const struct tprof_rec_hdr *prev = NULL, *smp = NULL;
	bool walked = false;
	size_t off = 0;

	s->bytes += len;
	while (off < len) {
		const struct tprof_rec_hdr *h = (const void *)(buf + off);

		if (len - off < sizeof(*h) || h->size < sizeof(*h) ||
		    h->size % 8 || h->size > len - off) {
			s->bad++;
			return;
		}
		if (prev && (prev->flags & TPROF_RF_GROUP) &&
		    !group_next_ok(prev, h))
			s->bad_groups++;
		if (h->type == TPROF_REC_SAMPLE) {
			smp = h;
			walked = false;
		}
		if (h->type == TPROF_REC_USTACK) {
			parse_ustack(s, h, prev);
		} else if (h->type == TPROF_REC_UWALK) {
			parse_uwalk(s, h, prev, smp);
			walked = true;
		} else {
			parse_one(s, h);
		}
		if (smp && !(h->flags & TPROF_RF_GROUP)) {
			if (s->on_group)
				s->on_group(s, (const void *)smp, walked);
			smp = NULL;
		}
		prev = h;
		off += h->size;
	}
	if (prev && (prev->flags & TPROF_RF_GROUP))
		s->bad_groups++;
}

static char rbuf[1 << 20] __attribute__((aligned(8)));

/* Reads what is there. Return: 1 at EOF, 0 when drained, -errno. */
int drain(int fd, struct sum *s)
{
	for (;;) {
		ssize_t n = read(fd, rbuf, sizeof(rbuf));

		if (n > 0) {
			parse(s, rbuf, n);
			continue;
		}
		if (n == 0) {
			s->eof = true;
			return 1;
		}
		if (errno == EAGAIN)
			return 0;
		if (errno == EINTR)
			continue;
		return -errno;
	}
}

bool read_to_eof(int fd, struct sum *s, int timeout_ms)
{
	u64 end = now_ns() + timeout_ms * 1000000ULL;

	while (now_ns() < end) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		int r = drain(fd, s);

		if (r == 1)
			return true;
		if (r < 0) {
			note("read: %s", strerror(-r));
			return false;
		}
		poll(&p, 1, 100);
	}
	return false;
}

static int g_go_r = -1, g_rep_w = -1;

void spawn(struct child *c, void (*fn)(void *), void *arg)
{
	int go[2], rep[2];

	if (pipe(go) || pipe(rep))
		die("pipe");
	fflush(stdout);
	c->len = 0;
	c->pid = fork();
	if (c->pid < 0)
		die("fork");
	if (!c->pid) {
		close(go[1]);
		close(rep[0]);
		g_go_r = go[0];
		g_rep_w = rep[1];
		prctl_death();
		fn(arg);
		_exit(0);
	}
	close(go[0]);
	close(rep[1]);
	c->go_w = go[1];
	c->rep_r = rep[0];
	fcntl(c->rep_r, F_SETFL, O_NONBLOCK);
}

void child_go(struct child *c)
{
	if (write(c->go_w, "g", 1) != 1)
		die("write go");
}

void child_wait_go(void)
{
	char b;

	if (read(g_go_r, &b, 1) != 1)
		_exit(99);
}

/* In the child: the fd its reports go to (for an exec'd image to use). */
int child_report_fd(void)
{
	return g_rep_w;
}

void child_report(const char *fmt, ...)
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

static void report_line(struct report *r, char *line)
{
	int tid, role;
	unsigned long long cpu, x0, x1;

	if (sscanf(line, "T %d %d %llu", &tid, &role, &cpu) == 3) {
		if (r->n < 4096) {
			r->e[r->n].tid = tid;
			r->e[r->n].role = role;
			r->e[r->n].cpu = cpu;
			r->n++;
		}
	} else if (sscanf(line, "R %d %d", &tid, &role) == 2) {
		if (r->ready < 4096) {
			r->rtid[r->ready] = tid;
			r->rrole[r->ready] = role;
		}
		r->ready++;
	} else if (sscanf(line, "S %llu", &cpu) == 1) {
		r->dead_cpu = cpu;
		r->has_dead_cpu = true;
	} else if (sscanf(line, "X %llx %llx", &x0, &x1) == 2) {
		r->x_start = x0;
		r->x_end = x1;
		r->has_x = true;
	} else if (line[0] == 'D') {
		r->done = true;
	}
}

/*
 * Reads report lines until @want_ready "R" lines and (if @want_done) "D"
 * arrived, draining @fd into @s meanwhile (if @s).
 */
bool collect(struct child *c, struct report *r, int want_ready, bool want_done,
	     int timeout_ms, int fd, struct sum *s)
{
	u64 end = now_ns() + timeout_ms * 1000000ULL;

	while (r->ready < want_ready || (want_done && !r->done)) {
		struct pollfd p[2] = {
			{ .fd = c->rep_r, .events = POLLIN },
			{ .fd = fd, .events = POLLIN },
		};
		ssize_t n;
		char *nl;

		if (now_ns() > end)
			return false;
		if (s && drain(fd, s) < 0)
			return false;
		n = read(c->rep_r, c->buf + c->len, sizeof(c->buf) - 1 - c->len);
		if (n > 0)
			c->len += n;
		else if (n == 0)
			return false;	/* child gone */
		c->buf[c->len] = 0;
		while ((nl = strchr(c->buf, '\n'))) {
			size_t used = nl + 1 - c->buf;

			*nl = 0;
			report_line(r, c->buf);
			memmove(c->buf, nl + 1, c->len - used + 1);
			c->len -= used;
		}
		if (r->ready >= want_ready && (!want_done || r->done))
			break;
		poll(p, s ? 2 : 1, 100);
	}
	return true;
}

/* Lets the child exit and reaps it. Return: its wait status. */
int child_finish(struct child *c)
{
	int status = -1;

	if (write(c->go_w, "x", 1) != 1)
		kill(c->pid, SIGKILL);
	close(c->go_w);
	if (waitpid(c->pid, &status, 0) != c->pid)
		status = -1;
	close(c->rep_r);
	return status;
}

/*
 * Starts @prog [@arg] with its stdin and stdout on pipes, and reads its
 * first line: up to five hex values (tests/kmod/stacktarget.c).
 */
bool target_start(struct target *t, const char *prog, const char *arg)
{
	int in[2], out[2];
	char line[256] = "";

	memset(t, 0, sizeof(*t));
	if (pipe(in) || pipe(out))
		die("pipe");
	fflush(stdout);
	t->pid = fork();
	if (t->pid < 0)
		die("fork");
	if (!t->pid) {
		dup2(in[0], 0);
		dup2(out[1], 1);
		prctl_death();
		execl(prog, prog, arg, (char *)NULL);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	t->go_w = in[1];
	t->out = fdopen(out[0], "r");
	if (t->out && fgets(line, sizeof(line), t->out) &&
	    sscanf(line, "%llx %llx %llx %llx %llx",
		   (unsigned long long *)&t->v[0], (unsigned long long *)&t->v[1],
		   (unsigned long long *)&t->v[2], (unsigned long long *)&t->v[3],
		   (unsigned long long *)&t->v[4]) >= 3)
		return true;
	kill(t->pid, SIGKILL);
	target_finish(t);
	return false;
}

void target_go(struct target *t)
{
	if (write(t->go_w, "g", 1) != 1)
		die("target go");
}

/* Waits for it. Return: its wait status. */
int target_finish(struct target *t)
{
	int status = -1;

	waitpid(t->pid, &status, 0);
	if (t->out)
		fclose(t->out);
	close(t->go_w);
	t->out = NULL;
	return status;
}
