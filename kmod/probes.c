// SPDX-License-Identifier: GPL-2.0
/*
 * tprof: the probes (sched_switch, sched_process_fork/exit/exec, and a
 * kprobe on perf_event_mmap()) and their registration, and the records
 * only a probe writes (EXEC, MMAP); the lifecycle records they share with
 * the session's start and stop are records.c's. With TPROF_F_CHILDREN the fork
 * probe (and ENABLE, for the descendants already there) adds processes;
 * with TPROF_F_CGROUP the fork probe and one on cgroup_attach_task
 * (cgroup.c) add and remove them.
 *
 * The sched tracepoints are not exported to modules; they are found with
 * for_each_kernel_tracepoint() (as lttng-modules and falco do) and the
 * probes are registered only while at least one session is published: with
 * no session, they cost nothing.
 *
 * No tracepoint marks a new mapping on every kernel (vma_store lost its
 * caller by 6.12; vm_unmapped_area misses MAP_FIXED and address hints;
 * mmap_lock_released formats a cgroup path at every mmap_lock release of
 * the system). perf_event_mmap() is where the kernel tells perf of each
 * new or mprotect'ed mapping, on both 6.1 and 6.12: a kprobe there gives
 * MMAP records. Without kprobes the sessions just have none. A second
 * kprobe, on security_bprm_committed_creds(), denies a secure exec where
 * its credentials are committed, before its image is mapped.
 */
#include <linux/binfmts.h>
#include <linux/errno.h>
#include <linux/irqflags.h>
#include <linux/kdev_t.h>
#include <linux/kprobes.h>
#include <linux/kernel.h>
#include <linux/lockdep.h>
#include <linux/mm.h>
#include <linux/pid.h>
#include <linux/printk.h>
#include <linux/rcupdate.h>
#include <linux/sched/clock.h>
#include <linux/sched/signal.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <linux/tracepoint.h>

#include "cgroup.h"
#include "offcpu.h"
#include "policy.h"
#include "probes.h"
#include "procs.h"
#include "records.h"
#include "sampler.h"
#include "sampler_cpu.h"
#include "session.h"
#include "threads.h"
#include "tprof.h"
#include "uwalk.h"
#include "wakers.h"

/*
 * sched_process_fork: after copy_process(), before the child first runs.
 * Context: preemption disabled; current is the parent (the creator). A new
 * thread of a followed process gets its THREAD record; with
 * TPROF_F_CHILDREN a new process joins the session (PROC, THREAD) and is
 * sampled from its first instruction, under the same rule as its parent
 * (its credentials and mm are the parent's until it changes them). It
 * joins pending (no THREAD record, nothing sampled) where the caller's
 * proof for the parent does not stand for it (@s->inherit), or its parent
 * is pending itself.
 */
static void tprof_fork_one(struct task_struct *child)
{
	struct tprof_proc *pr, *cpr;
	struct tprof_session *s;
	unsigned long flags;
	bool pending;
	int may;
	u32 vtid;

	s = tprof_session_find(current, &pr);
	if (!s)
		return;
	vtid = __task_pid_nr_ns(child, PIDTYPE_PID, s->pid_ns);
	local_irq_save(flags);
	may = tprof_session_may_report(s, pr);
	if (may == TPROF_REPORT_NO)
		goto out;
	if (task_tgid(child) == task_tgid(current)) {
		/* a pending process's threads: at its proof (children.c) */
		if (may == TPROF_REPORT_YES)
			tprof_emit_thread(s, pr->vpid, vtid, child->comm, 0);
	} else if ((s->flags & TPROF_F_CHILDREN) && !s->cgrp) {
		/* a cgroup session's children: by their cgroup (below) */
		pending = may == TPROF_REPORT_PENDING || !READ_ONCE(s->inherit);
		cpr = tprof_proc_join(s, child, pr->vpid, 0, pending);
		/* its mappings are copies of its parent's (dup_mmap()) */
		if (cpr && !test_bit(TPROF_P_GUARDED, &pr->bits))
			clear_bit(TPROF_P_GUARDED, &cpr->bits);
		if (cpr && !pending)
			tprof_emit_thread(s, cpr->vpid, vtid, child->comm, 0);
	}
out:
	local_irq_restore(flags);
}

/*
 * sched_process_fork: the parent's session first (its threads, its tree's
 * children), then, while a cgroup session exists, the cgroup sessions a
 * new process was forked into (cgroup.c): after the first, so that a
 * process tree's session keeps its children.
 */
