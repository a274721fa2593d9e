// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests: waker stacks (TPROF_F_WAKER_STACKS, issue 35). A waiter
 * thread's waits, ended by two waker threads that release from two
 * distinct functions of a real program (progs/unwind, symbolized), each
 * waker stack before or after its wait in the stream (the module's rings
 * are read in turn), one lost, one not taken, and wakers without a stack
 * (another process, an interrupt, a preemption): --mode wakers' pprof and
 * folded:wakers, the model's join counts, the off-CPU and CPU outputs
 * unchanged by the groups, a malformed waker stack refused.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/util.h"
#include "model/profile.h"
#include "pbload.h"
#include "testlib.h"

#define PID 7100
#define WAITER 7101
#define HOLDER_A 7102
#define HOLDER_B 7103
#define MS 1000000ULL
#define PIE_BASE 0x555555554000ULL

static const char *S(const PbProfile *p, int64_t i)
{
	return i >= 0 && (size_t)i < p->n_string_table ? p->string_table[i] :
							  "<bad index>";
}

/*
 * The functions' addresses in progs/unwind (ELF vaddrs). The stacks are
 * points where each function keeps its frame pointer (its CFI says so:
 * a chain through a frameless leaf is cut, analyze/unwind.c fp_checked()):
 * caller after its call of hot_leaf, sort_round after its frame's set-up
 * and main after its call of sort_round.
 */
struct prog {
	const char *bin;
	uint64_t sort_round, caller, main;
};

static bool load_prog(struct prog *g, char **maps)
{
	uint64_t sz;

	g->bin = build_path("progs/unwind");
	if (!need_file(g->bin, "progs/unwind not built"))
		return false;
	/* fake_maps() first: it sets libelf's version for elf_symbol() */
	*maps = fake_maps(g->bin, PIE_BASE);
	CHECK(*maps != NULL);
	CHECK_EQ(elf_symbol(g->bin, "sort_round", &g->sort_round, &sz), 0);
	CHECK_EQ(elf_symbol(g->bin, "caller", &g->caller, &sz), 0);
	CHECK_EQ(elf_symbol(g->bin, "main", &g->main, &sz), 0);
	return !t_checks_failed;
}

/*
 * The session. groups: with the waker stacks' groups (else the stream a
 * module without them would write, the waits' seq kept). Waits of the
 * waiter (sleeping, in main):
 *   seq 1, 10 ms: holder_a (caller < main), its stack first
 *   seq 2, 20 ms: holder_b (sort_round < main), its stack after the wait
 *   seq 3,  5 ms: holder_a, its stack after the wait
 *   seq 4,  7 ms: holder_b, its stack never comes: "[waker stack lost]"
 *   seq 0,  3 ms: holder_a, no stack taken: "[waker stack not taken]"
 *   another process (tid 0), 4 ms: "[other process]"
 *   a hard interrupt, 2 ms: "[interrupt]"
 *   preempted (runnable, no waker), 1 ms: not in the wakers profile
 * and a stack of holder_a (seq 9) whose wait was never sampled; CPU
 * samples of both holders.
 */
