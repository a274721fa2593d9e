// SPDX-License-Identifier: GPL-2.0
/* tprof-read: talk to /dev/tprof (INFO, ENABLE, read, DISABLE, STATS). */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "live/device.h"
#include "lib/util.h"

/*
 * open() said EACCES/EPERM: say who may open the device and what to do, from
 * its owner and mode (the udev rule gives it to group tprof, mode 0660).
 */
static void explain_denied(const char *dev, int err)
{
	const struct passwd *pw = getpwuid(geteuid());
	const struct group *gr;
	char gname[32];
	struct stat st;
	unsigned int mode;

	if (stat(dev, &st) < 0) {
		pr_err("%s: %s", dev, strerror(err));
		return;
	}
	mode = st.st_mode & 07777;
	gr = getgrgid(st.st_gid);
	if (gr)
		snprintf(gname, sizeof(gname), "%s", gr->gr_name);
	else
		snprintf(gname, sizeof(gname), "%u", (unsigned int)st.st_gid);
	if (st.st_gid == 0 || !(st.st_mode & 0040))
		pr_err("%s: %s: only root may open it (group %s, mode %04o); the udev rule of tprof-dkms or 'make install' gives it to group tprof, or run as root",
		       dev, strerror(err), gname, mode);
	/* group_member(): the effective gid or a supplementary group. */
	else if (!group_member(st.st_gid))
		pr_err("%s: %s: you are not in group %s, whose members may open it; an admin can run 'sudo adduser %s %s', then log in again",
		       dev, strerror(err), gname, pw ? pw->pw_name : "USER",
		       gname);
	else
		pr_err("%s: %s: you are in group %s, but its mode %04o denies it",
		       dev, strerror(err), gname, mode);
}

/*
 * INFO as this module answers it: modules that predate e_machine and
 * user_pac_mask know only the 64-byte form (-ENOTTY for the long one);
 * their fields read 0 then.
 */
int device__info(int fd, struct tprof_ioc_info *info)
{
	memset(info, 0, sizeof(*info));
	if (ioctl(fd, TPROF_IOC_INFO, info) == 0)
		return 0;
	if (errno != ENOTTY)
		return -1;
	memset(info, 0, sizeof(*info));
	return ioctl(fd, TPROF_IOC_INFO_V1, info);
}

