// SPDX-License-Identifier: GPL-2.0
/*
 * tprof: the per-session thread table (preallocated, open addressing,
 * claimed lock-free from probes) and the fork/exit/exec probes that report
 * thread lifecycle records.
 */
#include <linux/atomic.h>
#include <linux/binfmts.h>
#include <linux/hash.h>
#include <linux/irqflags.h>
#include <linux/moduleparam.h>
#include <linux/pid.h>
#include <linux/rcupdate.h>
#include <linux/sched/signal.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <linux/slab.h>

#include "sampler.h"
#include "session.h"
#include "threads.h"
#include "tprof.h"

static unsigned int table_bits = 13;
module_param(table_bits, uint, 0444);
MODULE_PARM_DESC(table_bits, "log2 of per-session thread slots (8..20, default 13)");

/* Longest probe sequence; a longer one counts the thread as dropped. */
#define TPROF_MAX_PROBES	256

int tprof_threads_alloc(struct tprof_threads *tt)
{
	tt->bits = clamp(table_bits, 8U, 20U);
	atomic64_set(&tt->exited_on_cpu, 0);
	raw_spin_lock_init(&tt->pend_lock);
	tt->npend = 0;
	/* Charged to the caller's memory cgroup, like the rings. */
	tt->slots = kvzalloc(sizeof(*tt->slots) << tt->bits, GFP_KERNEL_ACCOUNT);
	return tt->slots ? 0 : -ENOMEM;
}

void tprof_threads_free(struct tprof_threads *tt)
{
	kvfree(tt->slots);
	tt->slots = NULL;
}

/* Takes a never-used or dead slot for @tid; false if someone was faster. */
static bool tprof_thread_claim(struct tprof_session *s, struct tprof_thread *t,
			       u32 tid)
{
	u32 old = READ_ONCE(t->key);

	if (old == TPROF_TID_CLAIMING || old == TPROF_TID_EXITING ||
	    (old && !(old & TPROF_TID_DEAD)))
		return false;
	if (cmpxchg(&t->key, old, TPROF_TID_CLAIMING) != old)
		return false;
	t->tid = tid;
	t->vtid = 0;
	t->started = false;
	t->on_cpu_ns = 0;
	t->next_point = 0;
	t->period_ns = 0;
	WRITE_ONCE(t->req, 0);
	t->samples = 0;
	t->weight_ns = 0;
	t->lost_samples = 0;
	t->lost_weight_ns = 0;
	memset(t->comm, 0, sizeof(t->comm));
	/* Pairs with the acquire in tprof_thread_get(): fields are reset. */
	smp_store_release(&t->key, tid);
	atomic64_inc(&s->threads_seen);
	return true;
}

/**
 * tprof_thread_get() - find (or claim) the slot of a live thread.
 * @s: session.
 * @tid: global tid.
 * @claim: claim a slot when not found; only for the thread being switched
 *	in on this CPU, so one tid never has two claimers at once.
 *
 * Context: any; lock-free. Claims prefer the first dead slot of the probe
 * sequence (before the first never-used one, where lookups stop).
 * Return: the slot, or NULL (not found, or table full).
 */
struct tprof_thread *tprof_thread_get(struct tprof_session *s, u32 tid,
				      bool claim)
{
	struct tprof_threads *tt = &s->threads;
	u32 mask = (1U << tt->bits) - 1;
	unsigned int n, tries;

	for (tries = 0; tries < 4; tries++) {
		struct tprof_thread *reuse = NULL, *t = NULL;
		u32 i = hash_32(tid, tt->bits);

		for (n = 0; n < TPROF_MAX_PROBES && n <= mask;
		     n++, i = (i + 1) & mask) {
			/* Pairs with the release in tprof_thread_claim(). */
			u32 key = smp_load_acquire(&tt->slots[i].key);

			t = &tt->slots[i];
			if (key == tid)
				return t;
			if (!key)
				break;
			if (!reuse && key != TPROF_TID_CLAIMING &&
			    key != TPROF_TID_EXITING && (key & TPROF_TID_DEAD))
				reuse = t;
			t = NULL;
		}
		if (!claim)
			return NULL;
		if (!reuse)
			reuse = t;
		if (!reuse)
			break;
		if (tprof_thread_claim(s, reuse, tid))
			return reuse;
	}
	if (claim)
		atomic64_inc(&s->threads_dropped);
	return NULL;
}

