// SPDX-License-Identifier: GPL-2.0
/* tprof-read: /proc/PID/maps snapshots. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model/maps.h"
#include "lib/util.h"

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
	for (i = 0; i < m->nbids; i++) {
		free(m->bids[i].path);
		free(m->bids[i].hex);
	}
	free(m->bids);
	for (i = 0; i < m->nvdsos; i++)
		free(m->vdsos[i].image);
	free(m->vdsos);
	free(m->marks);
	free(m->parents);
	free(m->byaddr);
	free(m->maxlim);
	hindex_free(&m->all_idx);
	free(m->all);
	free(m->snaps);
	maps__init(m);
}

/* One maps line's fields. */
struct maps_line {
	uint64_t start, limit, offset, inode;
	uint32_t dev_major, dev_minor;
	char perms[5];
	const char *path;
	size_t plen;
};

static bool same_file(const struct mapping *e, const struct maps_line *l)
{
	return e->dev_major == l->dev_major && e->dev_minor == l->dev_minor &&
	       e->inode == l->inode && strlen(e->path) == l->plen &&
	       !memcmp(e->path, l->path, l->plen);
}

static const char *find_buildid(const struct maps *m,
				const struct maps_line *l)
{
	size_t i;

	for (i = 0; i < m->nbids; i++) {
		const struct maps_buildid *b = &m->bids[i];

		if (b->dev_major == l->dev_major &&
		    b->dev_minor == l->dev_minor && b->inode == l->inode &&
		    strlen(b->path) == l->plen &&
		    !memcmp(b->path, l->path, l->plen))
			return b->hex;
	}
	return NULL;
}

static void attach_vdso(const struct maps *m, struct mapping *e)
{
	size_t i;

	if (e->image || strcmp(e->path, "[vdso]"))
		return;
	for (i = 0; i < m->nvdsos; i++)
		if (m->vdsos[i].pid == e->pid &&
		    m->vdsos[i].start == e->start) {
			e->image = m->vdsos[i].image;
			e->image_len = m->vdsos[i].len;
			return;
		}
}

void maps__add_vdso(struct maps *m, int pid, uint64_t start,
		    const unsigned char *image, size_t len)
{
	struct maps_vdso *v;
	size_t i;

	for (i = 0; i < m->nvdsos; i++)
		if (m->vdsos[i].pid == pid && m->vdsos[i].start == start)
			return;		/* the first record wins */
	GROW(m->vdsos, m->capvdsos, m->nvdsos + 1);
	v = &m->vdsos[m->nvdsos++];
	v->pid = pid;
	v->start = start;
	v->len = len;
	v->image = xmalloc(len + 1);
	memcpy(v->image, image, len);
	for (i = 0; i < m->nall; i++)
		attach_vdso(m, &m->all[i]);
}

/*
 * The same mapping in two snapshots is one entry. The file's identity is
 * part of it: after an exec (or a rebuild and re-run) the same range and
 * path can hold another file.
 */
static uint32_t intern(struct maps *m, int pid, const struct maps_line *l)
{
	uint64_t h = hash_bytes(l->path, l->plen,
				hash_u64(l->start ^ hash_u64(l->limit ^
				hash_u64(l->offset ^ hash_u64(l->inode ^
							       (uint32_t)pid)))));
	struct hiter it = { 0 };
	uint32_t item;

	while (hindex_next(&m->all_idx, h, &it, &item)) {
		struct mapping *e = &m->all[item - 1];

		if (e->start == l->start && e->limit == l->limit &&
		    e->offset == l->offset && e->pid == pid && same_file(e, l))
			return item - 1;
	}
	hindex_put(&m->all_idx, h, m->nall + 1);
	GROW(m->all, m->capall, m->nall + 1);
	m->all[m->nall] = (struct mapping){
		.start = l->start, .limit = l->limit, .offset = l->offset,
		.path = xstrndup(l->path, l->plen), .pid = pid,
		.dev_major = l->dev_major, .dev_minor = l->dev_minor,
		.inode = l->inode, .build_id = find_buildid(m, l),
	};
	attach_vdso(m, &m->all[m->nall]);
	return m->nall++;
}

void maps__add_buildid(struct maps *m, uint32_t dev_major, uint32_t dev_minor,
		       uint64_t inode, const char *path, size_t plen,
		       const char *hex)
{
	struct maps_line l = { .dev_major = dev_major, .dev_minor = dev_minor,
			       .inode = inode, .path = path, .plen = plen };
	struct maps_buildid *b;
	size_t i;

	if (find_buildid(m, &l))
		return;		/* the first record of a file wins */
	GROW(m->bids, m->capbids, m->nbids + 1);
	b = &m->bids[m->nbids++];
	*b = (struct maps_buildid){ .dev_major = dev_major,
		.dev_minor = dev_minor, .inode = inode,
		.path = xstrndup(path, plen), .hex = xstrdup(hex) };
	for (i = 0; i < m->nall; i++)
		if (!m->all[i].build_id && same_file(&m->all[i], &l))
			m->all[i].build_id = b->hex;
}

