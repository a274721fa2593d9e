/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tprof: the per-CPU state of the sampler, shared by the two halves of
 * sampling: sampler.c decides when (accounting, the timer, switches) and
 * sample.c writes what (the stacks and the record group of one sample).
 * Nothing else includes this, but for the switch probe's first test
 * (tprof_cpu_accounting()) and the wakers probe (a waker's stack is a
 * sample of it, wakers.c).
 */
#ifndef _TPROF_SAMPLER_CPU_H
#define _TPROF_SAMPLER_CPU_H

#include <linux/hrtimer.h>
#include <linux/irq_work.h>
#include <linux/percpu.h>
#include <linux/prandom.h>
#include <linux/types.h>

#include "threads.h"
#include "tprof.h"

struct pt_regs;
struct task_struct;
struct tprof_session;
struct tprof_thread;

#define TPROF_SCRATCH_BYTES	(sizeof(struct tprof_rec_sample) + \
				 sizeof(u64) * (TPROF_MAX_USER_FRAMES + \
						TPROF_MAX_KERNEL_FRAMES))

/*
 * Per-CPU cache of task -> slot (see tprof_slot_of()): 8 sets of two, so
 * two threads whose task pointers hash alike still both hit (direct
 * mapped, one run in eight of a ping-pong missed at every switch).
 */
#define TPROF_CACHE_BITS	3
#define TPROF_CACHE_WAYS	2

struct tprof_slot_cache {
	struct task_struct *task;
	struct tprof_session *sess;
	struct tprof_thread *thr;
};

/**
 * struct tprof_cpu - sampler state of one CPU.
 * @timer: HRTIMER_MODE_REL_PINNED_HARD: hardirq even on PREEMPT_RT.
 * @task: the target thread running here (compared, never dereferenced
 *	after it left), or NULL.
 * @sess: its session.
 * @thr: its slot.
 * @rt_base: its runtime when accounting here began (se.sum_exec_runtime,
 *	exact at sched-in; as of the scheduler's last update mid-slice).
 * @clk_base: local_clock() time then (at a switch-in the scheduler's
 *	stamp of it, tprof_sched_stamp()).
 * @untask_base: tprof_cpu_untask_ns() then.
 * @armed_clk: local_clock() time the queued timer expires at (roughly:
 *	timer and local_clock run at one rate), for tprof_arm().
 * @exiting: it passed its exit probe; its switch-out emits THREAD_EXIT.
 * @kfrom: set by a probe before it may sample without registers: kernel
 *	walks start at its caller, past tprof's frames.
 * @defer_valid: the timer left a passed point to the switch-out (a
 *	reschedule was pending): @defer_kips holds the kernel stack of the
 *	context it interrupted (none if user mode), which that sample reports
 *	instead of the scheduler's.
 * @defer_nk: number of @defer_kips.
 * @defer_kflags: TPROF_RF_KERNEL_TRUNCATED of that walk.
 * @off_work: takes the off-CPU sample a switch-in left (tprof_off_work()).
 * @off_weight: that sample's weight, or 0: it belongs to @thr.
 * @off_period: its period.
 * @off_state: its TPROF_OFF_* state.
 * @off_waker: who ended its wait (kind 0: none told), for its WAKER record.
 * @rnd: first-budget randomness (prandom: no locks).
 * @cache: recent switch-ins' slots (tprof_slot_of()).
 * @scratch: one SAMPLE record under construction.
 * @ustack: the header of its USTACK record (snapshots).
 * @defer_kips: see @defer_valid.
 */
struct tprof_cpu {
	struct hrtimer timer;
	struct task_struct *task;
	struct tprof_session *sess;
	struct tprof_thread *thr;
	u64 rt_base;
	u64 clk_base;
	u64 untask_base;
	u64 armed_clk;
	bool exiting;
	bool defer_valid;
	u16 defer_nk;
	u16 defer_kflags;
	unsigned long *kfrom;
	struct irq_work off_work;
	u64 off_weight;
	u64 off_period;
	u32 off_state;
	struct tprof_waker off_waker;
	struct rnd_state rnd;
	struct tprof_slot_cache cache[1 << TPROF_CACHE_BITS][TPROF_CACHE_WAYS];
	u64 scratch[TPROF_SCRATCH_BYTES / sizeof(u64)];
	struct tprof_rec_ustack ustack;
	u64 defer_kips[TPROF_MAX_KERNEL_FRAMES];
};

/* sampler.c's, allocated before any probe is registered */
extern struct tprof_cpu __percpu *tprof_cpus;

/*
 * Does this CPU account a target's thread (the one running)? Without one,
 * and none coming in, a switch is none of tprof's business: the switch
 * probe tests this first, so that the rest of the machine pays no call.
 * Context: IRQs off (sched_switch probe).
 */
static __always_inline bool tprof_cpu_accounting(void)
{
	/* IRQs are off: no preempt count around the load (arm64's has) */
	return !!__this_cpu_read(tprof_cpus->task);
}

void tprof_take_sample(struct tprof_cpu *c, struct pt_regs *regs,
		       u64 weight, u64 period, u64 late, u32 off_state);
void tprof_defer_kstack(struct tprof_cpu *c, struct pt_regs *regs);
int tprof_take_waker_stack(struct tprof_cpu *c,
			   const struct tprof_thread *woken,
			   const struct tprof_waker *k);

#endif /* _TPROF_SAMPLER_CPU_H */
