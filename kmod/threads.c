// SPDX-License-Identifier: GPL-2.0
/*
 * tprof: a session's thread table: preallocated, open addressing, claimed
 * lock-free by the CPU a thread is switched in on; exited threads' slots
 * are buried and reused; SET_THREAD_PERIOD requests, pending or in place.
 * A leaf: it knows nothing of sessions, probes or records.
 */
#include <linux/atomic.h>
#include <linux/hash.h>
#include <linux/lockdep.h>
#include <linux/minmax.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>

#include "threads.h"

static unsigned int table_bits = 13;
module_param(table_bits, uint, 0444);
MODULE_PARM_DESC(table_bits, "log2 of per-session thread slots (8..20, default 13)");

/* Longest probe sequence; a longer one counts the thread as dropped. */
#define TPROF_MAX_PROBES	256

/*
 * What a table of the current table_bits takes (charged, policy.c), with
 * @off the off-CPU clocks too.
 */
unsigned long tprof_threads_bytes(bool off)
{
	return (sizeof(struct tprof_thread) +
		(off ? sizeof(struct tprof_off) : 0)) << clamp(table_bits, 8U, 20U);
}

int tprof_threads_alloc(struct tprof_threads *tt, bool off)
{
	tt->bits = clamp(table_bits, 8U, 20U);
	atomic64_set(&tt->exited_on_cpu, 0);
	atomic64_set(&tt->seen, 0);
	atomic64_set(&tt->dropped, 0);
	raw_spin_lock_init(&tt->pend_lock);
	raw_spin_lock_init(&tt->claim_lock);
	tt->pend.n = 0;
	tt->upend.n = 0;
	/* Charged to the caller's memory cgroup, like the rings. */
	tt->slots = kvzalloc(sizeof(*tt->slots) << tt->bits, GFP_KERNEL_ACCOUNT);
	tt->off = NULL;
	if (tt->slots && off)
		tt->off = kvzalloc(sizeof(*tt->off) << tt->bits,
				   GFP_KERNEL_ACCOUNT);
	if (!tt->slots || (off && !tt->off)) {
		tprof_threads_free(tt);
		return -ENOMEM;
	}
	return 0;
}

void tprof_threads_free(struct tprof_threads *tt)
{
	kvfree(tt->slots);
	tt->slots = NULL;
	kvfree(tt->off);
	tt->off = NULL;
}

/* Takes a never-used or dead slot for @tid; false if someone was faster. */
/* Resets @t for @tid and publishes it. Context: claim_lock held. */
static void tprof_thread_claim(struct tprof_threads *tt, struct tprof_thread *t,
			       u32 tid)
{
	lockdep_assert_held(&tt->claim_lock);
	/* Lookups match no half-initialized slot. */
	WRITE_ONCE(t->key, TPROF_TID_CLAIMING);
	t->tid = tid;
	t->vtid = 0;
	t->started = false;
	t->on_cpu_ns = 0;
	t->next_point = 0;
	t->period_ns = 0;
	WRITE_ONCE(t->req, 0);
	t->samples = 0;
	t->weight_ns = 0;
	t->lost_samples = 0;
	t->lost_weight_ns = 0;
	memset(t->comm, 0, sizeof(t->comm));
	WRITE_ONCE(t->uaddr, 0);
	if (tt->off)
		memset(tprof_thread_off(tt, t), 0, sizeof(*tt->off));
	t->parked = NULL;
	/* Pairs with the acquire in tprof_thread_find(): fields are reset. */
	smp_store_release(&t->key, tid);
	atomic64_inc(&tt->seen);
}

static bool tprof_key_reusable(u32 key)
{
	return key != TPROF_TID_CLAIMING && key != TPROF_TID_EXITING &&
	       (key & TPROF_TID_DEAD);
}

/*
 * Lock-free lookup of @tid; with @reuse, also the first reusable (dead)
 * slot of its probe sequence, or the never-used one that ends it.
 */
static struct tprof_thread *tprof_thread_find(struct tprof_threads *tt,
					      u32 tid,
					      struct tprof_thread **reuse)
{
	u32 mask = (1U << tt->bits) - 1;
	u32 i = hash_32(tid, tt->bits);
	unsigned int n;

