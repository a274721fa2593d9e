// SPDX-License-Identifier: GPL-2.0
/*
 * tprof: who may profile whom (see policy.h): privilege and lockdown of
 * the caller, the ptrace-read proof and dumpability of the target at
 * ENABLE, and the locked-memory charge of unprivileged rings.
 */
#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/magic.h>
#include <linux/mm.h>
#include <linux/mmap_lock.h>
#include <linux/moduleparam.h>
#include <linux/rcupdate.h>
#include <linux/resource.h>
#include <linux/sched/mm.h>
#include <linux/sched/task.h>
#include <linux/sched/user.h>
#include <linux/security.h>
#include <linux/string.h>

#include "policy.h"
#include "procs.h"
#include "tprof.h"

/*
 * perf_event_mlock_kb's default: what each user may lock per CPU for
 * tprof (and perf, and io_uring: they share user_struct.locked_vm) on top
 * of RLIMIT_MEMLOCK. The default ring, 256 KiB per CPU, fits twice.
 */
static unsigned int ring_kb_per_cpu = 516;
module_param(ring_kb_per_cpu, uint, 0644);
MODULE_PARM_DESC(ring_kb_per_cpu,
		 "KiB per possible CPU each user may lock in unprivileged sessions' rings beyond RLIMIT_MEMLOCK (default 516)");

static unsigned int max_user_sessions = 4;
module_param(max_user_sessions, uint, 0644);
MODULE_PARM_DESC(max_user_sessions,
		 "unprivileged sessions one user may hold at once (default 4)");

/*
 * What one unprivileged session may cost the machine, as perf bounds it
 * with perf_event_max_sample_rate and perf_cpu_time_max_percent: a floor
 * under its periods, and a budget of each CPU's time for taking its
 * samples (stack walks, snapshot copies, ring writes: hard-irq time).
 */
static unsigned int unpriv_min_period_us = 100;
module_param(unpriv_min_period_us, uint, 0644);
MODULE_PARM_DESC(unpriv_min_period_us,
		 "shortest sampling period (us) an unprivileged session may ask for (default 100)");

static unsigned int sample_cpu_percent = 25;
module_param(sample_cpu_percent, uint, 0644);
MODULE_PARM_DESC(sample_cpu_percent,
		 "share of each CPU (percent) unprivileged sessions' sampling may take; past it a session's periods are stretched (THROTTLE record); 0 or 100: no bound (default 25)");

/* The shortest period a caller of this privilege may ask for. */
u64 tprof_policy_min_period(bool privileged)
{
	u64 floor = (u64)READ_ONCE(unpriv_min_period_us) * NSEC_PER_USEC;

	if (privileged || floor < TPROF_MIN_PERIOD_NS)
		return TPROF_MIN_PERIOD_NS;
	return min_t(u64, floor, TPROF_MAX_PERIOD_NS);
}

unsigned int tprof_policy_sample_cpu_percent(void)
{
	return READ_ONCE(sample_cpu_percent);
}

/* CAP_PERFMON or CAP_SYS_ADMIN on the opener's creds of @file. */
bool tprof_policy_privileged(struct file *file)
{
	return file_ns_capable(file, &init_user_ns, CAP_PERFMON) ||
	       file_ns_capable(file, &init_user_ns, CAP_SYS_ADMIN);
}

unsigned int tprof_policy_max_user_sessions(void)
{
	return READ_ONCE(max_user_sessions);
}

unsigned int tprof_policy_ring_kb_per_cpu(void)
{
	return READ_ONCE(ring_kb_per_cpu);
}

/**
 * tprof_policy_caller() - the caller's side of ENABLE.
 * @g: grant to fill.
 * @file: the session's file: its opener's creds decide privilege, as
 *	perf_event_open() decides it on the caller's.
 * @flags: ENABLE's TPROF_F_*.
 *
 * Kernel stacks need CAP_PERFMON and no lockdown of kernel confidentiality
 * (perf's LOCKDOWN_PERF). A cgroup's processes (TPROF_F_CGROUP) need
 * CAP_PERFMON: they come with no proof that the caller may ptrace them,
 * as perf -G asks for CPU-wide rights. An unprivileged session's user is pinned for the
 * session limits, the locked-memory charge and the sampling budget: the
 * user who opened @file, whom /dev/tprof's permission let in, not the
 * ioctl's caller, so that a process of that user which took on subordinate
 * uids (newuidmap) in its own user namespace gets no more sessions,
 * locked memory or budget through one fd. perf charges its buffers to
 * the user that maps them; tprof's rings are made by ENABLE, on the
 * opener's behalf. Context: process.
 * Return: 0, -EPERM or the lockdown LSM's error.
 */