/* The thread exited: keep its time, free its slot. Context: IRQs off. */
void tprof_thread_bury(struct tprof_session *s, struct tprof_thread *t)
{
	u32 key = t->key;

	atomic64_add(t->on_cpu_ns, &s->threads.exited_on_cpu);
	/* An EXITING slot becomes reusable too (tid 0 | DEAD). */
	WRITE_ONCE(t->key, key == TPROF_TID_EXITING ? TPROF_TID_DEAD :
		   key | TPROF_TID_DEAD);
}

/*
 * Sets @t's request if @t is still @tid's slot. The slot may be buried and
 * claimed by another thread at any time: the tid travels in the same word,
 * and a claim resets it, so the cmpxchg never hands the request to another
 * thread nor erases that thread's own. Context: process.
 */
static void tprof_thread_request(struct tprof_thread *t, u32 tid, u64 period)
{
	u64 old = READ_ONCE(t->req);

	do {
		if (READ_ONCE(t->tid) != tid)
			return;
	} while (!try_cmpxchg64(&t->req, &old, tprof_req(tid, period)));
}

/**
 * tprof_threads_set_period() - SET_THREAD_PERIOD for a thread of @s.
 * @s: session.
 * @tid: global tid.
 * @period: new period.
 *
 * A thread without a slot (not run since ENABLE) gets a pending request,
 * taken at its first sched-in. Context: process.
 * Return: 0 or -ENOSPC.
 */
int tprof_threads_set_period(struct tprof_session *s, u32 tid, u64 period)
{
	struct tprof_threads *tt = &s->threads;
	struct tprof_thread *t = tprof_thread_get(s, tid, false);
	unsigned long flags;
	unsigned int i;
	int ret = 0;

	if (t) {
		tprof_thread_request(t, tid, period);
		return 0;
	}
	raw_spin_lock_irqsave(&tt->pend_lock, flags);
	for (i = 0; i < tt->npend && tt->pend[i].tid != tid; i++)
		;
	if (i < TPROF_MAX_PENDING) {
		tt->pend[i].tid = tid;
		tt->pend[i].period_ns = period;
		if (i == tt->npend)
			WRITE_ONCE(tt->npend, i + 1);
	} else {
		ret = -ENOSPC;
	}
	raw_spin_unlock_irqrestore(&tt->pend_lock, flags);
	/* It may have claimed its slot meanwhile. */
	t = tprof_thread_get(s, tid, false);
	if (t)
		tprof_thread_request(t, tid, period);
	return ret;
}

/* At a thread's first sched-in. Context: IRQs off. Return: 0 if none. */
u64 tprof_threads_take_period(struct tprof_session *s, u32 tid)
{
	struct tprof_threads *tt = &s->threads;
	u64 period = 0;
	unsigned int i;

	if (!READ_ONCE(tt->npend))
		return 0;
	raw_spin_lock(&tt->pend_lock);
	for (i = 0; i < tt->npend; i++) {
		if (tt->pend[i].tid != tid)
			continue;
		period = tt->pend[i].period_ns;
		tt->pend[i] = tt->pend[tt->npend - 1];
		WRITE_ONCE(tt->npend, tt->npend - 1);
		break;
	}
	raw_spin_unlock(&tt->pend_lock);
	return period;
}

static void tprof_fill_comm(void *dst, const char *src)
{
	memcpy(dst, src, TASK_COMM_LEN);
	((char *)dst)[TASK_COMM_LEN - 1] = 0;
}

/* Context: IRQs off (this CPU's ring). */
static void tprof_emit_thread(struct tprof_session *s, u32 vtid,
			      const char *comm, u16 flags)
{
	struct tprof_rec_thread rec = {
		.hdr.type = TPROF_REC_THREAD,
		.hdr.flags = flags,
		.hdr.size = sizeof(rec),
		.hdr.time_ns = ktime_get_mono_fast_ns(),
		.pid = s->vpid,
		.tid = vtid,
	};

	tprof_fill_comm(rec.comm, comm);
	tprof_emit(s, &rec, sizeof(rec));
}

static void tprof_fill_stat(struct tprof_session *s, struct tprof_thread *t,
			    u16 type, struct tprof_rec_thread_stat *rec)
{
	u64 req = tprof_thread_req_period(t);

	memset(rec, 0, sizeof(*rec));
	rec->hdr.type = type;
	rec->hdr.size = sizeof(*rec);
	rec->hdr.time_ns = ktime_get_mono_fast_ns();
	rec->pid = s->vpid;
	rec->tid = t->vtid;
	rec->on_cpu_ns = t->on_cpu_ns;
	rec->samples = t->samples;
	rec->weight_ns = t->weight_ns;
	rec->lost_samples = t->lost_samples;
	rec->lost_weight_ns = t->lost_weight_ns;
	rec->period_ns = req ? req : t->period_ns;
	memcpy(rec->comm, t->comm, sizeof(rec->comm));
}

