// SPDX-License-Identifier: GPL-2.0
/* tprof-read: /proc/PID/maps snapshots. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "maps.h"
#include "util.h"

void maps__init(struct maps *m)
{
	memset(m, 0, sizeof(*m));
}

void maps__free(struct maps *m)
{
	size_t i;

	if (!m)
		return;
	for (i = 0; i < m->nall; i++)
		free(m->all[i].path);
	for (i = 0; i < m->nsnaps; i++)
		free(m->snaps[i].idx);
	free(m->all);
	free(m->snaps);
	maps__init(m);
}

static uint32_t intern(struct maps *m, int pid, uint64_t start, uint64_t limit,
		       uint64_t offset, const char *path, size_t plen)
{
	size_t i;

	for (i = m->nall; i-- > 0;) {
		struct mapping *e = &m->all[i];

		if (e->start == start && e->limit == limit &&
		    e->offset == offset && e->pid == pid &&
		    strlen(e->path) == plen && !memcmp(e->path, path, plen))
			return i;
	}
	GROW(m->all, m->capall, m->nall + 1);
	m->all[m->nall] = (struct mapping){
		.start = start, .limit = limit, .offset = offset,
		.path = xstrndup(path, plen), .pid = pid,
	};
	return m->nall++;
}

/* One maps line: "start-end perms offset dev inode   path". */
static int parse_line(const char *s, const char *end, uint64_t *start,
		      uint64_t *limit, char perms[5], uint64_t *offset,
		      const char **path, size_t *plen)
{
	char buf[256];
	size_t n = end - s;
	int consumed = 0;

	if (n >= sizeof(buf))
		n = sizeof(buf) - 1;	/* the fixed fields fit; path below */
	memcpy(buf, s, n);
	buf[n] = 0;
	if (sscanf(buf, "%" SCNx64 "-%" SCNx64 " %4s %" SCNx64 " %*s %*s%n",
		   start, limit, perms, offset, &consumed) != 4 || !consumed ||
	    *limit <= *start)
		return -EINVAL;
	s += consumed;
	while (s < end && (*s == ' ' || *s == '\t'))
		s++;
	*path = s;
	*plen = end - s;
	return 0;
}

int maps__add_snapshot(struct maps *m, int pid, uint64_t time_ns,
		       const char *text, size_t len)
{
	struct maps_snapshot snap = { .time_ns = time_ns, .pid = pid };
	size_t cap = 0;
	const char *s = text, *end = text + len;
	int ret = 0;

	while (s < end) {
		const char *eol = memchr(s, '\n', end - s), *path;
		uint64_t start, limit, offset;
		char perms[5] = "";
		size_t plen;

		if (!eol)
			eol = end;
		if (eol == s) {
			s = eol + 1;
			continue;
		}
		if (parse_line(s, eol, &start, &limit, perms, &offset, &path,
			       &plen)) {
			ret = -EINVAL;
			break;
		}
		s = eol + 1;
		if (perms[2] != 'x')
			continue;
		GROW(snap.idx, cap, snap.n + 1);
		snap.idx[snap.n++] = intern(m, pid, start, limit, offset,
					    path, plen);
	}
	GROW(m->snaps, m->capsnaps, m->nsnaps + 1);
	m->snaps[m->nsnaps++] = snap;
	return ret ? ret : (int)snap.n;
}

static struct mapping *find_in(struct maps *m, const struct maps_snapshot *s,
			       uint64_t addr)
{
	size_t lo = 0, hi = s->n;

	/* maps is sorted by address; be robust to hand-written input */
	if (s->n && m->all[s->idx[0]].start <= addr) {
		while (hi - lo > 1) {
			size_t mid = (lo + hi) / 2;

			if (m->all[s->idx[mid]].start <= addr)
				lo = mid;
			else
				hi = mid;
		}
		if (addr < m->all[s->idx[lo]].limit)
			return &m->all[s->idx[lo]];
	}
	for (lo = 0; lo < s->n; lo++) {
		struct mapping *e = &m->all[s->idx[lo]];

		if (e->start <= addr && addr < e->limit)
			return e;
	}
	return NULL;
}

struct mapping *maps__find(struct maps *m, uint64_t addr, uint64_t time_ns)
{
	struct mapping *e;
	size_t i, cur = 0;
	bool have = false;

	for (i = 0; i < m->nsnaps; i++) {
		if (m->snaps[i].time_ns <= time_ns) {
			cur = i;
			have = true;
		}
	}
	if (have) {
		for (i = cur + 1; i-- > 0;)
			if ((e = find_in(m, &m->snaps[i], addr)))
				return e;
		cur++;
	}
	for (i = cur; i < m->nsnaps; i++)
		if ((e = find_in(m, &m->snaps[i], addr)))
			return e;
	return NULL;
}

int maps__read_proc(int pid, char **text, size_t *len)
{
	char path[64];
	size_t cap = 65536, n = 0;
	char *buf;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	buf = xmalloc(cap);
	for (;;) {
		ssize_t r;

		if (n == cap) {
			cap *= 2;
			buf = xrealloc(buf, cap);
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
	*text = buf;
	*len = n;
	return 0;
}
