/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tprof: a thread's off-CPU clock (TPROF_F_OFF_CPU; see offcpu.c): its
 * states, its sample points, its THREAD_OFF record. A leaf over threads.h.
 */
#ifndef _TPROF_OFFCPU_H
#define _TPROF_OFFCPU_H

#include <linux/prandom.h>
#include <linux/types.h>

#include "threads.h"

struct task_struct;
struct tprof_rec_thread_off;

u32 tprof_off_state(bool preempt, unsigned int prev_state,
		    struct task_struct *prev);
void tprof_off_begin(struct tprof_off *o, u64 period, u64 begin_ns,
		     struct rnd_state *rnd);
void tprof_off_stretch(struct tprof_off *o, u64 period);
u64 tprof_off_add(struct tprof_off *o, u64 away, u32 state);
void tprof_off_lost(struct tprof_off *o, u64 weight);
void tprof_off_close(struct tprof_off *o, u64 now);
u32 tprof_off_next_seq(struct tprof_off *o);
void tprof_off_site(struct tprof_off *o, struct task_struct *prev, u32 state,
		    unsigned int prev_state);
void tprof_off_chain(struct tprof_off *o, struct tprof_waker *w,
		     struct task_struct *p);
void tprof_off_fill(const struct tprof_off *o, u32 vpid, u32 vtid,
		    struct tprof_rec_thread_off *rec);

#endif /* _TPROF_OFFCPU_H */
