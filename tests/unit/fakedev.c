// SPDX-License-Identifier: GPL-2.0
/*
 * fakedev.so: LD_PRELOAD into tprof-read for the unit tests, so a live
 * session runs on a host that cannot load tprof.ko. The ioctls of tprof on a
 * file whose path contains "tprof-fakedev" (an empty regular file: read()
 * says EOF, the session ends at once) succeed and are logged to stderr as
 * "fakedev: ENABLE pid=N period_ns=N ring_bytes=N"; FAKEDEV_THREAD_PERIOD_ERRNO
 * makes SET_THREAD_PERIOD fail with that errno. Other ioctls pass through.
 */
/* _GNU_SOURCE (RTLD_NEXT) comes from CPPFLAGS_COMMON */
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "uapi/tprof.h"

static int is_fake(int fd)
{
	char link[64], path[4096];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, path, sizeof(path) - 1);
	if (n <= 0)
		return 0;
	path[n] = '\0';
	return strstr(path, "tprof-fakedev") != NULL;
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
	case TPROF_IOC_INFO: {
		struct tprof_ioc_info in = {
			.size = sizeof(in), .abi_version = TPROF_ABI_VERSION,
			.record_version = TPROF_RECORD_VERSION,
			.nr_cpu_ids = 1, .page_size = 4096, .nr_rings = 1,
			.max_user_frames = TPROF_MAX_USER_FRAMES,
			.max_kernel_frames = TPROF_MAX_KERNEL_FRAMES,
			.default_ring_bytes = 256 << 10,
			.min_period_ns = TPROF_MIN_PERIOD_NS,
		};

		memcpy(arg, &in, sizeof(in));
		return 0;
	}
	case TPROF_IOC_ENABLE: {
		const struct tprof_ioc_enable *en = arg;

		fprintf(stderr, "fakedev: ENABLE pid=%u period_ns=%llu ring_bytes=%u\n",
			en->pid, (unsigned long long)en->period_ns,
			en->ring_bytes);
		return 0;
	}
	case TPROF_IOC_SET_THREAD_PERIOD:
		if (fail && atoi(fail)) {
			errno = atoi(fail);
			return -1;
		}
		return 0;
	case TPROF_IOC_DISABLE:
		return 0;
	case TPROF_IOC_STATS:
		memset(arg, 0, sizeof(struct tprof_ioc_stats));
		return 0;
	default:
		errno = ENOTTY;
		return -1;
	}
}