static void wakers_stream(struct sbuf *b, const struct prog *g,
			  const char *maps, bool groups)
{
	uint64_t wait[1] = { PIE_BASE + g->main + 0xd0 };
	uint64_t a[2] = { PIE_BASE + g->caller + 9, PIE_BASE + g->main + 0xad };
	uint64_t bb[2] = { PIE_BASE + g->sort_round + 0x10,
			   PIE_BASE + g->main + 0xd0 };
	uint64_t t = 10000;

	sb_session(b, PID, MS, 1700000000000000000ULL, 1000);
	sb_maps(b, PID, 1001, maps);
	sb_thread(b, PID, PID, "unwind", 1002);
	sb_thread(b, PID, WAITER, "waiter", 1003);
	sb_thread(b, PID, HOLDER_A, "holder_a", 1004);
	sb_thread(b, PID, HOLDER_B, "holder_b", 1005);
	sb_sample(b, PID, HOLDER_A, MS, MS, 2000, 0, NULL, 2, a);
	sb_sample(b, PID, HOLDER_B, MS, MS, 2001, 0, NULL, 2, bb);

	/* seq 1: the stack first */
	if (groups)
		sb_wake_stack(b, PID, WAITER, 1, PID, HOLDER_A, "holder_a", t,
			      2, a);
	sb_waker(b, PID, WAITER, TPROF_WAKER_TASK, PID, HOLDER_A, "holder_a", 1,
		 0, t + 10);
	sb_off_sample(b, PID, WAITER, TPROF_OFF_SLEEPING, MS, 10 * MS, t + 10,
		      1, wait);
	/* seq 2: the wait first */
	t += 1000;
	sb_waker(b, PID, WAITER, TPROF_WAKER_TASK, PID, HOLDER_B, "holder_b", 2,
		 0, t + 10);
	sb_off_sample(b, PID, WAITER, TPROF_OFF_SLEEPING, MS, 20 * MS, t + 10,
		      1, wait);
	sb_sample(b, PID, HOLDER_B, MS, MS, t + 20, 0, NULL, 2, bb);
	if (groups)
		sb_wake_stack(b, PID, WAITER, 2, PID, HOLDER_B, "holder_b", t,
			      2, bb);
	/* seq 3: the wait first, another record between */
	t += 1000;
	sb_waker(b, PID, WAITER, TPROF_WAKER_TASK, PID, HOLDER_A, "holder_a", 3,
		 0, t + 10);
	sb_off_sample(b, PID, WAITER, TPROF_OFF_SLEEPING, MS, 5 * MS, t + 10,
		      1, wait);
	sb_sample(b, PID, HOLDER_A, MS, MS, t + 20, 0, NULL, 2, a);
	if (groups)
		sb_wake_stack(b, PID, WAITER, 3, PID, HOLDER_A, "holder_a", t,
			      2, a);
	/* seq 4: its stack lost */
	t += 1000;
	sb_waker(b, PID, WAITER, TPROF_WAKER_TASK, PID, HOLDER_B, "holder_b", 4,
		 0, t + 10);
	sb_off_sample(b, PID, WAITER, TPROF_OFF_SLEEPING, MS, 7 * MS, t + 10,
		      1, wait);
	/* no stack taken */
	t += 1000;
	sb_waker(b, PID, WAITER, TPROF_WAKER_TASK, PID, HOLDER_A, "holder_a", 0,
		 0, t + 10);
	sb_off_sample(b, PID, WAITER, TPROF_OFF_SLEEPING, MS, 3 * MS, t + 10,
		      1, wait);
	/* another process: the kind alone (the trust rule) */
	t += 1000;
	sb_waker(b, PID, WAITER, TPROF_WAKER_OTHER, 0, 0, NULL, 0, 0, t + 10);
	sb_off_sample(b, PID, WAITER, TPROF_OFF_SLEEPING, MS, 4 * MS, t + 10,
		      1, wait);
	/* an interrupt */
	t += 1000;
	sb_waker(b, PID, WAITER, TPROF_WAKER_HARDIRQ, 0, 0, NULL, 0, 0, t + 10);
	sb_off_sample(b, PID, WAITER, TPROF_OFF_SLEEPING, MS, 2 * MS, t + 10,
		      1, wait);
	/* preempted: no waker */
	t += 1000;
	sb_off_sample(b, PID, WAITER, TPROF_OFF_RUNNABLE, MS, 1 * MS, t + 10,
		      1, wait);
	/* a stack whose wait was never sampled */
	if (groups)
		sb_wake_stack(b, PID, WAITER, 9, PID, HOLDER_A, "holder_a",
			      t + 100, 2, a);
}

/* Wait time (value[0]) of the samples whose leaf function is fn. */
static long long wait_of(const PbProfile *p, const char *fn)
{
	long long n = 0;
	size_t i;

	for (i = 0; i < p->n_sample; i++)
		if (!strcmp(pb_leaf_name(p, p->sample[i]), fn))
			n += p->sample[i]->value[0];
	return n;
}

/* The one sample whose leaf is fn (NULL: none, or several). */
static const Perftools__Profiles__Sample *sample_of(const PbProfile *p,
						    const char *fn)
{
	const Perftools__Profiles__Sample *s = NULL;
	size_t i;

	for (i = 0; i < p->n_sample; i++)
		if (!strcmp(pb_leaf_name(p, p->sample[i]), fn)) {
			if (s)
				return NULL;
			s = p->sample[i];
		}
	return s;
}

static long long label_num(const PbProfile *p,
			   const Perftools__Profiles__Sample *s,
			   const char *key)
{
	const Perftools__Profiles__Label *l = pb_label(p, s, key);

	return l ? l->num : -1;
}

