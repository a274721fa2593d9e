// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests: windows of one session (model/agg.h, profile sinks,
 * output__encode()). A saved stream replayed once whole and once through
 * a sink into windows: the windows count what the whole session counts,
 * split at their edges, and encode mid-stream.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/gzip.h"
#include "model/profile.h"
#include "object/object.h"
#include "output/write.h"
#include "pbload.h"
#include "testlib.h"

/*
 * The windows of the replay: [first, mid) and [mid, UINT64_MAX) split the
 * session; [first + 1, mid) misses the samples at first; [mid, end) is
 * the second with an end, to encode.
 */
enum { W_FIRST, W_REST, W_LATE, W_ENDED, NWIN };

struct windows {
	struct agg w[NWIN];
	uint64_t first;
	uint64_t at_first_ns;	/* weight of the samples at first */
	uint64_t nowhere;	/* samples no window took */
	uint64_t calls;
	bool encoded;		/* the windows' samples went to the passes */
};

static void on_sample(void *ctx, const struct profile *p,
		      const struct agg_sample *s, uint64_t time_ns)
{
	struct windows *ws = ctx;
	bool taken = false;
	int i;

	(void)p;
	ws->calls++;
	if (time_ns == ws->first)
		ws->at_first_ns += s->weight_ns;
	for (i = 0; i < NWIN; i++) {
		int ret = agg__add(&ws->w[i], s, time_ns);

		CHECK(ret == 0 || ret == -ERANGE ||
		      (ws->encoded && ret == -EINVAL));
		taken |= i != W_LATE && !ret;
	}
	ws->nowhere += !taken;
}

static void on_lost(void *ctx, const struct profile *p, uint64_t time_ns,
		    uint64_t samples, uint64_t weight_ns)
{
	struct windows *ws = ctx;
	int i;

	(void)p;
	for (i = 0; i < NWIN; i++)
		if (time_ns >= ws->w[i].t0_ns && time_ns < ws->w[i].t1_ns)
			agg__add_lost(&ws->w[i], samples, weight_ns);
}

/* Every record of raw into p; false where one does not decode or add. */
static bool replay(struct profile *p, const char *raw)
{
	struct tprof_record r;
	struct rec_iter it;
	bool ok = true;

	rec_iter_file(&it, raw);
	while (rec_next(&it, &r))
		ok &= profile__add(p, &r) == 0;
	ok &= it.off == it.len;
	rec_iter_free(&it);
	return ok;
}

/* The window's pprof, decoded; NULL (CHECKed) if it does not encode. */
static PbProfile *encode_window(const struct profile *p, struct agg *a,
				const struct output_window *w,
				struct objects *objs)
{
	struct output_env env = { .objects = objs };
	uint8_t *gz = NULL, *raw = NULL;
	size_t gzlen = 0, rawlen = 0;
	PbProfile *pb = NULL;

	CHECK_EQ(output__encode(p, a, w, &env, &gz, &gzlen), 0);
	if (gz && gzip__decompress(gz, gzlen, &raw, &rawlen) == 0)
		pb = perftools__profiles__profile__unpack(NULL, rawlen, raw);
	CHECK(pb != NULL);
	/* the stacks went to the resolve pass: twice is a caller's bug */
	CHECK_EQ(output__encode(p, a, w, &env, &gz, &gzlen), -EINVAL);
	free(gz);
	free(raw);
	return pb;
}

/* Sum of column col over the profile's samples. */
static int64_t column_sum(const PbProfile *pb, size_t col)
{
	int64_t sum = 0;
	size_t i;

	for (i = 0; i < pb->n_sample; i++)
		if (col < pb->sample[i]->n_value)
			sum += pb->sample[i]->value[col];
	return sum;
}

static bool has_comment(const PbProfile *pb, const char *part)
{
	size_t i;

	for (i = 0; i < pb->n_comment; i++)
		if (strstr(pb->string_table[pb->comment[i]], part))
			return true;
	return false;
}

