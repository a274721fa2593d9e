/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tprof: the session object, its state machine, and the table the probes
 * find it in (publish). What the ioctls do with it is lifetime.c's.
 */
#ifndef _TPROF_SESSION_H
#define _TPROF_SESSION_H

#include <linux/atomic.h>
#include <linux/bitops.h>
#include <linux/llist.h>
#include <linux/mutex.h>
#include <linux/pid.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <asm/barrier.h>

#include "policy.h"
#include "procs.h"
#include "ring.h"
#include "threads.h"

struct cgroup;
struct tprof_budget;

struct pid;
struct pid_namespace;
struct task_struct;
struct user_struct;

/**
 * enum tprof_state - a session's life, in one word (READ_ONCE()).
 * @TPROF_IDLE: opened, no ENABLE yet.
 * @TPROF_ACTIVE: published: the probes find it, timers sample (but
 *	nothing of a denied process: tprof_session_find()).
 * @TPROF_STOPPING: unpublished; the CPUs' final accounting runs.
 * @TPROF_FINISHED: stopped, every record visible: EOF once drained.
 *
 * Transitions: IDLE -> ACTIVE at publish (tprof_sessions_mutex; release,
 * for poll()); ACTIVE -> STOPPING at unpublish (tprof_sessions_mutex); STOPPING ->
 * FINISHED when stop is done (release: pairs with tprof_session_finished()).
 */
enum tprof_state {
	TPROF_IDLE,
	TPROF_ACTIVE,
	TPROF_STOPPING,
	TPROF_FINISHED,
};

/* Events, in tprof_session.bits. */
#define TPROF_S_STOP_REQ	1	/* stop_work is to stop the session */
#define TPROF_S_EXIT_PENDING	2	/* a process is group dead, not seen gone */
#define TPROF_S_KICK		3	/* stop_work is to start running joiners */

/**
 * struct tprof_session - per-open-file state.
 * @lock: serializes read() and ioctls of the file. Nests outside
 *	tprof_sessions_mutex.
 * @state: enum tprof_state.
 * @bits: TPROF_S_* events.
 * @tgid: the target process (get_pid()); NULL with TPROF_F_CGROUP.
 * @cgrp: with TPROF_F_CGROUP, the subtree's root (a reference); else NULL.
 * @pid_ns: the namespace ids are reported in (the ENABLE caller's).
 * @vpid: target tgid in @pid_ns.
 * @flags: TPROF_F_* from ENABLE (TPROF_F_CGROUP adds TPROF_F_CHILDREN).
 * @grant: what ENABLE allowed (privilege, the target's ids) and charged.
 * @inherit: with TPROF_F_CHILDREN, a process forked by an admitted one is
 *	admitted too: the session is privileged, or its caller is an
 *	ancestor of the target (children.c); else it joins pending.
 * @budget: an unprivileged session's user's sampling budget (budget.c):
 *	its periods are stretched by 2^tprof_budget_shift(); NULL when
 *	privileged.
 * @throttles: THROTTLE records this session got.
 * @period_ns: default period.
 * @max_user_frames: user stack depth cap.
 * @max_kernel_frames: kernel stack depth cap; 0 = no kernel stacks.
 * @snapshot_bytes: user stack bytes per sample (USTACK); 0 = none.
 * @off_period_ns: off-CPU period (TPROF_F_OFF_CPU), else 0.
 * @start_ns: CLOCK_MONOTONIC just before publish (off-CPU time's start).
 * @idx: index in the published table while published.
 * @rings: one per possible CPU.
 * @threads: per-thread accounting table (threads of every process).
 * @procs: the processes: the target, and with TPROF_F_CHILDREN its
 *	followed descendants.
 * @uwalk_gc: user-memory walks an exec removed (uwalk.c), freed by the
 *	next SET_UWALK or at the end.
 * @wq: readers.
 * @stop_work: after a group dead, sees when the group is gone (PROC_EXIT),
 *	frees what is over; stops the session when its last process left
 *	(lifetime.c).
 * @tick: periodic reader wakeup while data is pending (lifetime.c).
 */
struct tprof_session {
	struct mutex lock;	/* file ops; see above */
	enum tprof_state state;
	unsigned long bits;

	struct pid *tgid;
	struct cgroup *cgrp;
	struct pid_namespace *pid_ns;
	u32 vpid;
	u32 flags;
	struct tprof_grant grant;
	bool inherit;
	struct tprof_budget *budget;
	atomic_t throttles;
	u64 period_ns;
	u32 max_user_frames;
	u32 max_kernel_frames;
	u32 snapshot_bytes;
	u64 off_period_ns;
	u64 start_ns;
	int idx;

	struct tprof_rings rings;
	struct tprof_threads threads;
	struct tprof_procs procs;
	struct llist_head uwalk_gc;

	wait_queue_head_t wq;
	struct work_struct stop_work;
	struct delayed_work tick;
};

/* Serializes publish, unpublish and what must not race them. */
extern struct mutex tprof_sessions_mutex;

static inline enum tprof_state tprof_session_state(struct tprof_session *s)
{
	return READ_ONCE(s->state);
}

/* Stopped, and every record it wrote is visible to the reader. */
static inline bool tprof_session_finished(struct tprof_session *s)
{
	/* Pairs with smp_store_release() in tprof_session_finish(). */
	return smp_load_acquire(&s->state) == TPROF_FINISHED;
}

/* A group dead, not yet seen gone: stop_work has to look (lifetime.c). */
static inline bool tprof_session_exit_pending(struct tprof_session *s)
{
	return test_bit(TPROF_S_EXIT_PENDING, &s->bits);
}

int tprof_session_publish(struct tprof_session *s, u32 *refused);
void tprof_session_unpublish(struct tprof_session *s);
void tprof_session_finish(struct tprof_session *s);
struct tprof_session *tprof_session_next(struct task_struct *p,
					 struct tprof_proc **pp,
					 bool denied_too, unsigned int *i);

struct tprof_session *tprof_session_find(struct task_struct *p,
					 struct tprof_proc **pp);
struct tprof_session *tprof_session_next_cgroup(unsigned int *i);

struct task_struct *tprof_task_get(struct pid_namespace *ns, pid_t nr,
				   enum pid_type type);
bool tprof_session_has(struct tprof_session *s, struct pid *tgid);
bool tprof_session_follows(struct tprof_session *s, struct pid *tgid);
bool tprof_session_other_has(struct tprof_session *s, struct pid *tgid);
struct tprof_session *tprof_session_find_parked(struct task_struct *p,
						struct tprof_thread **tp);
unsigned int tprof_sessions_of_user(struct user_struct *user);

void tprof_session_request_stop(struct tprof_session *s);
void tprof_session_kick(struct tprof_session *s);
void tprof_session_deny(struct tprof_session *s, struct tprof_proc *pr,
			u32 reason);
void tprof_session_leave(struct tprof_session *s, struct tprof_proc *pr);
void tprof_session_emit_denied(struct tprof_session *s, u32 vpid, u32 reason);
bool tprof_session_may_sample(struct tprof_session *s, struct tprof_proc *pr,
			      struct task_struct *p, bool *later);
/* tprof_session_may_report()'s answers */
#define TPROF_REPORT_NO		0
#define TPROF_REPORT_YES	1
#define TPROF_REPORT_PENDING	2
int tprof_session_may_report(struct tprof_session *s, struct tprof_proc *pr);

#endif /* _TPROF_SESSION_H */
