/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tprof: user-memory walks (TPROF_IOC_SET_UWALK, TPROF_REC_UWALK): the
 * descriptor a followed process carries, its ioctls, and the walk each of
 * its samples runs (see uwalk.c).
 */
#ifndef _TPROF_UWALK_H
#define _TPROF_UWALK_H

#include <linux/llist.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/types.h>

#include "procs.h"
#include "uapi/tprof.h"

struct mm_struct;
struct pt_regs;
struct tprof_ring;
struct tprof_ring_res;
struct tprof_ring_stats;
struct tprof_session;

/**
 * struct tprof_uwalk - a process's walk as SET_UWALK checked it; never
 *	changed once published (tprof_proc.uwalk), freed after a grace
 *	period.
 * @d: the descriptor, with its defaults applied.
 * @mm: the mm of the process when it was set: compared with current's,
 *	never followed. An exec's new mm has no walk, from its switch on.
 * @words: words per frame: nr_fields + nr_code_offs.
 * @span_lo: the lowest offset a frame's fields and next pointer take.
 * @span_len: the bytes from there they take, when few enough to be read
 *	with one copy (TPROF_UWALK_SPAN); 0: one copy per field.
 * @code_lo: the lowest of the code offsets.
 * @code_len: the bytes from there the code words take, likewise, or 0.
 * @rcu: kfree_rcu().
 * @gc: on tprof_session.uwalk_gc once an exec removed it.
 */
struct tprof_uwalk {
	struct tprof_ioc_uwalk d;
	struct mm_struct *mm;
	u32 words;
	s32 span_lo;
	u32 span_len;
	s32 code_lo;
	u32 code_len;
	struct rcu_head rcu;
	struct llist_node gc;
};

/**
 * struct tprof_uwalk_res - what one walk recorded, for the statistics
 *	(counted once its record is committed).
 * @status: TPROF_UWALK_*.
 * @frames: frames recorded.
 */
struct tprof_uwalk_res {
	u32 status;
	u32 frames;
};

/*
 * The walk of @pr's samples, if it has one for current's mm.
 * Context: IRQs or preemption off (RCU-sched reader); current is a thread
 * of @pr.
 */
static inline const struct tprof_uwalk *tprof_uwalk_of(struct tprof_proc *pr)
{
	const struct tprof_uwalk *w = rcu_dereference_sched(pr->uwalk);

	return w && w->mm == current->mm ? w : NULL;
}

int tprof_uwalk_set(struct tprof_session *s, const void __user *uarg);
int tprof_uwalk_set_tid(struct tprof_session *s, const void __user *uarg);
void tprof_uwalk_exec(struct tprof_session *s, struct tprof_proc *pr,
		      struct task_struct *p);
void tprof_uwalk_free_all(struct tprof_session *s);
int tprof_uwalk_write(struct tprof_ring *r, struct tprof_ring_res *res,
		      const struct tprof_uwalk *w, struct pt_regs *uregs,
		      u64 tid_addr, u32 vtid, u64 time_ns,
		      struct tprof_uwalk_res *out);
void tprof_uwalk_account(struct tprof_ring_stats *st,
			 const struct tprof_uwalk_res *res);

#endif /* _TPROF_UWALK_H */
