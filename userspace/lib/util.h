/* SPDX-License-Identifier: GPL-2.0 */
/* tprof-read: small shared helpers (allocation, hashing, logging). */
#ifndef _TPROF_UTIL_H
#define _TPROF_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include <time.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

extern int tprof_verbose;

/* Out of memory is not recoverable for a CLI: these print and exit(1). */
void *xmalloc(size_t n);
void *xcalloc(size_t nmemb, size_t n);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);

/* Grow *arr (elements of size elsz) so that index need-1 fits. */
void grow(void **arr, size_t *cap, size_t need, size_t elsz);
#define GROW(arr, cap, need) grow((void **)&(arr), &(cap), (need), sizeof(*(arr)))

/*
 * path opened read-only if it is a regular file, else -1 (errno EINVAL for
 * another kind of file). O_NONBLOCK: a FIFO at a mapping's path (a file
 * replaced since, or a crafted stream) would block open() until a writer
 * came; only a regular file can be an ELF object.
 */
int open_regular(const char *path);

/*
 * The whole of a file whose size stat cannot tell (a /proc file reads
 * size 0) into a malloc'd buffer, NUL after its *len bytes; 0 or -errno.
 */
int file_read_all(const char *path, char **text, size_t *len);
/* /proc/PID/maps by file_read_all() */
int proc_maps_read(int pid, char **text, size_t *len);
/* /proc/PID/cgroup by file_read_all() */
int proc_cgroup_read(int pid, char **text, size_t *len);
/*
 * Where this process sees the root of its cgroup v2 hierarchy mounted
 * (/proc/self/mountinfo: a cgroup2 mount of root "/"), into buf; 0,
 * -ENOENT when there is none, -ENAMETOOLONG.
 */
int cgroup2_root(char *buf, size_t len);
/* cgroup2_root() of a mountinfo text (modified: split into lines) */
int cgroup2_root_in(char *mountinfo, char *buf, size_t len);

/* the program that speaks in pr_err()'s lines ("tprof-read") */
extern const char *pr_prog;
void pr_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void pr_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* a + b, or UINT64_MAX where it would wrap: bogus weights never wrap to small */
static inline uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a + b < a ? UINT64_MAX : a + b;
}

/*
 * In n >= 1 elements of elsz bytes, sorted by the uint64_t at offset koff
 * of each, the first of which has a key at most x (the caller checks
 * both): the index of the last one whose key is at most x. Without those
 * it returns 0.
 */
size_t last_at_most(const void *base, size_t n, size_t elsz, size_t koff,
		    uint64_t x);

uint64_t hash_bytes(const void *p, size_t n, uint64_t seed);
static inline uint64_t hash_u64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

/*
 * Open-addressing hash index: maps a 64-bit hash to item indexes (1-based,
 * 0 = empty). The caller owns the items and compares them: candidates are
 * those whose hash agrees in the low 32 bits, which a slot keeps.
 */
struct hindex {
	/* item in the low 32 bits, the hash's low 32 bits above (the
	 * position when the table grows): a probe reads one word, one cache
	 * miss at a million stacks where a slot and a hash array took two */
	uint64_t *slots;
	size_t cap;	/* power of two */
	size_t used;
};

/* Iterate candidate item indexes for hash h; returns false at an empty slot. */
struct hiter {
	size_t pos;
	size_t probes;
};
void hindex_init(struct hindex *hx);
void hindex_free(struct hindex *hx);
/* Every item gone, the table kept (its memory stays as large). */
void hindex_clear(struct hindex *hx);
bool hindex_next(const struct hindex *hx, uint64_t h, struct hiter *it,
		 uint32_t *item);
void hindex_put(struct hindex *hx, uint64_t h, uint32_t item);

/* Format ns compactly ("1.5ms") into buf. */
const char *fmt_ns(char *buf, size_t len, uint64_t ns);

/* clk's time now, in nanoseconds */
static inline uint64_t now_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

#endif /* _TPROF_UTIL_H */
