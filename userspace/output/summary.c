// SPDX-License-Identifier: GPL-2.0
/*
 * tprof-read: the facts every output states, computed once
 * (output/summary.h has the rules).
 */
#include <stdlib.h>
#include <string.h>

#include "lib/util.h"
#include "output/summary.h"

uint64_t summary__thread_period(const struct thread_info *t,
				const struct agg_thread *at)
{
	if (t->have_stat)
		return t->stat.period_ns;
	return at ? at->period_ns : 0;
}

bool summary__error_pct(uint64_t sampled_ns, uint64_t lost_ns,
			uint64_t exact_ns, double *pct)
{
	if (!exact_ns)
		return false;
	*pct = ((double)sampled_ns + (double)lost_ns - (double)exact_ns) *
	       100.0 / (double)exact_ns;
	return true;
}

static void lost_add(struct lost_count *c, uint64_t n, uint64_t w)
{
	c->samples = sat_add(c->samples, n);
	c->weight_ns = sat_add(c->weight_ns, w);
}

/* STATS if the stream has it, else the LOST records: never mixed. */
static struct lost_count ring_lost(const struct profile *p)
{
	struct lost_count c;

	if (p->have_stats) {
		c.samples = p->stats.lost_samples;
		c.weight_ns = p->stats.lost_weight_ns;
	} else {
		c.samples = p->lost_samples;
		c.weight_ns = p->lost_weight_ns;
	}
	return c;
}

static struct lost_count threads_lost(const struct profile *p)
{
	struct lost_count c = { 0, 0 };
	size_t i;

	for (i = 0; i < p->nthreads; i++) {
		const struct thread_info *t = &p->threads[i];

		/* as lost_entries() makes them: a thread with no lost
		 * sample has no `[lost]` sample, whatever its weight says */
		if (t->have_stat && t->stat.lost_samples)
			lost_add(&c, t->stat.lost_samples,
				 t->stat.lost_weight_ns);
		if (t->have_off && t->off.lost_samples)
			lost_add(&c, t->off.lost_samples,
				 t->off.lost_weight_ns);
	}
	return c;
}