static void test_wakers_pprof(void)
{
	const char *raw = build_path("unit/wakers.raw");
	const char *pb = build_path("unit/wakers.pb.gz");
	const Perftools__Profiles__Sample *s;
	struct sbuf b = { 0 };
	struct prog g;
	char *maps = NULL, *out = NULL;
	PbProfile *p;
	size_t i;

	if (!load_prog(&g, &maps))
		goto out;
	wakers_stream(&b, &g, maps, true);
	p = replay_profile(&b, raw, pb, "--mode wakers", &out);
	if (!p)
		goto out;
	CHECK_EQ(p->n_sample_type, 2);
	CHECK_STR(S(p, p->sample_type[0]->type), "wait");
	CHECK_STR(S(p, p->sample_type[0]->unit), "nanoseconds");
	CHECK_STR(S(p, p->sample_type[1]->type), "samples");
	CHECK_STR(S(p, p->default_sample_type), "wait");
	/* per release site: the waker stacks' leaves */
	CHECK_EQ(wait_of(p, "caller"), 15 * MS);
	CHECK_EQ(wait_of(p, "sort_round"), 20 * MS);
	CHECK_EQ(wait_of(p, "[waker stack lost]"), 7 * MS);
	CHECK_EQ(wait_of(p, "[waker stack not taken]"), 3 * MS);
	CHECK_EQ(wait_of(p, "[other process]"), 4 * MS);
	CHECK_EQ(wait_of(p, "[interrupt]"), 2 * MS);
	/* only waits with a waker: not the preempted one, no CPU */
	{
		long long all = 0;

		for (i = 0; i < p->n_sample; i++)
			all += p->sample[i]->value[0];
		CHECK_EQ(all, 51 * MS);
	}
	CHECK_EQ(wait_of(p, "main"), 0);
	/* holder_a's stack, leaf first, with the waiter's labels */
	s = sample_of(p, "caller");
	CHECK(s != NULL);
	if (s) {
		CHECK_EQ(s->value[1], 2);
		CHECK_EQ(s->n_location_id, 2);
		CHECK_EQ(label_num(p, s, "pid"), PID);
		CHECK_EQ(label_num(p, s, "tid"), WAITER);
		CHECK_STR(pb_label_str(p, s, "thread_comm"), "waiter");
		CHECK_STR(pb_label_str(p, s, "wait_state"), "sleeping");
		CHECK_STR(pb_label_str(p, s, "waker_kind"), "thread");
		CHECK_EQ(label_num(p, s, "waker_tid"), HOLDER_A);
		CHECK_STR(pb_label_str(p, s, "waker_comm"), "holder_a");
	}
	s = sample_of(p, "sort_round");
	CHECK(s != NULL);
	if (s) {
		CHECK_EQ(label_num(p, s, "waker_tid"), HOLDER_B);
		CHECK_STR(pb_label_str(p, s, "waker_comm"), "holder_b");
	}
	/* the trust rule: the kind alone */
	s = sample_of(p, "[other process]");
	CHECK(s != NULL);
	if (s) {
		CHECK_STR(pb_label_str(p, s, "waker_kind"), "other process");
		CHECK(!pb_label(p, s, "waker_tid"));
		CHECK(!pb_label(p, s, "waker_comm"));
		CHECK_EQ(s->n_location_id, 1);
	}
	s = sample_of(p, "[interrupt]");
	CHECK(s && !strcmp(pb_label_str(p, s, "waker_kind"), "hardirq"));
	pb_free(p);
out:
	out_done(out);
	free(maps);
	sb_free(&b);
}