static void tprof_probe_fork(void *data, struct task_struct *parent,
			     struct task_struct *child)
{
	tprof_fork_one(child);
	if (unlikely(tprof_cgroup_any()) && thread_group_leader(child))
		tprof_cgroup_fork(parent, child);
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
static void tprof_exit_one(struct tprof_session *s, struct tprof_proc *pr,
			   struct task_struct *p)
{
	struct tprof_thread *t;

	/*
	 * Denied processes too: THREAD_EXIT is accounting, which may follow
	 * DENIED, and their slots must be freed (the tid comes back).
	 */
	if (!tprof_sampler_exiting(s, p)) {
		t = tprof_thread_get(&s->threads, p->pid, false);
		if (t) {
			if (t->started)
				tprof_thread_emit_exit(s, t,
						       TPROF_REC_THREAD_EXIT);
			tprof_thread_bury(&s->threads, t);
		}
	}
	if (!atomic_read(&p->signal->live) &&
	    !test_and_set_bit(TPROF_P_GROUP_DEAD, &pr->bits)) {
		WRITE_ONCE(pr->exit_code, tprof_exit_code(p));
		set_bit(TPROF_S_EXIT_PENDING, &s->bits);
		tprof_session_kick(s);
	}
}

static void tprof_probe_exit(void *data, struct task_struct *p)
{
	struct tprof_session *s;
	struct tprof_proc *pr;
	unsigned long flags;
	unsigned int i;

	if (p != current)
		return;
	local_irq_save(flags);
	/* a process one session denied may be another's now */
	for (i = 0; (s = tprof_session_next(p, &pr, true, &i));)
		tprof_exit_one(s, pr, p);
	local_irq_restore(flags);
}

/*
 * One session's part of an exec of @p (== current): a non-leader's exec
 * hands it the leader's tid, so the slot of its old tid is closed, in a
 * denied process too (else a thread that gets that tid later would find
 * the stale slot, with this process in it). Context: IRQs off.
 */
static void tprof_exec_one(struct tprof_session *s, struct tprof_proc *pr,
			   struct task_struct *p, pid_t old_pid,
			   struct linux_binprm *bprm)
{
	struct tprof_rec_exec rec = {
		.hdr.type = TPROF_REC_EXEC,
		.hdr.size = sizeof(rec),
	};
	u32 vtid = __task_pid_nr_ns(p, PIDTYPE_PID, s->pid_ns);
	struct tprof_thread *old, *t;
	int may;

