// SPDX-License-Identifier: GPL-2.0
/* tprof-read: an interval treap over caller-owned nodes. */
#include "model/itree.h"
#include "lib/util.h"

/* Heap order from the id: deterministic, and balanced in expectation. */
static uint64_t prio(uint32_t id)
{
	return hash_u64((uint64_t)id * 0x9e3779b97f4a7c15ULL);
}

static void fix(struct itnode *n, uint32_t id)
{
	struct itnode *x = &n[id - 1];

	x->maxlim = x->limit;
	if (x->left && n[x->left - 1].maxlim > x->maxlim)
		x->maxlim = n[x->left - 1].maxlim;
	if (x->right && n[x->right - 1].maxlim > x->maxlim)
		x->maxlim = n[x->right - 1].maxlim;
}

static bool before(const struct itnode *n, uint32_t a, uint32_t b)
{
	const struct itnode *x = &n[a - 1], *y = &n[b - 1];

	return x->start < y->start || (x->start == y->start && a < b);
}

/*
 * A rotation: root's child c (*down, root's link to it) takes root's
 * place; c's inner subtree (*up, c's link on the other side) moves to
 * root, and root under c. Returns c, the subtree's new root.
 */
static uint32_t rotate(struct itnode *n, uint32_t root, uint32_t *down,
		       uint32_t *up)
{
	uint32_t c = *down;

	*down = *up;
	*up = root;
	fix(n, root);
	fix(n, c);
	return c;
}

static uint32_t insert(struct itnode *n, uint32_t root, uint32_t id)
{
	struct itnode *r;
	uint32_t c;

	if (!root) {
		n[id - 1].left = n[id - 1].right = 0;
		fix(n, id);
		return id;
	}
	r = &n[root - 1];
	if (before(n, id, root)) {
		r->left = insert(n, r->left, id);
		c = r->left;
		if (prio(c) > prio(root))	/* rotate right */
			return rotate(n, root, &r->left, &n[c - 1].right);
	} else {
		r->right = insert(n, r->right, id);
		c = r->right;
		if (prio(c) > prio(root))	/* rotate left */
			return rotate(n, root, &r->right, &n[c - 1].left);
	}
	fix(n, root);
	return root;
}

void itree_insert(struct itnode *n, uint32_t *root, uint32_t id)
{
	*root = insert(n, *root, id);
}

bool itree_query(const struct itnode *n, uint32_t root, uint64_t lo,
		 uint64_t hi, bool hi_incl, itree_fn fn, void *ctx)
{
	while (root) {
		const struct itnode *r = &n[root - 1];

		/* nothing below reaches past lo */
		if (r->maxlim <= lo)
			return false;
		if (r->left &&
		    itree_query(n, r->left, lo, hi, hi_incl, fn, ctx))
			return true;
		/* this node and those right of it start too late */
		if (hi_incl ? r->start > hi : r->start >= hi)
			return false;
		if (r->limit > lo && fn(ctx, root))
			return true;
		root = r->right;
	}
	return false;
}
