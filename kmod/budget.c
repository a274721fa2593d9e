// SPDX-License-Identifier: GPL-2.0
/*
 * tprof: the sampling budget of unprivileged users, perf's
 * perf_cpu_time_max_percent per user: past sample_cpu_percent of a CPU's
 * 10 ms window spent sampling, the user's sessions are throttled (their
 * periods, CPU and off-CPU, x2 from each thread's next point, and a
 * THROTTLE record), rather than the machine slowed.
 *
 * Per user, not per session: all of a user's sessions charge one window
 * per CPU and share one stretch, so four sessions get the share one gets,
 * and the state outlives the user's last session by TPROF_BUDGET_KEEP_NS:
 * a session opened again meanwhile starts where the last one left, and
 * re-opening sessions gains nothing. The user is the opener of the
 * session's file (tprof_policy_caller()), the one /dev/tprof's permission
 * let in: a process that took on a subordinate uid in its own user
 * namespace cannot multiply its share with it.
 */
#include <linux/atomic.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/sched/clock.h>
#include <linux/sched/user.h>
#include <linux/smp.h>
#include <linux/string.h>
#include <linux/timekeeping.h>

#include "budget.h"
#include "policy.h"
#include "ring.h"
#include "session.h"
#include "tprof.h"

/* A budget window: sample_cpu_percent of it on one CPU. */
#define TPROF_BUDGET_WINDOW_NS	(10 * NSEC_PER_MSEC)
/* A user's periods grow at most 2^this times (and to the max period). */
#define TPROF_MAX_THROTTLE_SHIFT	16
/* How long a user's budget outlives its last session: many windows. */
#define TPROF_BUDGET_KEEP_NS	NSEC_PER_SEC
/*
 * Users with a budget at once: each unprivileged session's user, and as
 * many again kept after their last session closed.
 */
#define TPROF_BUDGET_SLOTS	(2 * TPROF_MAX_UNPRIV_SESSIONS)

struct tprof_budget_cpu {
	u64 start;
	u64 used;
};

static DEFINE_MUTEX(tprof_budget_mutex);
static struct tprof_budget tprof_budgets[TPROF_BUDGET_SLOTS];

/* A slot for another user: state and windows from zero. Context: mutex. */
static void tprof_budget_reset(struct tprof_budget *b)
{
	int cpu;

	WRITE_ONCE(b->shift, 0);
	b->throttle_ns = 0;
	for_each_possible_cpu(cpu)
		memset(per_cpu_ptr(b->cpu, cpu), 0, sizeof(struct tprof_budget_cpu));
}

/*
 * The slot of @user: its own if it has one; else a free one, else the one
 * released longest ago. Context: tprof_budget_mutex held.
 */
static struct tprof_budget *tprof_budget_slot(struct user_struct *user)
{
	struct tprof_budget *b, *old = NULL;

	for (b = tprof_budgets; b < tprof_budgets + TPROF_BUDGET_SLOTS; b++)
		if (b->user == user)
			return b;
	for (b = tprof_budgets; b < tprof_budgets + TPROF_BUDGET_SLOTS; b++) {
		if (!b->user)
			return b;
		if (!b->refs && (!old || b->released_ns < old->released_ns))
			old = b;
	}
	return old;
}

/**
 * tprof_budget_get() - a session of @user joins its budget.
 * @user: the session's user (the grant's).
 * @out: set to the budget, for tprof_budget_put().
 *
 * Context: process.
 * Return: 0, -ENOMEM or -ENOSPC (no slot: cannot happen while
 *	TPROF_BUDGET_SLOTS exceeds the unprivileged sessions).
 */