	may = tprof_session_may_report(s, pr);
	/* pending or not: the kprobe at commit_creds() may be missing */
	if (may != TPROF_REPORT_NO && !s->grant.privileged &&
	    bprm->secureexec) {
		tprof_session_deny(s, pr, TPROF_DENIED_CREDS);
		may = TPROF_REPORT_NO;
	}
	old = tprof_thread_get(&s->threads, old_pid, false);
	rec.old_tid = old && old->started ? old->vtid : vtid;
	if (old_pid != p->pid && old) {
		/* The old tid is gone: close its slot. */
		if (old->started)
			tprof_thread_emit_exit(s, old, TPROF_REC_THREAD_EXIT);
		tprof_thread_bury(&s->threads, old);
	}
	if (may != TPROF_REPORT_YES)
		return;
	t = tprof_thread_get(&s->threads, p->pid, false);
	if (t && t->started)
		tprof_fill_comm(t->comm, p->comm);
	rec.hdr.time_ns = ktime_get_mono_fast_ns();
	rec.pid = pr->vpid;
	rec.tid = vtid;
	tprof_fill_comm(rec.comm, p->comm);
	tprof_rings_emit(&s->rings, &rec, sizeof(rec));
	tprof_emit_thread(s, pr->vpid, vtid, p->comm, 0);
}

/*
 * sched_process_exec: after the new image is set up, in @p (== current).
 * @old_pid is the global tid before exec (a non-leader that exec'd takes
 * the leader's tid). Context: preemption disabled.
 *
 * The new credentials and dumpability are final here: an unprivileged
 * session that may not see the new image ends before any record of it
 * (tprof_session_may_report()); a setuid/setgid or file-capability exec
 * (secureexec) ends it too. A process may be in two sessions (denied in
 * one, another's now): a non-leader's exec ends its accounting here once,
 * whichever session it ran under, and starts it again under the session
 * that follows it, with no CPU time between the two.
 */
static void tprof_probe_exec(void *data, struct task_struct *p,
			     pid_t old_pid, struct linux_binprm *bprm)
{
	struct tprof_session *s;
	struct tprof_proc *pr;
	unsigned long flags;
	unsigned int i;
	u64 rt, clk;

	if (p != current)
		return;
	local_irq_save(flags);
	/* before the detach's sample: no walk of the old image's layout */
	for (i = 0; (s = tprof_session_next(p, &pr, true, &i));)
		tprof_uwalk_exec(s, pr, p);
	if (old_pid != p->pid)
		tprof_sampler_detach(p, __builtin_frame_address(0), &rt, &clk);
	for (i = 0; (s = tprof_session_next(p, &pr, true, &i));)
		tprof_exec_one(s, pr, p, old_pid, bprm);
	if (old_pid != p->pid) {
		s = tprof_session_find(p, &pr);
		if (s)
			tprof_sampler_attach(s, pr, p, rt, clk);
	}
	local_irq_restore(flags);
}

/*
 * sched_switch: from __schedule() before context_switch(), with rq->lock
 * held and IRQs off; prev is still current. No allocation, no sleeping
 * lock, no wakeup here (irq_work only).
 *
 * Most switches of a machine are none of tprof's: no target's thread is
 * accounted on this CPU, @next is of no followed process (one filter
 * word) and not on its way out (a parked thread's process may be reaped
 * already), and @prev is not dying (its group's end may be a session's).
 * Those return here, at the cost of a few loads and no call.
 */
static void tprof_probe_sched_switch(void *data, bool preempt,
				     struct task_struct *prev,
				     struct task_struct *next,
				     unsigned int prev_state)
{
	if (likely(!tprof_cpu_accounting() &&
		   !tprof_procs_anywhere(next->tgid) &&
		   !(next->flags & PF_EXITING) && prev_state != TASK_DEAD))
		return;
	tprof_sampler_switch(preempt, prev, next, prev_state,
			     __builtin_frame_address(0), tprof_thread_exited);
	/*
	 * Not a tail call: kernel walks of samples taken there start above
	 * this frame (at the probe's caller), whose record must stay where
	 * @kfrom says while the sampler runs (arm64 reads the return
	 * address in it).
	 */
	barrier();
}

/*
 * cgroup_attach_task: after @task's process (@threadgroup) or @task alone
 * was moved to @dst_cgrp, any hierarchy. Context: process, cgroup_mutex
 * and the tracepoint's path lock held (IRQs off but on PREEMPT_RT),
 * preemption off. Registered only while a cgroup session exists.
 */
static void tprof_probe_cgroup_attach(void *data, struct cgroup *dst_cgrp,
				      const char *path,
				      struct task_struct *task,
				      bool threadgroup)
{
	if (tprof_cgroup_any())
		tprof_cgroup_attach(task, threadgroup);
}

/*
 * current's process mapped what ptrace's access refuses: in every session
 * that has it, its samples look each page up before reading it from now
 * on (TPROF_P_GUARDED), set before the mapping can hold anything (the
 * kprobe runs before mmap() returns). Context: the mmap kprobe.
 */
static void tprof_guard_current(void)
{
	struct tprof_proc *pr;
	unsigned int i = 0;

	while (tprof_session_next(current, &pr, true, &i))
		set_bit(TPROF_P_GUARDED, &pr->bits);
}

/*
 * perf_event_mmap(vma): @vma is new or changed (mmap_region(), mprotect,
 * brk, stack growth). Context: kprobe pre-handler, in the task that maps,
 * mmap_lock held, preemption (int3-based: IRQs too) disabled; it cannot
 * nest in a ring write of this CPU (those run with IRQs off). Only a
 * target's own executable mappings make an MMAP record; a mapping of what
 * ptrace refuses guards its process (tprof_guard_current()).
 */
static int tprof_kprobe_mmap(struct kprobe *kp, struct pt_regs *regs)
{
	struct vm_area_struct *vma =
		(struct vm_area_struct *)regs_get_kernel_argument(regs, 0);
	struct tprof_rec_mmap rec = {
		.hdr.type = TPROF_REC_MMAP,
		.hdr.size = sizeof(rec),
		.prot = TPROF_MMAP_EXEC,
	};
	struct tprof_session *s;
	struct tprof_proc *pr;
	unsigned long flags;
	bool later;

	if (!vma || vma->vm_mm != current->mm)
		return 0;
	if (tprof_policy_vma_guarded(vma))
		tprof_guard_current();
	if (!(vma->vm_flags & VM_EXEC))
		return 0;
	s = tprof_session_find(current, &pr);
	if (!s)
		return 0;
	rec.start = vma->vm_start;
	rec.end = vma->vm_end;
	if (vma->vm_file) {
		struct inode *inode = file_inode(vma->vm_file);

		rec.pgoff = (u64)vma->vm_pgoff << PAGE_SHIFT;
		rec.inode = inode->i_ino;
		rec.dev_major = MAJOR(inode->i_sb->s_dev);
		rec.dev_minor = MINOR(inode->i_sb->s_dev);
	}
	rec.pid = pr->vpid;
	rec.tid = __task_pid_nr_ns(current, PIDTYPE_PID, s->pid_ns);
	local_irq_save(flags);
	if (tprof_session_may_sample(s, pr, current, &later)) {
		rec.hdr.time_ns = ktime_get_mono_fast_ns();
		tprof_rings_emit(&s->rings, &rec, sizeof(rec));
	}
	local_irq_restore(flags);
	return 0;
}

/*
 * security_bprm_committed_creds(bprm): in begin_new_exec(), right after
 * commit_creds() and set_dumpable(), with exec_update_lock still held for
 * write (samples defer meanwhile): the new credentials and dumpability are
 * final, and nothing of the new image is mapped yet. A secure exec
 * (setuid, file capabilities, an LSM domain change that keeps the ids:
 * bprm->secureexec), or one the session's rule refuses, leaves an
 * unprivileged session here, before load_elf_binary() maps what an MMAP
 * record or a snapshot of the new stack (AT_RANDOM) would show; the exec
 * tracepoint comes only after that.
 * Context: kprobe pre-handler (preemption and IRQs off), current execs.
 */
static int tprof_kprobe_creds(struct kprobe *kp, struct pt_regs *regs)
{
	struct linux_binprm *bprm =
		(struct linux_binprm *)regs_get_kernel_argument(regs, 0);
	struct tprof_session *s;
	struct tprof_proc *pr;
	unsigned long flags;
	unsigned int i;
	int why;

	local_irq_save(flags);
	/*
	 * The new mm holds nothing yet but the kernel's special mappings:
	 * what the new image maps comes through tprof_kprobe_mmap().
	 */
	for (i = 0; (s = tprof_session_next(current, &pr, true, &i));)
		clear_bit(TPROF_P_GUARDED, &pr->bits);
	for (i = 0; (s = tprof_session_next(current, &pr, false, &i));) {
		if (s->grant.privileged)
			continue;
		why = bprm && bprm->secureexec ? TPROF_DENIED_CREDS :
		      tprof_policy_check_settled(&s->grant) ?:
		      tprof_policy_label(&s->grant, pr, current);
		if (why)
			tprof_session_deny(s, pr, why);
	}
	local_irq_restore(flags);
	return 0;
}

static struct kprobe tprof_kp_mmap = {
	.symbol_name = "perf_event_mmap",
	.pre_handler = tprof_kprobe_mmap,
};

static struct kprobe tprof_kp_creds = {
	.symbol_name = "security_bprm_committed_creds",
	.pre_handler = tprof_kprobe_creds,
};

/*
 * Registered now; protected by tprof_sessions_mutex. Without one, what it
 * gives is missing (MMAP records; denial before the exec tracepoint: the
 * exec probe checks secureexec too), not the session.
 */
static struct kprobe *tprof_kps[] = { &tprof_kp_mmap, &tprof_kp_creds };
static bool tprof_kps_on[ARRAY_SIZE(tprof_kps)];

/* Context: process, tprof_sessions_mutex held. */
static void tprof_kprobe_get(void)
{
	unsigned int i;
	int ret;

	for (i = 0; i < ARRAY_SIZE(tprof_kps); i++) {
		/* a kprobe is registered anew from a clean struct */
		tprof_kps[i]->addr = NULL;
		tprof_kps[i]->flags = 0;
		ret = register_kprobe(tprof_kps[i]);
		tprof_kps_on[i] = !ret;
		if (ret)
			pr_warn_once("kprobe on %s: %d\n",
				     tprof_kps[i]->symbol_name, ret);
	}
	/* new mappings and execs are seen: TPROF_P_GUARDED may be lifted */
	tprof_policy_set_mm_watched(tprof_kps_on[0] && tprof_kps_on[1]);
}

/* Context: process, tprof_sessions_mutex held; waits for handlers. */
static void tprof_kprobe_put(void)
{
	unsigned int i;

	tprof_policy_set_mm_watched(false);
	for (i = 0; i < ARRAY_SIZE(tprof_kps); i++) {
		if (tprof_kps_on[i])
			unregister_kprobe(tprof_kps[i]);
		tprof_kps_on[i] = false;
	}
}

struct tprof_tp {
	const char *name;
	void *probe;		/* prototype matches TP_PROTO exactly (kCFI) */
	struct tracepoint *tp;
};

static struct tprof_tp tprof_tps[] = {
	{ "sched_process_fork", tprof_probe_fork },
	{ "sched_process_exec", tprof_probe_exec },
	{ "sched_process_exit", tprof_probe_exit },
	{ "sched_switch", tprof_probe_sched_switch },
};

/* Published sessions; protected by tprof_sessions_mutex (session.h). */
static unsigned int tprof_tp_users;

/*
 * cgroup_attach_task, for TPROF_F_CGROUP sessions alone (NULL: none can
 * be made), and the sessions that use it; tprof_sessions_mutex.
 */
static struct tracepoint *tprof_tp_attach;
static unsigned int tprof_attach_users;

static void tprof_tp_lookup(struct tracepoint *tp, void *priv)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(tprof_tps); i++)
		if (!strcmp(tp->name, tprof_tps[i].name))
			tprof_tps[i].tp = tp;
	if (!strcmp(tp->name, "cgroup_attach_task"))
		tprof_tp_attach = tp;
	tprof_wakers_lookup(tp);
}