static void test_wakers_folded(void)
{
	const char *raw = build_path("unit/wakers-folded.raw");
	const char *fo = build_path("unit/wakers.folded");
	static const char *const want =
		"waiter;main;[sleeping];--;[interrupt] 2000000\n"
		"waiter;main;[sleeping];--;[other process] 4000000\n"
		"waiter;main;[sleeping];--;[waker stack lost] 7000000\n"
		"waiter;main;[sleeping];--;[waker stack not taken] 3000000\n"
		"waiter;main;[sleeping];--;caller;main;holder_a 15000000\n"
		"waiter;main;[sleeping];--;sort_round;main;holder_b 20000000\n";
	struct sbuf b = { 0 };
	struct prog g;
	char *maps = NULL, *out = NULL, *text = NULL;
	size_t len;

	if (!load_prog(&g, &maps))
		goto out;
	wakers_stream(&b, &g, maps, true);
	CHECK_EQ(sb_write(&b, raw), 0);
	/* the format alone implies the mode */
	unlink(fo);
	CHECK_EQ(run_read(&out, "--input '%s' --format folded:wakers -o '%s' 2>&1",
			  raw, fo), 0);
	text = (char *)read_whole(fo, &len);
	CHECK(text != NULL);
	if (text) {
		text = xrealloc(text, len + 1);
		text[len] = 0;
		CHECK_STR(text, want);
	}
	free(text);
	out_done(out);
	out = NULL;
	/* and with it */
	unlink(fo);
	CHECK_EQ(run_read(&out, "--input '%s' --mode wakers --format folded:wakers -o '%s' 2>&1",
			  raw, fo), 0);
	text = (char *)read_whole(fo, &len);
	CHECK(text && len == strlen(want) && !memcmp(text, want, len));
	free(text);
out:
	out_done(out);
	free(maps);
	sb_free(&b);
}

/* The model's join: three pairs, one wait's stack lost, one stack alone. */
static void test_wakers_join_counts(void)
{
	struct sbuf b = { 0 };
	struct profile p;
	struct prog g;
	char *maps = NULL;
	size_t i, n = 0, stacks = 0, ids = 0;

	if (!load_prog(&g, &maps))
		goto out;
	wakers_stream(&b, &g, maps, true);
	profile__init(&p);
	p.join_wakes = true;
	CHECK_EQ(profile_feed(&p, &b, true), b.len);
	profile__finish(&p);
	CHECK_EQ(p.wake_stacks, 4);
	CHECK_EQ(p.wake_stack_orphans, 0);
	CHECK_EQ(p.wakes.joined, 3);
	CHECK_EQ(p.wakes.lost_waits, 1);
	CHECK_EQ(p.wakes.lost_stacks, 1);
	/* the stacks are no time: the totals are the samples' alone */
	CHECK_EQ(p.whole.sample_records, 4 + 8);
	CHECK_EQ(p.whole.off_weight_ns, 52 * MS);
	CHECK_EQ(p.whole.sample_weight_ns, 52 * MS + 4 * MS);
	for (i = 0; i < p.whole.nsamples; i++) {
		const struct agg_sample *s = &p.whole.samples[i];

		stacks += s->wake_stack;
		ids += !s->wake_stack && s->wake_id;
		n += s->wake_stack && s->tid == WAITER;
	}
	CHECK_EQ(stacks, 4);
	CHECK_EQ(ids, 4);	/* seq 1..4: lost or joined */
	CHECK_EQ(n, 0);		/* a stack is its waker's */
	CHECK(!agg__find_thread(&p.whole, HOLDER_A) ||
	      agg__find_thread(&p.whole, HOLDER_A)->samples == 2);
	profile__free(&p);

	/* not asked: the stacks are counted and dropped */
	profile__init(&p);
	CHECK_EQ(profile_feed(&p, &b, true), b.len);
	profile__finish(&p);
	CHECK_EQ(p.wake_stacks, 4);
	CHECK_EQ(p.wakes.joined, 0);
	for (i = 0; i < p.whole.nsamples; i++)
		CHECK(!p.whole.samples[i].wake_stack &&
		      !p.whole.samples[i].wake_id);
	profile__free(&p);
out:
	free(maps);
	sb_free(&b);
}

/*
 * A waker stack in a group (TPROF_RF_GROUP): its USTACK record (the
 * chain, no snapshot) joins it as any sample's, and the stack is its
 * chain; the wait after it gets its wake id.
 */
