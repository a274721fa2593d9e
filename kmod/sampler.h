/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tprof: per-thread CPU-time sampling: per-CPU accounting of the running
 * target thread and one hard, pinned hrtimer per CPU armed with its
 * remaining budget (perf's task-clock, keyed by tgid). Called by the
 * probes (switches, exit, exec) and the session's lifetime (start, stop).
 */
#ifndef _TPROF_SAMPLER_H
#define _TPROF_SAMPLER_H

#include <linux/types.h>

struct task_struct;
struct tprof_proc;
struct tprof_session;
struct tprof_thread;

int tprof_sampler_init(void);
void tprof_sampler_exit(void);
void tprof_sampler_switch(bool preempt, struct task_struct *prev,
			  struct task_struct *next, unsigned int prev_state,
			  unsigned long *kfrom,
			  void (*exited)(struct tprof_session *s,
					 struct tprof_thread *t));
void tprof_sampler_start(struct tprof_session *s);
void tprof_sampler_stop(struct tprof_session *s,
			void (*exited)(struct tprof_session *s,
				       struct tprof_thread *t));
void tprof_sampler_detach(struct task_struct *p, unsigned long *kfrom,
			  u64 *rt, u64 *clk);
bool tprof_sampler_exiting(struct tprof_session *s, struct task_struct *p);
void tprof_sampler_attach(struct tprof_session *s, struct tprof_proc *pr,
			  struct task_struct *p, u64 rt, u64 clk);

#endif /* _TPROF_SAMPLER_H */