int tprof_budget_get(struct user_struct *user, struct tprof_budget **out)
{
	struct tprof_budget *b;
	int ret = 0;

	mutex_lock(&tprof_budget_mutex);
	b = tprof_budget_slot(user);
	if (!b) {
		ret = -ENOSPC;
		goto out_unlock;
	}
	if (!b->cpu) {
		b->cpu = alloc_percpu(struct tprof_budget_cpu);
		if (!b->cpu) {
			ret = -ENOMEM;
			goto out_unlock;
		}
	}
	if (b->user != user) {
		if (b->user)
			free_uid(b->user);
		b->user = get_uid(user);
		tprof_budget_reset(b);
	} else if (!b->refs &&
		   ktime_get_ns() - b->released_ns >= TPROF_BUDGET_KEEP_NS) {
		tprof_budget_reset(b);
	}
	b->refs++;
	*out = b;
out_unlock:
	mutex_unlock(&tprof_budget_mutex);
	return ret;
}

/*
 * A session leaves its user's budget (no sample of it is left to run).
 * Context: process.
 */
void tprof_budget_put(struct tprof_budget *b)
{
	if (!b)
		return;
	mutex_lock(&tprof_budget_mutex);
	if (!--b->refs)
		b->released_ns = ktime_get_ns();
	mutex_unlock(&tprof_budget_mutex);
}

/* Context: module exit: no session is left. */
void tprof_budget_exit(void)
{
	struct tprof_budget *b;

	for (b = tprof_budgets; b < tprof_budgets + TPROF_BUDGET_SLOTS; b++) {
		if (b->user)
			free_uid(b->user);
		free_percpu(b->cpu);
		*b = (struct tprof_budget){};
	}
}

/* @base stretched by 2^@shift, within the accepted periods. */
u64 tprof_stretched(u64 base, u32 shift)
{
	if (!shift)
		return base;
	return base > (TPROF_MAX_PERIOD_NS >> shift) ? TPROF_MAX_PERIOD_NS :
	       base << shift;
}

/**
 * tprof_budget_charge() - a sample of @s took @dt of this CPU, at @now.
 * @s: an unprivileged session (else nothing happens).
 * @dt: the sample's time (local_clock()).
 * @now: local_clock() at its end.
 *
 * Past sample_cpu_percent of this CPU's window, summed over the user's
 * sessions, the user's stretch doubles (once per window) and @s gets a
 * THROTTLE record.
 * Context: IRQs off, on this CPU (hardirq or a probe).
 */
void tprof_budget_charge(struct tprof_session *s, u64 dt, u64 now)
{
	struct tprof_budget *b = s->budget;
	unsigned int pct = tprof_policy_sample_cpu_percent();
	struct tprof_rec_throttle rec = {
		.hdr.type = TPROF_REC_THROTTLE,
		.hdr.size = sizeof(rec),
		.window_ns = TPROF_BUDGET_WINDOW_NS,
	};
	struct tprof_budget_cpu *w;
	u32 shift;

	if (!b || !pct || pct >= 100)
		return;
	w = this_cpu_ptr(b->cpu);
	if (now - w->start >= TPROF_BUDGET_WINDOW_NS) {
		w->start = now;
		w->used = 0;
	}
	w->used += dt;
	if (w->used * 100 <= (u64)TPROF_BUDGET_WINDOW_NS * pct)
		return;
	rec.path_ns = w->used;
	/* a new window: the stretch shows in the next one */
	w->start = now;
	w->used = 0;
	shift = READ_ONCE(b->shift);
	if (shift >= TPROF_MAX_THROTTLE_SHIFT ||
	    (shift && now - READ_ONCE(b->throttle_ns) < TPROF_BUDGET_WINDOW_NS))
		return;
	/* several CPUs may find it over at once: one doubling */
	if (cmpxchg(&b->shift, shift, shift + 1) != shift)
		return;
	WRITE_ONCE(b->throttle_ns, now);
	rec.hdr.time_ns = ktime_get_mono_fast_ns();
	rec.cpu = smp_processor_id();
	rec.shift = shift + 1;
	rec.count = atomic_inc_return(&s->throttles);
	tprof_rings_emit(&s->rings, &rec, sizeof(rec));
}