/* Can this kernel's cgroup moves be watched? */
bool tprof_probes_have_cgroup(void)
{
	return tprof_tp_attach;
}

/* Context: process, tprof_sessions_mutex held. Return: 0 or -errno. */
int tprof_probes_get_cgroup(void)
{
	int ret;

	lockdep_assert_held(&tprof_sessions_mutex);
	if (!tprof_tp_attach)
		return -EOPNOTSUPP;
	if (tprof_attach_users++)
		return 0;
	ret = tracepoint_probe_register(tprof_tp_attach,
					tprof_probe_cgroup_attach, NULL);
	if (ret) {
		pr_err("registering cgroup_attach_task: %d\n", ret);
		tprof_attach_users--;
	}
	return ret;
}

/* Context: process, tprof_sessions_mutex held; waits for the probe. */
void tprof_probes_put_cgroup(void)
{
	lockdep_assert_held(&tprof_sessions_mutex);
	if (--tprof_attach_users)
		return;
	tracepoint_probe_unregister(tprof_tp_attach, tprof_probe_cgroup_attach,
				    NULL);
	tracepoint_synchronize_unregister();
}

int tprof_probes_init(void)
{
	unsigned int i;

	for_each_kernel_tracepoint(tprof_tp_lookup, NULL);
	for (i = 0; i < ARRAY_SIZE(tprof_tps); i++) {
		if (!tprof_tps[i].tp) {
			pr_err("tracepoint %s not found\n", tprof_tps[i].name);
			return -ENOENT;
		}
	}
	return 0;
}