	if (reuse)
		*reuse = NULL;
	for (n = 0; n < TPROF_MAX_PROBES && n <= mask;
	     n++, i = (i + 1) & mask) {
		/* Pairs with the release in tprof_thread_claim(). */
		u32 key = smp_load_acquire(&tt->slots[i].key);

		if (key == tid)
			return &tt->slots[i];
		if (!key) {
			if (reuse && !*reuse)
				*reuse = &tt->slots[i];
			break;
		}
		if (reuse && !*reuse && tprof_key_reusable(key))
			*reuse = &tt->slots[i];
	}
	return NULL;
}

/**
 * tprof_thread_get() - find (or claim) the slot of a live thread.
 * @tt: the table.
 * @tid: global tid.
 * @claim: claim a slot when not found; only for the thread being switched
 *	in on this CPU, so one tid never has two claimers at once.
 *
 * Lookups are lock-free; claims (rare: a thread's first switch-in here)
 * and burials take @tt->claim_lock, so that a dead slot returns to
 * never-used when nothing lies past it (tprof_thread_bury()) and probe
 * sequences stay short under thread churn. Claims prefer the first dead
 * slot of the probe sequence.
 * Context: any; with @claim, IRQs off.
 * Return: the slot, or NULL (not found, or table full).
 */
struct tprof_thread *tprof_thread_get(struct tprof_threads *tt, u32 tid,
				      bool claim)
{
	struct tprof_thread *t, *reuse;

	t = tprof_thread_find(tt, tid, NULL);
	if (t || !claim)
		return t;
	raw_spin_lock(&tt->claim_lock);
	t = tprof_thread_find(tt, tid, &reuse);
	if (!t && reuse) {
		tprof_thread_claim(tt, reuse, tid);
		t = reuse;
	}
	raw_spin_unlock(&tt->claim_lock);
	if (!t)
		atomic64_inc(&tt->dropped);
	return t;
}

/**
 * tprof_thread_bury() - the thread exited: keep its time, free its slot.
 * @tt: the table.
 * @t: its slot.
 *
 * A dead slot followed by a never-used one is never-used again, and so are
 * the dead ones before it: no probe sequence needs to pass them (lookups
 * stop at the first never-used slot, so nothing live lies past it on a
 * sequence through them). Context: IRQs off.
 */
void tprof_thread_bury(struct tprof_threads *tt, struct tprof_thread *t)
{
	u32 mask = (1U << tt->bits) - 1;
	u32 key = t->key, i = t - tt->slots;

	lockdep_assert_irqs_disabled();
	atomic64_add(t->on_cpu_ns, &tt->exited_on_cpu);
	raw_spin_lock(&tt->claim_lock);
	/* An EXITING slot becomes reusable too (tid 0 | DEAD). */
	WRITE_ONCE(t->key, key == TPROF_TID_EXITING ? TPROF_TID_DEAD :
		   key | TPROF_TID_DEAD);
	if (!READ_ONCE(tt->slots[(i + 1) & mask].key)) {
		while (tprof_key_reusable(READ_ONCE(tt->slots[i].key))) {
			WRITE_ONCE(tt->slots[i].key, 0);
			i = (i - 1) & mask;
		}
	}
	raw_spin_unlock(&tt->claim_lock);
}

/**
 * tprof_thread_park() - @t's thread, past its exit probe, was switched out
 *	but will run again: keep its slot for tprof_thread_unpark().
 * @tt: the table.
 * @t: its slot (key TPROF_TID_EXITING).
 * @p: the thread.
 *
 * Context: IRQs off (sched_switch probe).
 * Return: false if TPROF_MAX_PARKED threads are parked already: the caller
 *	ends the thread's accounting now (THREAD_EXIT), as it always can.
 */
bool tprof_thread_park(struct tprof_threads *tt, struct tprof_thread *t,
		       struct task_struct *p)
{
	unsigned int i;
	bool ok = false;

