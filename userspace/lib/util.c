// SPDX-License-Identifier: GPL-2.0
/* tprof-read: small shared helpers (allocation, hashing, logging). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/util.h"

int tprof_verbose;

static void oom(void)
{
	fprintf(stderr, "%s: out of memory\n", pr_prog);
	exit(1);
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		oom();
	return p;
}

void *xcalloc(size_t nmemb, size_t n)
{
	void *p = calloc(nmemb ? nmemb : 1, n ? n : 1);

	if (!p)
		oom();
	return p;
}

void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		oom();
	return p;
}

char *xstrdup(const char *s)
{
	char *p = strdup(s);

	if (!p)
		oom();
	return p;
}

char *xstrndup(const char *s, size_t n)
{
	char *p = strndup(s, n);

	if (!p)
		oom();
	return p;
}

void grow(void **arr, size_t *cap, size_t need, size_t elsz)
{
	size_t ncap;

	if (need <= *cap)
		return;
	ncap = *cap ? *cap : 16;
	while (ncap < need)
		ncap *= 2;
	*arr = xrealloc(*arr, ncap * elsz);
	memset((char *)*arr + *cap * elsz, 0, (ncap - *cap) * elsz);
	*cap = ncap;
}

const char *pr_prog = "tprof-read";

void pr_err(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", pr_prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void pr_debug(const char *fmt, ...)
{
	va_list ap;

	if (!tprof_verbose)
		return;
	fprintf(stderr, "%s: debug: ", pr_prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

size_t last_at_most(const void *base, size_t n, size_t elsz, size_t koff,
		    uint64_t x)
{
	const char *b = base;
	size_t lo = 0, hi = n;

	while (hi - lo > 1) {
		size_t mid = (lo + hi) / 2;
		uint64_t key;

		memcpy(&key, b + mid * elsz + koff, sizeof(key));
		if (key <= x)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/* 64x64->128 multiply, folded: one multiply mixes every bit of a word. */
static inline uint64_t mum(uint64_t a, uint64_t b)
{
	unsigned __int128 r = (unsigned __int128)a * b;

	return (uint64_t)r ^ (uint64_t)(r >> 64);
}

/*
 * A word at a time: a byte-at-a-time FNV-1a over each
 * sample's 30-frame stack was 70% of a replay's CPU time. Words are read
 * with memcpy (the input need not be aligned); the tail goes in one word
 * with its length, so "a" and "a\0" differ. Collisions only cost a compare:
 * every caller checks the item itself.
 */
uint64_t hash_bytes(const void *p, size_t n, uint64_t seed)
{
	const unsigned char *b = p;
	uint64_t h = seed ^ 0xcbf29ce484222325ULL, w, l[4];
	int i;

	/* four independent lanes: the multiplies overlap (a stack is 240
	 * bytes; one chain of 30 dependent multiplies was a third of the
	 * time) */
	if (n >= 32) {
		uint64_t a = h, c = h ^ 0x243f6a8885a308d3ULL,
			 d = h ^ 0x13198a2e03707344ULL,
			 e = h ^ 0xa4093822299f31d0ULL;

		for (; n >= 32; n -= 32, b += 32) {
			memcpy(l, b, 32);
			a = mum(a ^ l[0], 0x9e3779b97f4a7c15ULL);
			c = mum(c ^ l[1], 0x9e3779b97f4a7c15ULL);
			d = mum(d ^ l[2], 0x9e3779b97f4a7c15ULL);
			e = mum(e ^ l[3], 0x9e3779b97f4a7c15ULL);
		}
		h = a;
		for (i = 0, l[0] = c, l[1] = d, l[2] = e; i < 3; i++)
			h = mum(h ^ l[i], 0xbf58476d1ce4e5b9ULL);
	}
	for (; n >= 8; n -= 8, b += 8) {
		memcpy(&w, b, 8);
		h = mum(h ^ w, 0x9e3779b97f4a7c15ULL);
	}
	if (n) {
		w = 0;
		memcpy(&w, b, n);
		h = mum(h ^ w ^ ((uint64_t)n << 59), 0xbf58476d1ce4e5b9ULL);
	}
	return hash_u64(h);
}

void hindex_init(struct hindex *hx)
{
	memset(hx, 0, sizeof(*hx));
}

void hindex_free(struct hindex *hx)
{
	free(hx->slots);
	hindex_init(hx);
}

void hindex_clear(struct hindex *hx)
{
	if (hx->slots)
		memset(hx->slots, 0, hx->cap * sizeof(*hx->slots));
	hx->used = 0;
}

