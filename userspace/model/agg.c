// SPDX-License-Identifier: GPL-2.0
/* tprof-read: one aggregation of unwound samples (model/agg.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "model/agg.h"
#include "model/idtable.h"

void agg__init(struct agg *a, uint64_t t0_ns, uint64_t t1_ns)
{
	memset(a, 0, sizeof(*a));
	a->t0_ns = t0_ns;
	a->t1_ns = t1_ns;
	a->first_time_ns = UINT64_MAX;
}

bool agg__whole(const struct agg *a)
{
	return a->t0_ns == 0 && a->t1_ns == UINT64_MAX;
}

static uint64_t key_hash(const struct agg_sample *s)
{
	return hash_bytes(s->ips, (size_t)s->nr * 8,
			  hash_u64(((uint64_t)(uint32_t)s->tid << 32) ^
				   s->nr_kernel) ^
			  hash_u64(s->period_ns ^ s->truncated ^
				   (uint64_t)s->off_state << 1 ^
				   (uint64_t)s->exiting << 40 ^
				   (uint64_t)s->python << 41 ^
				   (uint64_t)s->thread_exit << 42 ^
				   (uint64_t)s->kernel_lr << 43) ^
			  hash_u64(((uint64_t)s->snap_epoch << 32) ^
				   s->comm_gen ^
				   (uint64_t)s->cgroup_gen << 20) ^
			  hash_bytes(&s->waker, sizeof(s->waker), 11) ^
			  (s->wake_id ? hash_u64(s->wake_id ^
						 (uint64_t)s->wake_stack << 63) :
			   0));
}

static bool same_key(const struct agg_sample *a, const struct agg_sample *s)
{
	return a->tid == s->tid && a->period_ns == s->period_ns &&
	       a->off_state == s->off_state && a->nr == s->nr &&
	       a->nr_kernel == s->nr_kernel &&
	       a->snap_epoch == s->snap_epoch && a->comm_gen == s->comm_gen &&
	       a->cgroup_gen == s->cgroup_gen &&
	       a->truncated == s->truncated && a->exiting == s->exiting &&
	       a->thread_exit == s->thread_exit && a->python == s->python &&
	       a->kernel_lr == s->kernel_lr &&
	       !memcmp(&a->waker, &s->waker, sizeof(s->waker)) &&
	       a->wake_id == s->wake_id && a->wake_stack == s->wake_stack &&
	       !memcmp(a->ips, s->ips, (size_t)s->nr * 8);
}

/* The sample of s's key, added (with a copy of its stack) if new. */
static struct agg_sample *sample_of(struct agg *a, const struct agg_sample *s)
{
	uint64_t h = key_hash(s);
	struct hiter it = { 0 };
	struct agg_sample *k;
	uint32_t item;

	while (hindex_next(&a->sample_idx, h, &it, &item))
		if (same_key(&a->samples[item - 1], s))
			return &a->samples[item - 1];
	GROW(a->samples, a->capsamples, a->nsamples + 1);
	k = &a->samples[a->nsamples++];
	*k = *s;
	k->weight_ns = 0;
	k->count = 0;
	k->ips = xmalloc((size_t)s->nr * 8 + 1);
	memcpy(k->ips, s->ips, (size_t)s->nr * 8);
	hindex_put(&a->sample_idx, h, a->nsamples);
	return k;
}

static struct agg_thread *thread_of(const struct agg *a, int tid, bool add)
{
	struct agg *w = (struct agg *)a;	/* written only with add */

	return IDTABLE_GET(w->threads, w->nthreads, w->capthreads,
			   w->thread_idx, tid, tid, hash_u64((uint32_t)tid),
			   add);
}

const struct agg_thread *agg__find_thread(const struct agg *a, int tid)
{
	return thread_of(a, tid, false);
}

int agg__add(struct agg *a, const struct agg_sample *s, uint64_t time_ns)
{
	struct agg_sample *k;
	struct agg_thread *t;

	if (time_ns < a->t0_ns || time_ns >= a->t1_ns)
		return -ERANGE;
	if (a->taken)
		return -EINVAL;
	k = sample_of(a, s);
	if (time_ns < k->first_time_ns || !k->count)
		k->first_time_ns = time_ns;
	k->weight_ns = sat_add(k->weight_ns, s->weight_ns);
	k->count++;
	/* a waker's stack: kept for its wait, no time of the session */
	if (s->wake_stack)
		return 0;
	if (time_ns < a->first_time_ns)
		a->first_time_ns = time_ns;
	if (time_ns > a->last_time_ns)
		a->last_time_ns = time_ns;

	t = thread_of(a, s->tid, true);
	t->pid = s->pid;
	a->sample_records++;
	a->sample_weight_ns = sat_add(a->sample_weight_ns, s->weight_ns);
	if (s->off_state) {
		t->off_samples++;
		t->off_weight_ns = sat_add(t->off_weight_ns, s->weight_ns);
		a->off_records++;
		a->off_weight_ns = sat_add(a->off_weight_ns, s->weight_ns);
		return 0;
	}
	t->period_ns = s->period_ns;
	t->samples++;
	t->weight_ns = sat_add(t->weight_ns, s->weight_ns);
	return 0;
}

void agg__add_lost(struct agg *a, uint64_t samples, uint64_t weight_ns)
{
	a->lost_samples = sat_add(a->lost_samples, samples);
	a->lost_weight_ns = sat_add(a->lost_weight_ns, weight_ns);
	a->lost_records++;
}

struct agg_sample *agg__take_samples(struct agg *a, size_t *n)
{
	struct agg_sample *s = a->samples;

	*n = a->nsamples;
	a->taken = true;
	a->samples = NULL;
	a->nsamples = 0;
	a->capsamples = 0;
	hindex_free(&a->sample_idx);
	return s;
}

void agg__free_samples(struct agg_sample *s, size_t n)
{
	size_t i;

	for (i = 0; s && i < n; i++)
		free(s[i].ips);
	free(s);
}

void agg__free(struct agg *a)
{
	if (!a)
		return;
	agg__free_samples(a->samples, a->nsamples);
	free(a->threads);
	hindex_free(&a->sample_idx);
	hindex_free(&a->thread_idx);
	memset(a, 0, sizeof(*a));
}
