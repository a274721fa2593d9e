// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests: the live loop against a fake ring (fakering.so before
 * fakedev.so) that fills at a steady rate and drops what is not read in
 * time. The count of drops is the fake ring's, not tprof-read's. An
 * agent's hooks in the loop and the consumed-to watermark, checked against
 * the fake ring's stamps.
 */
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testlib.h"
#include "lib/spsc.h"
#include "live/loop.h"
#include "live/recorder.h"
#include "model/profile.h"

/* a device file of n SAMPLE records of one size, of a process that is not */
static int ring_file(const char *dev, int n)
{
	struct sbuf b = { 0 };
	int i, ret;

	for (i = 0; i < n; i++) {
		uint64_t u[1] = { 0x1000 + (uint64_t)(i % 64) * 16 };

		sb_sample(&b, 999999, 999999, 1000000, 1000000, 1000 + i, 0,
			  NULL, 1, u);
	}
	ret = sb_write(&b, dev);
	sb_free(&b);
	return ret;
}

/* the fake ring's own count ("fakering: ... NAME N"), or -1 */
static long long fake_count(const char *out, const char *name)
{
	const char *l = out ? strstr(out, "fakering: produced ") : NULL;
	const char *v = l ? strstr(l, name) : NULL;

	return v ? atoll(v + strlen(name)) : -1;
}

/* the fakes and progs/inlines are built; else the test is skipped */
static bool have_fakes(void)
{
	return need_files("fakedev.so, fakering.so or progs/inlines not built",
			  build_path("unit/fakedev.so"),
			  build_path("unit/fakering.so"),
			  build_path("progs/inlines"), NULL);
}

/*
 * tprof-read --report on a fake ring dev of 64 records (env: its
 * FAKERING_* knobs) launching progs/inlines with args, CHECKed to exit 0;
 * its output in *out.
 */
static void run_ring(char **out, const char *env, const char *dev,
		     const char *args)
{
	char preload[8400];

	CHECK_EQ(ring_file(dev, 64), 0);
	snprintf(preload, sizeof(preload), "%s %s",
		 build_path("unit/fakering.so"), build_path("unit/fakedev.so"));
	CHECK_EQ(run_fake_read(out, env, preload, dev,
			       "--report --no-children -o /dev/null -- '%s' %s 2>&1",
			       build_path("progs/inlines"), args), 0);
}

/*
 * A launched command whose 8 threads exit: the loop handles a ptrace stop
 * at each exit (and at exec, and the command's own exit), each reading the
 * maps, here 600 ms apiece (FAKERING_MAPS_DELAY_US: a TCG guest's stop).
 * The ring holds 300 ms of records (1200 at 4000/s): room for the drain
 * thread to wait for a CPU on a loaded host, none for a loop that reads
 * the rings itself between stops (it lost ~1200 records per stop).
 */
static void test_live_stops_lose_nothing(void)
{
	const char *dev = build_path("unit/tprof-fakedev-stops");
	long long dropped, delivered, maps;
	char *out = NULL;

	if (!have_fakes())
		return;
	run_ring(&out, "TPROF_READ_DRAIN=1 FAKERING_RATE=4000 FAKERING_RECORDS=1200 FAKERING_WEIGHT_NS=1000000 FAKERING_MAPS_DELAY_US=600000",
		 dev, "-t 8 -s 0.4");
	dropped = fake_count(out, "dropped ");
	delivered = fake_count(out, "delivered ");
	maps = fake_count(out, " maps ");
	/*
	 * the stops happened and were slow: at exec, 8 threads' exits and
	 * the command's, 600 ms each (and the samples' own re-reads), and
	 * records came meanwhile: at least ten rings' worth (a loaded host
	 * runs the producer slower than 4000/s: 22,372 in one CI-like run)
	 */
	CHECK(maps >= 10);
	CHECK(delivered >= 10 * 1200);
	CHECK_EQ(dropped, 0);
	CHECK(out && !strstr(out, "samples lost"));
	if (t_checks_failed || getenv("TPROF_TEST_VERBOSE"))
		fprintf(stderr, "    delivered %lld, dropped %lld, maps reads %lld\n%s",
			delivered, dropped, maps, out ? out : "");
	free(out);
	unlink(dev);
}

