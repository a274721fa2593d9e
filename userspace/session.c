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
#include <sys/stat.h>
#include <unistd.h>

#include "session.h"
#include "util.h"

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

int session__open(struct session *s, const char *dev)
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
	if (ioctl(s->fd, TPROF_IOC_INFO, &s->info)) {
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

int session__enable(struct session *s, struct tprof_ioc_enable *en)
{
	en->size = sizeof(*en);
	if (ioctl(s->fd, TPROF_IOC_ENABLE, en)) {
		int err = errno;

		switch (err) {
		case ESRCH:
			pr_err("pid %d: no such process", en->pid);
			break;
		case EPERM:
		case EACCES:
			if (en->flags & TPROF_F_KERNEL_STACK)
				pr_err("pid %d: %s: --kernel-stacks needs root or CAP_PERFMON",
				       en->pid, strerror(err));
			else if (s->proof_err && runs_as_me(en->pid))
				pr_err("pid %d: %s: it runs as you but is not dumpable (it changed uid/gid or exec'd a setuid or unreadable file, is still doing so, or set PR_SET_DUMPABLE 0), so it may not be ptraced; needs root or CAP_PERFMON",
				       en->pid, strerror(err));
			else
				pr_err("pid %d: %s: needs root, CAP_PERFMON, or permission to ptrace the process (same user, ptrace_scope)",
				       en->pid, strerror(err));
			break;
		case EBUSY:
			pr_err("pid %d: %s: another tprof session is profiling it",
			       en->pid, strerror(err));
			break;
		case EINVAL:
			pr_err("pid %d: enable: %s (kernel thread, or a period/frames/ring setting out of range)",
			       en->pid, strerror(err));
			break;
		default:
			pr_err("pid %d: enable: %s", en->pid, strerror(err));
		}
		return -err;
	}
	s->pid = en->pid;
	s->enabled = true;
	return 0;
}

int session__set_thread_period(struct session *s, int tid,
			       unsigned long long period_ns)
{
	struct tprof_ioc_thread_period tp = { .tid = tid, .period_ns = period_ns };

	if (ioctl(s->fd, TPROF_IOC_SET_THREAD_PERIOD, &tp)) {
		int err = errno;

		pr_err("thread %d: set period: %s", tid, strerror(err));
		return -err;
	}
	return 0;
}

ssize_t session__read(struct session *s, void *buf, size_t len)
{
	ssize_t n;

	do {
		n = read(s->fd, buf, len);
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		return errno == EWOULDBLOCK ? -EAGAIN : -errno;
	return n;
}

int session__disable(struct session *s)
{
	if (!s->enabled)
		return 0;
	s->enabled = false;
	if (ioctl(s->fd, TPROF_IOC_DISABLE, 0))
		return -errno;
	return 0;
}

int session__stats(struct session *s, struct tprof_ioc_stats *st)
{
	memset(st, 0, sizeof(*st));
	if (ioctl(s->fd, TPROF_IOC_STATS, st))
		return -errno;
	return 0;
}

void session__close(struct session *s)
{
	if (s && s->fd >= 0) {
		close(s->fd);
		s->fd = -1;
	}
}