/* No comment claims an exact CPU: a window has none (summary.h). */
static bool no_exact(const PbProfile *pb)
{
	const char *e;
	size_t i;

	for (i = 0; i < pb->n_comment; i++) {
		e = strstr(pb->string_table[pb->comment[i]], "exact=");
		if (e && e[6] != '?')
			return false;
	}
	return true;
}

/* A window's pprof: its span, and values that sum to its own counts. */
static void check_pprof(const PbProfile *pb, const struct agg *a,
			const struct output_window *w)
{
	if (!pb)
		return;
	CHECK_EQ(pb->duration_nanos, (int64_t)(w->t1_ns - w->t0_ns));
	CHECK_EQ(pb->time_nanos, (int64_t)w->realtime_ns);
	CHECK_EQ(pb->n_sample_type, 2);
	/* cpu: its on-CPU weight and its LOST records' [lost] */
	CHECK_EQ(column_sum(pb, 0),
		 (int64_t)(a->sample_weight_ns - a->off_weight_ns +
			   a->lost_weight_ns));
	CHECK_EQ(column_sum(pb, 1),
		 (int64_t)(a->sample_records + a->lost_samples));
	CHECK(has_comment(pb, "tprof: window ["));
	CHECK(has_comment(pb, "exact=?"));
	CHECK(no_exact(pb));
}

/* Per thread, the windows' weights sum to the whole session's. */
static void check_threads(const struct agg *whole, const struct agg *a,
			  const struct agg *b)
{
	size_t i;

	for (i = 0; i < whole->nthreads; i++) {
		const struct agg_thread *t = &whole->threads[i];
		const struct agg_thread *x = agg__find_thread(a, t->tid);
		const struct agg_thread *y = agg__find_thread(b, t->tid);

		CHECK_EQ((x ? x->weight_ns : 0) + (y ? y->weight_ns : 0),
			 t->weight_ns);
		CHECK_EQ((x ? x->samples : 0) + (y ? y->samples : 0),
			 t->samples);
	}
}

static void test_windows_split_the_session(void)
{
	const char *raw = build_path("unit/e2e.raw");
	struct profile whole, live;
	struct windows ws = { 0 };
	struct profile_sink sink = { .ctx = &ws, .sample = on_sample,
				     .lost = on_lost };
	struct output_window ow[2];
	struct objects *objs;
	PbProfile *pb;
	uint64_t mid, end;
	int i;

	if (!need_file(raw, "the e2e suite writes it"))
		return;
	profile__init(&whole);
	CHECK(replay(&whole, raw));
	profile__finish(&whole);
	CHECK(whole.whole.nsamples > 2 && whole.whole.nthreads >= 2);
	CHECK(whole.whole.lost_samples > 0);
	ws.first = whole.whole.first_time_ns;
	mid = ws.first + (whole.whole.last_time_ns - ws.first) / 2;
	end = whole.last_time_ns + 1;
	agg__init(&ws.w[W_FIRST], ws.first, mid);
	agg__init(&ws.w[W_REST], mid, UINT64_MAX);
	agg__init(&ws.w[W_LATE], ws.first + 1, mid);
	agg__init(&ws.w[W_ENDED], mid, end);

	profile__init(&live);
	profile__set_sink(&live, &sink);
	CHECK(replay(&live, raw));
	/* the sink took every sample; the profile kept none of them */
	CHECK_EQ(ws.calls, whole.whole.sample_records);
	CHECK_EQ(live.sample_records, whole.whole.sample_records);
	CHECK_EQ(live.whole.nsamples, 0);
	CHECK_EQ(live.whole.nthreads, 0);
	CHECK_EQ(live.whole.sample_records, 0);
	CHECK_EQ(live.whole.lost_records, 0);
	CHECK_EQ(ws.nowhere, 0);

	/* two windows that split the session sum to it */
	CHECK(ws.w[W_FIRST].sample_records && ws.w[W_REST].sample_records);
	CHECK_EQ(ws.w[W_FIRST].sample_weight_ns + ws.w[W_REST].sample_weight_ns,
		 whole.whole.sample_weight_ns);
	CHECK_EQ(ws.w[W_FIRST].sample_records + ws.w[W_REST].sample_records,
		 whole.whole.sample_records);
	CHECK_EQ(ws.w[W_FIRST].lost_samples + ws.w[W_REST].lost_samples,
		 whole.whole.lost_samples);
	check_threads(&whole.whole, &ws.w[W_FIRST], &ws.w[W_REST]);
	/* samples outside a window count nowhere in it */
	CHECK(ws.at_first_ns > 0);
	CHECK_EQ(ws.w[W_LATE].sample_weight_ns,
		 ws.w[W_FIRST].sample_weight_ns - ws.at_first_ns);
	CHECK(ws.w[W_LATE].first_time_ns > ws.first);
	CHECK(ws.w[W_FIRST].last_time_ns < mid);
	CHECK_EQ(ws.w[W_ENDED].sample_weight_ns, ws.w[W_REST].sample_weight_ns);

	/* each window encodes mid-stream: the profile is not finished */
	CHECK(!live.finished);
	profile__index(&live);
	objs = objects__new();
	ow[0] = (struct output_window){ ws.first, mid, 1700000000000000000ULL };
	ow[1] = (struct output_window){ mid, end, 1700000000000000000ULL + 7 };
	pb = encode_window(&live, &ws.w[W_FIRST], &ow[0], objs);
	check_pprof(pb, &ws.w[W_FIRST], &ow[0]);
	pb_free(pb);
	pb = encode_window(&live, &ws.w[W_ENDED], &ow[1], objs);
	check_pprof(pb, &ws.w[W_ENDED], &ow[1]);
	pb_free(pb);
	/* the profile still takes records after an encode */
	ws.encoded = true;
	CHECK(replay(&live, raw));
	CHECK_EQ(live.sample_records, 2 * whole.whole.sample_records);

	objects__free(objs);
	for (i = 0; i < NWIN; i++)
		agg__free(&ws.w[i]);
	profile__free(&live);
	profile__free(&whole);
}