/* Context: IRQs off; @t's thread is current (or gone). */
void tprof_thread_emit_exit(struct tprof_session *s, struct tprof_thread *t,
			    u16 type)
{
	struct tprof_rec_thread_stat rec;

	tprof_fill_stat(s, t, type, &rec);
	tprof_emit(s, &rec, sizeof(rec));
}

/* Context: IRQs off (this CPU's ring). */
void tprof_emit_proc_exit(struct tprof_session *s)
{
	struct tprof_rec_proc_exit rec = {
		.hdr.type = TPROF_REC_PROC_EXIT,
		.hdr.size = sizeof(rec),
		.hdr.time_ns = ktime_get_mono_fast_ns(),
		.pid = s->vpid,
		.exit_code = READ_ONCE(s->exit_code),
	};

	if (test_and_set_bit(TPROF_S_EXITED, &s->bits))
		return;
	tprof_emit(s, &rec, sizeof(rec));
	tprof_session_request_stop(s);
}

/*
 * The final switch-out of a thread that passed its exit probe (or the
 * final accounting of a stopping session): THREAD_EXIT with all its
 * on-CPU time, then PROC_EXIT if it was the last one after group dead.
 * Context: IRQs off (sched_switch probe under rq->lock, or IPI): no
 * sleeping lock, no allocation; wakeups only via irq_work.
 */
void tprof_thread_exited(struct tprof_session *s, struct tprof_thread *t)
{
	tprof_thread_emit_exit(s, t, TPROF_REC_THREAD_EXIT);
	tprof_thread_bury(s, t);
	/* Full barrier: orders the THREAD_EXIT before a PROC_EXIT elsewhere. */
	if (atomic_dec_and_test(&s->exiting))
		tprof_emit_proc_exit(s);
}

/* Context: process, right after ENABLE published the session. */
void tprof_threads_emit_existing(struct tprof_session *s)
{
	struct task_struct *leader, *t;
	unsigned long flags;

	rcu_read_lock();
	leader = pid_task(s->tgid, PIDTYPE_TGID);
	if (leader) {
		for_each_thread(leader, t) {
			u32 vtid = __task_pid_nr_ns(t, PIDTYPE_PID, s->pid_ns);

			local_irq_save(flags);
			tprof_emit_thread(s, vtid, t->comm,
					  TPROF_RF_THREAD_EXISTING);
			local_irq_restore(flags);
		}
	}
	rcu_read_unlock();
}

/*
 * Context: process, session stopped (no producer left): THREAD_STAT for
 * every thread still alive.
 */
void tprof_threads_emit_stats(struct tprof_session *s)
{
	u32 i, n = 1U << s->threads.bits;

	for (i = 0; i < n; i++) {
		struct tprof_thread *t = &s->threads.slots[i];
		struct tprof_rec_thread_stat rec;

		if (!t->key || (t->key & TPROF_TID_DEAD) || !t->started)
			continue;	/* CLAIMING has the DEAD bit */
		tprof_fill_stat(s, t, TPROF_REC_THREAD_STAT, &rec);
		tprof_emit_any(s, &rec, sizeof(rec));
		cond_resched();
	}
}

/* Exact on-CPU time of all threads so far (live ones as of their last switch). */
u64 tprof_threads_on_cpu(struct tprof_session *s)
{
	u32 i, n = 1U << s->threads.bits;
	u64 sum = atomic64_read(&s->threads.exited_on_cpu);

	for (i = 0; i < n; i++) {
		struct tprof_thread *t = &s->threads.slots[i];
		u32 key = READ_ONCE(t->key);

		if (key && !(key & TPROF_TID_DEAD))
			sum += READ_ONCE(t->on_cpu_ns);
	}
	return sum;
}

/*
 * sched_process_fork: after copy_process(), before the child first runs.
 * Context: preemption disabled; current is the parent. Only new threads
 * of a target (same tgid) match; child processes are not followed.
 */
void tprof_probe_fork(void *data, struct task_struct *parent,
		      struct task_struct *child)
{
	struct tprof_session *s = tprof_session_find(child);
	unsigned long flags;
	bool later;
	u32 vtid;