static void tprof_tp_unregister(unsigned int n)
{
	while (n--)
		tracepoint_probe_unregister(tprof_tps[n].tp, tprof_tps[n].probe,
					    NULL);
	/* In-flight probes are done once this returns. */
	tracepoint_synchronize_unregister();
}

/* Context: process, tprof_sessions_mutex held. */
int tprof_probes_get(void)
{
	unsigned int i;
	int ret;

	lockdep_assert_held(&tprof_sessions_mutex);
	if (tprof_tp_users++)
		return 0;
	for (i = 0; i < ARRAY_SIZE(tprof_tps); i++) {
		ret = tracepoint_probe_register(tprof_tps[i].tp,
						tprof_tps[i].probe, NULL);
		if (ret) {
			pr_err("registering %s: %d\n", tprof_tps[i].name, ret);
			tprof_tp_unregister(i);
			tprof_tp_users--;
			return ret;
		}
	}
	tprof_kprobe_get();
	return 0;
}

/* Context: process, tprof_sessions_mutex held. */
void tprof_probes_put(void)
{
	lockdep_assert_held(&tprof_sessions_mutex);
	if (--tprof_tp_users)
		return;
	tprof_kprobe_put();
	tprof_tp_unregister(ARRAY_SIZE(tprof_tps));
}