/* agg__add()'s edges: [t0, t1), and nothing once the samples are taken. */
static void test_agg_edges(void)
{
	uint64_t ips[2] = { 0x401000, 0x401100 };
	struct agg_sample s = { .pid = 5, .tid = 6, .period_ns = 1000,
				.nr = 2, .ips = ips, .weight_ns = 1000,
				.count = 1 };
	struct agg_sample *taken;
	struct agg a;
	size_t n = 0;

	agg__init(&a, 100, 200);
	CHECK(!agg__whole(&a));
	CHECK_EQ(agg__add(&a, &s, 99), -ERANGE);
	CHECK_EQ(agg__add(&a, &s, 200), -ERANGE);
	CHECK_EQ(a.sample_records, 0);
	CHECK_EQ(agg__add(&a, &s, 100), 0);
	ips[0] = 0;	/* the stack was copied */
	s.ips = (uint64_t[2]){ 0x401000, 0x401100 };
	CHECK_EQ(agg__add(&a, &s, 199), 0);
	CHECK_EQ(a.nsamples, 1);
	CHECK_EQ(a.samples[0].count, 2);
	CHECK_EQ(a.samples[0].weight_ns, 2000);
	CHECK_EQ(a.samples[0].first_time_ns, 100);
	CHECK_EQ(a.nthreads, 1);
	CHECK_EQ(a.threads[0].period_ns, 1000);
	taken = agg__take_samples(&a, &n);
	CHECK_EQ(n, 1);
	agg__free_samples(taken, n);
	CHECK_EQ(agg__add(&a, &s, 150), -EINVAL);
	CHECK_EQ(a.sample_records, 2);
	agg__free(&a);
}

const struct unit_test agg_tests[] = {
	{ "agg: a sample's edges, a copied stack, nothing after the samples are taken", test_agg_edges },
	{ "agg: a replay through a sink: windows that split the session sum to it, the profile keeps none, each window encodes mid-stream", test_windows_split_the_session },
	{ NULL, NULL },
};