int tprof_policy_caller(struct tprof_grant *g, struct file *file, u32 flags)
{
	int ret;

	g->privileged = tprof_policy_privileged(file);
	if ((flags & TPROF_F_CGROUP) && !g->privileged)
		return -EPERM;
	if (flags & TPROF_F_KERNEL_STACK) {
		if (!g->privileged)
			return -EPERM;
		ret = security_locked_down(LOCKDOWN_PERF);
		if (ret)
			return ret;
	}
	if (!g->privileged)
		g->user = get_uid(file->f_cred->user);
	return 0;
}

/*
 * An fd of /proc/<pid>/@name of @mm opened by the caller: procfs opened it
 * only after a ptrace check of the caller against the target (auxv:
 * PTRACE_MODE_READ_FSCREDS; mem: PTRACE_MODE_ATTACH_FSCREDS), and keeps
 * the mm it checked in private_data.
 */
static int tprof_check_proc_fd(int fd, const char *name, struct mm_struct *mm)
{
	struct file *file = fget(fd);
	struct dentry *dentry;
	int ret = -EPERM;

	if (!file)
		return -EBADF;
	dentry = file_dentry(file);
	if (dentry->d_sb->s_magic == PROC_SUPER_MAGIC &&
	    !strcmp(dentry->d_name.name, name) && file->private_data == mm)
		ret = 0;
	fput(file);
	return ret;
}

/* The proofs of @e, and what an unprivileged session needs of them. */
static int tprof_check_proofs(const struct tprof_grant *g,
			      const struct tprof_ioc_enable *e,
			      struct mm_struct *mm)
{
	bool auxv = e->flags & TPROF_F_AUXV_PROOF;
	bool mem = e->flags & TPROF_F_MEM_PROOF;
	int ret;

	if (auxv) {
		ret = tprof_check_proc_fd(e->auxv_fd, "auxv", mm);
		if (ret)
			return ret;
	}
	if (mem) {
		ret = tprof_check_proc_fd(e->mem_fd, "mem", mm);
		if (ret)
			return ret;
	}
	if (g->privileged)
		return 0;
	/* Raw stack bytes: what ptrace would let the caller read (attach). */
	if (e->flags & TPROF_F_USER_SNAPSHOT)
		return mem ? 0 : -EPERM;
	return auxv || mem ? 0 : -EPERM;
}

/**
 * tprof_policy_target() - the target's side of ENABLE.
 * @g: grant from tprof_policy_caller().
 * @task: the target's leader (pinned).
 * @e: ENABLE's argument: its proofs and what they must allow.
 *
 * A proof is an open /proc/PID/auxv (ptrace-read) or /proc/PID/mem
 * (ptrace-attach, needed for stack snapshots) of the target's current mm:
 * an exec since it was opened invalidates it. An unprivileged session also needs
 * the mm dumpable as SUID_DUMP_USER now, and records the ids the target
 * must keep. Called right before the session is published, so that what
 * changes afterwards is seen by tprof_policy_check() in the probes and the
 * sampling path. Context: process.
 * Return: 0, -EPERM, -EBADF or -ESRCH.
 */
int tprof_policy_target(struct tprof_grant *g, struct task_struct *task,
			const struct tprof_ioc_enable *e)
{
	struct mm_struct *mm = get_task_mm(task);
	const struct cred *c;
	int ret;

	if (!mm)
		return -ESRCH;
	ret = tprof_check_proofs(g, e, mm);
	if (!ret && !g->privileged) {
		rcu_read_lock();
		c = __task_cred(task);
		g->ids = (struct tprof_ids) {
			.uid = c->uid, .euid = c->euid, .suid = c->suid,
			.gid = c->gid, .egid = c->egid, .sgid = c->sgid,
		};
		rcu_read_unlock();
		if (tprof_policy_mm(mm))
			ret = -EPERM;
	}
	mmput(mm);
	return ret;
}

/**
 * tprof_policy_label_of() - @p's LSM security label as ptrace's checks see
 *	it (its objective credentials): SELinux's sid, AppArmor's label id,
 *	Smack's; 0 where no LSM names one (Yama, Landlock: a Landlock domain
 *	never keeps out a tracer that was let in).
 * @p: a task; current, or pinned.
 *
 * Context: any; the LSMs' hooks take no lock (RCU, reference counts).
 */
u32 tprof_policy_label_of(struct task_struct *p)
{
	u32 sid = 0;

	security_task_getsecid_obj(p, &sid);
	return sid;
}