	raw_spin_lock(&tt->claim_lock);
	for (i = 0; i < TPROF_MAX_PARKED; i++) {
		if (!tt->park[i]) {
			tt->park[i] = t;
			WRITE_ONCE(t->parked, p);
			WRITE_ONCE(tt->nparked, tt->nparked + 1);
			ok = true;
			break;
		}
	}
	raw_spin_unlock(&tt->claim_lock);
	return ok;
}

/**
 * tprof_thread_unpark() - the slot @p was parked in, taken back.
 * @tt: the table.
 * @p: a thread past its exit probe (PF_EXITING), being switched in.
 *
 * By task: the tid is not @p's for sure any more (de_thread()), and a
 * parent may have reaped its process. A parked task cannot be freed
 * before its final switch-out, which comes after this switch-in.
 * Context: IRQs off (sched_switch probe).
 * Return: the slot, or NULL.
 */
struct tprof_thread *tprof_thread_unpark(struct tprof_threads *tt,
					 struct task_struct *p)
{
	struct tprof_thread *t = NULL;
	unsigned int i;

	if (!READ_ONCE(tt->nparked))
		return NULL;
	raw_spin_lock(&tt->claim_lock);
	for (i = 0; i < TPROF_MAX_PARKED; i++) {
		if (tt->park[i] && tt->park[i]->parked == p) {
			t = tt->park[i];
			tt->park[i] = NULL;
			WRITE_ONCE(t->parked, NULL);
			WRITE_ONCE(tt->nparked, tt->nparked - 1);
			break;
		}
	}
	raw_spin_unlock(&tt->claim_lock);
	return t;
}

/*
 * Sets @t's request if @t is still @tid's slot. The slot may be buried and
 * claimed by another thread at any time: the tid travels in the same word,
 * and a claim resets it, so the cmpxchg never hands the request to another
 * thread nor erases that thread's own. Context: process.
 */
static void tprof_thread_request(struct tprof_thread *t, u32 tid, u64 period)
{
	u64 old = READ_ONCE(t->req);

	do {
		if (READ_ONCE(t->tid) != tid)
			return;
	} while (!try_cmpxchg64(&t->req, &old, tprof_req(tid, period)));
}

/*
 * Sets @tid's pending value in @p, or with @val 0 drops it. SET_THREAD_PERIOD
 * and SET_UWALK_TID keep theirs so for a thread that has no slot yet.
 * Context: any. Return: 0, or -ENOSPC when @p is full.
 */
static int tprof_pend_put(struct tprof_threads *tt, struct tprof_pending *p,
			  u32 tid, u64 val)
{
	unsigned long flags;
	unsigned int i;
	int ret = 0;

	raw_spin_lock_irqsave(&tt->pend_lock, flags);
	for (i = 0; i < p->n && p->e[i].tid != tid; i++)
		;
	if (!val) {
		if (i < p->n) {
			p->e[i] = p->e[p->n - 1];
			WRITE_ONCE(p->n, p->n - 1);
		}
	} else if (i < TPROF_MAX_PENDING) {
		p->e[i].tid = tid;
		p->e[i].val = val;
		if (i == p->n)
			WRITE_ONCE(p->n, i + 1);
	} else {
		ret = -ENOSPC;
	}
	raw_spin_unlock_irqrestore(&tt->pend_lock, flags);
	return ret;
}

/*
 * Takes @tid's pending value out of @p, at the thread's first sched-in;
 * the barrier pairs with the one its setter issues after tprof_pend_put():
 * either it sees the value or the setter sees the slot.
 * Context: IRQs off. Return: the value, 0 if none.
 */
static u64 tprof_pend_take(struct tprof_threads *tt, struct tprof_pending *p,
			   u32 tid)
{
	u64 val = 0;
	unsigned int i;

	lockdep_assert_irqs_disabled();
	/* Pairs with the setter's barrier after tprof_pend_put(). */
	smp_mb();
	if (!READ_ONCE(p->n))
		return 0;
	raw_spin_lock(&tt->pend_lock);
	for (i = 0; i < p->n; i++) {
		if (p->e[i].tid != tid)
			continue;
		val = p->e[i].val;
		p->e[i] = p->e[p->n - 1];
		WRITE_ONCE(p->n, p->n - 1);
		break;
	}
	raw_spin_unlock(&tt->pend_lock);
	return val;
}