int device__open(struct device *s, const char *dev)
{
	int ret;

	memset(s, 0, sizeof(*s));
	s->fd = open(dev, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (s->fd < 0) {
		ret = -errno;
		if (errno == ENOENT || errno == ENODEV || errno == ENXIO)
			pr_err("%s: %s: is the module loaded? try: sudo modprobe tprof",
			       dev, strerror(errno));
		else if (errno == EACCES || errno == EPERM)
			explain_denied(dev, errno);
		else
			pr_err("%s: %s", dev, strerror(errno));
		return ret;
	}
	if (device__info(s->fd, &s->info)) {
		ret = -errno;
		pr_err("%s: INFO: %s: not a tprof device or ABI mismatch",
		       dev, strerror(errno));
		goto err_close;
	}
	if (s->info.abi_version != TPROF_ABI_VERSION) {
		ret = -EPROTO;
		pr_err("%s: ABI mismatch: module has version %u, tprof-read expects %u; install matching tprof.ko and tprof-read",
		       dev, s->info.abi_version, TPROF_ABI_VERSION);
		goto err_close;
	}
	if (s->info.record_version != TPROF_RECORD_VERSION) {
		ret = -EPROTO;
		pr_err("%s: record format mismatch: module has version %u, tprof-read expects %u",
		       dev, s->info.record_version, TPROF_RECORD_VERSION);
		goto err_close;
	}
	pr_debug("%s: abi %u, %u cpus, ring %u bytes", dev,
		 s->info.abi_version, s->info.nr_cpu_ids,
		 s->info.default_ring_bytes);
	return 0;

err_close:
	close(s->fd);
	s->fd = -1;
	return ret;
}

/*
 * /proc/PID belongs to the task's euid even when the task is not dumpable;
 * its other files then belong to root, and procfs refuses the auxv proof.
 */
static bool runs_as_me(int pid)
{
	char path[32];
	struct stat st;

	snprintf(path, sizeof(path), "/proc/%d", pid);
	return stat(path, &st) == 0 && st.st_uid == geteuid();
}

/* Is the kernel locked down at confidentiality (perf's LOCKDOWN_PERF)? */
static bool lockdown_confidentiality(void)
{
	char buf[128] = "";
	FILE *f = fopen("/sys/kernel/security/lockdown", "re");

	if (!f)
		return false;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = '\0';
	fclose(f);
	return strstr(buf, "[confidentiality]") != NULL;
}

void device__enable_why(struct device *s, struct enable_why *w, int pid)
{
	struct rlimit rl;

	memset(w, 0, sizeof(*w));
	w->own_not_dumpable = s->proof_err && runs_as_me(pid);
	w->mem_proof_err = s->mem_proof_err;
	/* the counts as they are now, not at open */
	if (device__info(s->fd, &w->info))
		w->info = s->info;
	if (getrlimit(RLIMIT_MEMLOCK, &rl) == 0) {
		w->memlock_unlimited = rl.rlim_cur == RLIM_INFINITY;
		w->memlock_bytes = rl.rlim_cur;
	}
	w->lockdown_confidentiality = lockdown_confidentiality();
}

/*
 * -ENOMEM: an unprivileged session's rings are charged to the user's locked
 * memory (tprof.ko policy.c). Name the limit when that is what refused it:
 * as the module says (en->refused), which holds in attach mode and with
 * several sessions; a module without the field leaves it to a guess from
 * INFO, read after the failure.
 */
static void explain_enomem(char *buf, size_t len, int err,
			   const struct tprof_ioc_enable *en,
			   const struct enable_why *w)
{
	const struct tprof_ioc_info *in = &w->info;
	unsigned int nr = in->nr_rings ? in->nr_rings : in->nr_cpu_ids;
	unsigned int ring_kb = (en->ring_bytes ? en->ring_bytes :
				in->default_ring_bytes) / 1024;
	unsigned long long need_kb = (unsigned long long)nr * ring_kb;
	unsigned long long rlim_kb = w->memlock_bytes / 1024;
	unsigned long long extra_kb = (unsigned long long)in->ring_kb_per_cpu * nr;

	if (en->refused == TPROF_REFUSED_MEMLOCK) {
		snprintf(buf, len, "pid %d: %s: the locked-memory limit refused it: the session needs %u KiB (rings of %u x %u KiB and its tables); your user may lock %u KiB (ulimit -l + tprof.ko's ring_kb_per_cpu allowance) and already holds %u KiB (other tprof sessions, io_uring, perf buffers, mlock); use a smaller --ring-bytes, end another session, raise ulimit -l, or an admin can raise /sys/module/tprof/parameters/ring_kb_per_cpu",
			 en->pid, strerror(err), en->need_kb, nr, ring_kb,
			 en->limit_kb, en->held_kb);
		return;
	}
	if (en->refused == TPROF_REFUSED_NOMEM) {
		snprintf(buf, len, "pid %d: %s: the kernel had no memory for rings of %u x %u KiB; use a smaller --ring-bytes",
			 en->pid, strerror(err), nr, ring_kb);
		return;
	}

	/* an old module, a privileged caller, no limit, or room left: memory */
	if (!in->ring_kb_per_cpu || !(en->flags & TPROF_F_AUXV_PROOF) ||
	    w->memlock_unlimited ||
	    need_kb + in->user_locked_kb <= rlim_kb + extra_kb) {
		snprintf(buf, len, "pid %d: %s: no memory for rings of %u x %u KiB; use a smaller --ring-bytes",
			 en->pid, strerror(err), nr, ring_kb);
		return;
	}
	snprintf(buf, len, "pid %d: %s: rings of %u x %u KiB need %llu KiB of locked memory; your user may lock %llu KiB (ulimit -l) + %llu KiB (tprof.ko ring_kb_per_cpu=%u x %u) and already holds %llu KiB; use a smaller --ring-bytes, raise ulimit -l, or an admin can raise /sys/module/tprof/parameters/ring_kb_per_cpu",
		 en->pid, strerror(err), nr, ring_kb, need_kb, rlim_kb,
		 extra_kb, in->ring_kb_per_cpu, nr,
		 (unsigned long long)in->user_locked_kb);
}

void device__explain_enable(char *buf, size_t len, int err,
			    const struct tprof_ioc_enable *en,
			    const struct enable_why *w)
{
	const struct tprof_ioc_info *in = &w->info;

	switch (err) {
	case ESRCH:
		snprintf(buf, len, "pid %d: no such process", en->pid);
		break;
	case EPERM:
	case EACCES:
		if ((en->flags & TPROF_F_KERNEL_STACK) &&
		    w->lockdown_confidentiality)
			snprintf(buf, len, "pid %d: %s: --kernel-stacks is refused while the kernel is locked down for confidentiality (/sys/kernel/security/lockdown), even with CAP_PERFMON; profile without it",
				 en->pid, strerror(err));
		else if (en->flags & TPROF_F_KERNEL_STACK)
			snprintf(buf, len, "pid %d: %s: --kernel-stacks needs root or CAP_PERFMON",
				 en->pid, strerror(err));
		else if ((en->flags & TPROF_F_USER_SNAPSHOT) &&
			 !(en->flags & TPROF_F_MEM_PROOF) && w->mem_proof_err)
			snprintf(buf, len, "pid %d: %s: --call-graph dwarf copies raw stack bytes: it needs root, CAP_PERFMON, or ptrace-attach access to the process (/proc/%d/mem: %s; see /proc/sys/kernel/yama/ptrace_scope); --call-graph fp needs less",
				 en->pid, strerror(err), en->pid,
				 strerror(w->mem_proof_err));
		else if (w->own_not_dumpable)
			snprintf(buf, len, "pid %d: %s: it runs as you but is not dumpable (it changed uid/gid or exec'd a setuid or unreadable file, is still doing so, or set PR_SET_DUMPABLE 0), so it may not be ptraced; needs root or CAP_PERFMON",
				 en->pid, strerror(err));
		else
			snprintf(buf, len, "pid %d: %s: needs root, CAP_PERFMON, or permission to ptrace the process (same user, ptrace_scope); a non-dumpable process (a setuid program, or after prctl(PR_SET_DUMPABLE, 0)) cannot be profiled without CAP_PERFMON",
				 en->pid, strerror(err));
		break;
	case EBUSY:
		/* as the module says; else only unprivileged (auxv proof)
		 * sessions count */
		if (en->refused == TPROF_REFUSED_USER_SESSIONS ||
		    (!en->refused && (en->flags & TPROF_F_AUXV_PROOF) &&
		     in->max_user_sessions &&
		     in->user_sessions >= in->max_user_sessions))
			snprintf(buf, len, "pid %d: %s: you already hold %u tprof session%s, the most one user may (tprof.ko max_user_sessions=%u); end one, or an admin can raise /sys/module/tprof/parameters/max_user_sessions",
				 en->pid, strerror(err), in->user_sessions,
				 in->user_sessions == 1 ? "" : "s",
				 in->max_user_sessions);
		else
			snprintf(buf, len, "pid %d: %s: another tprof session is profiling it",
				 en->pid, strerror(err));
		break;
	case ENOSPC:
		snprintf(buf, len, "pid %d: %s: all tprof sessions are in use (some are kept for root and CAP_PERFMON); try again when one ends",
			 en->pid, strerror(err));
		break;
	case ENOMEM:
		explain_enomem(buf, len, err, en, w);
		break;
	case EINVAL:
		/* INFO's min_period_ns is the floor for this caller */
		if (in->min_period_ns &&
		    ((en->period_ns && en->period_ns < in->min_period_ns) ||
		     (en->off_cpu_period_ns &&
		      en->off_cpu_period_ns < in->min_period_ns)))
			snprintf(buf, len, "pid %d: enable: %s: the period is below %llu us, the shortest tprof.ko allows you (unpriv_min_period_us; root and CAP_PERFMON may go to %llu us)",
				 en->pid, strerror(err),
				 (unsigned long long)in->min_period_ns / 1000,
				 (unsigned long long)TPROF_MIN_PERIOD_NS / 1000);
		else if (en->flags & TPROF_F_OFF_CPU)
			snprintf(buf, len, "pid %d: enable: %s (a tprof.ko without off-CPU sampling? --mode cpu works with it; or a kernel thread, or a setting out of range)",
				 en->pid, strerror(err));
		else if (en->flags & TPROF_F_USER_SNAPSHOT)
			snprintf(buf, len, "pid %d: enable: %s (a tprof.ko without user stack snapshots? --call-graph fp works with it; or a kernel thread, or a setting out of range)",
				 en->pid, strerror(err));
		else
			snprintf(buf, len, "pid %d: enable: %s (kernel thread, or a period/frames/ring setting out of range)",
				 en->pid, strerror(err));
		break;
	default:
		snprintf(buf, len, "pid %d: enable: %s", en->pid, strerror(err));
	}
}

int device__try_enable(struct device *s, struct tprof_ioc_enable *en)
{
	int ret;

	en->size = sizeof(*en);
	en->refused = 0;
	ret = ioctl(s->fd, s->enable_v1 ? TPROF_IOC_ENABLE_V1 :
					  TPROF_IOC_ENABLE, en);
	/* a module before the refused field knows only the _IOW number */
	if (ret && errno == ENOTTY && !s->enable_v1) {
		s->enable_v1 = true;
		ret = ioctl(s->fd, TPROF_IOC_ENABLE_V1, en);
	}
	if (ret)
		return -errno;
	s->pid = en->pid;
	s->enabled = true;
	s->attach_proofs = en->flags & TPROF_F_USER_SNAPSHOT;
	/* -v: from here on the target's CPU time is sampled */
	pr_debug("pid %d: session enabled", en->pid);
	return 0;
}

void device__enable_failed(struct device *s, struct tprof_ioc_enable *en,
			   int err)
{
	struct enable_why w;
	char msg[1024];

	device__enable_why(s, &w, en->pid);
	device__explain_enable(msg, sizeof(msg), -err, en, &w);
	pr_err("%s", msg);
}

int device__enable(struct device *s, struct tprof_ioc_enable *en)
{
	int ret = device__try_enable(s, en);

	if (ret)
		device__enable_failed(s, en, ret);
	return ret;
}

int device__set_thread_period(struct device *s, int tid,
			      unsigned long long period_ns)
{
	struct tprof_ioc_thread_period tp = { .tid = tid, .period_ns = period_ns };

	if (ioctl(s->fd, TPROF_IOC_SET_THREAD_PERIOD, &tp)) {
		int err = errno;

		pr_err("--thread-period %d: %s", tid,
		       err == ESRCH ? "no such thread in the profiled process" :
		       strerror(err));
		return -err;
	}
	return 0;
}

int device__set_uwalk(struct device *s, const struct tprof_ioc_uwalk *w)
{
	return ioctl(s->fd, TPROF_IOC_SET_UWALK, w) ? -errno : 0;
}

int device__set_uwalk_tid(struct device *s, int pid, int tid,
			  uint64_t addr)
{
	struct tprof_ioc_uwalk_tid t = { .pid = pid, .tid = tid, .addr = addr };

	return ioctl(s->fd, TPROF_IOC_SET_UWALK_TID, &t) ? -errno : 0;
}

ssize_t device__read(struct device *s, void *buf, size_t len)
{
	ssize_t n;

	do {
		n = read(s->fd, buf, len);
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		return errno == EWOULDBLOCK ? -EAGAIN : -errno;
	return n;
}

int device__disable(struct device *s)
{
	if (!s->enabled)
		return 0;
	s->enabled = false;
	if (ioctl(s->fd, TPROF_IOC_DISABLE, 0))
		return -errno;
	return 0;
}

int device__prove(struct device *s, int pid)
{
	struct tprof_ioc_prove pv = { .pid = pid };
	char path[64];
	int tries, ret = 0;

	snprintf(path, sizeof(path), "/proc/%d/%s", pid,
		 s->attach_proofs ? "mem" : "auxv");
	/* EPERM: it exec'd between our open and the ioctl; once more */
	for (tries = 0; tries < 3; tries++) {
		pv.fd = open(path, O_RDONLY | O_CLOEXEC);
		ret = ioctl(s->fd, TPROF_IOC_PROVE, &pv) ? -errno : 0;
		if (pv.fd >= 0)
			close(pv.fd);
		if (ret != -EPERM || pv.fd < 0)
			break;
	}
	return ret;
}

int device__stats(struct device *s, struct tprof_ioc_stats *st)
{
	memset(st, 0, sizeof(*st));
	if (!ioctl(s->fd, TPROF_IOC_STATS, st))
		return 0;
	/* a module from before the waker stacks' counters: they stay 0 */
	if (errno == ENOTTY && !ioctl(s->fd, TPROF_IOC_STATS_V4, st))
		return 0;
	/* a module from before the waker counters: they stay 0 */
	if (errno == ENOTTY && !ioctl(s->fd, TPROF_IOC_STATS_V3, st))
		return 0;
	/* a module from before the walk counters: they stay 0 */
	if (errno == ENOTTY && !ioctl(s->fd, TPROF_IOC_STATS_V1, st))
		return 0;
	return -errno;
}

void device__close(struct device *s)
{
	if (s && s->fd >= 0) {
		close(s->fd);
		s->fd = -1;
	}
}