/*
 * A ring too small for any reader (5 records at 20,000/s): the loss is
 * one line with its count, which is the fake ring's, and its share, and
 * --report's total says the same count.
 */
static void test_live_loss_is_loud(void)
{
	const char *dev = build_path("unit/tprof-fakedev-loud");
	long long dropped, said = -1, total = -1;
	char *out = NULL, *l;
	int lines = 0;

	if (!have_fakes())
		return;
	run_ring(&out, "FAKERING_RATE=20000 FAKERING_RECORDS=5 FAKERING_WEIGHT_NS=1000000",
		 dev, "-s 0.3");
	dropped = fake_count(out, "dropped ");
	for (l = out; l && (l = strstr(l, "samples lost (")); l++)
		lines++;
	l = out ? strstr(out, "tprof-read: warning: ") : NULL;
	if (l && strstr(l, "samples lost ("))
		said = atoll(l + strlen("tprof-read: warning: "));
	l = out ? strstr(out, "\ntotal: ") : NULL;
	l = l ? strstr(l, " samples, ") : NULL;
	l = l ? strstr(l + 1, " sampled, ") : NULL;
	if (l)
		total = atoll(l + strlen(" sampled, "));
	CHECK(dropped > 0);
	CHECK_EQ(lines, 1);
	CHECK_EQ(said, dropped);
	CHECK_EQ(total, dropped);
	CHECK(out && strstr(out, "% of the sampled time)") &&
	      strstr(out, "rings (256 KiB) filled between reads"));
	if (t_checks_failed || getenv("TPROF_TEST_VERBOSE"))
		fprintf(stderr, "    dropped %lld, said %lld, --report %lld\n%s",
			dropped, said, total, out ? out : "");
	free(out);
	unlink(dev);
}

/* ---- the drain's list: the appender never waits for the taker ---- */

#define SPSC_N 20000
#define SPSC_PARK 5000		/* the taker stops on this node */

struct spsc_item {
	struct spsc_node node;
	int seq;
};

struct spsc_run {
	struct spsc q;
	pthread_mutex_t m;
	pthread_cond_t c;
	bool parked, resume;
	int taken, in_order;
	int held_seq;			/* the parked node's, read after resume */
};

/*
 * The taker: takes nodes in order; on SPSC_PARK it stops holding the node
 * (a loop preempted in the middle of a chunk) until told to go on.
 */
static void *spsc_taker(void *arg)
{
	struct spsc_run *r = arg;
	struct spsc_item *it;

	while (r->taken < SPSC_N) {
		it = (struct spsc_item *)spsc__take(&r->q);
		if (!it) {
			sched_yield();
			continue;
		}
		r->in_order += it->seq == r->taken;
		r->taken++;
		if (it->seq != SPSC_PARK)
			continue;
		pthread_mutex_lock(&r->m);
		r->parked = true;
		pthread_cond_broadcast(&r->c);
		while (!r->resume)
			pthread_cond_wait(&r->c, &r->m);
		pthread_mutex_unlock(&r->m);
		/* still ours: ASan says so if the appender freed it */
		r->held_seq = it->seq;
	}
	return NULL;
}