/* One maps line: "start-end perms offset dev inode   path". */
static int parse_line(const char *s, const char *end, struct maps_line *l)
{
	char buf[256];
	size_t n = end - s;
	int consumed = 0;
	unsigned int maj, min;

	if (n >= sizeof(buf))
		n = sizeof(buf) - 1;	/* the fixed fields fit; path below */
	memcpy(buf, s, n);
	buf[n] = 0;
	if (sscanf(buf, "%" SCNx64 "-%" SCNx64 " %4s %" SCNx64 " %x:%x %" SCNu64 "%n",
		   &l->start, &l->limit, l->perms, &l->offset, &maj, &min,
		   &l->inode, &consumed) != 7 || !consumed ||
	    l->limit <= l->start)
		return -EINVAL;
	l->dev_major = maj;
	l->dev_minor = min;
	s += consumed;
	while (s < end && (*s == ' ' || *s == '\t'))
		s++;
	l->path = s;
	l->plen = end - s;
	return 0;
}

/* The epoch of snapshot s, from the pid's previous one (see maps.h). */
static uint32_t next_epoch(const struct maps *m, const struct maps_snapshot *s)
{
	const struct maps_snapshot *prev = NULL;
	uint32_t epoch = m->nsnaps ? m->snaps[m->nsnaps - 1].epoch : 0;
	unsigned char *in;
	bool dropped = false;
	size_t i;

	for (i = m->nsnaps; i-- > 0 && !prev;)
		if (m->snaps[i].pid == s->pid)
			prev = &m->snaps[i];
	if (!prev)
		return epoch;
	in = xcalloc(m->nall + 1, 1);
	for (i = 0; i < s->n; i++)
		in[s->idx[i]] = 1;
	for (i = 0; i < prev->n && !dropped; i++)
		dropped = !in[prev->idx[i]];
	free(in);
	return epoch + dropped;
}

