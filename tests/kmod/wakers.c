// SPDX-License-Identifier: GPL-2.0
/*
 * Wakers' stacks (TPROF_F_WAKER_STACKS, issue 35), as the module writes
 * them: a child's producer thread writes a pipe that its consumer thread
 * reads, each byte after a 2 ms sleep, so each of the consumer's reads is
 * a wait of about 2 ms (ten off-CPU periods) that the producer ends. The
 * stream must hold, for the waits that were sampled, a WAKER record at the
 * wakeup (TPROF_RF_WAKER_WAKEUP) and the producer's stack (a SAMPLE with
 * TPROF_RF_WAKE_STACK, read in the producer's own context: its chain goes
 * through the producer's thread function, its snapshot holds the return
 * address into producer_write(), the function that called write(2)); the
 * consumer's off-CPU WAKER records repeat their numbers. Truth is the
 * child's own: its tids and its functions' addresses.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ktest.h"

#define ROUNDS		300
#define NAP_US		2000
#define OFF_PERIOD	(200 * US)

static int pfd[2];

/* the release site: the consumer's waker calls write(2) from here */
static __attribute__((noinline)) void producer_write(void)
{
	if (write(pfd[1], "x", 1) != 1)
		die("write");
	__asm__ volatile("" ::: "memory");
}

static int rep_w = -1;

static void *producer(void *arg)
{
	struct timespec ts = { 0, NAP_US * 1000 };
	pid_t t = gettid_();
	int i;

	(void)arg;
	if (write(rep_w, &t, sizeof(t)) != sizeof(t))
		die("write");
	for (i = 0; i < ROUNDS; i++) {
		nanosleep(&ts, NULL);
		producer_write();
	}
	__asm__ volatile("" ::: "memory");
	return NULL;
}

static void *consumer(void *arg)
{
	char c;
	int i;

	(void)arg;
	for (i = 0; i < ROUNDS; i++)
		if (read(pfd[0], &c, 1) != 1)
			die("read");
	return NULL;
}

/* The child: waits for @go, runs; its producer tells its tid on @rep. */
static void child(int go, int rep)
{
	pthread_t p, c;
	char x;

	prctl_death();
	rep_w = rep;
	if (pipe(pfd) || read(go, &x, 1) != 1)
		_exit(1);
	pthread_create(&c, NULL, consumer, NULL);
	pthread_create(&p, NULL, producer, NULL);
	pthread_join(p, NULL);
	pthread_join(c, NULL);
	_exit(0);
}

/* Is @ip in the first @len bytes of function @fn? */
static bool in_fn(u64 ip, void *fn, u64 len)
{
	return ip > (u64)(uintptr_t)fn && ip < (u64)(uintptr_t)fn + len;
}

struct wk_seen {
	u32 producer;
	u64 stacks, by_producer, through_producer, snap_site;
};

static void on_wake_stack(struct sum *s, const struct tprof_rec_sample *r,
			  const u64 *ips)
{
	struct wk_seen *w = s->priv;
	u32 i;

	w->stacks++;
	if (r->tid != w->producer)
		return;
	w->by_producer++;
	for (i = 0; i < r->nr_user; i++)
		if (in_fn(ips[i], producer, 256)) {
			w->through_producer++;
			break;
		}
}

/* the snapshot of a waker's stack: the return into producer_write() */
static void on_ustack(struct sum *s, const struct tprof_rec_sample *r,
		      const u64 *ips, const struct tprof_rec_ustack *u,
		      const unsigned char *stack)
{
	struct wk_seen *w = s->priv;
	u32 i, n = u->stack_bytes < 256 ? u->stack_bytes : 256;
	u64 word;

	(void)ips;
	if (!(r->hdr.flags & TPROF_RF_WAKE_STACK) || r->tid != w->producer)
		return;
	for (i = 0; i + 8 <= n; i += 8) {
		memcpy(&word, stack + i, 8);
		if (in_fn(word, producer_write, 64)) {
			w->snap_site++;
			return;
		}
	}
}