static void test_wakers_group(void)
{
	uint64_t outer[2] = { 0x401200, 0x401300 }, u[1] = { 0x401000 };
	struct tprof_rec_sample *sm;
	struct sbuf b = { 0 };
	struct profile p;
	size_t at, i, found = 0;

	sb_session(&b, PID, MS, 1700000000000000000ULL, 1000);
	sb_waker(&b, PID, WAITER, TPROF_WAKER_TASK, PID, HOLDER_A, "holder_a",
		 5, TPROF_RF_WAKER_WAKEUP | TPROF_RF_GROUP, 3000);
	at = b.len;
	sb_sample_uchain(&b, PID, HOLDER_A, TPROF_ABI_X86_64, 3000, 0x401100,
			 NULL, 0, 0x7ffc0000, 0x7ffc0100, 0, outer, 2);
	sm = (struct tprof_rec_sample *)(b.p + at);
	sm->hdr.flags |= TPROF_RF_WAKE_STACK;
	sm->weight_ns = 0;
	sm->period_ns = 0;
	sb_waker(&b, PID, WAITER, TPROF_WAKER_TASK, PID, HOLDER_A, "holder_a",
		 5, 0, 4000);
	sb_off_sample(&b, PID, WAITER, TPROF_OFF_SLEEPING, MS, 9 * MS, 4000, 1,
		      u);
	profile__init(&p);
	p.join_wakes = true;
	CHECK_EQ(profile_feed(&p, &b, true), b.len);
	profile__finish(&p);
	CHECK_EQ(p.ustack_paired, 1);
	CHECK_EQ(p.ustack_missing + p.ustack_orphans, 0);
	CHECK_EQ(p.wakes.joined, 1);
	CHECK_EQ(p.wakers_paired, 2);
	CHECK_EQ(p.waker_orphans, 0);
	for (i = 0; i < p.whole.nsamples; i++) {
		const struct agg_sample *a = &p.whole.samples[i];

		if (!a->wake_stack)
			continue;
		found++;
		CHECK_EQ(a->tid, HOLDER_A);
		CHECK_EQ(a->nr, 3);
		CHECK_EQ(a->ips[0], 0x401100);
		CHECK_EQ(a->ips[1], 0x401200);
		CHECK_EQ(a->wake_id, p.whole.samples[i ? 0 : 1].wake_id);
	}
	CHECK_EQ(found, 1);
	CHECK_EQ(p.whole.sample_records, 1);
	CHECK_EQ(p.whole.off_weight_ns, 9 * MS);
	profile__free(&p);
	sb_free(&b);
}

/* An output file, whole, or NULL. */
static char *slurp(const char *path, size_t *len)
{
	return (char *)read_whole(path, len);
}

/* stderr without the waker stacks' own line (the one thing they add) */
static char *strip_wake_line(char *s)
{
	char *l = s ? strstr(s, "waker stacks: ") : NULL, *nl;

	if (l) {
		nl = strchr(l, '\n');
		memmove(l, nl ? nl + 1 : l + strlen(l), strlen(nl ? nl + 1 : l) + 1);
	}
	return s;
}

/*
 * The off-CPU and CPU outputs of the session with and without the waker
 * stacks' groups: the same bytes (pprof, folded, folded:off_cpu, the
 * report's tables).
 */
static void test_wakers_leave_others_alone(void)
{
	static const char *const fmts[] = { "pprof", "folded", "folded:off_cpu" };
	/* copies: build_path() is a ring of 8 */
	char *raw1 = xstrdup(build_path("unit/wakers-with.raw"));
	char *raw2 = xstrdup(build_path("unit/wakers-without.raw"));
	struct sbuf b1 = { 0 }, b2 = { 0 };
	struct prog g;
	char *maps = NULL;
	size_t i;

	if (!load_prog(&g, &maps))
		goto out;
	wakers_stream(&b1, &g, maps, true);
	wakers_stream(&b2, &g, maps, false);
	CHECK_EQ(sb_write(&b1, raw1), 0);
	CHECK_EQ(sb_write(&b2, raw2), 0);
	for (i = 0; i < ARRAY_SIZE(fmts); i++) {
		char o1[256], o2[256], *e1 = NULL, *e2 = NULL, *f1, *f2;
		size_t l1 = 0, l2 = 0;

		snprintf(o1, sizeof(o1), "%s.%zu", build_path("unit/wakers-with.out"), i);
		snprintf(o2, sizeof(o2), "%s.%zu", build_path("unit/wakers-without.out"), i);
		CHECK_EQ(run_read(&e1, "--input '%s' --format %s --report -o '%s' 2>&1",
				  raw1, fmts[i], o1), 0);
		CHECK_EQ(run_read(&e2, "--input '%s' --format %s --report -o '%s' 2>&1",
				  raw2, fmts[i], o2), 0);
		f1 = slurp(o1, &l1);
		f2 = slurp(o2, &l2);
		CHECK(f1 && f2 && l1 == l2 && !memcmp(f1, f2, l1));
		/* the report: the same tables (paths aside) */
		strip_wake_line(e1);
		if (e1 && e2) {
			char *p1 = strstr(e1, "TID"), *p2 = strstr(e2, "TID");

			CHECK(p1 && p2 && !strcmp(p1, p2));
			if (!p1 || !p2 || strcmp(p1, p2))
				fprintf(stderr, "    with:\n%s\n    without:\n%s\n",
					e1, e2);
		}
		CHECK(!e1 || !strstr(e1, "malformed"));
		free(f1);
		free(f2);
		free(e1);
		free(e2);
	}
out:
	free(raw1);
	free(raw2);
	free(maps);
	sb_free(&b1);
	sb_free(&b2);
}

