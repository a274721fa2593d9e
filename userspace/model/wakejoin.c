// SPDX-License-Identifier: GPL-2.0
/* tprof-read: waker stacks joined to the waits they ended (wakejoin.h). */
#include <stdlib.h>
#include <string.h>

#include "lib/util.h"
#include "model/wakejoin.h"

/* twice the entries: short chains */
#define NBUCKETS (2 * WAKEJOIN_MAX)

void wakejoin__init(struct wakejoin *j)
{
	memset(j, 0, sizeof(*j));
}

void wakejoin__free(struct wakejoin *j)
{
	free(j->ring);
	free(j->buckets);
	memset(j, 0, sizeof(*j));
}

static uint32_t bucket_of(int pid, int tid, uint32_t seq)
{
	return (uint32_t)(hash_u64(((uint64_t)(uint32_t)tid << 32 | seq) ^
				   hash_u64((uint32_t)pid)) &
			  (NBUCKETS - 1));
}

/* Unlink entry i (live) from its bucket and free it; counted by side. */
static void drop(struct wakejoin *j, uint32_t i)
{
	struct wake_entry *e = &j->ring[i];
	uint32_t *link = &j->buckets[bucket_of(e->pid, e->tid, e->seq)];

	while (*link && *link != i + 1)
		link = &j->ring[*link - 1].next;
	if (*link)
		*link = e->next;
	if (e->sides == WAKE_SIDE_STACK)
		j->lost_stacks++;
	else if (e->sides == WAKE_SIDE_WAIT && e->named)
		j->lost_waits++;
	e->sides = 0;
}

uint64_t wakejoin__id(struct wakejoin *j, enum wake_side side, int pid,
		      int tid, uint32_t seq, bool named)
{
	uint32_t b, i;
	struct wake_entry *e;

	if (!j->ring) {
		j->ring = xcalloc(WAKEJOIN_MAX, sizeof(*j->ring));
		j->buckets = xcalloc(NBUCKETS, sizeof(*j->buckets));
	}
	b = bucket_of(pid, tid, seq);
	for (i = j->buckets[b]; i; i = e->next) {
		e = &j->ring[i - 1];
		if (e->pid == pid && e->tid == tid && e->seq == seq) {
			/* each wait that finds its stack, or the stack its
			 * waits, once */
			if (side == WAKE_SIDE_WAIT &&
			    (e->sides & WAKE_SIDE_STACK))
				j->joined++;
			else if (side == WAKE_SIDE_STACK &&
				 !(e->sides & WAKE_SIDE_STACK))
				j->joined += e->nwaits;
			e->sides |= (uint8_t)side;
			e->named |= named;
			e->nwaits += side == WAKE_SIDE_WAIT;
			return e->id;
		}
	}
	/* the oldest entry is done with: its slot is reused */
	i = j->head;
	j->head = (j->head + 1) % WAKEJOIN_MAX;
	if (j->ring[i].sides)
		drop(j, i);
	e = &j->ring[i];
	e->pid = pid;
	e->tid = tid;
	e->seq = seq;
	e->sides = (uint8_t)side;
	e->named = named;
	e->nwaits = side == WAKE_SIDE_WAIT;
	e->id = ++j->next_id;
	e->next = j->buckets[b];
	j->buckets[b] = i + 1;
	return e->id;
}

void wakejoin__finish(struct wakejoin *j)
{
	uint32_t i;

	for (i = 0; j->ring && i < WAKEJOIN_MAX; i++)
		if (j->ring[i].sides)
			drop(j, i);
}