static int cmp_key(const void *a, const void *b)
{
	const struct wait_key *x = a, *y = b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

int t_waker_stacks(void)
{
	struct tprof_ioc_enable e = {
		.size = sizeof(e),
		.flags = TPROF_F_OFF_CPU | TPROF_F_NO_CPU_SAMPLES |
			 TPROF_F_WAKER_STACKS | TPROF_F_USER_SNAPSHOT,
		.off_cpu_period_ns = OFF_PERIOD,
		.snapshot_bytes = 1024,
		.ring_bytes = 1 << 21,
	};
	struct tprof_ioc_stats st;
	struct wk_seen w = { 0 };
	u64 joined = 0, up_joined = 0;
	int go[2], rep[2], fd, ret, status;
	struct sum s;
	pid_t pid;
	size_t i;

	fd = dev_open();
	e.flags = TPROF_F_WAKER_STACKS;
	e.pid = getpid();
	ok(enable_raw(fd, &e) == -EINVAL,
	   "waker-stacks: TPROF_F_WAKER_STACKS without TPROF_F_OFF_CPU is EINVAL");
	close(fd);
	e.flags = TPROF_F_OFF_CPU | TPROF_F_NO_CPU_SAMPLES |
		  TPROF_F_WAKER_STACKS | TPROF_F_USER_SNAPSHOT;

	if (pipe(go) || pipe(rep))
		die("pipe");
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		die("fork");
	if (!pid)
		child(go[0], rep[1]);
	fd = dev_open();
	e.pid = pid;
	ret = enable_raw(fd, &e);
	ok(!ret, "waker-stacks: ENABLE off-CPU with waker stacks (%s)",
	   strerror(-ret));
	if (ret) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		return failures;
	}
	sum_init(&s, pid);
	s.priv = &w;
	s.on_wake_stack = on_wake_stack;
	s.on_ustack = on_ustack;
	if (write(go[1], "x", 1) != 1 ||
	    read(rep[0], &w.producer, sizeof(w.producer)) != sizeof(w.producer))
		die("child");
	ok(read_to_eof(fd, &s, 60000), "waker-stacks: the session ends with the child");
	waitpid(pid, &status, 0);
	ok(!get_stats(fd, &st), "waker-stacks: STATS");
	close(fd);

	qsort(s.wk_up, s.n_up, sizeof(*s.wk_up), cmp_key);
	for (i = 0; i < s.n_in; i++) {
		struct wait_key *k = bsearch(&s.wk_in[i], s.wk_up, s.n_up,
					     sizeof(*s.wk_up), cmp_key);

		joined += k && k->waker_tid == s.wk_in[i].waker_tid;
	}
	qsort(s.wk_in, s.n_in, sizeof(*s.wk_in), cmp_key);
	for (i = 0; i < s.n_up; i++)
		up_joined += !!bsearch(&s.wk_up[i], s.wk_in, s.n_in,
				       sizeof(*s.wk_in), cmp_key);
	printf("# waker-stacks: %llu wakers' stacks (STATS %llu written, %llu dropped), %llu by the producer, %llu through producer(), %llu with the return into producer_write() in the snapshot; %zu off-CPU WAKERs with a wait number, %llu joined; %zu wakeups, %llu joined; %llu off-CPU WAKERs in all\n",
	       (unsigned long long)w.stacks,
	       (unsigned long long)st.waker_stacks,
	       (unsigned long long)st.waker_stacks_dropped,
	       (unsigned long long)w.by_producer,
	       (unsigned long long)w.through_producer,
	       (unsigned long long)w.snap_site, s.n_in,
	       (unsigned long long)joined, s.n_up,
	       (unsigned long long)up_joined, (unsigned long long)s.wakers);
	ok(!s.bad && !s.bad_groups,
	   "waker-stacks: every record and group well-formed (%llu bad, %llu bad groups)",
	   (unsigned long long)s.bad, (unsigned long long)s.bad_groups);
	ok(WIFEXITED(status) && !WEXITSTATUS(status),
	   "waker-stacks: the child ran its %d rounds", ROUNDS);
	ok(w.stacks == st.waker_stacks && !st.waker_stacks_dropped &&
	   w.stacks == s.n_up,
	   "waker-stacks: STATS counts the %llu stacks read (%llu, %llu dropped)",
	   (unsigned long long)w.stacks, (unsigned long long)st.waker_stacks,
	   (unsigned long long)st.waker_stacks_dropped);
	/* the consumer's ~2 ms waits cross their 200 us points: nearly all */
	ok(s.n_in >= ROUNDS * 9 / 10 && joined == s.n_in,
	   "waker-stacks: %zu of the consumer's %d sampled waits carry a wait number, each joined to its wakeup's (%llu)",
	   s.n_in, ROUNDS, (unsigned long long)joined);
	ok(w.by_producer >= s.n_in && w.through_producer == w.by_producer,
	   "waker-stacks: the producer's stacks (%llu) go through its thread function (%llu): read in the waker's context",
	   (unsigned long long)w.by_producer,
	   (unsigned long long)w.through_producer);
	ok(w.snap_site >= w.by_producer * 95 / 100,
	   "waker-stacks: %llu of %llu snapshots hold the return into producer_write(), the release site",
	   (unsigned long long)w.snap_site, (unsigned long long)w.by_producer);
	/* at most once per sampled wait: a stack with no sample after it is
	 * a wait that ended within a sixteenth of a period of its point */
	ok(up_joined * 100 >= s.n_up * 95,
	   "waker-stacks: %llu of %zu stacks belong to a sampled wait (>= 95%%: taken only for waits at their sample point)",
	   (unsigned long long)up_joined, s.n_up);
	sum_free(&s);
	return failures;
}
