// SPDX-License-Identifier: GPL-2.0
/*
 * fakedev.so: LD_PRELOAD into tprof-read for the unit tests, so a live
 * session runs on a host that cannot load tprof.ko. The ioctls of tprof on a
 * file whose path contains "tprof-fakedev" (an empty regular file: read()
 * says EOF, the session ends at once) succeed and are logged to stderr as
 * "fakedev: ENABLE pid=N period_ns=N ring_bytes=N"; FAKEDEV_THREAD_PERIOD_ERRNO
 * makes SET_THREAD_PERIOD fail with that errno, FAKEDEV_SNAPSHOT_ERRNO an
 * ENABLE with TPROF_F_USER_SNAPSHOT. Other ioctls pass through.
 * With FAKEDEV_COUNT_MAPS set, opens of a /proc/PID/maps are counted and the
 * count printed at exit ("fakedev: maps reads N"): the live loop's re-reads.
 * The device file may hold records: read() hands them to tprof-read as the
 * module's, at most FAKEDEV_READ_BYTES (whole records) per call, each call
 * FAKEDEV_READ_DELAY_US late, so the stream takes a while, as a live one.
 * FAKEDEV_ENDLESS: at the file's end, read() starts it over until DISABLE,
 * a device that never runs dry (a target that outpaces its reader).
 */
/* _GNU_SOURCE (RTLD_NEXT) comes from CPPFLAGS_COMMON */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "uapi/tprof.h"
#include "fakecommon.h"

static int maps_reads;

int open(const char *path, int flags, ...)
{
	mode_t mode = 0;

	OPEN_MODE(flags, mode);
	if (is_maps_path(path))
		maps_reads++;
	return next_open(path, flags, mode);
}

__attribute__((destructor)) static void report_maps_reads(void)
{
	if (getenv("FAKEDEV_COUNT_MAPS"))
		fprintf(stderr, "fakedev: maps reads %d\n", maps_reads);
}

static int disabled;

ssize_t read(int fd, void *buf, size_t n)
{
	static ssize_t (*real)(int, void *, size_t);
	const char *max = getenv("FAKEDEV_READ_BYTES");
	const char *delay = getenv("FAKEDEV_READ_DELAY_US");
	const char *endless = getenv("FAKEDEV_ENDLESS");
	ssize_t got;

	if (!real)
		real = (ssize_t (*)(int, void *, size_t))dlsym(RTLD_NEXT, "read");
	if ((max || delay || endless) && is_fake(fd)) {
		if (max && atol(max) > 0 && n > (size_t)atol(max))
			n = atol(max);
		if (delay)
			usleep(atoi(delay));
		got = real(fd, buf, n);
		if (got == 0 && endless && !disabled &&
		    lseek(fd, 0, SEEK_SET) == 0)
			got = real(fd, buf, n);
		return got;
	}
	return real(fd, buf, n);
}

