/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tprof-read: an interval tree (a treap by start, each node keeping the
 * largest limit below it) over nodes the caller keeps in an array: node
 * id (1-based) is n[id - 1], 0 is none. Which intervals hold an address,
 * or overlap a range, in O(log n) plus one step per interval reported; an
 * insert in O(log n) expected, so snapshots that keep adding mappings
 * never rebuild an index.
 */
#ifndef _TPROF_ITREE_H
#define _TPROF_ITREE_H

#include <stdbool.h>
#include <stdint.h>

struct itnode {
	uint64_t start, limit;	/* [start, limit) */
	uint64_t maxlim;	/* largest limit in this subtree */
	uint32_t left, right;
};

/* Insert node id (its start and limit set) into the tree at *root. */
void itree_insert(struct itnode *n, uint32_t *root, uint32_t id);

/* Called per interval found; true stops the walk. */
typedef bool (*itree_fn)(void *ctx, uint32_t id);

/*
 * fn for each node with limit > lo and start < hi (start <= hi when
 * hi_incl: an address's own query is lo = hi = addr, with no overflow at
 * the top of the address space). Returns whether fn stopped it.
 */
bool itree_query(const struct itnode *n, uint32_t root, uint64_t lo,
		 uint64_t hi, bool hi_incl, itree_fn fn, void *ctx);

#endif /* _TPROF_ITREE_H */