/**
 * tprof_policy_label() - does @p, a thread of @pr, still have the LSM label
 *	its process joined with?
 * @g: the session's grant (privileged: no rule).
 * @pr: @p's process.
 * @p: current.
 *
 * An LSM re-checks an attached ptracer when its domain changes without an
 * exec (SELinux setcon, AppArmor change_profile/change_hat); a hard
 * interrupt cannot ask the LSM whether the caller may ptrace the new
 * domain, so a changed label leaves the session, as a secure exec does.
 * Every such change commits new credentials, so the LSM is asked only when
 * @p's credentials are not the ones last found with the label: one
 * compare otherwise. Those are held by reference, so that freed
 * credentials reallocated at the same address are not taken for them.
 * Context: IRQs off (hrtimer, probes), @p is current.
 * Return: 0, or TPROF_DENIED_LABEL.
 */
int tprof_policy_label(const struct tprof_grant *g, struct tprof_proc *pr,
		       struct task_struct *p)
{
	const struct cred *c, *seen, *old;

	if (g->privileged)
		return 0;
	/* current's own: stable while it is interrupted */
	c = rcu_dereference_raw(p->real_cred);
	seen = READ_ONCE(pr->label_cred);
	if (likely(c == seen))
		return 0;
	if (tprof_policy_label_of(p) != pr->label)
		return TPROF_DENIED_LABEL;
	/*
	 * Threads with credentials of their own (glibc's set*id broadcast
	 * gives each its copy) take turns here. put_cred() of the last
	 * reference only queues an RCU callback.
	 */
	get_cred(c);
	old = cmpxchg(&pr->label_cred, seen, c);
	put_cred(old == seen ? seen : c);
	return 0;
}

/* Pages as KiB for struct tprof_ioc_enable, saturated. */
static u32 tprof_pages_kb(unsigned long pages)
{
	return pages > (U32_MAX >> (PAGE_SHIFT - 10)) ? U32_MAX :
	       pages << (PAGE_SHIFT - 10);
}

/**
 * tprof_policy_charge() - charge an unprivileged session's rings.
 * @g: grant.
 * @bytes: all its rings.
 * @e: its ENABLE argument: says what refused it (TPROF_REFUSED_MEMLOCK).
 *
 * Charged to user_struct.locked_vm like io_uring's and perf's buffers, and
 * refused beyond RLIMIT_MEMLOCK plus ring_kb_per_cpu per possible CPU.
 * Privileged sessions and CAP_IPC_LOCK are not charged. Context: process.
 * Return: 0 or -ENOMEM.
 */
int tprof_policy_charge(struct tprof_grant *g, unsigned long bytes,
			struct tprof_ioc_enable *e)
{
	unsigned long pages = DIV_ROUND_UP(bytes, PAGE_SIZE);
	unsigned long limit, extra, cur;
	unsigned long rlim = rlimit(RLIMIT_MEMLOCK);

	if (g->privileged || capable(CAP_IPC_LOCK))
		return 0;
	extra = ((unsigned long)tprof_policy_ring_kb_per_cpu() *
		 num_possible_cpus()) >> (PAGE_SHIFT - 10);
	limit = rlim == RLIM_INFINITY ? ULONG_MAX : (rlim >> PAGE_SHIFT) + extra;
	cur = atomic_long_read(&g->user->locked_vm);
	do {
		if (cur + pages < cur || cur + pages > limit) {
			/* the limit, as the caller should be told of it */
			e->refused = TPROF_REFUSED_MEMLOCK;
			e->need_kb = tprof_pages_kb(pages);
			e->held_kb = tprof_pages_kb(cur);
			e->limit_kb = tprof_pages_kb(limit);
			return -ENOMEM;
		}
	} while (!atomic_long_try_cmpxchg(&g->user->locked_vm, &cur,
					  cur + pages));
	g->locked_pages = pages;
	return 0;
}

/* Undoes the charge and the user reference. Context: process. */
void tprof_policy_release(struct tprof_grant *g)
{
	if (g->locked_pages)
		atomic_long_sub(g->locked_pages, &g->user->locked_vm);
	g->locked_pages = 0;
	if (g->user)
		free_uid(g->user);
	g->user = NULL;
}

/**
 * tprof_policy_prove() - a pending descendant's proof (TPROF_IOC_PROVE).
 * @g: the session's grant.
 * @task: the descendant's leader (pinned).
 * @fd: the caller's /proc/PID/mem (or, unless @attach, auxv) of it.
 * @attach: the session reads raw stacks (TPROF_F_USER_SNAPSHOT): only an
 *	attach-mode proof (mem) stands for that.
 *
 * As ENABLE's proof of the target: procfs did the ptrace check of the
 * caller when it opened @fd, for the mm it keeps; that must be @task's
 * mm now. Then the session's rule: the target's ids, dumpable.
 * Context: process; @task's exec_update_lock held for read (its mm and
 * credentials are not being switched).
 * Return: 0, TPROF_DENIED_* (> 0), -EPERM or -EBADF (@fd proves
 *	nothing), -ESRCH (no mm: exiting).
 */
