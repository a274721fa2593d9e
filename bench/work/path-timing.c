// SPDX-License-Identifier: GPL-2.0
/*
 * path-timing.so: LD_PRELOAD into tprof-read for `make bench` (bench/guest/
 * lib.sh, BENCH_PATH_TIMING=1): adds TPROF_F_PATH_TIMING to its ENABLE, so
 * STATS sample_path_ns/sample_path_calls are filled in (without the flag a
 * module since ec39646 leaves them 0; tprof-read has no option for it). A
 * module that predates the flag refuses it with -EINVAL and always times
 * the path: ENABLE is then retried as tprof-read asked.
 */
/* _GNU_SOURCE (RTLD_NEXT) comes from CPPFLAGS_COMMON */
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <string.h>
#include <sys/ioctl.h>

#include "uapi/tprof.h"

int ioctl(int fd, unsigned long req, ...)
{
	static int (*real)(int, unsigned long, ...);
	struct tprof_ioc_enable en;
	va_list ap;
	void *arg;
	int ret;

	va_start(ap, req);
	arg = va_arg(ap, void *);
	va_end(ap);
	if (!real)
		real = (int (*)(int, unsigned long, ...))dlsym(RTLD_NEXT, "ioctl");
	if (req != TPROF_IOC_ENABLE || !arg)
		return real(fd, req, arg);
	memcpy(&en, arg, sizeof(en));
	en.flags |= TPROF_F_PATH_TIMING;
	ret = real(fd, req, &en);
	if (ret < 0 && errno == EINVAL)
		ret = real(fd, req, arg);
	return ret;
}