/*
 * --report --mode wakers: under each waker thread's row of the waiter,
 * its release sites.
 */
static void test_wakers_report(void)
{
	const char *raw = build_path("unit/wakers-report.raw");
	const char *pb = build_path("unit/wakers-report.pb.gz");
	struct sbuf b = { 0 };
	struct prog g;
	char *maps = NULL, *out = NULL;
	PbProfile *p;

	if (!load_prog(&g, &maps))
		goto out;
	wakers_stream(&b, &g, maps, true);
	p = replay_profile(&b, raw, pb, "--mode wakers --report", &out);
	pb_free(p);
	CHECK_HAS(out, "WOKEN BY");
	CHECK_HAS(out, "thread 7103 holder_b");
	CHECK_HAS(out, "released at sort_round ");
	CHECK_HAS(out, "released at caller ");
	CHECK_HAS(out, "released at [waker stack lost]");
	CHECK_HAS(out, "waker stacks: the module took 0 (0 dropped), 4 read, 3 joined to their waits, 1 waker stacks unmatched");
out:
	out_done(out);
	free(maps);
	sb_free(&b);
}

/* A waker stack with a weight (or kernel frames) is refused, in a line. */
static void test_wakers_refused(void)
{
	const char *raw = build_path("unit/wakers-bad.raw");
	const char *pb = build_path("unit/wakers-bad.pb.gz");
	uint64_t u[1] = { 0x401000 }, k[1] = { 0xffffffff81000000ULL };
	struct tprof_rec_sample s = {
		.pid = PID, .tid = HOLDER_A, .nr_user = 1, .weight_ns = MS,
		.abi = TPROF_ABI_X86_64,
	};
	struct sbuf b = { 0 };
	struct tprof_record r;
	struct rec_iter it;
	char *out = NULL, *nl;
	PbProfile *p;
	int lines = 0;

	sb_session(&b, PID, MS, 1700000000000000000ULL, 1000);
	sb_sample(&b, PID, PID, MS, MS, 2000, 0, NULL, 1, u);
	sb_waker(&b, PID, WAITER, TPROF_WAKER_TASK, PID, HOLDER_A, "holder_a",
		 1, TPROF_RF_WAKER_WAKEUP | TPROF_RF_GROUP, 3000);
	s.hdr.type = TPROF_REC_SAMPLE;
	s.hdr.size = sizeof(s) + 8;
	s.hdr.time_ns = 3000;
	s.hdr.flags = TPROF_RF_WAKE_STACK;
	sb_raw(&b, &s, sizeof(s));
	sb_raw(&b, u, 8);
	/* decoding alone: refused with its reason */
	rec_iter_mem(&it, b.p, b.len);
	CHECK(rec_next(&it, &r));	/* SESSION */
	CHECK(rec_next(&it, &r));	/* SAMPLE */
	CHECK(rec_next(&it, &r));	/* WAKER */
	CHECK(!rec_next(&it, &r));
	rec_iter_free(&it);
	p = replay_profile(&b, raw, pb, "", &out);
	if (p)
		CHECK_EQ(p->n_sample, 1);
	pb_free(p);
	CHECK_HAS(out, "a waker's stack (TPROF_RF_WAKE_STACK) with a weight, period or off-CPU state");
	for (nl = out; nl && *nl; nl++)
		lines += *nl == '\n';
	CHECK_EQ(lines, 1);
	out_done(out);
	out = NULL;
	sb_free(&b);

	/* kernel frames: the same, its own reason */
	memset(&b, 0, sizeof(b));
	sb_session(&b, PID, MS, 1700000000000000000ULL, 1000);
	s.weight_ns = 0;
	s.nr_kernel = 1;
	s.hdr.size = sizeof(s) + 16;
	sb_raw(&b, &s, sizeof(s));
	sb_raw(&b, k, 8);
	sb_raw(&b, u, 8);
	p = replay_profile(&b, raw, pb, "", &out);
	pb_free(p);
	CHECK_HAS(out, "a waker's stack (TPROF_RF_WAKE_STACK) with kernel frames");
	out_done(out);
	out = NULL;
	sb_free(&b);

	/* a wakeup's WAKER must name its waker and the wait */
	memset(&b, 0, sizeof(b));
	sb_session(&b, PID, MS, 1700000000000000000ULL, 1000);
	sb_waker(&b, PID, WAITER, TPROF_WAKER_TASK, PID, HOLDER_A, "holder_a",
		 0, TPROF_RF_WAKER_WAKEUP, 3000);
	sb_sample(&b, PID, PID, MS, MS, 4000, 0, NULL, 1, u);
	p = replay_profile(&b, raw, pb, "", &out);
	pb_free(p);
	CHECK_HAS(out, "without its waker's tid or the wait's seq");
	out_done(out);
	sb_free(&b);
}