int tprof_policy_prove(const struct tprof_grant *g, struct task_struct *task,
		       int fd, bool attach)
{
	struct mm_struct *mm = get_task_mm(task);
	int ret;

	if (!mm)
		return -ESRCH;
	ret = tprof_check_proc_fd(fd, "mem", mm);
	if (ret == -EPERM && !attach)
		ret = tprof_check_proc_fd(fd, "auxv", mm);
	if (!ret && !g->privileged) {
		rcu_read_lock();
		ret = tprof_policy_ids(g, __task_cred(task));
		rcu_read_unlock();
		if (!ret)
			ret = tprof_policy_mm(mm);
	}
	mmput(mm);
	return ret;
}

/**
 * tprof_policy_check_other() - tprof_policy_check() of a task that is not
 *	current (a descendant joining a TPROF_F_CHILDREN session at ENABLE).
 * @g: the session's grant.
 * @p: the task.
 *
 * Its mm is pinned by task_lock(), as exit_mm() clears it under that lock.
 * Context: process, RCU read side (task_lock() nests inside it).
 * Return: as tprof_policy_check().
 */
int tprof_policy_check_other(const struct tprof_grant *g,
			     struct task_struct *p)
{
	int ret;

	if (g->privileged)
		return 0;
	task_lock(p);
	ret = tprof_policy_check(g, p);
	task_unlock(p);
	return ret;
}

/*
 * The mmap and creds kprobes are on (probes.c): every new mapping and
 * exec of a followed process is seen, so a process's TPROF_P_GUARDED may
 * be lifted; without them samples look up every page they read.
 */
static bool tprof_mm_watched;

/* Context: process, tprof_sessions_mutex held (the probes' registration). */
void tprof_policy_set_mm_watched(bool on)
{
	WRITE_ONCE(tprof_mm_watched, on);
}

/* Context: any (a sample: the kprobes stay registered while it runs). */
bool tprof_policy_mm_watched(void)
{
	return READ_ONCE(tprof_mm_watched);
}

/**
 * tprof_policy_vma_guarded() - may @vma hold what ptrace's own access
 *	refuses: device memory (VM_IO, VM_PFNMAP: reads may have side
 *	effects) or memfd_secret(2) memory (a secretmem file, told by its
 *	file system: secretmem_aops is not exported)?
 * @vma: a mapping.
 *
 * Not the special mappings the kernel installs in every process ([vvar],
 * [vdso], the vsyscall page: the only ones whose vm_ops name them): vvar
 * is VM_IO | VM_PFNMAP, but holds the clock data every process reads.
 * Context: the mm's lock held, or a kprobe on a new mapping.
 */
bool tprof_policy_vma_guarded(const struct vm_area_struct *vma)
{
	if (vma->vm_ops && vma->vm_ops->name)
		return false;
	return (vma->vm_flags & (VM_IO | VM_PFNMAP)) ||
	       (vma->vm_file &&
		file_inode(vma->vm_file)->i_sb->s_magic == SECRETMEM_MAGIC);
}

/**
 * tprof_policy_unguard() - clear @bit of @bits when @task's memory holds
 *	no mapping of that kind (tprof_policy_vma_guarded()).
 * @task: a process's leader (a reference held).
 * @bits: the word (a process slot's TPROF_P_* bits).
 * @bit: TPROF_P_GUARDED.
 *
 * Under the mm's lock for read, so that a mapping made meanwhile (under
 * it for write; the mmap kprobe sets the bit again there) comes either
 * before the look, which sees it, or after the clear; and only while
 * @task still has that mm (an exec's new mm is the exec probe's to judge).
 * Context: process; takes the mm's lock for read and @task's task_lock.
 */
void tprof_policy_unguard(struct task_struct *task, unsigned long *bits,
			  int bit)
{
	struct mm_struct *mm = get_task_mm(task);
	struct vm_area_struct *vma;
	bool guarded = false;

	if (!mm)
		return;
	if (mmap_read_lock_killable(mm))
		goto out_put;
	{
		VMA_ITERATOR(vmi, mm, 0);

		for_each_vma(vmi, vma) {
			if (tprof_policy_vma_guarded(vma)) {
				guarded = true;
				break;
			}
		}
	}
	task_lock(task);
	if (!guarded && task->mm == mm)
		clear_bit(bit, bits);
	task_unlock(task);
	mmap_read_unlock(mm);
out_put:
	mmput(mm);
}