static void test_spsc_never_waits(void)
{
	struct spsc_run r = { .held_seq = -1 };
	struct spsc_node *n;
	pthread_t t;
	int i, freed = 0, max_freed = -1, left = 0;

	spsc__init(&r.q);
	pthread_mutex_init(&r.m, NULL);
	pthread_cond_init(&r.c, NULL);
	for (i = 0; i <= SPSC_PARK; i++) {
		struct spsc_item *it = calloc(1, sizeof(*it));

		it->seq = i;
		spsc__append(&r.q, &it->node);
	}
	CHECK(!pthread_create(&t, NULL, spsc_taker, &r));
	pthread_mutex_lock(&r.m);
	while (!r.parked)
		pthread_cond_wait(&r.c, &r.m);
	pthread_mutex_unlock(&r.m);
	/*
	 * The taker holds node SPSC_PARK and runs no more: every append and
	 * reclaim below completes anyway (with a lock between them this
	 * would wait for the taker), and the reclaimed nodes are exactly
	 * those before the held one.
	 */
	for (; i < SPSC_N; i++) {
		struct spsc_item *it = calloc(1, sizeof(*it));

		it->seq = i;
		spsc__append(&r.q, &it->node);
		while ((n = spsc__reclaim(&r.q))) {
			int seq = ((struct spsc_item *)n)->seq;

			if (seq > max_freed)
				max_freed = seq;
			freed++;
			free(n);
		}
	}
	CHECK_EQ(freed, SPSC_PARK);
	CHECK_EQ(max_freed, SPSC_PARK - 1);
	pthread_mutex_lock(&r.m);
	r.resume = true;
	pthread_cond_broadcast(&r.c);
	pthread_mutex_unlock(&r.m);
	pthread_join(t, NULL);
	CHECK_EQ(r.taken, SPSC_N);
	CHECK_EQ(r.in_order, SPSC_N);
	CHECK_EQ(r.held_seq, SPSC_PARK);
	while ((n = spsc__reclaim(&r.q))) {
		freed++;
		free(n);
	}
	/* the taker's last node stays in the list until it is dismantled */
	CHECK_EQ(freed, SPSC_N - 1);
	while ((n = spsc__left(&r.q))) {
		left++;
		free(n);
	}
	CHECK_EQ(left, 1);
	pthread_mutex_destroy(&r.m);
	pthread_cond_destroy(&r.c);
}

/* ---- the same list with both threads at it, nodes reused ---- */

#define SPSC_RACE_N 200000
#define SPSC_RACE_POOL 64
#define SPSC_RACE_OUT 64	/* nodes in the list at most: the pool holds them all */

struct spsc_race {
	struct spsc q;
	int taken, good;
};

struct spsc_payload {
	struct spsc_node node;
	int seq;
	int words[15];		/* written before the append, all = seq */
};

static void *spsc_race_taker(void *arg)
{
	struct spsc_race *r = arg;

	while (r->taken < SPSC_RACE_N) {
		struct spsc_payload *it =
			(struct spsc_payload *)spsc__take(&r->q);
		int i, ok;

		if (!it)
			continue;
		ok = it->seq == r->taken;
		for (i = 0; i < 15; i++)
			ok &= it->words[i] == it->seq;
		r->good += ok;
		r->taken++;
	}
	return NULL;
}

/*
 * The appender reuses reclaimed nodes (as the drain thread reuses its
 * pool's chunks) while the taker reads them: every node read whole, in
 * order, none rewritten while the taker could still see it.
 */