/**
 * tprof_threads_set_period() - SET_THREAD_PERIOD for a thread.
 * @tt: the table.
 * @tid: global tid.
 * @period: new period.
 *
 * A thread without a slot (not run since ENABLE) gets a pending request,
 * taken at its first sched-in. Context: process.
 * Return: 0 or -ENOSPC.
 */
int tprof_threads_set_period(struct tprof_threads *tt, u32 tid, u64 period)
{
	struct tprof_thread *t = tprof_thread_get(tt, tid, false);
	int ret;

	if (t) {
		tprof_thread_request(t, tid, period);
		return 0;
	}
	ret = tprof_pend_put(tt, &tt->pend, tid, period);
	/*
	 * It may have claimed its slot meanwhile. Pairs with the barrier in
	 * tprof_threads_take_period(): it sees our request or we its slot.
	 */
	smp_mb();
	t = tprof_thread_get(tt, tid, false);
	if (t)
		tprof_thread_request(t, tid, period);
	return ret;
}

/* At a thread's first sched-in. Context: IRQs off. Return: 0 if none. */
u64 tprof_threads_take_period(struct tprof_threads *tt, u32 tid)
{
	/* Pairs with the barrier in tprof_threads_set_period(). */
	return tprof_pend_take(tt, &tt->pend, tid);
}

/*
 * Sets @t's walk start if @t is still @tid's slot: under claim_lock, as
 * claims and burials change that. Context: any.
 */
static bool tprof_thread_set_uaddr(struct tprof_threads *tt,
				   struct tprof_thread *t, u32 tid, u64 addr)
{
	unsigned long flags;
	bool ok;

	raw_spin_lock_irqsave(&tt->claim_lock, flags);
	ok = READ_ONCE(t->key) == tid;
	if (ok)
		WRITE_ONCE(t->uaddr, addr);
	raw_spin_unlock_irqrestore(&tt->claim_lock, flags);
	return ok;
}

/**
 * tprof_threads_set_uaddr() - SET_UWALK_TID for a thread (0 forgets it).
 * @tt: the table.
 * @tid: global tid of a live thread.
 * @addr: where its walks start.
 *
 * A thread without a slot (not run since ENABLE) gets a pending address,
 * taken at its first sched-in, as SET_THREAD_PERIOD's requests are.
 * Context: any (the exec probe forgets the exec'ing thread's).
 * Return: 0 or -ENOSPC.
 */
int tprof_threads_set_uaddr(struct tprof_threads *tt, u32 tid, u64 addr)
{
	struct tprof_thread *t = tprof_thread_get(tt, tid, false);
	int ret;

	if (t && tprof_thread_set_uaddr(tt, t, tid, addr))
		return 0;
	ret = tprof_pend_put(tt, &tt->upend, tid, addr);
	/*
	 * It may have claimed its slot meanwhile. Pairs with the barrier in
	 * tprof_threads_take_uaddr(): it sees our address or we its slot,
	 * and then nothing stays pending for a later thread of that tid.
	 */
	smp_mb();
	t = tprof_thread_get(tt, tid, false);
	if (t && tprof_thread_set_uaddr(tt, t, tid, addr)) {
		tprof_pend_put(tt, &tt->upend, tid, 0);
		ret = 0;
	}
	return ret;
}

/* At a thread's first sched-in. Context: IRQs off. Return: 0 if none. */
u64 tprof_threads_take_uaddr(struct tprof_threads *tt, u32 tid)
{
	/* Pairs with the barrier in tprof_threads_set_uaddr(). */
	return tprof_pend_take(tt, &tt->upend, tid);
}

/* Exact on-CPU time of all threads so far (live ones as of their last switch). */
u64 tprof_threads_on_cpu(struct tprof_threads *tt)
{
	u32 i, n = 1U << tt->bits;
	u64 sum = atomic64_read(&tt->exited_on_cpu);

	for (i = 0; i < n; i++) {
		struct tprof_thread *t = &tt->slots[i];
		u32 key = READ_ONCE(t->key);

		if (key && !(key & TPROF_TID_DEAD))
			sum += READ_ONCE(t->on_cpu_ns);
	}
	return sum;
}