bool hindex_next(const struct hindex *hx, uint64_t h, struct hiter *it,
		 uint32_t *item)
{
	uint64_t tag = h << 32;
	size_t mask;

	if (!hx->cap)
		return false;
	mask = hx->cap - 1;
	if (it->probes == 0)
		it->pos = h & mask;
	while (it->probes < hx->cap) {
		uint64_t slot = hx->slots[it->pos];

		it->pos = (it->pos + 1) & mask;
		it->probes++;
		if (!slot)
			return false;
		if ((slot & ~0xffffffffULL) == tag) {
			*item = (uint32_t)slot;
			return true;
		}
	}
	return false;
}

static void hindex_insert(uint64_t *slots, size_t cap, uint64_t slot)
{
	size_t pos = (slot >> 32) & (cap - 1);

	while (slots[pos])
		pos = (pos + 1) & (cap - 1);
	slots[pos] = slot;
}

void hindex_put(struct hindex *hx, uint64_t h, uint32_t item)
{
	if ((hx->used + 1) * 2 > hx->cap) {
		size_t ncap = hx->cap ? hx->cap * 2 : 64, i;
		uint64_t *ns = xcalloc(ncap, sizeof(*ns));

		for (i = 0; i < hx->cap; i++)
			if (hx->slots[i])
				hindex_insert(ns, ncap, hx->slots[i]);
		free(hx->slots);
		hx->slots = ns;
		hx->cap = ncap;
	}
	hindex_insert(hx->slots, hx->cap, h << 32 | item);
	hx->used++;
}

const char *fmt_ns(char *buf, size_t len, uint64_t ns)
{
	if (ns >= 1000000000ULL)
		snprintf(buf, len, "%.3fs", ns / 1e9);
	else if (ns >= 1000000ULL)
		snprintf(buf, len, "%.3fms", ns / 1e6);
	else if (ns >= 1000ULL)
		snprintf(buf, len, "%.3fus", ns / 1e3);
	else
		snprintf(buf, len, "%lluns", (unsigned long long)ns);
	return buf;
}

int open_regular(const char *path)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		errno = EINVAL;
		return -1;
	}
	return fd;
}

int file_read_all(const char *path, char **text, size_t *len)
{
	size_t cap = 65536, n = 0;
	char *buf;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	buf = xmalloc(cap + 1);
	for (;;) {
		ssize_t r;

		if (n == cap) {
			cap *= 2;
			buf = xrealloc(buf, cap + 1);
		}
		r = read(fd, buf + n, cap - n);
		if (r < 0) {
			int err = -errno;

			if (errno == EINTR)
				continue;
			close(fd);
			free(buf);
			return err;
		}
		if (r == 0)
			break;
		n += r;
	}
	close(fd);
	buf[n] = 0;
	*text = buf;
	*len = n;
	return 0;
}

int proc_maps_read(int pid, char **text, size_t *len)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	return file_read_all(path, text, len);
}

int proc_cgroup_read(int pid, char **text, size_t *len)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/cgroup", pid);
	return file_read_all(path, text, len);
}

/* mountinfo's octal escapes (\040 a space, \011, \012, \134) undone */
static void unescape_octal(char *s)
{
	char *o = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' &&
		    s[2] >= '0' && s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
			*o++ = (char)((s[1] - '0') << 6 | (s[2] - '0') << 3 |
				      (s[3] - '0'));
			s += 3;
		} else {
			*o++ = *s;
		}
	}
	*o = 0;
}

int cgroup2_root(char *buf, size_t len)
{
	char *text;
	size_t n;
	int ret = file_read_all("/proc/self/mountinfo", &text, &n);

	if (ret)
		return ret;
	ret = cgroup2_root_in(text, buf, len);
	free(text);
	return ret;
}

int cgroup2_root_in(char *text, char *buf, size_t len)
{
	char *line, *save = NULL;
	int ret = -ENOENT;

	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		/* ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTS [TAGS...] - TYPE ... */
		char root[PATH_MAX], mnt[PATH_MAX];
		const char *dash = strstr(line, " - ");

		if (!dash || strncmp(dash + 3, "cgroup2 ", 8) ||
		    sscanf(line, "%*s %*s %*s %4095s %4095s", root, mnt) != 2 ||
		    strcmp(root, "/"))
			continue;
		unescape_octal(mnt);
		if (strlen(mnt) >= len) {
			ret = -ENAMETOOLONG;
			break;
		}
		strcpy(buf, mnt);
		ret = 0;
		break;
	}
	return ret;
}