	if (!s)
		return;
	vtid = __task_pid_nr_ns(child, PIDTYPE_PID, s->pid_ns);
	local_irq_save(flags);
	/* The child's comm is the parent's: no news while an exec decides. */
	if (tprof_session_may_sample(s, current, &later) || later)
		tprof_emit_thread(s, vtid, child->comm, 0);
	local_irq_restore(flags);
}

static s32 tprof_exit_code(struct task_struct *p)
{
	if (READ_ONCE(p->signal->flags) & SIGNAL_GROUP_EXIT)
		return READ_ONCE(p->signal->group_exit_code);
	return p->exit_code;
}

/*
 * sched_process_exit: in do_exit() of @p (== current), PF_EXITING set and
 * signal->live already decremented. Context: preemption disabled.
 *
 * do_exit() goes on after this probe (exit_files(), exit_notify(), ...,
 * do_task_dead()): a thread running on a sampling CPU stays accounted and
 * sampled until it is switched out (normally its final switch, prev_state
 * TASK_DEAD), which emits its THREAD_EXIT.
 *
 * signal->live == 0 does not mean the other threads passed this probe: it
 * drops earlier, so the thread that sees it first may not be the last one
 * here. Group death only makes stop_work watch for the group to be gone
 * (every thread past exit_notify()); PROC_EXIT comes after that and after
 * the last THREAD_EXIT (@s->exiting).
 */
void tprof_probe_exit(void *data, struct task_struct *p)
{
	struct tprof_session *s = tprof_session_find(p);
	struct tprof_thread *t;
	unsigned long flags;

	if (!s || p != current)
		return;
	local_irq_save(flags);
	if (!tprof_sampler_exiting(s, p)) {
		t = tprof_thread_get(s, p->pid, false);
		if (t) {
			if (t->started)
				tprof_thread_emit_exit(s, t,
						       TPROF_REC_THREAD_EXIT);
			tprof_thread_bury(s, t);
		}
	}
	if (!atomic_read(&p->signal->live) &&
	    !test_and_set_bit(TPROF_S_GROUP_DEAD, &s->bits)) {
		WRITE_ONCE(s->exit_code, tprof_exit_code(p));
		tprof_session_kick(s);
	}
	local_irq_restore(flags);
}

/*
 * sched_process_exec: after the new image is set up, in @p (== current).
 * @old_pid is the global tid before exec (a non-leader that exec'd takes
 * the leader's tid). Context: preemption disabled.
 *
 * The new credentials and dumpability are final here: an unprivileged
 * session that may not see the new image ends before any record of it
 * (tprof_session_may_sample()); a setuid/setgid or file-capability exec
 * (secureexec) ends it too.
 */
void tprof_probe_exec(void *data, struct task_struct *p, pid_t old_pid,
		      struct linux_binprm *bprm)
{
	struct tprof_session *s = tprof_session_find(p);
	struct tprof_rec_exec rec = {
		.hdr.type = TPROF_REC_EXEC,
		.hdr.size = sizeof(rec),
	};
	struct tprof_thread *old, *t;
	unsigned long flags;
	bool may, later;
	u64 rt, clk;
	u32 vtid;

	if (!s || p != current)
		return;
	vtid = __task_pid_nr_ns(p, PIDTYPE_PID, s->pid_ns);
	local_irq_save(flags);
	/* Past commit_creds(): only readers may hold exec_update_lock now. */
	may = tprof_session_may_sample(s, p, &later) || later;
	if (may && !s->grant.privileged && bprm->secureexec) {
		tprof_session_deny(s, TPROF_DENIED_CREDS);
		may = false;
	}
	old = tprof_thread_get(s, old_pid, false);
	rec.old_tid = old && old->started ? old->vtid : vtid;
	if (old_pid != p->pid) {
		/* The old tid is gone: close its slot, start one for the new. */
		tprof_sampler_detach(s, p, &rt, &clk);
		if (old) {
			if (old->started)
				tprof_thread_emit_exit(s, old,
						       TPROF_REC_THREAD_EXIT);
			tprof_thread_bury(s, old);
		}
		if (may)
			tprof_sampler_attach(s, p, rt, clk);
	}
	if (!may)
		goto out;
	t = tprof_thread_get(s, p->pid, false);
	if (t && t->started)
		tprof_fill_comm(t->comm, p->comm);
	rec.hdr.time_ns = ktime_get_mono_fast_ns();
	rec.pid = s->vpid;
	rec.tid = vtid;
	tprof_fill_comm(rec.comm, p->comm);
	tprof_emit(s, &rec, sizeof(rec));
	tprof_emit_thread(s, vtid, p->comm, 0);
out:
	local_irq_restore(flags);
}
