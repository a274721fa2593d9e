// SPDX-License-Identifier: GPL-2.0
/*
 * ktest: user-memory walks (TPROF_IOC_SET_UWALK, TPROF_REC_UWALK). The
 * truth is the target's own memory: tests/kmod/uwalktarget.c builds known
 * chains in each thread's memory and prints, per thread, the words a walk
 * must record (and where it must stop, by the thread's kind). Every SAMPLE
 * with user context of the target must carry exactly one UWALK record, last
 * in its group, with exactly those words, while a walk is set; none before,
 * after its removal, or after an exec. STATS must count what the records
 * show.
 *
 * A sample's time is stamped before its walk runs, and a vCPU may stall in
 * between: a sample stamped up to DELAY before a change may have walked
 * with the old or the new descriptor (either is accepted); one stamped
 * after the change's ioctl returned must have the new one, give or take
 * SKEW: the sample's clock is read on its CPU, the ioctl's on another.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ktest.h"

#define MAXT		16	/* target threads */
#define WPF		6	/* words per frame: 4 fields, 2 code words */
#define DELAY		(200 * MS)
#define SKEW		(20 * MS)
#define NOTES		8	/* mismatches shown */

struct ulay {
	long long tls_off;
	u64 guard_off, top_off, f1, f2, f4, fcode, next, gslot, mask, f4far;
	u64 w1far;
	int code0, code1;
};

struct uthr {
	int tid;
	char kind[16];
	u32 n;			/* frames printed */
	u64 state;
	u64 (*w)[WPF];
	u64 checked;		/* walks that matched */
	u64 offcpu;		/* ... of off-CPU samples */
};

struct utgt {
	pid_t pid;
	int go_w;
	FILE *out;
	struct ulay L;
	struct uthr t[MAXT];
	int nt;
	int t0;			/* the thread gslot points at (ok, idx 0) */
	u64 secret;		/* "secret": the secret frame's address */
	int secret_err;		/* its pread of /proc/self/mem's errno */
	bool secret_line;
};

enum { M_NONE, M_TP, M_ADDR, M_TID };

/* What samples stamped in [lo - DELAY, hi + SKEW) may have (see the top). */
struct win {
	u64 lo, hi;
	int mode;
	u32 cap;		/* frames a record may carry */
};

struct uchk {
	struct utgt *u;
	struct win win[16];
	int nwin;
	const struct tprof_rec_uwalk *last;	/* this group's, or NULL */
	u64 need;		/* user samples that must have a walk */
	u64 none;		/* ... that must have none */
	u64 good;		/* judged right */
	u64 wrong;		/* judged wrong */
	u64 kernel_walks;	/* a walk on a sample without user context */
	u64 by_status[TPROF_UWALK_TRUNCATED + 1];
	u64 exec_ns;		/* the EXEC record's time, or 0 */
	u64 after_exec;		/* user samples stamped after it */
	int bench_depth;	/* t_uwalk_bench: walks of that many frames */
	u64 bench_full;
	int notes;
};