static void test_spsc_race(void)
{
	struct spsc_race r = { 0 };
	struct spsc_payload *pool[SPSC_RACE_POOL];
	struct spsc_node *n;
	int npool = 0, i, j, made = 0, out = 0;
	pthread_t t;

	spsc__init(&r.q);
	CHECK(!pthread_create(&t, NULL, spsc_race_taker, &r));
	for (i = 0; i < SPSC_RACE_N; i++) {
		struct spsc_payload *it;

		/* at most SPSC_RACE_OUT in the list: the rest reused */
		for (;;) {
			while ((n = spsc__reclaim(&r.q))) {
				out--;
				if (npool < SPSC_RACE_POOL)
					pool[npool++] = (struct spsc_payload *)n;
				else
					free(n);
			}
			if (npool || out < SPSC_RACE_OUT)
				break;
			sched_yield();
		}
		out++;
		if (npool) {
			it = pool[--npool];
		} else {
			it = malloc(sizeof(*it));
			made++;
		}
		it->seq = i;
		for (j = 0; j < 15; j++)
			it->words[j] = i;
		spsc__append(&r.q, &it->node);
	}
	pthread_join(t, NULL);
	CHECK_EQ(r.taken, SPSC_RACE_N);
	CHECK_EQ(r.good, SPSC_RACE_N);
	/* nodes were reused: no more made than the list and pool hold */
	CHECK(made <= SPSC_RACE_OUT + SPSC_RACE_POOL);
	if (t_checks_failed || getenv("TPROF_TEST_VERBOSE"))
		fprintf(stderr, "    %d nodes made for %d appends\n", made,
			SPSC_RACE_N);
	while ((n = spsc__reclaim(&r.q)))
		free(n);
	while ((n = spsc__left(&r.q)))
		free(n);
	while (npool)
		free(pool[--npool]);
}

/* ---- an agent's hooks in the loop, and the consumed-to watermark ---- */

/*
 * The test below runs the loop in this program, re-run (hooks_child())
 * with the fake ring LD_PRELOAD'ed, attached to itself; this is its name,
 * which the re-run is told to run alone.
 */
#define HOOKS_TEST "live: hooks in the loop"
#define MS 1000000ULL

struct hooks_run {
	struct live *l;
	bool idle;			/* the idle scenario, else busy */
	int pipe[2];
	uint64_t start;			/* the first tick (the setup before it
					 * reads this program's maps) */
	pthread_t writer;
	int ticks, fast_ticks, late_ticks;
	uint64_t last_w;
	bool w_back, w_ahead;		/* went back, past now */
	/* the idle scenario: the pipe, written by pipe_writer() */
	_Atomic uint64_t written_at;
	uint64_t woke_at, stop_w;
	short revents;
	bool stopped;
	/* the handed records (the recorder's tap) */
	uint64_t samples, early, first_sample_ns;
};

static int hooks_fds(void *ctx, struct pollfd *pfd, int room)
{
	struct hooks_run *r = ctx;

	if (room < 1)
		return 0;
	pfd[0].fd = r->pipe[0];
	pfd[0].events = POLLIN;
	return 1;
}

/* the idle scenario's first 300 ms: 5 ms waits (the loop's are 100) */
static int hooks_timeout(void *ctx)
{
	struct hooks_run *r = ctx;

	return r->idle && (!r->start ||
			   now_ns(CLOCK_MONOTONIC) - r->start < 300 * MS) ?
	       5 : -1;
}

static void *pipe_writer(void *arg);

static void hooks_tick(void *ctx, const struct pollfd *pfd, int n,
		       uint64_t now, uint64_t w)
{
	struct hooks_run *r = ctx;
	char junk[16];

	if (!r->start) {
		r->start = now;
		if (r->idle)
			CHECK_EQ(pthread_create(&r->writer, NULL, pipe_writer,
						r), 0);
	}
	if (r->stopped) {
		r->late_ticks++;
		return;
	}
	r->ticks++;
	if (now - r->start < 300 * MS)
		r->fast_ticks++;
	r->w_back |= w < r->last_w;
	r->w_ahead |= w > now;
	r->last_w = w;
	if (n == 1 && pfd[0].revents) {
		r->revents |= pfd[0].revents;
		if (read(r->pipe[0], junk, sizeof(junk)) > 0 && !r->woke_at)
			r->woke_at = now;
	}
	/* busy: a slow agent (an encode), the drain thread's queue grows
	 * while the device runs dry between its reads */
	if (!r->idle) {
		const struct timespec ts = { 0, 3 * MS };

		nanosleep(&ts, NULL);
	}
	/* idle: 250 ms after the pipe woke it; busy: after 600 ms */
	if ((r->idle && r->woke_at && now - r->woke_at > 250 * MS) ||
	    (!r->idle && now - r->start > 600 * MS)) {
		r->stop_w = w;
		r->stopped = true;
		live__stop(r->l);
	}
}

