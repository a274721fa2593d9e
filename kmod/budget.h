/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tprof: the sampling budget of unprivileged users (budget.c).
 */
#ifndef _TPROF_BUDGET_H
#define _TPROF_BUDGET_H

#include <linux/compiler.h>
#include <linux/types.h>

struct tprof_session;
struct user_struct;
struct tprof_budget_cpu;

/**
 * struct tprof_budget - one user's budget, shared by its sessions.
 * @shift: their periods are stretched by 2^this; it only grows while
 *	the user holds a session, and outlives the last one by
 *	TPROF_BUDGET_KEEP_NS (budget.c).
 * @user: its user (a reference), or NULL: a free slot.
 * @refs: sessions that hold it (budget.c's mutex).
 * @released_ns: ktime_get_ns() when @refs fell to 0.
 * @throttle_ns: local_clock() when @shift last grew: one doubling per
 *	window, however many CPUs find the user over it at once.
 * @cpu: each CPU's window: its start and the sampling time in it.
 */
struct tprof_budget {
	u32 shift;
	struct user_struct *user;
	unsigned int refs;
	u64 released_ns;
	u64 throttle_ns;
	struct tprof_budget_cpu __percpu *cpu;
};

int tprof_budget_get(struct user_struct *user, struct tprof_budget **out);
void tprof_budget_put(struct tprof_budget *b);
void tprof_budget_exit(void);
void tprof_budget_charge(struct tprof_session *s, u64 dt, u64 now);
u64 tprof_stretched(u64 base, u32 shift);

/* The user's stretch, or 0 (no budget: a privileged session). Context: any. */
static inline u32 tprof_budget_shift(const struct tprof_budget *b)
{
	return b ? READ_ONCE(b->shift) : 0;
}

#endif /* _TPROF_BUDGET_H */
