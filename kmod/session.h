/* SPDX-License-Identifier: GPL-2.0 */
/* tprof: a profiling session, owned by one open file of /dev/tprof. */
#ifndef _TPROF_SESSION_H
#define _TPROF_SESSION_H

#include <linux/mutex.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <asm/barrier.h>

#include "policy.h"
#include "ring.h"
#include "threads.h"

struct file;
struct pid;
struct pid_namespace;
struct task_struct;

enum tprof_state {
	TPROF_IDLE,		/* opened, no ENABLE yet */
	TPROF_ACTIVE,		/* probes see it */
	TPROF_STOPPED,		/* DISABLE or target exit; rings still readable */
};

/* Bits of tprof_session.bits. */
#define TPROF_S_EXITED		0	/* PROC_EXIT emitted */
#define TPROF_S_STOP_REQ	1	/* stop_work is to stop the session */
#define TPROF_S_GROUP_DEAD	2	/* an exit probe saw signal->live == 0 */
#define TPROF_S_GROUP_GONE	3	/* every thread passed exit_notify() */
#define TPROF_S_DENIED		4	/* DENIED emitted */

/**
 * struct tprof_session - per-open-file state.
 * @lock: serializes read() and ioctls of the file. Nests outside
 *	tprof_sessions_mutex (session.c).
 * @state: enum tprof_state; IDLE -> ACTIVE under both locks (release, for
 *	poll()), ACTIVE -> STOPPED under tprof_sessions_mutex.
 * @active: probes and timers sample only while true (READ_ONCE).
 * @denied: no more samples at all: the target stopped being profilable
 *	(tprof_policy_check()); a DENIED record says why.
 * @finished: EOF once the rings are drained (release/acquire).
 * @reader_waiting: a reader sleeps or polls; producers may wake it.
 * @bits: TPROF_S_* flags.
 * @tgid: the target process (get_pid()).
 * @pid_ns: the namespace ids are reported in (the ENABLE caller's).
 * @vpid: target tgid in @pid_ns.
 * @flags: TPROF_F_* from ENABLE.
 * @grant: what ENABLE allowed (privilege, the target's ids) and charged.
 * @period_ns: default period.
 * @max_user_frames: user stack depth cap.
 * @max_kernel_frames: kernel stack depth cap; 0 = no kernel stacks.
 * @idx: index in tprof_active[] while ACTIVE.
 * @rings: one per possible CPU.
 * @read_cpu: where the next read() starts (fairness).
 * @threads: per-thread accounting table.
 * @threads_seen: slots claimed.
 * @threads_dropped: sched-ins with the table full.
 * @exiting: 1 until the group is gone (every thread past exit_notify(),
 *	so past its exit probe), plus one per thread between its exit probe
 *	and its final switch-out; PROC_EXIT when it drops to 0, so it comes
 *	after every THREAD_EXIT.
 * @exit_code: for PROC_EXIT: the wait(2) status, as the leader reports it.
 * @wq: readers.
 * @stop_work: after group dead, sees when the group is gone; stops the
 *	session after PROC_EXIT or DENIED.
 * @tick: periodic reader wakeup while data is pending.
 */
struct tprof_session {
	struct mutex lock;	/* file ops; see above */
	enum tprof_state state;
	bool active;
	bool denied;
	bool finished;
	bool reader_waiting;
	unsigned long bits;

	struct pid *tgid;
	struct pid_namespace *pid_ns;
	u32 vpid;
	u32 flags;
	struct tprof_grant grant;
	u64 period_ns;
	u32 max_user_frames;
	u32 max_kernel_frames;
	int idx;

	struct tprof_ring **rings;
	unsigned int read_cpu;
	struct tprof_threads threads;
	atomic64_t threads_seen;
	atomic64_t threads_dropped;
	atomic_t exiting;
	s32 exit_code;

	wait_queue_head_t wq;
	struct work_struct stop_work;
	struct delayed_work tick;
};

/* Stopped, and every record it wrote is visible to the reader. */
static inline bool tprof_session_finished(struct tprof_session *s)
{
	/* Pairs with smp_store_release() in tprof_session_stop(). */
	return smp_load_acquire(&s->finished);
}

struct tprof_session *tprof_session_new(void);
void tprof_session_release(struct tprof_session *s);
int tprof_session_enable(struct tprof_session *s, struct file *file,
			 const void __user *uarg);
void tprof_session_stop(struct tprof_session *s);
int tprof_session_set_period(struct tprof_session *s,
			     const void __user *uarg);
int tprof_session_stats(struct tprof_session *s, void __user *uarg);
struct tprof_session *tprof_session_find(struct task_struct *p);
void tprof_session_request_stop(struct tprof_session *s);
void tprof_session_kick(struct tprof_session *s);
void tprof_session_deny(struct tprof_session *s, u32 reason);
bool tprof_session_may_sample(struct tprof_session *s, struct task_struct *p,
			      bool *later);
unsigned int tprof_sessions_of_user(struct user_struct *user);

#endif /* _TPROF_SESSION_H */