static void note_wrong(struct uchk *k, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void note_wrong(struct uchk *k, const char *fmt, ...)
{
	va_list ap;

	k->wrong++;
	if (k->notes++ >= NOTES)
		return;
	va_start(ap, fmt);
	printf("# ");
	vprintf(fmt, ap);
	printf("\n");
	va_end(ap);
}

/* ------------------------------------------------------------------ */
/* The target                                                          */

static struct uthr *uthr_find(struct utgt *u, int tid)
{
	int i;

	for (i = 0; i < u->nt; i++)
		if (u->t[i].tid == tid)
			return &u->t[i];
	return NULL;
}

static bool ut_line(struct utgt *u, char *line)
{
	struct ulay *L = &u->L;
	struct uthr *t;
	unsigned long long v[WPF];
	int tid, i;

	if (line[0] == 'L')
		return sscanf(line, "L %lld %llu %llu %llu %llu %llu %llu %llu %d %d %llx %llx %llu %llu",
			      &L->tls_off, (unsigned long long *)&L->guard_off,
			      (unsigned long long *)&L->top_off,
			      (unsigned long long *)&L->f1,
			      (unsigned long long *)&L->f2,
			      (unsigned long long *)&L->f4,
			      (unsigned long long *)&L->fcode,
			      (unsigned long long *)&L->next, &L->code0,
			      &L->code1, (unsigned long long *)&L->gslot,
			      (unsigned long long *)&L->mask,
			      (unsigned long long *)&L->f4far,
			      (unsigned long long *)&L->w1far) == 14;
	if (line[0] == 'T') {
		if (u->nt == MAXT)
			return false;
		t = &u->t[u->nt++];
		memset(t, 0, sizeof(*t));
		if (sscanf(line, "T %d %15s %u %llx", &t->tid, t->kind, &t->n,
			   (unsigned long long *)&t->state) != 4)
			return false;
		t->w = calloc(t->n + 1, sizeof(*t->w));
		t->n = 0;	/* counts W lines */
		return t->w != NULL;
	}
	if (line[0] == 'S') {
		u->secret_line = true;
		return sscanf(line, "S %llx %d",
			      (unsigned long long *)&u->secret,
			      &u->secret_err) == 2;
	}
	if (line[0] == 'W') {
		if (sscanf(line, "W %d %llx %llx %llx %llx %llx %llx", &tid,
			   &v[0], &v[1], &v[2], &v[3], &v[4], &v[5]) != 7)
			return false;
		t = uthr_find(u, tid);
		if (!t)
			return false;
		for (i = 0; i < WPF; i++)
			t->w[t->n][i] = v[i];
		t->n++;
		if (!strcmp(t->kind, "ok") && v[1] == 0xa000)
			u->t0 = t - u->t;
		return true;
	}
	return true;
}

/* Starts @prog [@a1 [@a2]] and reads its layout up to "ready". */
static bool ut_start(struct utgt *u, const char *prog, const char *a1,
		     const char *a2)
{
	int in[2], out[2];
	char line[512];

	memset(u, 0, sizeof(*u));
	u->t0 = -1;
	if (pipe(in) || pipe(out))
		die("pipe");
	fflush(stdout);
	u->pid = fork();
	if (u->pid < 0)
		die("fork");
	if (!u->pid) {
		dup2(in[0], 0);
		dup2(out[1], 1);
		close(in[1]);
		close(out[0]);
		prctl_death();
		execl(prog, prog, a1, a2, (char *)NULL);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	u->go_w = in[1];
	u->out = fdopen(out[0], "r");
	while (u->out && fgets(line, sizeof(line), u->out)) {
		if (!strncmp(line, "ready", 5))
			return u->t0 >= 0 || a1;
		if (!ut_line(u, line))
			break;
	}
	note("uwalktarget: bad output");
	kill(u->pid, SIGKILL);
	return false;
}

static void ut_cmd(struct utgt *u, char c)
{
	if (write(u->go_w, &c, 1) != 1)
		die("uwalktarget command");
}

static int ut_finish(struct utgt *u)
{
	int status = -1, i;

	close(u->go_w);
	waitpid(u->pid, &status, 0);
	if (u->out)
		fclose(u->out);
	for (i = 0; i < u->nt; i++)
		free(u->t[i].w);
	return status;
}

/* ------------------------------------------------------------------ */
/* Descriptors                                                         */

static void desc_tp(struct tprof_ioc_uwalk *d, const struct utgt *u)
{
	const struct ulay *L = &u->L;

	memset(d, 0, sizeof(*d));
	d->size = sizeof(*d);
	d->pid = u->pid;
	d->start = TPROF_UWALK_START_TP;
	d->flags = TPROF_UWALK_F_GUARD_TP;
	d->start_addr = L->tls_off;
	d->guard_off = L->guard_off;
	d->nr_steps = 1;
	d->steps[0] = L->top_off;
	d->next_off = L->next;
	d->nr_fields = 4;
	d->fields[0] = (struct tprof_uwalk_field){ L->f1, 1 };
	d->fields[1] = (struct tprof_uwalk_field){ L->f2, 2 };
	d->fields[2] = (struct tprof_uwalk_field){ L->f4, 4 };
	d->fields[3] = (struct tprof_uwalk_field){ L->fcode, 8 };
	d->code_field = 3;
	d->nr_code_offs = 2;
	d->code_offs[0] = L->code0;
	d->code_offs[1] = L->code1;
	d->code_mask = L->mask;
}

/*
 * The global slot, no guard; f4 and the code's w1 from their far copies
 * (one read per field, per code word).
 */
static void desc_addr(struct tprof_ioc_uwalk *d, const struct utgt *u)
{
	desc_tp(d, u);
	d->start = TPROF_UWALK_START_ADDR;
	d->flags = 0;
	d->guard_off = 0;
	d->start_addr = u->L.gslot;
	d->fields[2].off = u->L.f4far;
	d->code_offs[1] = u->L.w1far;
}

static void desc_tid(struct tprof_ioc_uwalk *d, const struct utgt *u)
{
	desc_tp(d, u);
	d->start = TPROF_UWALK_START_TID;
	d->start_addr = 0;
}

static int set_uwalk(int fd, struct tprof_ioc_uwalk *d)
{
	return ioctl(fd, TPROF_IOC_SET_UWALK, d) ? -errno : 0;
}

static int set_uwalk_tid(int fd, int pid, int tid, u64 addr)
{
	struct tprof_ioc_uwalk_tid ut = { .pid = pid, .tid = tid, .addr = addr };

	return ioctl(fd, TPROF_IOC_SET_UWALK_TID, &ut) ? -errno : 0;
}

static int remove_uwalk(int fd, pid_t pid)
{
	struct tprof_ioc_uwalk d = { .size = sizeof(d), .pid = pid };

	return set_uwalk(fd, &d);
}

/* TID mode: threads with a state but nostart's (and main) get addresses. */
static bool tid_registered(const struct uthr *t)
{
	return strcmp(t->kind, "nostart") && strcmp(t->kind, "main");
}

/* ------------------------------------------------------------------ */
/* What a walk of thread @t must record                                */

struct uexp {
	u32 status;
	u32 n;
	u64 start;
	const struct uthr *words;	/* whose frames, frame i = w[i % n] */
};

static void expect(const struct utgt *u, const struct uthr *t, int mode,
		   u32 cap, struct uexp *e)
{
	u32 avail = 0, end = TPROF_UWALK_OK;

	memset(e, 0, sizeof(*e));
	e->words = t;
	e->start = t->state;
	if (mode == M_ADDR) {
		t = e->words = &u->t[u->t0];
		e->start = t->state;
	} else if (mode == M_TID && !tid_registered(t)) {
		e->status = TPROF_UWALK_NO_START;
		e->start = 0;
		return;
	}
	if (!strcmp(t->kind, "guard")) {
		e->status = TPROF_UWALK_GUARD;
		return;
	}
	if (!strcmp(t->kind, "nostart") || !strcmp(t->kind, "main")) {
		e->status = TPROF_UWALK_NO_START;
		e->start = 0;
		return;
	}
	if (!strcmp(t->kind, "cycle")) {
		avail = ~0U;
	} else if (!strcmp(t->kind, "fault")) {
		avail = t->n;
		end = TPROF_UWALK_FAULT;
	} else {
		avail = t->n;
	}
	/* a FAULT chain's next is not 0: at the cap it is cut there */
	if (avail > cap || (end == TPROF_UWALK_FAULT && avail == cap)) {
		e->status = TPROF_UWALK_TRUNCATED;
		e->n = cap;
	} else {
		e->status = end;
		e->n = avail;
	}
}

static bool walk_matches(const struct tprof_rec_uwalk *w, const u64 *words,
			 const struct uexp *e)
{
	u32 i, j;

	if (w->status != e->status || w->nr_frames != e->n ||
	    w->start != e->start || w->words_per_frame != WPF)
		return false;
	for (i = 0; i < e->n; i++)
		for (j = 0; j < WPF; j++)
			if (words[i * WPF + j] != e->words->w[i % e->words->n][j])
				return false;
	return true;
}

/* ------------------------------------------------------------------ */
/* Judging each sample group                                           */

static void on_uwalk(struct sum *s, const struct tprof_rec_sample *r,
		     const struct tprof_rec_uwalk *w, const u64 *words)
{
	struct uchk *k = s->priv;

	(void)r;
	(void)words;
	k->last = w;
	if (w->status <= TPROF_UWALK_TRUNCATED)
		k->by_status[w->status]++;
	if (k->bench_depth && w->status == TPROF_UWALK_OK &&
	    w->nr_frames == (u32)k->bench_depth)
		k->bench_full++;
}

/* The windows a time @T may fall in (see on_group()). */
static int win_first(const struct uchk *k, u64 T)
{
	int i;

	for (i = 0; i < k->nwin - 1; i++)
		if (T + DELAY >= k->win[i].lo && T < k->win[i].hi + SKEW)
			break;
	return i;
}

static int win_last(const struct uchk *k, u64 T)
{
	int i;

	for (i = k->nwin - 1; i > 0; i--)
		if (T + DELAY >= k->win[i].lo && T < k->win[i].hi + SKEW)
			break;
	return i;
}

static void on_group(struct sum *s, const struct tprof_rec_sample *r,
		     bool walked)
{
	struct uchk *k = s->priv;
	const struct tprof_rec_uwalk *w = walked ? k->last : NULL;
	u64 T = r->hdr.time_ns;
	bool want_none = false, want_walk = false, ok = false;
	struct uthr *t;
	struct uexp e;
	int i;

	k->last = NULL;
	if (!k->u)	/* counting only */
		return;
	t = uthr_find(k->u, r->tid);
	if (r->nr_user && k->exec_ns && T > k->exec_ns)
		k->after_exec++;
	if (!r->nr_user) {
		if (walked)
			k->kernel_walks++;
		return;
	}
	for (i = 0; i < k->nwin; i++) {
		const struct win *x = &k->win[i];

		if (T + DELAY < x->lo || T >= x->hi + SKEW)
			continue;
		if (x->mode == M_NONE) {
			want_none = true;
			ok |= !w;
			continue;
		}
		want_walk = true;
		if (!w || !t)
			continue;
		expect(k->u, t, x->mode, x->cap, &e);
		if (walk_matches(w, (const u64 *)(w + 1), &e)) {
			ok = true;
			t->checked++;
			if (r->hdr.flags & TPROF_RF_OFF_CPU)
				t->offcpu++;
		}
	}
	if (want_walk && !want_none)
		k->need++;
	if (want_none && !want_walk)
		k->none++;
	if (ok) {
		k->good++;
		return;
	}
	if (!w)
		note_wrong(k, "tid %u (%s) at %llu: no UWALK (flags %x, user %u, kernel %u, cpu %u; windows %d..%d: %llu..%llu)",
			   r->tid, t ? t->kind : "?", (unsigned long long)T,
			   r->hdr.flags, r->nr_user, r->nr_kernel, r->cpu,
			   win_first(k, T), win_last(k, T),
			   (unsigned long long)k->win[win_first(k, T)].lo,
			   (unsigned long long)k->win[win_last(k, T)].hi);
	else
		note_wrong(k, "tid %u (%s) at %llu: status %u frames %u start %llx w0 %llx",
			   r->tid, t ? t->kind : "?", (unsigned long long)T,
			   w->status, w->nr_frames,
			   (unsigned long long)w->start,
			   (unsigned long long)(w->nr_frames ?
						((const u64 *)(w + 1))[0] : 0));
}

/* Every read() kept whole, to be judged once the windows are known. */
struct stream {
	char *buf;
	size_t len, cap;
	bool eof;
};

/*
 * Read what the device has, until it has nothing now (0), EOF (1) or an
 * error (-errno), or @end (now_ns(), 0: none) passed (0). Without @end a
 * reader slower than the samples never returns: on the debug kernel the
 * spread walks' session of 61 read for 444 s of its 1.5 s window.
 */
static int stream_drain(int fd, struct stream *st, u64 end)
{
	for (;;) {
		ssize_t n;

		if (end && now_ns() >= end)
			return 0;

		if (st->cap - st->len < (1 << 20)) {
			st->cap = st->cap ? 2 * st->cap : 8 << 20;
			st->buf = realloc(st->buf, st->cap);
			if (!st->buf)
				die("realloc");
		}
		n = read(fd, st->buf + st->len, st->cap - st->len);
		if (n > 0) {
			st->len += n;
			continue;
		}
		if (!n) {
			st->eof = true;
			return 1;
		}
		if (errno == EINTR)
			continue;
		return errno == EAGAIN ? 0 : -errno;
	}
}

static void stream_for(int fd, struct stream *st, u64 ns)
{
	u64 end = now_ns() + ns;

	while (now_ns() < end && stream_drain(fd, st, end) == 0)
		poll(&(struct pollfd){ .fd = fd, .events = POLLIN }, 1, 20);
}

static bool stream_eof(int fd, struct stream *st, int timeout_ms)
{
	u64 end = now_ns() + timeout_ms * MS;

	while (now_ns() < end) {
		if (stream_drain(fd, st, 0))
			return st->eof;
		poll(&(struct pollfd){ .fd = fd, .events = POLLIN }, 1, 50);
	}
	return false;
}

/* A window starting at the change made between @lo and @hi (ioctl). */
static void win_open(struct uchk *k, u64 lo, int mode, u32 cap)
{
	if (k->nwin)
		k->win[k->nwin - 1].hi = now_ns();	/* the change is done */
	k->win[k->nwin++] = (struct win){ lo, ~0ULL >> 1, mode, cap };
}

static u32 cap_of(u32 max_frames, u32 max_bytes)
{
	u32 by_bytes = (max_bytes ? max_bytes : TPROF_UWALK_DEFAULT_BYTES) /
		       (WPF * 8);

	if (!max_frames)
		max_frames = TPROF_UWALK_DEFAULT_FRAMES;
	return max_frames < by_bytes ? max_frames : by_bytes;
}

/* The change's ioctl: 0 expected; a window for what it set. */
static void change(struct uchk *k, int fd, struct tprof_ioc_uwalk *d,
		   int mode, const char *what)
{
	u64 lo = now_ns();
	int ret = d ? set_uwalk(fd, d) : remove_uwalk(fd, k->u->pid);

	ok(ret == 0, "uwalk: %s: %s", what, strerror(-ret));
	win_open(k, lo, d ? mode : M_NONE,
		 d ? cap_of(d->max_frames, d->max_bytes) : 0);
}

/* ------------------------------------------------------------------ */
/* The tests                                                           */

static int enable_uwalk(int fd, pid_t pid, u32 flags, int mem_fd,
			int auxv_fd)
{
	bool root = geteuid() == 0;

	struct tprof_ioc_enable e = {
		.size = sizeof(e),
		.flags = flags,
		.pid = pid,
		.period_ns = 1 * MS,
		/* unprivileged: the default, within the memlock limit */
		.ring_bytes = root ? 4 << 20 : 0,
		.mem_fd = mem_fd,
		.auxv_fd = auxv_fd,
		.snapshot_bytes = flags & TPROF_F_USER_SNAPSHOT ? 64 : 0,
		.off_cpu_period_ns = flags & TPROF_F_OFF_CPU ? 2 * MS : 0,
	};

	return enable_raw(fd, &e);
}

static struct uthr *kind_thread(struct utgt *u, const char *kind)
{
	int i;

	for (i = 0; i < u->nt; i++)
		if (!strcmp(u->t[i].kind, kind))
			return &u->t[i];
	return NULL;
}

/*
 * The whole life of one walk in one session: TP with the defaults, then
 * max_frames 5, max_bytes of two frames, ADDR, TID, removal, TP again,
 * exec. Snapshots, path timing and off-CPU samples on.
 */
int t_uwalk(const char *prog)
{
	static const char *const kinds[] = {
		"ok", "sleep", "guard", "nostart", "fault", "cycle", "self",
	};
	struct tprof_ioc_stats st, st1;
	struct tprof_ioc_uwalk d;
	struct stream sm = { 0 };
	struct uchk k = { 0 };
	struct utgt u;
	struct sum s;
	u64 exec_at;
	unsigned char v1[sizeof(st)];
	int fd, ret, i;

	if (!ut_start(&u, prog, NULL, NULL))
		return 1;
	k.u = &u;
	fd = dev_open();
	ret = enable_uwalk(fd, u.pid, TPROF_F_USER_SNAPSHOT |
			   TPROF_F_PATH_TIMING | TPROF_F_OFF_CPU, 0, 0);
	ok(ret == 0, "uwalk: enable: %s", strerror(-ret));
	if (ret)
		goto out;
	win_open(&k, 0, M_NONE, 0);
	stream_for(fd, &sm, 200 * MS);

	desc_tp(&d, &u);
	change(&k, fd, &d, M_TP, "SET_UWALK TP");
	stream_for(fd, &sm, 1200 * MS);
	d.max_frames = 5;
	change(&k, fd, &d, M_TP, "SET_UWALK TP max_frames 5 (a replacement)");
	stream_for(fd, &sm, 500 * MS);
	d.max_frames = 0;
	d.max_bytes = 2 * WPF * 8 + 8;
	change(&k, fd, &d, M_TP, "SET_UWALK TP max_bytes of two frames");
	stream_for(fd, &sm, 500 * MS);
	desc_addr(&d, &u);
	change(&k, fd, &d, M_ADDR, "SET_UWALK ADDR");
	stream_for(fd, &sm, 500 * MS);
	for (i = 0; i < u.nt; i++) {
		if (!tid_registered(&u.t[i]))
			continue;
		ret = set_uwalk_tid(fd, u.pid, u.t[i].tid, u.t[i].state);
		if (ret)
			ok(0, "uwalk: SET_UWALK_TID %d: %s", u.t[i].tid,
			   strerror(-ret));
	}
	desc_tid(&d, &u);
	change(&k, fd, &d, M_TID, "SET_UWALK TID");
	stream_for(fd, &sm, 800 * MS);
	change(&k, fd, NULL, M_NONE, "SET_UWALK start 0 removes it");
	stream_for(fd, &sm, 500 * MS);
	desc_tp(&d, &u);
	change(&k, fd, &d, M_TP, "SET_UWALK TP again");
	stream_for(fd, &sm, 500 * MS);
	/* exec: no walk from the EXEC record on */
	exec_at = now_ns();
	ut_cmd(&u, 'x');
	win_open(&k, exec_at, M_NONE, 0);
	ok(stream_eof(fd, &sm, 30000), "uwalk: the exec'd image ran to its end");

	/* first the EXEC record's time: the window before it ends there */
	sum_init(&s, u.pid);
	parse(&s, sm.buf, sm.len);
	ok(s.nexec == 1, "uwalk: one EXEC record (%d)", s.nexec);
	if (s.nexec == 1) {
		k.exec_ns = s.exec[0].hdr.time_ns;
		k.win[k.nwin - 2].hi = k.exec_ns;
	}
	sum_free(&s);
	sum_init(&s, u.pid);
	s.priv = &k;
	s.on_uwalk = on_uwalk;
	s.on_group = on_group;
	parse(&s, sm.buf, sm.len);
	note("uwalk: %llu samples, %llu UWALK records (%llu frames), %llu lost; judged %llu right, %llu wrong; %llu had to walk, %llu had not to; by status ok %llu nostart %llu guard %llu fstart %llu fault %llu trunc %llu",
	     (unsigned long long)s.samples, (unsigned long long)s.uwalks,
	     (unsigned long long)s.uwalk_frames,
	     (unsigned long long)s.lost_samples, (unsigned long long)k.good,
	     (unsigned long long)k.wrong, (unsigned long long)k.need,
	     (unsigned long long)k.none,
	     (unsigned long long)k.by_status[0], (unsigned long long)k.by_status[1],
	     (unsigned long long)k.by_status[2], (unsigned long long)k.by_status[3],
	     (unsigned long long)k.by_status[4], (unsigned long long)k.by_status[5]);
	ok(k.after_exec > 0, "uwalk: after the exec, %llu user samples, no walk (judged above)",
	   (unsigned long long)k.after_exec);
	ok(!s.bad && !s.bad_groups,
	   "uwalk: records well formed, every UWALK last in its group (bad %llu, bad groups %llu)",
	   (unsigned long long)s.bad, (unsigned long long)s.bad_groups);
	ok(!k.wrong && k.need >= 100 && k.none >= 20,
	   "uwalk: every user sample had exactly the walk its window says (%llu wrong; %llu had to walk, %llu had not to)",
	   (unsigned long long)k.wrong, (unsigned long long)k.need,
	   (unsigned long long)k.none);
	ok(!k.kernel_walks, "uwalk: no walk on a sample without user context (%llu)",
	   (unsigned long long)k.kernel_walks);
	for (i = 0; i < (int)(sizeof(kinds) / sizeof(kinds[0])); i++) {
		struct uthr *t = kind_thread(&u, kinds[i]);

		ok(t && t->checked > 0, "uwalk: thread of kind %s: %llu walks with its own words",
		   kinds[i], (unsigned long long)(t ? t->checked : 0));
	}
	ok(k.by_status[TPROF_UWALK_OK] && k.by_status[TPROF_UWALK_NO_START] &&
	   k.by_status[TPROF_UWALK_GUARD] && k.by_status[TPROF_UWALK_FAULT] &&
	   k.by_status[TPROF_UWALK_TRUNCATED],
	   "uwalk: statuses OK, NO_START, GUARD, FAULT and TRUNCATED all seen");
	ok(kind_thread(&u, "sleep") && kind_thread(&u, "sleep")->offcpu > 0,
	   "uwalk: off-CPU samples of the sleeping thread carry its walk (%llu)",
	   (unsigned long long)(kind_thread(&u, "sleep") ?
				kind_thread(&u, "sleep")->offcpu : 0));

	/* STATS against the records (none lost: the rings are big) */
	ret = get_stats(fd, &st);
	ok(ret == 0, "uwalk: STATS");
	ok(s.lost_samples == 0 && st.lost_samples == 0,
	   "uwalk: nothing lost (%llu)", (unsigned long long)st.lost_samples);
	ok(st.uwalks == s.uwalks && st.uwalk_frames == s.uwalk_frames,
	   "uwalk: STATS uwalks %llu == UWALK records %llu, uwalk_frames %llu == their frames %llu",
	   (unsigned long long)st.uwalks, (unsigned long long)s.uwalks,
	   (unsigned long long)st.uwalk_frames,
	   (unsigned long long)s.uwalk_frames);
	ok(st.uwalk_faults == k.by_status[TPROF_UWALK_FAULT] +
	   k.by_status[TPROF_UWALK_FAULT_START] &&
	   st.uwalk_truncated == k.by_status[TPROF_UWALK_TRUNCATED],
	   "uwalk: STATS uwalk_faults %llu, uwalk_truncated %llu as the records say",
	   (unsigned long long)st.uwalk_faults,
	   (unsigned long long)st.uwalk_truncated);
	ok(st.uwalk_path_ns > 0 && st.uwalk_path_ns <= st.sample_path_ns,
	   "uwalk: PATH_TIMING: 0 < uwalk_path_ns %llu <= sample_path_ns %llu",
	   (unsigned long long)st.uwalk_path_ns,
	   (unsigned long long)st.sample_path_ns);
	/* STATS_V1: the old size, nothing past it */
	memset(v1, 0xa5, sizeof(v1));
	ret = ioctl(fd, TPROF_IOC_STATS_V1, v1) ? -errno : 0;
	memset(&st1, 0xa5, sizeof(st1));
	memcpy(&st1, v1, TPROF_SIZEOF_IOC_STATS_V1);
	ok(ret == 0 && !memcmp(&st1, &st, TPROF_SIZEOF_IOC_STATS_V1) &&
	   v1[TPROF_SIZEOF_IOC_STATS_V1] == 0xa5 &&
	   v1[sizeof(v1) - 1] == 0xa5,
	   "uwalk: STATS_V1 answers its %d bytes, the same as STATS's (%s)",
	   TPROF_SIZEOF_IOC_STATS_V1, strerror(-ret));
	/* STATS_V3: the size before the waker counters, nothing past it */
	memset(v1, 0xa5, sizeof(v1));
	ret = ioctl(fd, TPROF_IOC_STATS_V3, v1) ? -errno : 0;
	ok(ret == 0 && !memcmp(v1, &st, TPROF_SIZEOF_IOC_STATS_V3) &&
	   v1[TPROF_SIZEOF_IOC_STATS_V3] == 0xa5 &&
	   v1[sizeof(v1) - 1] == 0xa5,
	   "uwalk: STATS_V3 answers its %d bytes, the same as STATS's (%s)",
	   TPROF_SIZEOF_IOC_STATS_V3, strerror(-ret));
	/* an off-CPU session: its WAKER records, as STATS counts them */
	ok(st.waker_records == s.wakers && st.wakers >= st.waker_records &&
	   !st.wakers_dropped,
	   "uwalk: STATS waker_records %llu == WAKER records %llu, of %llu wakers kept, %llu dropped",
	   (unsigned long long)st.waker_records,
	   (unsigned long long)s.wakers, (unsigned long long)st.wakers,
	   (unsigned long long)st.wakers_dropped);
	sum_free(&s);
out:
	free(sm.buf);
	close(fd);
	ut_finish(&u);
	return failures;
}

/*
 * Who may: root (privileged) always; an unprivileged caller with the
 * /proc/PID/mem proof (TPROF_F_MEM_PROOF), not with auxv's.
 */
int t_uwalk_perm(const char *prog)
{
	bool root = geteuid() == 0;
	struct tprof_ioc_uwalk d;
	struct stream sm = { 0 };
	struct uchk k = { 0 };
	struct utgt u;
	struct sum s;
	char path[64];
	int fd, pfd, ret, want = root ? 0 : -EPERM;

	if (!ut_start(&u, prog, NULL, NULL))
		return 1;
	k.u = &u;
	snprintf(path, sizeof(path), "/proc/%d/auxv", u.pid);
	pfd = open(path, O_RDONLY);
	fd = dev_open();
	ret = enable_uwalk(fd, u.pid, TPROF_F_AUXV_PROOF, 0, pfd);
	ok(ret == 0, "uwalk-perm: enable with the auxv proof: %s",
	   strerror(-ret));
	desc_tp(&d, &u);
	ret = set_uwalk(fd, &d);
	ok(ret == want, "uwalk-perm: %s, auxv proof: SET_UWALK %s (%s)",
	   root ? "root" : "unprivileged", root ? "allowed" : "EPERM",
	   strerror(-ret));
	ret = set_uwalk_tid(fd, u.pid, u.t[0].tid, u.t[0].state);
	ok(ret == want, "uwalk-perm: auxv proof: SET_UWALK_TID %s (%s)",
	   root ? "allowed" : "EPERM", strerror(-ret));
	close(fd);
	close(pfd);

	snprintf(path, sizeof(path), "/proc/%d/mem", u.pid);
	pfd = open(path, O_RDONLY);
	ok(pfd >= 0, "uwalk-perm: open %s", path);
	fd = dev_open();
	ret = enable_uwalk(fd, u.pid, TPROF_F_MEM_PROOF, pfd, 0);
	ok(ret == 0, "uwalk-perm: enable with the mem proof: %s",
	   strerror(-ret));
	win_open(&k, 0, M_NONE, 0);
	change(&k, fd, &d, M_TP, "mem proof: SET_UWALK allowed");
	stream_for(fd, &sm, 800 * MS);
	disable(fd);
	stream_eof(fd, &sm, 10000);
	sum_init(&s, u.pid);
	s.priv = &k;
	s.on_uwalk = on_uwalk;
	s.on_group = on_group;
	parse(&s, sm.buf, sm.len);
	ok(!k.wrong && k.need >= 20 && !s.bad && !s.bad_groups,
	   "uwalk-perm: mem proof: the walks hold the threads' words (%llu right, %llu wrong, bad groups %llu)",
	   (unsigned long long)k.good, (unsigned long long)k.wrong,
	   (unsigned long long)s.bad_groups);
	sum_free(&s);
	free(sm.buf);
	close(fd);
	close(pfd);
	ut_cmd(&u, 'q');
	ut_finish(&u);
	return failures;
}

/* SET_UWALK with a larger struct: @extra bytes after it. */
struct uwalk_big {
	struct tprof_ioc_uwalk d;
	u64 extra;
};

static int set_bad(int fd, const struct utgt *u,
		   void (*mut)(struct tprof_ioc_uwalk *d))
{
	struct tprof_ioc_uwalk d;

	desc_tp(&d, u);
	mut(&d);
	return set_uwalk(fd, &d);
}

#define MUT(name, stmt) \
	static void name(struct tprof_ioc_uwalk *d) { stmt; }
MUT(m_start, d->start = 4)
MUT(m_start_big, d->start = 0x80000001U)
MUT(m_flags, d->flags |= 2)
MUT(m_guard_off, d->flags = 0)
MUT(m_tid_addr, d->start = TPROF_UWALK_START_TID)
MUT(m_addr0, (d->start = TPROF_UWALK_START_ADDR, d->flags = 0,
	      d->guard_off = 0, d->start_addr = 0))
MUT(m_addr_kernel, (d->start = TPROF_UWALK_START_ADDR, d->flags = 0,
		    d->guard_off = 0, d->start_addr = (long long)0xffff880000000000ULL))
MUT(m_steps, d->nr_steps = TPROF_UWALK_MAX_STEPS + 1)
MUT(m_step_tail, d->steps[2] = 8)
MUT(m_fields0, d->nr_fields = 0)
MUT(m_fields_big, d->nr_fields = TPROF_UWALK_MAX_FIELDS + 1)
MUT(m_len0, d->fields[0].len = 0)
MUT(m_len3, d->fields[1].len = 3)
MUT(m_len16, d->fields[2].len = 16)
MUT(m_field_tail, (d->nr_fields = 3, d->code_field = 2))
MUT(m_code_field, d->code_field = 4)
MUT(m_code_offs0, d->nr_code_offs = 0)
MUT(m_code_offs_big, d->nr_code_offs = TPROF_UWALK_MAX_CODE_OFFS + 1)
MUT(m_nocode_offs, d->code_field = TPROF_UWALK_NO_CODE)
MUT(m_nocode_mask, (d->code_field = TPROF_UWALK_NO_CODE,
		    d->nr_code_offs = 0, d->code_offs[0] = 0,
		    d->code_offs[1] = 0))
MUT(m_code_tail, (d->nr_code_offs = 1))
MUT(m_frames, d->max_frames = TPROF_UWALK_MAX_FRAMES + 1)
MUT(m_bytes, d->max_bytes = TPROF_UWALK_MAX_BYTES + 1)
MUT(m_bytes_small, d->max_bytes = WPF * 8 - 8)
MUT(m_reserved, d->__reserved = 1)
MUT(m_tail_noskip, d->tail_frames = 4)
MUT(m_skip_notail, d->tail_skip = 100)
MUT(m_tail_big, (d->tail_frames = TPROF_UWALK_MAX_TAIL + 1,
		 d->tail_skip = 100))
MUT(m_skip_big, (d->tail_frames = 4,
		 d->tail_skip = TPROF_UWALK_MAX_SKIP + 1))
MUT(m_tail_room, (d->max_frames = 8, d->tail_frames = 8,
		  d->tail_skip = 100))
MUT(m_pid0, d->pid = 0)
MUT(m_size_small, d->size = sizeof(*d) - 8)
MUT(m_size_huge, d->size = 1 << 20)

/*
 * -EINVAL for each bad field, -ESRCH, and what is accepted (a larger
 * struct with a zero tail, removal, TID addresses). Also run as the
 * 32-bit client: compat_ioctl.
 */
int t_uwalk_errors(const char *prog)
{
	static const struct {
		const char *what;
		void (*mut)(struct tprof_ioc_uwalk *d);
	} bad[] = {
		{ "start 4", m_start }, { "start 0x80000001", m_start_big },
		{ "unknown flag", m_flags },
		{ "guard_off without GUARD_TP", m_guard_off },
		{ "TID with start_addr", m_tid_addr },
		{ "ADDR 0", m_addr0 }, { "ADDR in the kernel", m_addr_kernel },
		{ "nr_steps past the max", m_steps },
		{ "a step past nr_steps", m_step_tail },
		{ "nr_fields 0", m_fields0 },
		{ "nr_fields past the max", m_fields_big },
		{ "field len 0", m_len0 }, { "field len 3", m_len3 },
		{ "field len 16", m_len16 },
		{ "a field past nr_fields", m_field_tail },
		{ "code_field past nr_fields", m_code_field },
		{ "code_field without code_offs", m_code_offs0 },
		{ "nr_code_offs past the max", m_code_offs_big },
		{ "NO_CODE with code_offs", m_nocode_offs },
		{ "NO_CODE with code_mask", m_nocode_mask },
		{ "a code_off past nr_code_offs", m_code_tail },
		{ "max_frames past the max", m_frames },
		{ "max_bytes past the max", m_bytes },
		{ "max_bytes under a frame", m_bytes_small },
		{ "__reserved", m_reserved },
		{ "tail_frames without tail_skip", m_tail_noskip },
		{ "tail_skip without tail_frames", m_skip_notail },
		{ "tail_frames past the max", m_tail_big },
		{ "tail_skip past the max", m_skip_big },
		{ "tail_frames leaving no head", m_tail_room },
		{ "pid 0", m_pid0 },
		{ "size too small", m_size_small },
		{ "size past a page", m_size_huge },
	};
	struct tprof_ioc_uwalk d;
	struct uwalk_big big;
	struct utgt u;
	unsigned int i;
	int fd, ret;

	if (!ut_start(&u, prog, NULL, NULL))
		return 1;
	fd = dev_open();
	desc_tp(&d, &u);
	ret = set_uwalk(fd, &d);
	ok(ret == -EINVAL, "uwalk-errors: no session: EINVAL (%s)",
	   strerror(-ret));
	ret = set_uwalk_tid(fd, u.pid, u.t[0].tid, u.t[0].state);
	ok(ret == -EINVAL, "uwalk-errors: no session: SET_UWALK_TID EINVAL (%s)",
	   strerror(-ret));
	ret = enable_uwalk(fd, u.pid, 0, 0, 0);
	ok(ret == 0, "uwalk-errors: enable: %s", strerror(-ret));
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ret = set_bad(fd, &u, bad[i].mut);
		ok(ret == -EINVAL, "uwalk-errors: %s: EINVAL (%s)", bad[i].what,
		   strerror(-ret));
	}
	memset(&big, 0, sizeof(big));
	desc_tp(&big.d, &u);
	big.d.size = sizeof(big);
	ret = set_uwalk(fd, &big.d);
	ok(ret == 0, "uwalk-errors: a larger struct, zero past it: accepted (%s)",
	   strerror(-ret));
	big.extra = 1;
	ret = set_uwalk(fd, &big.d);
	ok(ret == -EINVAL, "uwalk-errors: a larger struct, nonzero past it: EINVAL (%s)",
	   strerror(-ret));
	/* -ESRCH: not a process of the session; no such thread of it */
	desc_tp(&d, &u);
	d.pid = getpid();
	ret = set_uwalk(fd, &d);
	ok(ret == -ESRCH, "uwalk-errors: a process not followed: ESRCH (%s)",
	   strerror(-ret));
	d.pid = 0x3ffffff0;
	ret = set_uwalk(fd, &d);
	ok(ret == -ESRCH, "uwalk-errors: no such process: ESRCH (%s)",
	   strerror(-ret));
	ret = set_uwalk_tid(fd, u.pid, gettid_(), 0x1000);
	ok(ret == -ESRCH, "uwalk-errors: SET_UWALK_TID, a thread of another process: ESRCH (%s)",
	   strerror(-ret));
	ret = set_uwalk_tid(fd, getpid(), u.t[0].tid, 0x1000);
	ok(ret == -ESRCH, "uwalk-errors: SET_UWALK_TID, pid not the thread's: ESRCH (%s)",
	   strerror(-ret));
	ret = set_uwalk_tid(fd, u.pid, 0x3ffffff0, 0x1000);
	ok(ret == -ESRCH, "uwalk-errors: SET_UWALK_TID, no such thread: ESRCH (%s)",
	   strerror(-ret));
	ret = set_uwalk_tid(fd, u.pid, u.t[0].tid, 1ULL << 63);
	ok(ret == -EINVAL, "uwalk-errors: SET_UWALK_TID, a kernel address: EINVAL (%s)",
	   strerror(-ret));
	ret = set_uwalk_tid(fd, 0, u.t[0].tid, 0x1000);
	ok(ret == -EINVAL, "uwalk-errors: SET_UWALK_TID, pid 0: EINVAL (%s)",
	   strerror(-ret));
	/* what is right is accepted */
	desc_tp(&d, &u);
	ret = set_uwalk(fd, &d);
	ok(ret == 0, "uwalk-errors: TP: accepted (%s)", strerror(-ret));
	desc_addr(&d, &u);
	d.code_field = TPROF_UWALK_NO_CODE;
	d.nr_code_offs = 0;
	d.code_offs[0] = d.code_offs[1] = 0;
	d.code_mask = 0;
	d.max_frames = TPROF_UWALK_MAX_FRAMES;
	d.max_bytes = TPROF_UWALK_MAX_BYTES;
	ret = set_uwalk(fd, &d);
	ok(ret == 0, "uwalk-errors: ADDR, no code, the max limits: accepted (%s)",
	   strerror(-ret));
	ret = set_uwalk_tid(fd, u.pid, u.t[0].tid, u.t[0].state);
	ok(ret == 0, "uwalk-errors: SET_UWALK_TID: accepted (%s)", strerror(-ret));
	ret = set_uwalk_tid(fd, u.pid, u.t[0].tid, 0);
	ok(ret == 0, "uwalk-errors: SET_UWALK_TID 0: accepted (%s)", strerror(-ret));
	ret = remove_uwalk(fd, u.pid);
	ok(ret == 0, "uwalk-errors: removal: accepted (%s)", strerror(-ret));
	ret = remove_uwalk(fd, u.pid);
	ok(ret == 0, "uwalk-errors: removal of none: accepted (%s)",
	   strerror(-ret));
	disable(fd);
	desc_tp(&d, &u);
	ret = set_uwalk(fd, &d);
	ok(ret == -EINVAL, "uwalk-errors: a stopped session: EINVAL (%s)",
	   strerror(-ret));
	close(fd);
	ut_cmd(&u, 'q');
	ut_finish(&u);
	return failures;
}

/*
 * uwalk-tail (issue 33: a recursion deeper than the cap keeps its
 * outermost callers): four threads with chains of N frames, walked with
 * max_frames 64, tail_frames 8: every walk of an "ok" thread must carry
 * exactly the words the target printed:
 *   N 1000, tail_skip 4096: frames 0-55, then 992-999 (nr_tail 8),
 *	TRUNCATED; its reads a sample at most one a frame of the chain and
 *	two a frame recorded, and a fault-free walk;
 *   N 1000, tail_skip 500: the end not found: frames 0-55, TRUNCATED,
 *	no tail;
 *   N 64: the chain ends within the head and tail: all 64, OK, no tail;
 *   N 65: one frame left out: frames 0-55 and 57-64 (nr_tail 8).
 */
struct tail_chk {
	struct utgt *u;
	u32 n, head, tail, status;	/* the chain; what each walk must be */
	u64 walks, good, bad;
};

static void on_tail_uwalk(struct sum *s, const struct tprof_rec_sample *r,
			  const struct tprof_rec_uwalk *w, const u64 *words)
{
	struct tail_chk *c = s->priv;
	const struct uthr *t = uthr_find(c->u, r->tid);
	bool good;
	u32 i, j, f;

	if (!t || strcmp(t->kind, "ok") || !r->nr_user)
		return;
	c->walks++;
	good = w->status == c->status && w->nr_tail == c->tail &&
	       w->nr_frames == c->head + c->tail &&
	       w->words_per_frame == WPF && t->n == c->n;
	for (i = 0; good && i < w->nr_frames; i++) {
		/* the tail: the chain's last frames */
		f = i < c->head ? i : c->n - c->tail + (i - c->head);
		for (j = 0; j < WPF; j++)
			good &= words[i * WPF + j] == t->w[f][j];
	}
	if (good) {
		c->good++;
		return;
	}
	if (c->bad++ < NOTES)
		printf("# uwalk-tail N=%u: tid %u: status %u frames %u tail %u (want %u, %u, %u)\n",
		       c->n, r->tid, w->status, w->nr_frames, w->nr_tail,
		       c->status, c->head + c->tail, c->tail);
}

static void tail_run(const char *prog, u32 n, u32 skip, u32 head, u32 tail,
		     u32 status)
{
	struct tail_chk c = { .n = n, .head = head, .tail = tail,
			      .status = status };
	struct tprof_ioc_stats st;
	struct tprof_ioc_uwalk d;
	struct stream sm = { 0 };
	char arg[16];
	struct utgt u;
	struct sum s;
	int fd, ret;

	snprintf(arg, sizeof(arg), "%u", n);
	if (!ut_start(&u, prog, "chain", arg)) {
		ok(false, "uwalk-tail N=%u: uwalktarget chain", n);
		return;
	}
	c.u = &u;
	fd = dev_open();
	ret = enable_uwalk(fd, u.pid, 0, 0, 0);
	desc_tp(&d, &u);
	d.max_frames = 64;
	d.max_bytes = TPROF_UWALK_MAX_BYTES;
	d.tail_frames = 8;
	d.tail_skip = skip;
	if (!ret)
		ret = set_uwalk(fd, &d);
	ok(ret == 0, "uwalk-tail N=%u skip %u: session and walk (%s)", n,
	   skip, strerror(-ret));
	stream_for(fd, &sm, 800 * MS);
	get_stats(fd, &st);
	disable(fd);
	stream_eof(fd, &sm, 10000);
	sum_init(&s, u.pid);
	s.priv = &c;
	s.on_uwalk = on_tail_uwalk;
	parse(&s, sm.buf, sm.len);
	ok(c.walks >= 20 && c.good == c.walks,
	   "uwalk-tail N=%u skip %u: %llu of %llu walks are frames 0-%u%s, status %u, nr_tail %u",
	   n, skip, (unsigned long long)c.good, (unsigned long long)c.walks,
	   head - 1, tail ? " and the chain's last 8" : "", status, tail);
	if (tail && skip >= n) {
		/* a next pointer a frame past the head, two reads a frame
		 * recorded (span, code), the start's few */
		ok(st.uread_max_reads <= n + 2 * (head + tail) + 8 &&
		   !st.uread_faults,
		   "uwalk-tail N=%u: at most %u reads a sample (%llu), no fault (%llu)",
		   n, n + 2 * (head + tail) + 8,
		   (unsigned long long)st.uread_max_reads,
		   (unsigned long long)st.uread_faults);
	}
	sum_free(&s);
	free(sm.buf);
	close(fd);
	ut_cmd(&u, 'q');
	ut_finish(&u);
}

int t_uwalk_tail(const char *prog)
{
	tail_run(prog, 1000, TPROF_UWALK_MAX_SKIP, 56, 8,
		 TPROF_UWALK_TRUNCATED);
	tail_run(prog, 1000, 500, 56, 0, TPROF_UWALK_TRUNCATED);
	tail_run(prog, 64, TPROF_UWALK_MAX_SKIP, 64, 0, TPROF_UWALK_OK);
	tail_run(prog, 65, TPROF_UWALK_MAX_SKIP, 56, 8,
		 TPROF_UWALK_TRUNCATED);
	return failures;
}

/*
 * The walk's cost: sample_path_ns / sample_path_calls of four threads
 * spinning with chains of 10 and 100 frames, and with no walk set.
 */
int t_uwalk_bench(const char *prog)
{
	static const int depths[] = { 0, 10, 100 };
	unsigned int i;

	for (i = 0; i < sizeof(depths) / sizeof(depths[0]); i++) {
		struct tprof_ioc_stats st;
		struct tprof_ioc_uwalk d;
		struct stream sm = { 0 };
		struct uchk k;
		char arg[16];
		struct utgt u;
		struct sum s;
		int fd, ret;

		snprintf(arg, sizeof(arg), "%d", depths[i] ? depths[i] : 10);
		if (!ut_start(&u, prog, "chain", arg))
			return 1;
		fd = dev_open();
		ret = enable_uwalk(fd, u.pid, TPROF_F_PATH_TIMING, 0, 0);
		if (!ret && depths[i]) {
			desc_tp(&d, &u);
			d.max_frames = TPROF_UWALK_MAX_FRAMES;
			d.max_bytes = TPROF_UWALK_MAX_BYTES;
			ret = set_uwalk(fd, &d);
		}
		ok(ret == 0, "uwalk-bench: depth %d: session (%s)", depths[i],
		   strerror(-ret));
		stream_for(fd, &sm, 3000 * MS);
		get_stats(fd, &st);
		disable(fd);
		stream_eof(fd, &sm, 10000);
		memset(&k, 0, sizeof(k));
		k.bench_depth = depths[i];
		sum_init(&s, u.pid);
		s.priv = &k;
		s.on_uwalk = on_uwalk;
		s.on_group = on_group;
		parse(&s, sm.buf, sm.len);
		/* the main thread's few samples have no start */
		ok(depths[i] ? k.bench_full > 0 &&
		   k.bench_full * 100 >= s.uwalks * 95 : !s.uwalks,
		   "uwalk-bench: depth %d: %llu of %llu walks had all %d frames",
		   depths[i], (unsigned long long)k.bench_full,
		   (unsigned long long)s.uwalks, depths[i]);
		printf("# uwalk-bench depth=%d samples=%llu path_ns_per_sample=%.0f uwalk_ns_per_walk=%.0f\n",
		       depths[i], (unsigned long long)st.sample_path_calls,
		       st.sample_path_calls ?
		       (double)st.sample_path_ns / st.sample_path_calls : 0.0,
		       st.uwalks ? (double)st.uwalk_path_ns / st.uwalks : 0.0);
		sum_free(&s);
		free(sm.buf);
		close(fd);
		ut_cmd(&u, 'q');
		ut_finish(&u);
	}
	return failures;
}

/* ------------------------------------------------------------------ */
/*
 * uwalk-bound (issue 32 item 1): the user reads and faults of one sample
 * are bounded whatever the descriptor. The target's threads (a cycle of
 * two frames whose code objects take turns among them) walk under:
 *   legit: desc_tp (fields and code words in one span each);
 *   spread: the same chain read field by field and code word by code
 *	word (f4 and w1 from their far copies): the most reads a walk of
 *	these frames can make without a fault;
 *   codefault: code words 1 GiB past the code object: every code read
 *	faults (the review's 2-frame cycle: 256 frames, 768 faults a walk);
 * all with max_frames 256, with snapshots and the red zone for the
 * spread and codefault ones. STATS (uread_*) count each sample's reads
 * and failed reads exactly: at most TPROF_UREAD_MAX_FAULTS failed reads a
 * sample, at most one fault a walk, and the spread walk at most 8x the
 * reads of the legit one (reads per frame: up to 7 against about 1).
 */
struct bound_run {
	struct tprof_ioc_stats st;
	struct uchk k;
	u64 uwalks;
	int ret;
};

static void bound_session(const char *prog, const char *name, int how,
			  struct bound_run *b)
{
	u32 flags = TPROF_F_PATH_TIMING;
	struct tprof_ioc_uwalk d;
	struct stream sm = { 0 };
	struct utgt u;
	struct sum s;
	int fd;

	memset(b, 0, sizeof(*b));
	if (how)
		flags |= TPROF_F_USER_SNAPSHOT | TPROF_F_SNAPSHOT_BELOW;
	if (!ut_start(&u, prog, NULL, NULL)) {
		b->ret = -EIO;
		return;
	}
	fd = dev_open();
	b->ret = enable_uwalk(fd, u.pid, flags, 0, 0);
	desc_tp(&d, &u);
	d.max_frames = TPROF_UWALK_MAX_FRAMES;
	d.max_bytes = TPROF_UWALK_MAX_BYTES;
	if (how == 1) {
		d.fields[2].off = u.L.f4far;
		d.code_offs[1] = u.L.w1far;
	} else if (how == 2) {
		d.code_offs[0] = 1 << 30;
		d.code_offs[1] = (1 << 30) + 8;
	}
	if (!b->ret)
		b->ret = set_uwalk(fd, &d);
	ok(b->ret == 0, "uwalk-bound %s: session and walk (%s)", name,
	   strerror(-b->ret));
	stream_for(fd, &sm, 1500 * MS);
	if (get_stats(fd, &b->st))
		b->ret = -errno;
	ok(!b->ret, "uwalk-bound %s: STATS with the uread_* counters (%s)",
	   name, strerror(-b->ret));
	disable(fd);
	stream_eof(fd, &sm, 10000);
	b->k.u = &u;
	sum_init(&s, u.pid);
	s.priv = &b->k;
	s.on_uwalk = on_uwalk;
	parse(&s, sm.buf, sm.len);
	b->uwalks = s.uwalks;
	printf("# uwalk-bound %s: samples %llu, uwalks %llu, uwalk_faults %llu; uread: samples %llu reads %llu faults %llu page_checks %llu capped %llu, per sample at most %llu reads and %llu faults; path %.0f ns a sample\n",
	       name, (unsigned long long)b->st.samples,
	       (unsigned long long)b->st.uwalks,
	       (unsigned long long)b->st.uwalk_faults,
	       (unsigned long long)b->st.uread_samples,
	       (unsigned long long)b->st.uread_reads,
	       (unsigned long long)b->st.uread_faults,
	       (unsigned long long)b->st.uread_page_checks,
	       (unsigned long long)b->st.uread_capped,
	       (unsigned long long)b->st.uread_max_reads,
	       (unsigned long long)b->st.uread_max_faults,
	       b->st.sample_path_calls ?
	       (double)b->st.sample_path_ns / b->st.sample_path_calls : 0.0);
	ok(b->st.uread_max_faults <= TPROF_UREAD_MAX_FAULTS,
	   "uwalk-bound %s: at most %d failed reads a sample (%llu)", name,
	   TPROF_UREAD_MAX_FAULTS,
	   (unsigned long long)b->st.uread_max_faults);
	ok(b->st.uwalk_faults <= b->st.uwalks &&
	   b->st.uread_faults >= b->st.uwalk_faults,
	   "uwalk-bound %s: at most one fault a walk (%llu in %llu walks), each in uread_faults (%llu)",
	   name, (unsigned long long)b->st.uwalk_faults,
	   (unsigned long long)b->st.uwalks,
	   (unsigned long long)b->st.uread_faults);
	sum_free(&s);
	free(sm.buf);
	close(fd);
	ut_cmd(&u, 'q');
	ut_finish(&u);
}

int t_uwalk_bound(const char *prog)
{
	struct bound_run legit, spread, cf;

	bound_session(prog, "legit", 0, &legit);
	bound_session(prog, "spread", 1, &spread);
	bound_session(prog, "codefault", 2, &cf);
	if (legit.ret || spread.ret || cf.ret)
		return failures;
	ok(legit.st.uread_samples > 0 && legit.st.uread_max_reads >= 256,
	   "uwalk-bound: premise: the legit walk of the cycle reads each of its 256 frames (%llu reads at most a sample)",
	   (unsigned long long)legit.st.uread_max_reads);
	/*
	 * Reads: a frame's words in one span when they lie close (legit,
	 * about 1 a frame), one read each when spread (each field, code
	 * word and the next pointer: 7 at most).
	 */
	ok(spread.st.uread_max_reads <= 8 * legit.st.uread_max_reads,
	   "uwalk-bound: the spread walk reads at most 8x the legit one's (%llu against %llu a sample)",
	   (unsigned long long)spread.st.uread_max_reads,
	   (unsigned long long)legit.st.uread_max_reads);
	/*
	 * Their time is make bench's to give, on an exact guest: under
	 * plain TCG the host's load moves it more than the walks differ.
	 */
	note("uwalk-bound: sample path %llu ns (spread) against %llu (legit)",
	     (unsigned long long)(spread.st.sample_path_calls ?
	     spread.st.sample_path_ns / spread.st.sample_path_calls : 0),
	     (unsigned long long)(legit.st.sample_path_calls ?
	     legit.st.sample_path_ns / legit.st.sample_path_calls : 0));
	ok(cf.k.by_status[TPROF_UWALK_FAULT] > 0 &&
	   cf.st.uwalk_frames == 0,
	   "uwalk-bound codefault: the first code word that faults ends the walk before its frame (%llu FAULT walks, %llu frames)",
	   (unsigned long long)cf.k.by_status[TPROF_UWALK_FAULT],
	   (unsigned long long)cf.st.uwalk_frames);
	ok(cf.st.uread_max_reads <= legit.st.uread_max_reads,
	   "uwalk-bound codefault: reads no more than the legit walk (%llu against %llu a sample)",
	   (unsigned long long)cf.st.uread_max_reads,
	   (unsigned long long)legit.st.uread_max_reads);
	return failures;
}

/* ------------------------------------------------------------------ */
/*
 * uwalk-secret (issue 32 item 3): the fault thread's third frame lies in
 * memfd_secret(2) memory, which /proc/PID/mem refuses (EIO): its walks
 * end FAULT after two frames, and no UWALK word holds the secret's word.
 * The ok threads' walks are the control.
 */
#define SECRET_WORD	0x5ec2e75ec2e75ec2ULL

struct secret_chk {
	u64 hits, walks, faults, okwalks;
};

static void on_secret_uwalk(struct sum *s, const struct tprof_rec_sample *r,
			    const struct tprof_rec_uwalk *w, const u64 *words)
{
	struct secret_chk *c = s->priv;
	u32 i;

	(void)r;
	c->walks++;
	c->faults += w->status == TPROF_UWALK_FAULT;
	c->okwalks += w->status == TPROF_UWALK_OK && w->nr_frames > 0;
	for (i = 0; i < w->nr_frames * w->words_per_frame; i++)
		c->hits += words[i] == SECRET_WORD;
}

int t_uwalk_secret(const char *prog)
{
	struct secret_chk c = { 0 };
	struct tprof_ioc_uwalk d;
	struct stream sm = { 0 };
	struct utgt u;
	struct sum s;
	int fd, ret;

	if (!ut_start(&u, prog, "secret", NULL))
		return failures + 1;
	if (!u.secret) {
		printf("skip - uwalk-secret: no memfd_secret here (%s)\n",
		       strerror(u.secret_err));
		ut_cmd(&u, 'q');
		ut_finish(&u);
		return failures;
	}
	ok(u.secret_err == EIO,
	   "uwalk-secret: premise: /proc/PID/mem refuses the secret page (%s)",
	   strerror(u.secret_err));
	fd = dev_open();
	ret = enable_uwalk(fd, u.pid, 0, 0, 0);
	desc_tp(&d, &u);
	if (!ret)
		ret = set_uwalk(fd, &d);
	ok(ret == 0, "uwalk-secret: session and walk (%s)", strerror(-ret));
	stream_for(fd, &sm, 1500 * MS);
	disable(fd);
	stream_eof(fd, &sm, 10000);
	sum_init(&s, u.pid);
	s.priv = &c;
	s.on_uwalk = on_secret_uwalk;
	parse(&s, sm.buf, sm.len);
	ok(c.okwalks > 0 && c.faults > 0,
	   "uwalk-secret: premise: walks ran (%llu, %llu OK with frames, %llu FAULT)",
	   (unsigned long long)c.walks, (unsigned long long)c.okwalks,
	   (unsigned long long)c.faults);
	ok(c.hits == 0,
	   "uwalk-secret: no UWALK word holds the secret frame's word (%llu)",
	   (unsigned long long)c.hits);
	sum_free(&s);
	free(sm.buf);
	close(fd);
	ut_cmd(&u, 'q');
	ut_finish(&u);
	return failures;
}