static uint64_t max_u64(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

struct lost_count summary__lost(const struct profile *p)
{
	struct lost_count ring = ring_lost(p), th = threads_lost(p), c;

	c.samples = max_u64(ring.samples, th.samples);
	c.weight_ns = max_u64(ring.weight_ns, th.weight_ns);
	return c;
}

static void add_entry(struct summary *s, size_t *cap,
		      const struct thread_info *t, bool off, uint64_t period,
		      uint64_t n, uint64_t w)
{
	struct lost_entry *e;

	GROW(s->lost_entries, *cap, s->nlost_entries + 1);
	e = &s->lost_entries[s->nlost_entries++];
	e->t = t;
	e->off_cpu = off;
	e->period_ns = period;
	e->n.samples = n;
	e->n.weight_ns = w;
}

/* The `[lost]` samples: each thread's on-CPU, its off-CPU, the rest. */
static void lost_entries(struct summary *s, const struct profile *p)
{
	size_t cap = 0, i;

	for (i = 0; !s->window && i < p->nthreads; i++) {
		const struct thread_info *t = &p->threads[i];

		if (t->have_stat && t->stat.lost_samples)
			add_entry(s, &cap, t, false, t->stat.period_ns,
				  t->stat.lost_samples, t->stat.lost_weight_ns);
	}
	for (i = 0; !s->window && i < p->nthreads; i++) {
		const struct thread_info *t = &p->threads[i];

		if (t->have_off && t->off.lost_samples)
			add_entry(s, &cap, t, true, t->off.period_ns,
				  t->off.lost_samples, t->off.lost_weight_ns);
	}
	if (s->ring.weight_ns > s->by_threads.weight_ns ||
	    s->ring.samples > s->by_threads.samples)
		add_entry(s, &cap, NULL, false, 0,
			  s->lost.samples - s->by_threads.samples,
			  s->lost.weight_ns - s->by_threads.weight_ns);
}

/* A thread's share of its process's totals. */
static void add_totals(struct proc_totals *pt, const struct thread_summary *ts)
{
	pt->threads++;
	pt->samples += ts->samples;
	pt->weight_ns = sat_add(pt->weight_ns, ts->weight_ns);
	if (ts->exact) {
		pt->on_cpu_ns = sat_add(pt->on_cpu_ns, ts->on_cpu_ns);
		pt->lost_weight_ns = sat_add(pt->lost_weight_ns,
					     ts->lost.weight_ns);
	} else {
		pt->exact = false;
	}
}

/*
 * Each process's threads summed, in one pass over the thread summaries:
 * every process of the session, or a window's with threads in it.
 */
static void proc_tables(struct summary *s, const struct profile *p)
{
	struct proc_summary *all = xcalloc(p->nprocs + 1, sizeof(*all));
	size_t i, n = 0;

	for (i = 0; i < p->nprocs; i++) {
		all[i].pi = &p->procs[i];
		all[i].t.exact = true;
	}
	for (i = 0; i < s->nthreads; i++) {
		const struct proc_info *pi =
			profile__find_proc(p, s->threads[i].t->pid);

		if (pi)
			add_totals(&all[pi - p->procs].t, &s->threads[i]);
	}
	for (i = 0; i < p->nprocs; i++)
		if (!s->window || all[i].t.threads)
			all[n++] = all[i];
	s->procs = all;
	s->nprocs = n;
}

/* A thread's line: its samples in a, and (whole session) its exact CPU. */
static void thread_summary(struct thread_summary *ts,
			   const struct thread_info *t,
			   const struct agg_thread *at, bool window)
{
	ts->t = t;
	if (at) {
		ts->samples = at->samples;
		ts->weight_ns = at->weight_ns;
		ts->off_samples = at->off_samples;
		ts->off_weight_ns = at->off_weight_ns;
	}
	ts->period_ns = summary__thread_period(t, at);
	ts->exact = !window && t->have_stat;
	if (ts->exact) {
		ts->on_cpu_ns = t->stat.on_cpu_ns;
		ts->lost.samples = t->stat.lost_samples;
		ts->lost.weight_ns = t->stat.lost_weight_ns;
	}
}

/* Every thread of the session, or a window's with samples in it. */
static void thread_tables(struct summary *s, const struct profile *p,
			  const struct agg *a)
{
	size_t i;

	if (!s->window) {
		s->nthreads = p->nthreads;
		s->threads = xcalloc(p->nthreads + 1, sizeof(*s->threads));
		for (i = 0; i < p->nthreads; i++)
			thread_summary(&s->threads[i], &p->threads[i],
				       agg__find_thread(a, p->threads[i].tid),
				       false);
		return;
	}
	s->threads = xcalloc(a->nthreads + 1, sizeof(*s->threads));
	for (i = 0; i < a->nthreads; i++) {
		/* made by the sample that made at (profile.c) */
		const struct thread_info *t =
			profile__find_thread(p, a->threads[i].tid);

		if (t)
			thread_summary(&s->threads[s->nthreads++], t,
				       &a->threads[i], true);
	}
}

void summary__compute(struct summary *s, const struct profile *p,
		      const struct agg *a)
{
	memset(s, 0, sizeof(*s));
	s->window = !agg__whole(a);
	s->records = a->sample_records;
	s->samples = a->sample_records - a->off_records;
	s->weight_ns = a->sample_weight_ns - a->off_weight_ns;
	s->off_samples = a->off_records;
	s->off_weight_ns = a->off_weight_ns;

	if (s->window) {
		/* cumulative records say nothing of a window (summary.h) */
		s->ring.samples = a->lost_samples;
		s->ring.weight_ns = a->lost_weight_ns;
		s->lost = s->ring;
	} else {
		s->ring = ring_lost(p);
		s->by_threads = threads_lost(p);
		s->lost = summary__lost(p);
	}
	lost_entries(s, p);
	thread_tables(s, p, a);
	proc_tables(s, p);
}

void summary__free(struct summary *s)
{
	free(s->lost_entries);
	free(s->threads);
	free(s->procs);
	memset(s, 0, sizeof(*s));
}