/* The options: what --mode wakers goes with. */
static void test_wakers_options(void)
{
	char *out = NULL;

	CHECK_EQ(run_read(&out, "--mode wakers --format folded -p 1 -o /dev/null 2>&1"), 2);
	CHECK_HAS(out, "--mode wakers: writes pprof (the default) or --format folded:wakers, not folded");
	out_done(out);
	out = NULL;
	CHECK_EQ(run_read(&out, "--mode off-cpu --format folded:wakers -p 1 -o /dev/null 2>&1"), 2);
	CHECK_HAS(out, "--format folded:wakers: the waits by waker (--mode wakers), not another --mode");
	out_done(out);
	out = NULL;
	/* a replay takes --mode wakers (its output), not the others */
	CHECK_EQ(run_read(&out, "--mode wall --input /dev/null -o /dev/null 2>&1"), 2);
	CHECK_HAS(out, "--input replays a saved stream: --mode does not apply");
	out_done(out);
	out = NULL;
	CHECK_EQ(run_read(&out, "--help"), 0);
	CHECK_HAS(out, "wakers");
	CHECK_HAS(out, "folded:wakers");
	out_done(out);
}

/*
 * ENABLE: --mode wakers asks for the waker stacks (with off-CPU samples
 * alone), wall and off-cpu do not (their cost); a module that predates
 * them is asked again without, with one line.
 */
static void test_wakers_enable(void)
{
	static const char *const modes[][2] = {
		{ "--mode wakers", "flags=0x8c0 " },
		{ "--mode off-cpu", "flags=0xc0 " },
		{ "--mode wall", "flags=0x40 " },
		{ "--format folded:wakers", "flags=0x8c0 " },
	};
	const char *dev = build_path("unit/tprof-fakedev-wakers");
	char *out = NULL;
	size_t i;

	if (!need_fakedev(dev))
		return;
	for (i = 0; i < ARRAY_SIZE(modes); i++) {
		run_fake_read(&out, NULL, NULL, dev,
			      "-p 1 --call-graph fp %s -o /dev/null 2>&1",
			      modes[i][0]);
		CHECK_HAS(out, modes[i][1]);
		if (t_checks_failed)
			fprintf(stderr, "    %s\n", modes[i][0]);
		out_done(out);
		out = NULL;
	}
	run_fake_read(&out, "FAKEDEV_NO_WAKER_STACKS=1", NULL, dev,
		      "-p 1 --call-graph fp --mode wakers -o /dev/null 2>&1");
	CHECK_HAS(out, "fakedev: ENABLE flags=0xc0 ");
	CHECK_HAS(out, "warning: this tprof.ko takes no waker stacks");
	out_done(out);
}

/*
 * A chain of timed-out waits (kmod/offcpu.c): the waiter's waits that a
 * hard interrupt ended (5 and 4 ms, seq 7), re-entered at once, and the
 * last one (1 ms) that holder_b ended, its stack after them: the whole
 * chain's 10 ms is holder_b's, at its release site, with its labels. A
 * chain no thread ended (seq 8, 2 ms) stays "[interrupt]", and is no
 * lost stack.
 */
