// SPDX-License-Identifier: GPL-2.0
/* tprof-agent: windows of one session, each a profile request's. */
#include <errno.h>
#include <malloc.h>
#include <stdlib.h>
#include <string.h>

#include "agent/windows.h"
#include "lib/util.h"

/*
 * How long past t1 a window waits for a lagging reader: go tool pprof
 * gives up at 1.5 x seconds (its fetch timeout), so at most a quarter of
 * the window, and never more than a second.
 */
static uint64_t grace_ns(unsigned int seconds)
{
	uint64_t q = (uint64_t)seconds * 1000000000ULL / 4;

	return q < 1000000000ULL ? q : 1000000000ULL;
}

void windows__open(struct windows *ws, struct http_req *q, uint64_t t0_ns,
		   unsigned int seconds, bool cpu_only)
{
	struct window *w = xcalloc(1, sizeof(*w));

	w->w.t0_ns = t0_ns;
	w->w.t1_ns = t0_ns + (uint64_t)seconds * 1000000000ULL;
	w->w.realtime_ns = now_ns(CLOCK_REALTIME);
	w->deadline_ns = w->w.t1_ns + grace_ns(seconds);
	w->q = q;
	w->cpu_only = cpu_only;
	agg__init(&w->agg, w->w.t0_ns, w->w.t1_ns);
	w->next = ws->open;
	ws->open = w;
	ws->nopen++;
}

/* Did a window that holds time_ns close before the sample came? */
static bool closed_holds(const struct windows *ws, uint64_t time_ns)
{
	unsigned int i, n = ws->nclosed < WINDOW_CLOSED_KEPT ?
			    ws->nclosed : WINDOW_CLOSED_KEPT;

	for (i = 0; i < n; i++)
		if (time_ns >= ws->closed[i].t0 && time_ns < ws->closed[i].t1)
			return true;
	return false;
}

void windows__sample(struct windows *ws, const struct agg_sample *s,
		     uint64_t time_ns)
{
	struct window *w;

	/* a waker's stack is no time of a window (the agent asks for none,
	 * and the model drops them: one from a module that sent it anyway) */
	if (s->wake_stack)
		return;
	for (w = ws->open; w; w = w->next)
		if (time_ns >= w->w.t0_ns && time_ns < w->w.t1_ns &&
		    !(w->cpu_only && s->off_state))
			agg__add(&w->agg, s, time_ns);
	if (closed_holds(ws, time_ns))
		ws->late_samples++;
}

void windows__lost(struct windows *ws, uint64_t time_ns, uint64_t samples,
		   uint64_t weight_ns)
{
	struct window *w;

	for (w = ws->open; w; w = w->next)
		if (time_ns >= w->w.t0_ns && time_ns < w->w.t1_ns)
			agg__add_lost(&w->agg, samples, weight_ns);
}


/* Encode w's profile and answer its request; w is freed. */
static void close_one(struct windows *ws, struct window *w,
		      const struct profile *p, const struct output_env *env,
		      uint64_t end_ns)
{
	static const char *const hdrs[] = {
		"Content-Disposition", "attachment; filename=\"profile\"",
		NULL,
	};
	uint64_t t = now_ns(CLOCK_MONOTONIC);
	uint8_t *bytes = NULL;
	size_t len = 0;
	unsigned int k;
	int ret;

	if (end_ns < w->w.t1_ns)
		w->w.t1_ns = end_ns > w->w.t0_ns ? end_ns : w->w.t0_ns;
	ret = output__encode(p, &w->agg, &w->w, env, &bytes, &len);
	agg__free(&w->agg);
	ws->last_encode_ns = now_ns(CLOCK_MONOTONIC) - t;
	ws->encode_ns += ws->last_encode_ns;
	ws->encodes++;
	if (ret) {
		free(bytes);
		ws->failed++;
		http__error(w->q, 500, "encoding the profile: %s",
			    strerror(-ret));
	} else {
		ws->served++;
		http__reply(w->q, 200, "application/octet-stream", bytes, len,
			    hdrs);
	}
	k = ws->nclosed++ % WINDOW_CLOSED_KEPT;
	ws->closed[k].t0 = w->w.t0_ns;
	ws->closed[k].t1 = w->w.t1_ns;
	free(w);
}

void windows__close_due(struct windows *ws, const struct profile *p,
			const struct output_env *env, uint64_t now_ns,
			uint64_t consumed_to_ns, bool ended)
{
	struct window **pw = &ws->open, *w;
	unsigned int closed = 0;

	while ((w = *pw)) {
		if (!ended && now_ns < w->deadline_ns &&
		    consumed_to_ns < w->w.t1_ns + WINDOW_SLACK_NS) {
			pw = &w->next;
			continue;
		}
		*pw = w->next;
		ws->nopen--;
		close_one(ws, w, p, env, ended ? now_ns : w->w.t1_ns);
		closed++;
	}
	/* an encode's scratch back to the kernel now, not at the next
	 * eviction (5 s): the soak read RSS after each answer, and free
	 * memory glibc held then moved it by up to 6.8 MB (heap in use
	 * flat at 39.7 MB) */
	if (closed)
		malloc_trim(0);
}

int windows__timeout_ms(const struct windows *ws, uint64_t now_ns)
{
	const struct window *w;
	uint64_t first = UINT64_MAX;

	for (w = ws->open; w; w = w->next)
		if (w->deadline_ns < first)
			first = w->deadline_ns;
	if (first == UINT64_MAX)
		return -1;
	if (first <= now_ns)
		return 0;
	/* the watermark is what usually closes it: look again soon */
	return (first - now_ns) / 1000000 > 50 ? 50 :
	       (int)((first - now_ns) / 1000000) + 1;
}
