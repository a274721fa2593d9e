// SPDX-License-Identifier: GPL-2.0
/*
 * fakering.so: LD_PRELOAD'ed before fakedev.so, it makes the fake device a
 * ring that fills at a steady rate and drops what is not read in time, as
 * a CPU's ring of tprof.ko does: the live-loop tests' truth about loss
 * comes from here, not from tprof-read.
 *
 * FAKERING_RATE: records per second, from the first read on, until
 * DISABLE. The device file's records (all of one size) are produced over
 * and over. FAKERING_RECORDS: the ring holds this many; a read finds at
 * most that many, and the ones produced beyond it are dropped (counted).
 * STATS says the drops (lost_samples, and lost_weight_ns as
 * FAKERING_WEIGHT_NS each), as the module's ring counters do. An empty
 * ring is -EAGAIN (after 1 ms, as a poll would wait), and EOF once
 * disabled and read to its end. FAKERING_MAPS_DELAY_US: every open of a
 * /proc/PID/maps takes that long (a slow ptrace stop's maps read, as under
 * TCG). FAKERING_RESTAMP: each record read carries the time it was
 * produced (hdr.time_ns, CLOCK_MONOTONIC), the first time a read could
 * find it, as the module stamps a record on its commit: a watermark
 * claim can be checked exactly. At exit: "fakering: produced N delivered
 * N dropped N maps N" (the delayed maps opens).
 */
/* _GNU_SOURCE (RTLD_NEXT) comes from CPPFLAGS_COMMON */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "uapi/tprof.h"
#include "fakecommon.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t start_ns, disabled_ns;
static uint64_t delivered, dropped;
static int maps_opens;
static uint32_t rec_size;
static uint64_t nrecs;		/* in the file */
static int active;

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static uint64_t env_u64(const char *name)
{
	const char *v = getenv(name);

	return v ? strtoull(v, NULL, 0) : 0;
}

static uint64_t produced(uint64_t now)
{
	uint64_t rate = env_u64("FAKERING_RATE");

	if (disabled_ns && now > disabled_ns)
		now = disabled_ns;
	return now > start_ns ? (now - start_ns) * rate / 1000000000ULL : 0;
}

/* the file's record size and count, from its first record */
static int learn(int fd)
{
	struct tprof_rec_hdr h;
	struct stat st;

	if (rec_size)
		return 0;
	if (pread(fd, &h, sizeof(h), 0) != sizeof(h) || h.size < sizeof(h) ||
	    fstat(fd, &st) || st.st_size % h.size)
		return -1;
	rec_size = h.size;
	nrecs = st.st_size / h.size;
	return nrecs ? 0 : -1;
}

/* When record k (from 0, over all produced) was: produced() counts it. */
static uint64_t produced_at(uint64_t k)
{
	uint64_t rate = env_u64("FAKERING_RATE");

	return start_ns + ((k + 1) * 1000000000ULL + rate - 1) / rate;
}

static void restamp(unsigned char *rec, uint64_t k)
{
	struct tprof_rec_hdr h;

	memcpy(&h, rec, sizeof(h));
	h.time_ns = produced_at(k);
	memcpy(rec, &h, sizeof(h));
}

static ssize_t ring_read(int fd, unsigned char *buf, size_t n)
{
	uint64_t now = mono_ns(), avail, cap = env_u64("FAKERING_RECORDS");
	uint64_t k, i, src;

	pthread_mutex_lock(&lock);
	if (!start_ns)
		start_ns = now;
	avail = produced(now) - delivered - dropped;
	if (avail > cap) {
		dropped += avail - cap;
		avail = cap;
	}
	k = n / rec_size;
	if (k > avail)
		k = avail;
	for (i = 0; i < k; i++) {
		src = (delivered + dropped + i) % nrecs;
		if (pread(fd, buf + i * rec_size, rec_size,
			  (off_t)(src * rec_size)) != rec_size)
			break;
		if (getenv("FAKERING_RESTAMP"))
			restamp(buf + i * rec_size, delivered + dropped + i);
	}
	delivered += i;
	pthread_mutex_unlock(&lock);
	if (i)
		return (ssize_t)(i * rec_size);
	if (disabled_ns)
		return 0;
	usleep(1000);
	errno = EAGAIN;
	return -1;
}

ssize_t read(int fd, void *buf, size_t n)
{
	static ssize_t (*real)(int, void *, size_t);

	if (!real)
		real = (ssize_t (*)(int, void *, size_t))dlsym(RTLD_NEXT, "read");
	if (getenv("FAKERING_RATE") && is_fake(fd) && !learn(fd)) {
		active = 1;
		return ring_read(fd, buf, n);
	}
	return real(fd, buf, n);
}

int ioctl(int fd, unsigned long req, ...)
{
	static int (*real)(int, unsigned long, ...);
	va_list ap;
	void *arg;
	int ret;

	va_start(ap, req);
	arg = va_arg(ap, void *);
	va_end(ap);
	if (!real)
		real = (int (*)(int, unsigned long, ...))dlsym(RTLD_NEXT, "ioctl");
	ret = real(fd, req, arg);
	if (!getenv("FAKERING_RATE") || !is_fake(fd))
		return ret;
	pthread_mutex_lock(&lock);
	if (req == TPROF_IOC_DISABLE && !disabled_ns)
		disabled_ns = mono_ns();
	if (req == TPROF_IOC_STATS && !ret) {
		struct tprof_ioc_stats *st = arg;

		st->lost_samples = dropped;
		st->lost_weight_ns = dropped * env_u64("FAKERING_WEIGHT_NS");
	}
	pthread_mutex_unlock(&lock);
	return ret;
}

int open(const char *path, int flags, ...)
{
	uint64_t delay = env_u64("FAKERING_MAPS_DELAY_US");
	mode_t mode = 0;

	OPEN_MODE(flags, mode);
	if (delay && is_maps_path(path)) {
		usleep(delay);
		__atomic_add_fetch(&maps_opens, 1, __ATOMIC_RELAXED);
	}
	return next_open(path, flags, mode);
}

__attribute__((destructor)) static void report(void)
{
	if (active)
		fprintf(stderr, "fakering: produced %llu delivered %llu dropped %llu maps %d\n",
			(unsigned long long)(delivered + dropped),
			(unsigned long long)delivered,
			(unsigned long long)dropped, maps_opens);
}