/* Each record handed over: a SAMPLE's time is never before the watermark. */
static void hooks_tap(void *ctx, const struct tprof_record *rec)
{
	struct hooks_run *r = ctx;

	if (rec->hdr.type != TPROF_REC_SAMPLE)
		return;
	if (!r->samples++)
		r->first_sample_ns = rec->hdr.time_ns;
	/* the loop's, and the drain's own (live/drain.h) */
	if (rec->hdr.time_ns < r->l->consumed_to_ns ||
	    (r->l->drain.on &&
	     rec->hdr.time_ns < drain__consumed_to(&r->l->drain)))
		r->early++;
}

/* The idle scenario: the pipe written 400 ms after the first tick, when
 * the loop waits (its own 100 ms, the next record 500 ms away). */
static void *pipe_writer(void *arg)
{
	struct hooks_run *r = arg;
	const struct timespec ts = { 0, 400 * MS };

	nanosleep(&ts, NULL);
	atomic_store(&r->written_at, now_ns(CLOCK_MONOTONIC));
	if (write(r->pipe[1], "w", 1) != 1)
		atomic_store(&r->written_at, 0);
	return NULL;
}

/*
 * The re-run: a session of this process on the fake ring (FAKERING_RESTAMP:
 * each record stamped when the ring first holds it), with hooks.
 */
static void hooks_child(const char *scenario)
{
	struct hooks_run r = { .idle = !strcmp(scenario, "idle") };
	const struct live_hooks h = {
		.ctx = &r, .fds = hooks_fds, .tick = hooks_tick,
		.timeout_ms = hooks_timeout,
	};
	struct live_opts o = {
		.pid = getpid(), .device = getenv("TPROF_TEST_HOOKS_DEV"),
		.duration_s = 20, .call_graph = UNWIND_FP,
	};
	struct profile prof;
	struct recorder rc;
	struct live l;
	int ret;

	CHECK_EQ(pipe(r.pipe), 0);
	profile__init(&prof);
	recorder__init(&rc, &prof);
	rc.tap = hooks_tap;
	rc.tap_ctx = &r;
	live__init(&l, &o, &rc);
	l.hooks = &h;
	r.l = &l;
	ret = live__collect(&l);
	if (r.idle && r.start)
		pthread_join(r.writer, NULL);
	CHECK_EQ(ret, 0);
	/* live__stop() ended it, as -d would: DISABLE, STATS, finished */
	CHECK(r.stopped);
	CHECK_EQ(r.late_ticks, 0);
	CHECK(now_ns(CLOCK_MONOTONIC) - r.start < 10000 * MS);
	CHECK(prof.finished);
	CHECK(prof.have_stats);
	/* the watermark: monotonic, never past now, never past a record
	 * not yet handed over, and close behind the time it is read */
	CHECK(!r.w_back);
	CHECK(!r.w_ahead);
	CHECK_EQ(r.early, 0);
	CHECK(r.samples > 0);
	CHECK(r.stop_w >= r.first_sample_ns);
	if (r.idle) {
		uint64_t wr = atomic_load(&r.written_at);

		/* 5 ms waits for 300 ms: ~60 passes (the loop's own 100 ms
		 * and a record each 500 ms: 5) */
		CHECK(r.fast_ticks >= 20);
		/* the pipe was polled and woke the loop (its own wait is
		 * 100 ms, the next record up to 500 ms away) */
		CHECK(r.revents & POLLIN);
		CHECK(wr && r.woke_at >= wr && r.woke_at - wr < 30 * MS);
		/* idle: past the write (250 ms before the stop) */
		CHECK(r.stop_w > wr);
	} else {
		CHECK(r.samples > 1000);
		CHECK(r.stop_w > r.start + 300 * MS);
	}
	fprintf(stderr, "    %s: %d ticks (%d in 300 ms), %llu samples, watermark %.1f ms before the stop, pipe woke it after %.2f ms\n",
		scenario, r.ticks, r.fast_ticks,
		(unsigned long long)r.samples,
		(now_ns(CLOCK_MONOTONIC) - r.stop_w) / 1e6,
		r.woke_at ? (r.woke_at - atomic_load(&r.written_at)) / 1e6 :
		-1.0);
	recorder__free(&rc);
	profile__free(&prof);
	close(r.pipe[0]);
	close(r.pipe[1]);
}

