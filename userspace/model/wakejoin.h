/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tprof-read: waker stacks joined to the waits they ended
 * (TPROF_F_WAKER_STACKS). A waker's stack is taken at the wakeup on the
 * waker's CPU's ring; the woken thread's off-CPU sample comes later on its
 * own CPU's ring; the reader takes the rings in turn, so either may come
 * first. Both name the wait by (woken pid, tid, seq): whichever comes
 * first opens an entry with a new wake id, the others find it, and all
 * samples carry that id (model/agg.h wake_id) to the outputs. Several
 * waits may carry one number: a chain of timed-out waits that the thread
 * re-entered at once, whose last wakeup (if a thread's) has the stack
 * (kmod/offcpu.c). So an entry stays until WAKEJOIN_MAX newer ones were
 * opened, or the end; one with a stack and no wait, or with a wait a
 * thread ended (@named) and no stack, is counted then.
 */
#ifndef _TPROF_WAKEJOIN_H
#define _TPROF_WAKEJOIN_H

#include <stdint.h>

/* entries waiting for their partner, at most */
#define WAKEJOIN_MAX 65536U

/* which side opened an entry */
enum wake_side { WAKE_SIDE_STACK = 1, WAKE_SIDE_WAIT = 2 };

struct wake_entry {
	int pid, tid;
	uint32_t seq;
	uint8_t sides;		/* enum wake_side bits seen; 0: free */
	bool named;		/* a wait of it that a thread ended */
	uint32_t nwaits;	/* its waits found */
	uint64_t id;
	uint32_t next;		/* the bucket's next entry + 1; 0: none */
};

struct wakejoin {
	struct wake_entry *ring;	/* WAKEJOIN_MAX, by age */
	uint32_t *buckets;		/* entry + 1; 0: none */
	uint32_t head;			/* the next entry to (re)use */
	uint64_t next_id;		/* the last id given */
	uint64_t joined;		/* waits found with their stack */
	/* entries whose partner never came: stacks of no sampled wait,
	 * waits whose stack was lost */
	uint64_t lost_stacks, lost_waits;
};

void wakejoin__init(struct wakejoin *j);
void wakejoin__free(struct wakejoin *j);
/*
 * The wake id of the wait (pid, tid, seq) for one side: the entry's if
 * one is open (the other side's, or another wait of its chain), else a
 * new one (an entry opened). @named: a wait (WAKE_SIDE_WAIT) whose own
 * waker is a thread: it should have a stack.
 */
uint64_t wakejoin__id(struct wakejoin *j, enum wake_side side, int pid,
		      int tid, uint32_t seq, bool named);
/* The stream's end: what still waits is counted as lost. */
void wakejoin__finish(struct wakejoin *j);

#endif /* _TPROF_WAKEJOIN_H */
