/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tprof: per-thread CPU-time sampling: sched_switch accounting and one
 * hard, pinned hrtimer per CPU armed with the running target thread's
 * remaining budget (perf's task-clock, keyed by tgid).
 */
#ifndef _TPROF_SAMPLER_H
#define _TPROF_SAMPLER_H

#include <linux/types.h>

struct task_struct;
struct tprof_session;

int tprof_sampler_init(void);
void tprof_sampler_exit(void);
void tprof_probe_sched_switch(void *data, bool preempt,
			      struct task_struct *prev,
			      struct task_struct *next,
			      unsigned int prev_state);
void tprof_sampler_start(struct tprof_session *s);
void tprof_sampler_stop(struct tprof_session *s);
void tprof_sampler_detach(struct tprof_session *s, struct task_struct *p,
			  u64 *rt, u64 *clk);
bool tprof_sampler_exiting(struct tprof_session *s, struct task_struct *p);
void tprof_sampler_attach(struct tprof_session *s, struct task_struct *p,
			  u64 rt, u64 clk);

#endif /* _TPROF_SAMPLER_H */