/*
 * The agent's side of the loop (live/loop.h: struct live_hooks), in this
 * program re-run on the fake ring: idle (2 records a second), the hook's
 * pipe and timeout wake the loop, and the watermark comes within
 * milliseconds of now; busy (5000 a second), with the drain thread and
 * without (the loop's own reads), no SAMPLE is handed over stamped before
 * the watermark. Each ends by live__stop() in a tick, finished.
 */
static void test_live_hooks(void)
{
	static const char *const runs[][2] = {
		{ "idle", "FAKERING_RATE=2" },
		{ "busy", "FAKERING_RATE=5000" },
		{ "busy", "FAKERING_RATE=5000 TPROF_READ_DRAIN=0" },
	};
	const char *scenario = getenv("TPROF_TEST_HOOKS");
	char self[PATH_MAX], dev[PATH_MAX], *out = NULL;
	ssize_t n;
	size_t i;

	if (scenario) {
		hooks_child(scenario);
		return;
	}
	if (!have_fakes())
		return;
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	CHECK(n > 0);
	if (n <= 0)
		return;
	self[n] = '\0';
	/* a copy: build_path()'s buffers are reused */
	snprintf(dev, sizeof(dev), "%s", build_path("unit/tprof-fakedev-hooks"));
	CHECK_EQ(ring_file(dev, 64), 0);
	for (i = 0; i < sizeof(runs) / sizeof(runs[0]); i++) {
		CHECK_EQ(run_fmt(&out, "TPROF_TEST_HOOKS=%s TPROF_TEST_HOOKS_DEV='%s' %s FAKERING_RECORDS=100000 FAKERING_RESTAMP=1 ASAN_OPTIONS=verify_asan_link_order=0:detect_leaks=1 LD_PRELOAD='%s %s' '%s' '%s' 2>&1",
				 runs[i][0], dev, runs[i][1],
				 build_path("unit/fakering.so"),
				 build_path("unit/fakedev.so"), self,
				 HOOKS_TEST), 0);
		CHECK(out && strstr(out, "1 passed, 0 failed"));
		if (t_checks_failed || getenv("TPROF_TEST_VERBOSE"))
			fprintf(stderr, "%s %s:\n%s", runs[i][0], runs[i][1],
				out ? out : "");
		free(out);
		out = NULL;
	}
	unlink(dev);
}

const struct unit_test live_tests[] = {
	{ "live: ptrace stops that take 600 ms each lose no record of a ring that holds 300 ms (the drain thread)", test_live_stops_lose_nothing },
	{ "live: a session that loses samples says so in one line, with the fake ring's count and the share; --report agrees", test_live_loss_is_loud },
	{ "live: the drain thread's list appends and frees while its taker is stopped holding a node; order kept, the held node not freed (lib/spsc.h)", test_spsc_never_waits },
	{ "live: the drain thread's list with both threads at it and nodes reused: 200,000 read whole and in order", test_spsc_race },
	{ HOOKS_TEST ": a pipe and a timeout wake its ticks, live__stop() ends the session finished; the consumed-to watermark is monotonic, never past a SAMPLE not yet handed over (drain thread and the loop's own reads), and idle within ms of now", test_live_hooks },
	{ NULL, NULL },
};
