// SPDX-License-Identifier: GPL-2.0
/* tprof-read: a log of times, queried by time (see timeline.h). */
#include <stdlib.h>
#include <string.h>

#include "model/timeline.h"
#include "lib/util.h"

static bool le(const struct tl_ent *a, const struct tl_ent *b)
{
	return a->time < b->time || (a->time == b->time && a->seq <= b->seq);
}

void timeline__free(struct timeline *tl)
{
	free(tl->e);
	memset(tl, 0, sizeof(*tl));
}

/* Merge the sorted runs e[0..h) and e[h..2h) into one. */
static void merge(struct tl_ent *e, size_t h)
{
	struct tl_ent *tmp;
	size_t i = 0, j = h, k = 0;

	if (le(&e[h - 1], &e[h]))
		return;		/* in order already: the usual case */
	tmp = xmalloc(2 * h * sizeof(*tmp));
	while (i < h && j < 2 * h)
		tmp[k++] = le(&e[i], &e[j]) ? e[i++] : e[j++];
	while (i < h)
		tmp[k++] = e[i++];
	while (j < 2 * h)
		tmp[k++] = e[j++];
	memcpy(e, tmp, 2 * h * sizeof(*tmp));
	free(tmp);
}

void timeline__add(struct timeline *tl, uint64_t time, uint32_t seq)
{
	uint32_t n, s;

	if (tl->n == tl->cap) {
		tl->cap = tl->cap ? tl->cap * 2 : 4;
		tl->e = xrealloc(tl->e, (size_t)tl->cap * sizeof(*tl->e));
	}
	if (tl->n && time < tl->e[tl->n - 1].time)
		tl->unsorted = true;
	tl->e[tl->n++] = (struct tl_ent){ .time = time, .seq = seq };
	/* the blocks the carry of n - 1 + 1 joins: the last n & -n */
	n = tl->n;
	for (s = 1; s < (n & -n); s <<= 1)
		merge(&tl->e[n - 2 * s], s);
}

/* In sorted e[0..n): how many have time <= t. */
static size_t upper(const struct tl_ent *e, size_t n, uint64_t t)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (e[mid].time <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Call fn per sorted block: all of e when it came in order. */
#define FOR_BLOCKS(tl, off, len)					\
	for (size_t _bit = 32, off = 0, len = 0; _bit-- > 0; off += len) \
		if (((len) = (tl)->unsorted ?				\
			    ((tl)->n & (1U << _bit)) : 		\
			    (_bit ? 0 : (tl)->n)) != 0)

size_t timeline__count_le(const struct timeline *tl, uint64_t t)
{
	size_t n = 0;

	/* the usual case, once per sample: in order, or empty */
	if (!tl->unsorted)
		return tl->n ? upper(tl->e, tl->n, t) : 0;
	FOR_BLOCKS(tl, off, len)
		n += upper(tl->e + off, len, t);
	return n;
}

bool timeline__last_le(const struct timeline *tl, uint64_t t,
		       struct tl_ent *out)
{
	bool found = false;

	FOR_BLOCKS(tl, off, len) {
		size_t k = upper(tl->e + off, len, t);

		if (k && (!found || le(out, &tl->e[off + k - 1]))) {
			*out = tl->e[off + k - 1];
			found = true;
		}
	}
	return found;
}
