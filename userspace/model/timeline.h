/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tprof-read: times as they come (nearly in order: records of several
 * CPUs' rings interleave), asked "how many at or before t" and "the newest
 * at or before t". Kept as sorted blocks of 2^k entries, one per bit of
 * the count (the logarithmic method): an add is O(1) in order and
 * O(log n) amortized otherwise, a query O(log n) in order and O(log^2 n)
 * otherwise. Comm changes and exec times of a thread, and MMAP marks, are
 * asked per sample; a scan would make a long stream quadratic.
 */
#ifndef _TPROF_TIMELINE_H
#define _TPROF_TIMELINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct tl_ent {
	uint64_t time;
	uint32_t seq;	/* the caller's index; the order of arrival */
};

struct timeline {
	struct tl_ent *e;
	uint32_t n, cap;
	bool unsorted;	/* an entry came older than the one before */
};

void timeline__free(struct timeline *tl);
/* Add (time, seq); seq grows with every add. */
void timeline__add(struct timeline *tl, uint64_t time, uint32_t seq);
/* Entries with time <= t. */
size_t timeline__count_le(const struct timeline *tl, uint64_t t);
/*
 * The entry with time <= t that is newest, by time then by arrival;
 * false if none.
 */
bool timeline__last_le(const struct timeline *tl, uint64_t t,
		       struct tl_ent *out);

#endif /* _TPROF_TIMELINE_H */
