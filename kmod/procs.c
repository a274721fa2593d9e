// SPDX-License-Identifier: GPL-2.0
/*
 * tprof: a session's process table: its target, and with TPROF_F_CHILDREN
 * every descendant it follows (fork probe, ENABLE), found by tgid from the
 * probes (lock-free, RCU-sched readers: preemption or IRQs off).
 *
 * A process's slot lives until the process is gone and every thread of it
 * accounted (PROC_EXIT, written unless it was denied); then stop_work
 * retires it, and reuses it only after an RCU grace period, so that a
 * probe that found it never sees another process's fields. Slots are
 * preallocated: the fork probe cannot allocate, and past its table's
 * limit (TPROF_MAX_PROCS for a tree) it counts what it could not follow.
 */
#include <linux/bitops.h>
#include <linux/cred.h>
#include <linux/hash.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/percpu.h>
#include <linux/pid.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>

#include "procs.h"
#include "stack.h"
#include "tprof.h"

/* Slots of a TPROF_F_CHILDREN table: half of them used. */
#define TPROF_PROCS_BITS	11
static_assert(TPROF_MAX_PROCS == 1U << (TPROF_PROCS_BITS - 1));

/*
 * A cgroup session's table (TPROF_F_CGROUP, root only): its cgroup may be
 * the root, every process of a busy machine. At most half its slots used.
 */
#define TPROF_CGROUP_PROCS_BITS	14
static_assert(TPROF_DEFAULT_CGROUP_PROCS ==
	      1U << (TPROF_CGROUP_PROCS_BITS - 1));
static unsigned int cgroup_procs_bits = TPROF_CGROUP_PROCS_BITS;
module_param(cgroup_procs_bits, uint, 0444);
MODULE_PARM_DESC(cgroup_procs_bits,
		 "log2 of a cgroup session's process slots, half of them used (11..20, default 14: 8192 processes)");

static unsigned int tprof_procs_bits(enum tprof_procs_kind kind)
{
	switch (kind) {
	case TPROF_PROCS_TREE:
		return TPROF_PROCS_BITS;
	case TPROF_PROCS_CGROUP:
		return clamp(cgroup_procs_bits, TPROF_PROCS_BITS, 20U);
	default:
		return 1;
	}
}

/* What a session's table takes (charged with its rings). */
unsigned long tprof_procs_bytes(enum tprof_procs_kind kind)
{
	return sizeof(struct tprof_proc) << tprof_procs_bits(kind);
}

/*
 * Processes a session of @kind holds at once, at most: half its slots
 * (a tree's TPROF_MAX_PROCS, the target alone's 1).
 */
static u32 tprof_procs_max(enum tprof_procs_kind kind)
{
	return 1U << (tprof_procs_bits(kind) - 1);
}

/* Live processes of all tables per bucket (tprof_procs_anywhere()). */
atomic_t tprof_procs_filter[1U << TPROF_PROCS_FILTER_BITS];

/* @nr's bucket count: a process of it joins (+1) or leaves (-1). */
static void tprof_procs_filter_add(u32 nr, int d)
{
	atomic_add(d, &tprof_procs_filter[nr &
					  ((1U << TPROF_PROCS_FILTER_BITS) - 1)]);
}

/* Context: process. Return: 0 or -ENOMEM. */
int tprof_procs_alloc(struct tprof_procs *pt, enum tprof_procs_kind kind)
{
	pt->bits = tprof_procs_bits(kind);
	pt->max = tprof_procs_max(kind);
	pt->used = 0;
	atomic_set(&pt->live, 0);
	atomic_set(&pt->joined, 0);
	atomic_set(&pt->not_followed, 0);
	raw_spin_lock_init(&pt->lock);
	pt->slots = kvzalloc(sizeof(*pt->slots) << pt->bits,
			     GFP_KERNEL_ACCOUNT);
	pt->uread = alloc_percpu_gfp(struct tprof_uread_stats,
				     GFP_KERNEL_ACCOUNT);
	if (pt->slots && pt->uread)
		return 0;
	tprof_procs_free(pt);
	return -ENOMEM;
}

/* Context: process; no probe or work can reach the table any more. */
void tprof_procs_free(struct tprof_procs *pt)
{
	u32 i;

	free_percpu(pt->uread);
	pt->uread = NULL;
	if (!pt->slots)
		return;
	for (i = 0; i < (1U << pt->bits); i++) {
		/* retired ones left the filter already */
		if (pt->slots[i].state == TPROF_PROC_LIVE)
			tprof_procs_filter_add(pt->slots[i].tgid_nr, -1);
		if (pt->slots[i].tgid)
			put_pid(pt->slots[i].tgid);
		put_cred(pt->slots[i].label_cred);
		kfree(rcu_dereference_protected(pt->slots[i].uwalk, true));
	}
	kvfree(pt->slots);
	pt->slots = NULL;
}

/**
 * tprof_procs_find() - the live process of @tgid.
 * @pt: the table.
 * @tgid: a thread-group pid.
 *
 * Context: preemption or IRQs off (RCU-sched reader): the slot stays this
 * process's until the section ends.
 * Return: its slot or NULL.
 */
struct tprof_proc *tprof_procs_find(struct tprof_procs *pt, struct pid *tgid)
{
	u32 mask = (1U << pt->bits) - 1, i = hash_ptr(tgid, pt->bits), n;

	for (n = 0; n <= mask; n++, i = (i + 1) & mask) {
		struct tprof_proc *p = &pt->slots[i];
		/* Pairs with the release in tprof_procs_claim(). */
		u32 st = smp_load_acquire(&p->state);

		if (st == TPROF_PROC_FREE)
			break;
		if (st == TPROF_PROC_LIVE && READ_ONCE(p->tgid) == tgid)
			return p;
	}
	return NULL;
}