static void test_wakers_chain(void)
{
	const char *raw = build_path("unit/wakers-chain.raw");
	const char *pb = build_path("unit/wakers-chain.pb.gz");
	const Perftools__Profiles__Sample *s;
	uint64_t wait[1], bb[2];
	struct sbuf b = { 0 };
	struct profile pr;
	struct prog g;
	char *maps = NULL, *out = NULL;
	PbProfile *p;
	uint64_t t = 10000;

	if (!load_prog(&g, &maps))
		goto out;
	wait[0] = PIE_BASE + g.main + 0xd0;
	bb[0] = PIE_BASE + g.sort_round + 0x10;
	bb[1] = PIE_BASE + g.main + 0xd0;
	sb_session(&b, PID, MS, 1700000000000000000ULL, 1000);
	sb_maps(&b, PID, 1001, maps);
	sb_thread(&b, PID, WAITER, "waiter", 1003);
	sb_thread(&b, PID, HOLDER_B, "holder_b", 1005);
	sb_waker(&b, PID, WAITER, TPROF_WAKER_HARDIRQ, 0, 0, NULL, 7, 0, t);
	sb_off_sample(&b, PID, WAITER, TPROF_OFF_SLEEPING, MS, 5 * MS, t, 1,
		      wait);
	sb_waker(&b, PID, WAITER, TPROF_WAKER_HARDIRQ, 0, 0, NULL, 7, 0,
		 t + 10);
	sb_off_sample(&b, PID, WAITER, TPROF_OFF_SLEEPING, MS, 4 * MS, t + 10,
		      1, wait);
	sb_waker(&b, PID, WAITER, TPROF_WAKER_TASK, PID, HOLDER_B, "holder_b", 7,
		 0, t + 30);
	sb_off_sample(&b, PID, WAITER, TPROF_OFF_SLEEPING, MS, 1 * MS, t + 30,
		      1, wait);
	sb_wake_stack(&b, PID, WAITER, 7, PID, HOLDER_B, "holder_b", t + 20, 2,
		      bb);
	sb_waker(&b, PID, WAITER, TPROF_WAKER_HARDIRQ, 0, 0, NULL, 8, 0,
		 t + 40);
	sb_off_sample(&b, PID, WAITER, TPROF_OFF_SLEEPING, MS, 2 * MS, t + 40,
		      1, wait);

	profile__init(&pr);
	pr.join_wakes = true;
	CHECK_EQ(profile_feed(&pr, &b, true), b.len);
	profile__finish(&pr);
	CHECK_EQ(pr.wakes.joined, 3);	/* the chain's three waits */
	CHECK_EQ(pr.wakes.lost_waits, 0);
	CHECK_EQ(pr.wakes.lost_stacks, 0);
	profile__free(&pr);

	p = replay_profile(&b, raw, pb, "--mode wakers", &out);
	if (!p)
		goto out;
	CHECK_EQ(wait_of(p, "sort_round"), 10 * MS);
	CHECK_EQ(wait_of(p, "[interrupt]"), 2 * MS);
	CHECK_EQ(wait_of(p, "[waker stack lost]"), 0);
	s = sample_of(p, "sort_round");
	CHECK(s != NULL);
	if (s) {
		CHECK_STR(pb_label_str(p, s, "waker_kind"), "thread");
		CHECK_EQ(label_num(p, s, "waker_tid"), HOLDER_B);
		CHECK_STR(pb_label_str(p, s, "waker_comm"), "holder_b");
		CHECK_EQ(s->value[1], 3);
	}
	s = sample_of(p, "[interrupt]");
	CHECK(s && !strcmp(pb_label_str(p, s, "waker_kind"), "hardirq") &&
	      !pb_label(p, s, "waker_tid"));
	pb_free(p);
out:
	out_done(out);
	free(maps);
	sb_free(&b);
}

const struct unit_test wakers_tests[] = {
	{ "wakers: ENABLE asks for waker stacks in --mode wakers alone (fake device)", test_wakers_enable },
	{ "wakers: pprof wait time per release site, labels, pseudo-frames (both arrival orders)", test_wakers_pprof },
	{ "wakers: folded:wakers lines (waiter -- waker), exactly", test_wakers_folded },
	{ "wakers: the model joins stacks to waits in either order, counts the lost", test_wakers_join_counts },
	{ "wakers: a waker stack's group (USTACK chain) pairs as a sample's", test_wakers_group },
	{ "wakers: a chain of timed-out waits is its last waker's, at its release site", test_wakers_chain },
	{ "wakers: CPU and off-CPU outputs byte-identical with and without the groups", test_wakers_leave_others_alone },
	{ "wakers: --report names each waker's release sites", test_wakers_report },
	{ "wakers: a waker stack with a weight or kernel frames is refused in one line", test_wakers_refused },
	{ "wakers: --mode wakers and --format folded:wakers go together", test_wakers_options },
	{ NULL, NULL },
};