int maps__add_snapshot(struct maps *m, int pid, uint64_t time_ns,
		       const char *text, size_t len)
{
	struct maps_snapshot snap = { .time_ns = time_ns, .pid = pid };
	size_t cap = 0;
	const char *s = text, *end = text + len;
	int ret = 0;

	while (s < end) {
		const char *eol = memchr(s, '\n', end - s);
		struct maps_line l = { .perms = "" };

		if (!eol)
			eol = end;
		if (eol == s) {
			s = eol + 1;
			continue;
		}
		if (parse_line(s, eol, &l)) {
			ret = -EINVAL;
			break;
		}
		s = eol + 1;
		if (l.perms[2] != 'x')
			continue;
		GROW(snap.idx, cap, snap.n + 1);
		snap.idx[snap.n++] = intern(m, pid, &l);
	}
	snap.epoch = next_epoch(m, &snap);
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

static const struct maps *cmp_maps;
static int cmp_start(const void *a, const void *b)
{
	const struct mapping *x = &cmp_maps->all[*(const uint32_t *)a];
	const struct mapping *y = &cmp_maps->all[*(const uint32_t *)b];

	return x->start < y->start ? -1 : x->start > y->start;
}

/* Rebuilt when a snapshot brought new mappings (rare next to lookups). */
static void build_index(struct maps *m)
{
	size_t i;

	m->byaddr = xrealloc(m->byaddr, (m->nall + 1) * sizeof(*m->byaddr));
	m->maxlim = xrealloc(m->maxlim, (m->nall + 1) * sizeof(*m->maxlim));
	for (i = 0; i < m->nall; i++)
		m->byaddr[i] = i;
	cmp_maps = m;
	qsort(m->byaddr, m->nall, sizeof(*m->byaddr), cmp_start);
	for (i = 0; i < m->nall; i++) {
		uint64_t lim = m->all[m->byaddr[i]].limit;

		m->maxlim[i] = i && m->maxlim[i - 1] > lim ? m->maxlim[i - 1] :
							      lim;
	}
	m->nindexed = m->nall;
}

bool maps__covered(struct maps *m, uint64_t addr)
{
	size_t lo = 0, hi;

	if (m->nindexed != m->nall)
		build_index(m);
	hi = m->nall;
	if (!hi || m->all[m->byaddr[0]].start > addr)
		return false;
	/* the last mapping starting at or below addr */
	while (hi - lo > 1) {
		size_t mid = (lo + hi) / 2;

		if (m->all[m->byaddr[mid]].start <= addr)
			lo = mid;
		else
			hi = mid;
	}
	/* some mapping starting at or below addr reaches past it */
	return m->maxlim[lo] > addr;
}

bool maps__add_mmap(struct maps *m, int pid, uint64_t time_ns,
		    uint64_t start, uint64_t end, uint64_t pgoff,
		    uint32_t dev_major, uint32_t dev_minor, uint64_t inode)
{
	struct maps_mark *k;
	size_t i;

	for (i = 0; i < m->nall; i++) {
		const struct mapping *e = &m->all[i];

		if (e->pid != pid || e->limit <= start || e->start >= end)
			continue;
		/* the same code still: an mprotect, or a segment remapped */
		if (e->inode == inode && e->dev_major == dev_major &&
		    e->dev_minor == dev_minor &&
		    (!inode || e->offset - e->start == pgoff - start))
			continue;
		GROW(m->marks, m->capmarks, m->nmarks + 1);
		k = &m->marks[m->nmarks++];
		k->time_ns = time_ns;
		k->start = start;
		k->end = end;
		k->pid = pid;
		return true;
	}
	return false;
}

uint32_t maps__epoch_at(const struct maps *m, uint64_t time_ns)
{
	size_t i = m->nsnaps;
	uint32_t n;

	/* snapshots come in time order; marks nearly (rings of other CPUs) */
	while (i > 0 && m->snaps[i - 1].time_ns > time_ns)
		i--;
	n = i ? m->snaps[i - 1].epoch : 0;
	for (i = 0; i < m->nmarks; i++)
		n += m->marks[i].time_ns <= time_ns;
	return n;
}

/* The newest mark of pid at addr at or before time_ns: its time, else 0. */
static uint64_t mark_before(const struct maps *m, int pid, uint64_t addr,
			    uint64_t time_ns)
{
	uint64_t t = 0;
	size_t i;

	for (i = 0; i < m->nmarks; i++) {
		const struct maps_mark *k = &m->marks[i];

		if (k->pid == pid && addr >= k->start && addr < k->end &&
		    k->time_ns <= time_ns && k->time_ns > t)
			t = k->time_ns;
	}
	return t;
}

/* maps__find_since() within pid's own snapshots. */
static struct mapping *find_of(struct maps *m, int pid, uint64_t addr,
			       uint64_t time_ns, uint64_t since_ns)
{
	struct mapping *e;
	size_t i, cur = 0;
	bool have = false;
	uint64_t mark = mark_before(m, pid, addr, time_ns);

	if (mark > since_ns)
		since_ns = mark;
	for (i = 0; i < m->nsnaps; i++) {
		if (m->snaps[i].time_ns <= time_ns) {
			cur = i;
			have = true;
		}
	}
	if (have) {
		for (i = cur + 1; i-- > 0;)
			if (m->snaps[i].pid == pid &&
			    m->snaps[i].time_ns >= since_ns &&
			    (e = find_in(m, &m->snaps[i], addr)))
				return e;
		cur++;
	}
	for (i = cur; i < m->nsnaps; i++)
		if (m->snaps[i].pid == pid && m->snaps[i].time_ns >= since_ns &&
		    (e = find_in(m, &m->snaps[i], addr)))
			return e;
	return NULL;
}

void maps__set_parent(struct maps *m, int pid, int ppid)
{
	GROW(m->parents, m->capparents, m->nparents + 1);
	m->parents[m->nparents].pid = pid;
	m->parents[m->nparents++].ppid = ppid;
}

static int parent_of(const struct maps *m, int pid)
{
	size_t i;

	for (i = m->nparents; i-- > 0;)
		if (m->parents[i].pid == pid)
			return m->parents[i].ppid;
	return 0;
}

/* Forks of forks: a worker pool's workers, a shell's subshells. */
#define MAX_FORK_DEPTH 8

struct mapping *maps__find_since(struct maps *m, int pid, uint64_t addr,
				 uint64_t time_ns, uint64_t since_ns)
{
	struct mapping *e;
	int depth;

	if (!maps__covered(m, addr))
		return NULL;
	for (depth = 0; depth < MAX_FORK_DEPTH && pid > 0; depth++) {
		e = find_of(m, pid, addr, time_ns, since_ns);
		/* after an exec the parent's maps are another program's */
		if (e || since_ns)
			return e;
		pid = parent_of(m, pid);
	}
	return NULL;
}

struct mapping *maps__find(struct maps *m, int pid, uint64_t addr,
			   uint64_t time_ns)
{
	return maps__find_since(m, pid, addr, time_ns, 0);
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
