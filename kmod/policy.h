/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tprof: who may profile whom. The proofs ENABLE accepts, the rule every
 * unprivileged sample must pass (the target stays dumpable as
 * SUID_DUMP_USER with the ids it had at ENABLE, as for ptrace and perf),
 * and what an unprivileged user may hold (locked memory, sessions).
 */
#ifndef _TPROF_POLICY_H
#define _TPROF_POLICY_H

#include <linux/cred.h>
#include <linux/mm_types.h>
#include <linux/rwsem.h>
#include <linux/sched.h>
#include <linux/sched/coredump.h>
#include <linux/sched/signal.h>
#include <linux/types.h>
#include <linux/uidgid.h>

#include "uapi/tprof.h"

struct file;
struct tprof_proc;
struct vm_area_struct;
struct user_struct;

/**
 * struct tprof_ids - the target's objective ids when ENABLE checked it.
 * @uid, @euid, @suid, @gid, @egid, @sgid: as __ptrace_may_access() compares
 *	them.
 */
struct tprof_ids {
	kuid_t uid, euid, suid;
	kgid_t gid, egid, sgid;
};

/**
 * struct tprof_grant - what ENABLE granted, and what it charged.
 * @privileged: CAP_PERFMON or CAP_SYS_ADMIN on the opener's creds: no rule.
 * @ids: for unprivileged sessions, the ids the target must keep.
 * @user: the unprivileged caller's user (get_uid()): sessions per user and
 *	the locked_vm charge.
 * @locked_pages: pages charged to @user->locked_vm.
 */
struct tprof_grant {
	bool privileged;
	struct tprof_ids ids;
	struct user_struct *user;
	unsigned long locked_pages;
};

int tprof_policy_caller(struct tprof_grant *g, struct file *file, u32 flags);
int tprof_policy_target(struct tprof_grant *g, struct task_struct *task,
			const struct tprof_ioc_enable *e);
int tprof_policy_charge(struct tprof_grant *g, unsigned long bytes,
			struct tprof_ioc_enable *e);
void tprof_policy_release(struct tprof_grant *g);
u32 tprof_policy_label_of(struct task_struct *p);
int tprof_policy_label(const struct tprof_grant *g, struct tprof_proc *pr,
		       struct task_struct *p);
int tprof_policy_check_other(const struct tprof_grant *g,
			     struct task_struct *p);
int tprof_policy_prove(const struct tprof_grant *g, struct task_struct *task,
		       int fd, bool attach);
unsigned int tprof_policy_max_user_sessions(void);
u64 tprof_policy_min_period(bool privileged);
unsigned int tprof_policy_sample_cpu_percent(void);
bool tprof_policy_privileged(struct file *file);
unsigned int tprof_policy_ring_kb_per_cpu(void);
bool tprof_policy_vma_guarded(const struct vm_area_struct *vma);
void tprof_policy_set_mm_watched(bool on);
bool tprof_policy_mm_watched(void);
void tprof_policy_unguard(struct task_struct *task, unsigned long *bits,
			  int bit);

static inline bool tprof_ids_equal(const struct tprof_ids *a,
				   const struct cred *c)
{
	return uid_eq(a->uid, c->uid) && uid_eq(a->euid, c->euid) &&
	       uid_eq(a->suid, c->suid) && gid_eq(a->gid, c->gid) &&
	       gid_eq(a->egid, c->egid) && gid_eq(a->sgid, c->sgid);
}

/*
 * The two halves of the rule, each final: the ids the target had at
 * ENABLE (objective creds, as ptrace checks them), and an mm dumpable as
 * SUID_DUMP_USER (none, exiting: nothing of the user is read).
 * Return: 0 or TPROF_DENIED_*.
 */
static inline int tprof_policy_ids(const struct tprof_grant *g,
				   const struct cred *c)
{
	return tprof_ids_equal(&g->ids, c) ? 0 : TPROF_DENIED_CREDS;
}

static inline int tprof_policy_mm(struct mm_struct *mm)
{
	return mm && get_dumpable(mm) != SUID_DUMP_USER ?
	       TPROF_DENIED_DUMPABLE : 0;
}

/**
 * tprof_policy_check() - may an unprivileged session sample @p now?
 * @g: the session's grant.
 * @p: a thread of the target; current, or @p's creds and mm are pinned.
 *
 * The ids first: what fails them is final. Then, while an exec switches
 * mm and credentials (exec_update_lock held for write, from exec_mmap()
 * until after commit_creds()), the new mm is live with the old ids,
 * registers and possibly dumpability: nothing can be decided, so the
 * caller defers (readers of that rwsem defer it too, briefly: the lock
 * does not say which; "later" never means "allowed"). A setuid exec makes
 * the new mm non-dumpable before its ids change: checked before the lock,
 * dumpability gave such an exec the wrong reason. Then dumpability, final
 * too. Without an mm (exiting) nothing of the user is read, so only the
 * ids matter.
 *
 * Context: any (hardirq, probes); reads @p's own creds and mm.
 * Return: 0 (allowed), -EAGAIN (decide later), or TPROF_DENIED_* (> 0).
 */
static inline int tprof_policy_check(const struct tprof_grant *g,
				     struct task_struct *p)
{
	int ret;

	if (g->privileged)
		return 0;
	/* RCU-freed, IRQs are off */
	ret = tprof_policy_ids(g, rcu_dereference_raw(p->real_cred));
	if (ret)
		return ret;
	if (rwsem_is_locked(&p->signal->exec_update_lock))
		return -EAGAIN;
	return tprof_policy_mm(READ_ONCE(p->mm));
}

/**
 * tprof_policy_check_settled() - tprof_policy_check() of current where it
 *	cannot be inside an exec's switch of mm and credentials: the fork
 *	probe (de_thread() left no other thread to exec, and a forking
 *	thread is not exec'ing) and the exec probe (past the switch). A holder
 *	of exec_update_lock there is a reader elsewhere (/proc/PID/maps, a
 *	ptrace attach), which must not make "allowed" of anything: the ids
 *	and the mm decide now.
 * @g: the session's grant.
 *
 * Context: probes (preemption or IRQs off).
 * Return: 0 (allowed) or TPROF_DENIED_* (> 0).
 */
static inline int tprof_policy_check_settled(const struct tprof_grant *g)
{
	if (g->privileged)
		return 0;
	return tprof_policy_ids(g, rcu_dereference_raw(current->real_cred)) ?:
	       tprof_policy_mm(READ_ONCE(current->mm));
}

#endif /* _TPROF_POLICY_H */