int ioctl(int fd, unsigned long req, ...)
{
	static int (*real)(int, unsigned long, ...);
	const char *fail = getenv("FAKEDEV_THREAD_PERIOD_ERRNO");
	va_list ap;
	void *arg;

	va_start(ap, req);
	arg = va_arg(ap, void *);
	va_end(ap);
	if (!real)
		real = (int (*)(int, unsigned long, ...))dlsym(RTLD_NEXT, "ioctl");
	if (!is_fake(fd))
		return real(fd, req, arg);
	switch (req) {
	case TPROF_IOC_INFO:
	case TPROF_IOC_INFO_V1: {
		struct tprof_ioc_info in = {
			.size = sizeof(in), .abi_version = TPROF_ABI_VERSION,
			.record_version = TPROF_RECORD_VERSION,
			.nr_cpu_ids = 1, .page_size = 4096, .nr_rings = 1,
			.max_user_frames = TPROF_MAX_USER_FRAMES,
			.max_kernel_frames = TPROF_MAX_KERNEL_FRAMES,
			.default_ring_bytes = 256 << 10,
			.min_period_ns = TPROF_MIN_PERIOD_NS,
			.e_machine = 62,	/* EM_X86_64 */
		};

		/* a module before INFO grew e_machine */
		if (getenv("FAKEDEV_INFO_V1_ONLY") && req == TPROF_IOC_INFO) {
			errno = ENOTTY;
			return -1;
		}
		if (req == TPROF_IOC_INFO_V1)
			fprintf(stderr, "fakedev: INFO V1\n");
		memcpy(arg, &in, req == TPROF_IOC_INFO ? sizeof(in) :
		       TPROF_SIZEOF_IOC_INFO_V1);
		return 0;
	}
	case TPROF_IOC_ENABLE:
	case TPROF_IOC_ENABLE_V1: {
		struct tprof_ioc_enable *en = arg;
		const char *snap_err = getenv("FAKEDEV_SNAPSHOT_ERRNO");
		const char *v1 = getenv("FAKEDEV_ENABLE_V1_ONLY");
		const char *memlock = getenv("FAKEDEV_REFUSE_MEMLOCK");
		unsigned int need, held, limit;
		char link[64], exe[256];
		ssize_t n;

		/* a module before ENABLE's _IOWR number */
		if (req == TPROF_IOC_ENABLE && v1 && atoi(v1)) {
			errno = ENOTTY;
			return -1;
		}
		fprintf(stderr, "fakedev: ENABLE pid=%u period_ns=%llu ring_bytes=%u\n",
			en->pid, (unsigned long long)en->period_ns,
			en->ring_bytes);
		fprintf(stderr, "fakedev: ENABLE flags=0x%x snapshot_bytes=%u\n",
			en->flags, en->snapshot_bytes);
		/* which program the target runs when its session starts */
		snprintf(link, sizeof(link), "/proc/%d/exe", en->pid);
		n = readlink(link, exe, sizeof(exe) - 1);
		exe[n > 0 ? n : 0] = '\0';
		fprintf(stderr, "fakedev: ENABLE exe=%s\n", exe);
		/* "NEED,HELD,LIMIT" KiB: the locked-memory limit refuses it,
		 * and the _IOWR number says so; FAKEDEV_REFUSE_RING_ABOVE=N
		 * only rings of more than N bytes (0: the default's 256 KiB) */
		if (getenv("FAKEDEV_REFUSE_RING_ABOVE") &&
		    (en->ring_bytes ? en->ring_bytes : 256U << 10) <=
		    strtoul(getenv("FAKEDEV_REFUSE_RING_ABOVE"), NULL, 10))
			memlock = NULL;
		if (memlock && sscanf(memlock, "%u,%u,%u", &need, &held,
				      &limit) == 3) {
			if (req == TPROF_IOC_ENABLE) {
				en->refused = TPROF_REFUSED_MEMLOCK;
				en->need_kb = need;
				en->held_kb = held;
				en->limit_kb = limit;
			}
			fprintf(stderr, "fakedev: ENABLE %s\n",
				req == TPROF_IOC_ENABLE ? "_IOWR" : "V1");
			errno = ENOMEM;
			return -1;
		}
		/* a module that predates waker stacks */
		if ((en->flags & TPROF_F_WAKER_STACKS) &&
		    getenv("FAKEDEV_NO_WAKER_STACKS")) {
			errno = EINVAL;
			return -1;
		}
		/* a module that predates chains in snapshots */
		if ((en->flags & TPROF_F_USTACK_CHAIN) &&
		    (getenv("FAKEDEV_NO_CHAIN") || getenv("FAKEDEV_NO_BELOW"))) {
			errno = EINVAL;
			return -1;
		}
		/* a module that predates the red zone in snapshots */
		if ((en->flags & TPROF_F_SNAPSHOT_BELOW) &&
		    getenv("FAKEDEV_NO_BELOW")) {
			errno = EINVAL;
			return -1;
		}
		/* a module that predates snapshots, or refuses them */
		if ((en->flags & TPROF_F_USER_SNAPSHOT) && snap_err &&
		    atoi(snap_err)) {
			errno = atoi(snap_err);
			return -1;
		}
		return 0;
	}
	case TPROF_IOC_SET_THREAD_PERIOD:
		if (fail && atoi(fail)) {
			errno = atoi(fail);
			return -1;
		}
		return 0;
	case TPROF_IOC_DISABLE:
		disabled = 1;
		return 0;
	case TPROF_IOC_STATS:
		memset(arg, 0, sizeof(struct tprof_ioc_stats));
		return 0;
	default:
		errno = ENOTTY;
		return -1;
	}
}
