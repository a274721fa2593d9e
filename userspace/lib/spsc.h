/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tprof-read: a list one thread appends to and one other thread takes
 * from, with no lock, so that neither ever waits for the other. The drain
 * thread (live/drain.c) must not: with a mutex between it and the loop, a
 * loop preempted with the mutex held (nice 0, among a target's 16 spinners
 * on one CPU: 68 ms before its next turn) kept the drain thread from the
 * rings, and 64 KiB of them filled (case 63's attach16s, 26-90 samples
 * lost in 3 of 10 runs).
 *
 * The appender also frees the nodes the taker is done with
 * (spsc__reclaim()), so that the taker frees nothing and the two share no
 * allocator lock either (glibc's free() of a chunk from another thread's
 * arena takes that arena's lock). After D. Vyukov's unbounded SPSC queue:
 * the taker's last node stays in the list as its head, and is the
 * appender's again once the taker took the next one.
 */
#ifndef _TPROF_LIB_SPSC_H
#define _TPROF_LIB_SPSC_H

#include <stdatomic.h>
#include <stddef.h>

struct spsc_node {
	struct spsc_node *_Atomic next;
};

struct spsc {
	struct spsc_node stub;		/* the head before anything was taken */
	/* the taker's: the node it took last, still its own */
	struct spsc_node *_Atomic taken;
	/* the appender's */
	struct spsc_node *tail;		/* the last node appended */
	struct spsc_node *oldest;	/* the oldest node not reclaimed */
};

static inline void spsc__init(struct spsc *q)
{
	atomic_init(&q->stub.next, NULL);
	atomic_init(&q->taken, &q->stub);
	q->tail = &q->stub;
	q->oldest = &q->stub;
}

/* Appender: n goes last; the taker sees what n holds (release). */
static inline void spsc__append(struct spsc *q, struct spsc_node *n)
{
	atomic_store_explicit(&n->next, NULL, memory_order_relaxed);
	atomic_store_explicit(&q->tail->next, n, memory_order_release);
	q->tail = n;
}

/*
 * Appender: the oldest node the taker is done with (taken before the one
 * it took last), out of the list and the appender's to free or reuse; NULL
 * if none.
 */
static inline struct spsc_node *spsc__reclaim(struct spsc *q)
{
	struct spsc_node *n;

	for (;;) {
		n = q->oldest;
		/* acquire: the taker's reads of n happened before */
		if (n == atomic_load_explicit(&q->taken, memory_order_acquire))
			return NULL;
		/* n is before the taken node: its next is set (by us) */
		q->oldest = atomic_load_explicit(&n->next, memory_order_relaxed);
		if (n != &q->stub)
			return n;
	}
}

/* Taker: the node after its last one, or NULL; not taken yet. */
static inline struct spsc_node *spsc__peek(struct spsc *q)
{
	struct spsc_node *t = atomic_load_explicit(&q->taken,
						    memory_order_relaxed);

	/* acquire: pairs with spsc__append()'s release */
	return atomic_load_explicit(&t->next, memory_order_acquire);
}

/*
 * Taker: take the next node (NULL: none yet). The one taken before is
 * given back to the appender: the taker must be done with it.
 */
static inline struct spsc_node *spsc__take(struct spsc *q)
{
	struct spsc_node *n = spsc__peek(q);

	if (n)
		atomic_store_explicit(&q->taken, n, memory_order_release);
	return n;
}

/*
 * Once neither thread uses the list (the appender joined): the nodes
 * still in it, one by one, for the caller to free; NULL when none is left.
 * The list must be initialised again before any other use.
 */
static inline struct spsc_node *spsc__left(struct spsc *q)
{
	struct spsc_node *n;

	while ((n = q->oldest)) {
		q->oldest = atomic_load_explicit(&n->next, memory_order_relaxed);
		if (n != &q->stub)
			return n;
	}
	return NULL;
}

#endif /* _TPROF_LIB_SPSC_H */
