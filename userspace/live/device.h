/* SPDX-License-Identifier: GPL-2.0 */
/* tprof-read: talk to /dev/tprof (INFO, ENABLE, read, DISABLE, STATS). */
#ifndef _TPROF_LIVE_DEVICE_H
#define _TPROF_LIVE_DEVICE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "uapi/tprof.h"

struct device {
	int fd;
	struct tprof_ioc_info info;
	int pid;
	bool enabled;
	/* errno of opening /proc/PID/auxv (the ptrace-read proof), or 0 */
	int proof_err;
	/* errno of opening /proc/PID/mem (the ptrace-attach proof), or 0 */
	int mem_proof_err;
	/* the session reads raw stacks: descendants are proven by mem */
	bool attach_proofs;
	/* the module knows only ENABLE's first number (TPROF_IOC_ENABLE_V1):
	 * it says no refused limit */
	bool enable_v1;
};

/*
 * What explains a failed ENABLE besides its errno, gathered right after the
 * failure (device__enable_why) so the message can name the limit that
 * refused it; unit tests fill it by hand.
 */
struct enable_why {
	struct tprof_ioc_info info;	/* INFO now: user_sessions, user_locked_kb */
	bool memlock_unlimited;		/* RLIMIT_MEMLOCK is RLIM_INFINITY */
	uint64_t memlock_bytes;		/* else its soft limit */
	bool lockdown_confidentiality;	/* /sys/kernel/security/lockdown */
	bool own_not_dumpable;		/* no auxv proof, yet /proc/PID is ours */
	int mem_proof_err;		/* errno of opening /proc/PID/mem, or 0 */
};

void device__enable_why(struct device *s, struct enable_why *w, int pid);
/*
 * The one-line error for ENABLE failing with err ("pid N: what: why", no
 * "tprof-read: " prefix) into buf.
 */
void device__explain_enable(char *buf, size_t len, int err,
			    const struct tprof_ioc_enable *en,
			    const struct enable_why *w);

/* TPROF_IOC_INFO, or INFO_V1 from older modules; 0, or -1 with errno */
int device__info(int fd, struct tprof_ioc_info *info);
/* Open the device (non-blocking) and check the ABI; prints the error. */
int device__open(struct device *s, const char *dev);
/* ENABLE; prints a one-line error naming pid on failure. */
int device__enable(struct device *s, struct tprof_ioc_enable *en);
/* ENABLE, quietly: 0 or -errno (the caller may retry with fewer flags). */
int device__try_enable(struct device *s, struct tprof_ioc_enable *en);
/* The one-line error of an ENABLE that failed with -err. */
void device__enable_failed(struct device *s, struct tprof_ioc_enable *en,
			   int err);
int device__set_thread_period(struct device *s, int tid,
			      unsigned long long period_ns);
/*
 * TPROF_IOC_SET_UWALK (a process's user-memory walk) and _TID (one
 * thread's start): 0 or -errno, quietly (the caller says what it means).
 */
int device__set_uwalk(struct device *s, const struct tprof_ioc_uwalk *w);
int device__set_uwalk_tid(struct device *s, int pid, int tid,
			  uint64_t addr);
/* bytes read, 0 at EOF, -EAGAIN when empty, other -errno. */
ssize_t device__read(struct device *s, void *buf, size_t len);
int device__disable(struct device *s);
/*
 * TPROF_IOC_PROVE of a pending descendant (TPROF_RF_PROC_PENDING): our
 * /proc/PID/mem (snapshot sessions) or auxv, or -1 when procfs refuses
 * it (the module then denies the process). 0 or -errno.
 */
int device__prove(struct device *s, int pid);
int device__stats(struct device *s, struct tprof_ioc_stats *st);
void device__close(struct device *s);

#endif /* _TPROF_LIVE_DEVICE_H */