/**
 * tprof_procs_claim() - add the process of @tgid (or find it).
 * @pt: the table.
 * @tgid: its thread-group pid.
 * @vpid: its tgid in the session's namespace.
 * @label: its LSM security label now (tprof_policy_label_of()).
 * @bits: its TPROF_P_* bits to start with (TPROF_P_PENDING, or 0); it
 *	starts TPROF_P_GUARDED too, until someone knows better.
 * @existed: set when it was there already.
 *
 * Context: any (the fork probe: preemption off).
 * Return: its slot, or NULL when @pt->max processes are held (the caller
 *	says so: a PROC record with TPROF_RF_PROC_DROPPED).
 */
struct tprof_proc *tprof_procs_claim(struct tprof_procs *pt, struct pid *tgid,
				     u32 vpid, u32 label, unsigned long bits,
				     bool *existed)
{
	u32 mask = (1U << pt->bits) - 1, i = hash_ptr(tgid, pt->bits), n;
	struct tprof_proc *reuse = NULL, *p = NULL;
	unsigned long flags;

	*existed = false;
	raw_spin_lock_irqsave(&pt->lock, flags);
	for (n = 0; n <= mask; n++, i = (i + 1) & mask) {
		struct tprof_proc *q = &pt->slots[i];

		if (q->state == TPROF_PROC_LIVE && q->tgid == tgid) {
			*existed = true;
			p = q;
			goto out;
		}
		if (!reuse && (q->state == TPROF_PROC_DEAD ||
			       q->state == TPROF_PROC_FREE))
			reuse = q;
		if (q->state == TPROF_PROC_FREE)
			break;
	}
	if (!reuse || pt->used >= pt->max) {
		atomic_inc(&pt->not_followed);
		goto out;
	}
	p = reuse;
	pt->used++;
	atomic_inc(&pt->joined);
	p->tgid = get_pid(tgid);
	p->vpid = vpid;
	p->tgid_nr = pid_nr(tgid);
	p->bits = bits | BIT(TPROF_P_GUARDED);
	p->exit_code = 0;
	p->label = label;
	p->label_cred = NULL;			/* put when it was swept */
	RCU_INIT_POINTER(p->uwalk, NULL);	/* freed when it was swept */
	atomic_set(&p->exiting, 1);
	atomic_inc(&pt->live);
	tprof_procs_filter_add(p->tgid_nr, 1);
	/* Pairs with the acquire in tprof_procs_find(): fields first. */
	smp_store_release(&p->state, TPROF_PROC_LIVE);
out:
	raw_spin_unlock_irqrestore(&pt->lock, flags);
	return p;
}

/*
 * @p leaves the session (PROC_EXIT, or DENIED), once. Context: any.
 * Return: true if it was the last process in it.
 */
bool tprof_proc_leave(struct tprof_procs *pt, struct tprof_proc *p)
{
	if (test_and_set_bit(TPROF_P_LEFT, &p->bits))
		return false;
	return atomic_dec_and_test(&pt->live);
}

/*
 * Gone, and every thread of it accounted (PROC_EXIT, written or, for a
 * denied process, not): no thread holds the slot (tprof_thread.proc).
 */
static bool tprof_proc_over(struct tprof_proc *p)
{
	return test_bit(TPROF_P_EXITED, &p->bits);
}

/**
 * tprof_procs_sweep() - free the slots of processes that are over.
 * @pt: the table.
 *
 * Retired slots are not found any more; after a grace period no probe
 * holds one, and it is reused. A dead slot followed by a never-used one is
 * never-used again, as in the thread table.
 * Context: process (stop_work: the table's only sweeper); may sleep.
 */
void tprof_procs_sweep(struct tprof_procs *pt)
{
	u32 n = 1U << pt->bits, mask = n - 1, i, j;
	bool any = false;

	for (i = 0; i < n; i++) {
		struct tprof_proc *p = &pt->slots[i];

		if (READ_ONCE(p->state) == TPROF_PROC_LIVE && tprof_proc_over(p)) {
			raw_spin_lock_irq(&pt->lock);
			WRITE_ONCE(p->state, TPROF_PROC_RETIRED);
			tprof_procs_filter_add(p->tgid_nr, -1);
			raw_spin_unlock_irq(&pt->lock);
			any = true;
		}
	}
	if (!any)
		return;
	synchronize_rcu();
	for (i = 0; i < n; i++) {
		struct tprof_proc *p = &pt->slots[i];

		if (p->state != TPROF_PROC_RETIRED)
			continue;
		put_pid(p->tgid);
		/* nobody sets it now: the process is not found any more */
		kfree(rcu_dereference_protected(p->uwalk, true));
		RCU_INIT_POINTER(p->uwalk, NULL);
		put_cred(p->label_cred);
		p->label_cred = NULL;
		raw_spin_lock_irq(&pt->lock);
		p->tgid = NULL;
		WRITE_ONCE(p->state, TPROF_PROC_DEAD);
		pt->used--;
		if (READ_ONCE(pt->slots[(i + 1) & mask].state) ==
		    TPROF_PROC_FREE) {
			for (j = i; pt->slots[j].state == TPROF_PROC_DEAD;
			     j = (j - 1) & mask)
				WRITE_ONCE(pt->slots[j].state,
					   TPROF_PROC_FREE);
		}
		raw_spin_unlock_irq(&pt->lock);
	}
}
