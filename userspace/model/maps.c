// SPDX-License-Identifier: GPL-2.0
/* tprof-read: /proc/PID/maps snapshots. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model/grow.h"
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
	for (i = 0; i < m->nall; i++) {
		free(m->all[i].path);
		free(m->runs[i].r);
	}
	for (i = 0; i < m->nsnaps; i++)
		free(m->snaps[i].idx);
	for (i = 0; i < m->nfiles; i++) {
		free(m->files[i].path);
		free(m->files[i].hex);
	}
	for (i = 0; i < m->npids; i++)
		free(m->pids[i].pos);
	for (i = 0; i < m->nvdsos; i++)
		free(m->vdsos[i].image);
	free(m->files);
	free(m->vdsos);
	for (i = 0; i < m->nmarks; i++)
		timeline__free(&m->marks[i].times);
	free(m->marks);
	free(m->knodes);
	hindex_free(&m->mark_idx);
	free(m->pids);
	free(m->pnodes);
	free(m->gnodes);
	free(m->runs);
	free(m->lows);
	timeline__free(&m->mark_times);
	hindex_free(&m->all_idx);
	hindex_free(&m->pid_idx);
	hindex_free(&m->file_idx);
	hindex_free(&m->vdso_idx);
	free(m->all);
	free(m->snaps);
	maps__init(m);
}

/* ---- processes ---- */

static uint64_t pid_hash(int pid)
{
	return hash_u64((uint32_t)pid ^ 0x5bd1e995U);
}

static struct maps_pid *pid_find(const struct maps *m, int pid)
{
	struct hiter it = { 0 };
	uint32_t item;

	while (hindex_next(&m->pid_idx, pid_hash(pid), &it, &item))
		if (m->pids[item - 1].pid == pid)
			return &m->pids[item - 1];
	return NULL;
}

static struct maps_pid *pid_get(struct maps *m, int pid)
{
	struct maps_pid *mp = pid_find(m, pid);

	if (mp)
		return mp;
	GROW_UNTOUCHED(m->pids, m->cappids, m->npids + 1);
	mp = &m->pids[m->npids++];
	memset(mp, 0, sizeof(*mp));
	mp->pid = pid;
	hindex_put(&m->pid_idx, pid_hash(pid), m->npids);
	return mp;
}

void maps__set_parent(struct maps *m, int pid, int ppid)
{
	pid_get(m, pid)->ppid = ppid;	/* the last record wins */
}

/* ---- files and their build-ids ---- */

/* One maps line's fields. */
struct maps_line {
	uint64_t start, limit, offset, inode;
	uint32_t dev_major, dev_minor;
	char perms[5];
	const char *path;
	size_t plen;
};

/*
 * A file is compared as a C string against the path's bytes: a path with
 * a NUL in it is never the same file as anything (stored, it is cut at
 * the NUL), as a scan comparing strlen() and bytes found.
 */
static bool same_path(const char *stored, const char *path, size_t plen)
{
	return strlen(stored) == plen && !memcmp(stored, path, plen);
}

static uint64_t file_hash(const struct maps_line *l, size_t plen)
{
	return hash_bytes(l->path, plen,
			  hash_u64(l->inode ^ hash_u64(((uint64_t)l->dev_major
							<< 32) | l->dev_minor)));
}

static struct maps_file *file_find(const struct maps *m,
				   const struct maps_line *l)
{
	struct hiter it = { 0 };
	uint32_t item;

	while (hindex_next(&m->file_idx, file_hash(l, l->plen), &it, &item)) {
		struct maps_file *f = &m->files[item - 1];

		if (f->dev_major == l->dev_major &&
		    f->dev_minor == l->dev_minor && f->inode == l->inode &&
		    same_path(f->path, l->path, l->plen))
			return f;
	}
	return NULL;
}

/*
 * The file of l, added if new. A path with a NUL matches none: its file
 * is the one of the path cut there, which a later line or record of that
 * path finds, as a scan would have.
 */
static struct maps_file *file_get(struct maps *m, const struct maps_line *l)
{
	struct maps_line cut = *l;
	struct maps_file *f;

	cut.plen = strnlen(l->path, l->plen);
	f = file_find(m, &cut);
	if (f)
		return f;
	GROW(m->files, m->capfiles, m->nfiles + 1);
	f = &m->files[m->nfiles++];
	*f = (struct maps_file){ .dev_major = l->dev_major,
		.dev_minor = l->dev_minor, .inode = l->inode,
		.path = xstrndup(cut.path, cut.plen) };
	hindex_put(&m->file_idx, file_hash(&cut, cut.plen), m->nfiles);
	return f;
}

void maps__add_buildid(struct maps *m, uint32_t dev_major, uint32_t dev_minor,
		       uint64_t inode, const char *path, size_t plen,
		       const char *hex)
{
	struct maps_line l = { .dev_major = dev_major, .dev_minor = dev_minor,
			       .inode = inode, .path = path, .plen = plen };
	bool whole = !memchr(path, 0, plen);
	struct maps_file *f = file_get(m, &l);
	uint32_t i;

	if (f->hex)
		return;		/* the first record of a file wins */
	f->hex = xstrdup(hex);
	/* a cut path names the file for later mappings only */
	for (i = f->first_map; whole && i; i = m->runs[i - 1].next_of_file)
		if (!m->all[i - 1].build_id)
			m->all[i - 1].build_id = f->hex;
}

/* ---- vDSO images ---- */

static uint64_t vdso_hash(int pid, uint64_t start)
{
	return hash_u64(start ^ hash_u64((uint32_t)pid));
}

static const struct maps_vdso *vdso_find(const struct maps *m, int pid,
					 uint64_t start)
{
	struct hiter it = { 0 };
	uint32_t item;

	while (hindex_next(&m->vdso_idx, vdso_hash(pid, start), &it, &item))
		if (m->vdsos[item - 1].pid == pid &&
		    m->vdsos[item - 1].start == start)
			return &m->vdsos[item - 1];
	return NULL;
}

static void attach_vdso(const struct maps *m, struct mapping *e)
{
	const struct maps_vdso *v;

	if (e->image || strcmp(e->path, "[vdso]"))
		return;
	v = vdso_find(m, e->pid, e->start);
	if (v) {
		e->image = v->image;
		e->image_len = v->len;
	}
}

struct vdso_walk {
	struct maps *m;
	uint64_t start;
};

static bool vdso_attach_one(void *ctx, uint32_t id)
{
	struct vdso_walk *w = ctx;

	if (w->m->all[id - 1].start == w->start)
		attach_vdso(w->m, &w->m->all[id - 1]);
	return false;
}

void maps__add_vdso(struct maps *m, int pid, uint64_t start,
		    const unsigned char *image, size_t len)
{
	struct vdso_walk w = { .m = m, .start = start };
	const struct maps_pid *mp;
	struct maps_vdso *v;

	if (vdso_find(m, pid, start))
		return;		/* the first record wins */
	GROW(m->vdsos, m->capvdsos, m->nvdsos + 1);
	v = &m->vdsos[m->nvdsos++];
	v->pid = pid;
	v->start = start;
	v->len = len;
	v->image = xmalloc(len + 1);
	memcpy(v->image, image, len);
	hindex_put(&m->vdso_idx, vdso_hash(pid, start), m->nvdsos);
	/* the pid's mappings that start there */
	mp = pid_find(m, pid);
	if (mp)
		itree_query(m->pnodes, mp->map_root, start, start, true,
			    vdso_attach_one, &w);
}

/* ---- mappings ---- */

static bool same_file(const struct mapping *e, const struct maps_line *l)
{
	return e->dev_major == l->dev_major && e->dev_minor == l->dev_minor &&
	       e->inode == l->inode && same_path(e->path, l->path, l->plen);
}

/* A new mapping all[i] into its pid's tree, the global tree, its file. */
static void index_mapping(struct maps *m, struct maps_pid *mp, uint32_t i,
			  const struct maps_line *l)
{
	struct mapping *e = &m->all[i];
	struct maps_file *f = file_get(m, l);
	struct itnode node = { .start = e->start, .limit = e->limit };

	GROW(m->pnodes, m->capp, m->nall);
	GROW(m->gnodes, m->capg, m->nall);
	GROW(m->runs, m->capr, m->nall);
	m->pnodes[i] = node;
	m->gnodes[i] = node;
	itree_insert(m->pnodes, &mp->map_root, i + 1);
	itree_insert(m->gnodes, &m->all_root, i + 1);
	/* a path with a NUL takes no build-id (see same_path) */
	if (!memchr(l->path, 0, l->plen))
		e->build_id = f->hex;
	m->runs[i] = (struct maps_runs){ .next_of_file = f->first_map };
	f->first_map = i + 1;
}

/*
 * The same mapping in two snapshots is one entry. The file's identity is
 * part of it: after an exec (or a rebuild and re-run) the same range and
 * path can hold another file.
 */
static uint32_t intern(struct maps *m, struct maps_pid *mp,
		       const struct maps_line *l)
{
	int pid = mp->pid;
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
		.inode = l->inode,
	};
	m->nall++;
	index_mapping(m, mp, m->nall - 1, l);
	attach_vdso(m, &m->all[m->nall - 1]);
	return m->nall - 1;
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

/*
 * A maps line that does not parse, the first one as one warning line: the
 * rest of its snapshot is kept. Once a process, not once a profile: a
 * reader replays one stream, and tests that build thousands of profiles
 * from mangled streams would print thousands of lines.
 */
static void warn_bad_line(struct maps *m, int pid, const char *s,
			  const char *eol)
{
	static bool warned;
	char text[121];
	size_t i, n = eol - s < 120 ? (size_t)(eol - s) : 120;

	m->bad_lines++;
	if (warned)
		return;
	warned = true;
	for (i = 0; i < n; i++)
		text[i] = s[i] >= ' ' && s[i] < 127 ? s[i] : '?';
	text[n] = 0;
	pr_err("warning: maps of pid %d: skipped a line that does not parse: \"%s%s\"",
	       pid, text, (size_t)(eol - s) > n ? "..." : "");
}

/*
 * Snapshot position q of mp holds the mappings idx[0..n): extend their
 * runs. Returns whether the pid's previous snapshot had a mapping q lacks.
 */
static bool add_runs(struct maps *m, const struct maps_pid *mp, uint32_t q,
		     const uint32_t *idx, size_t n)
{
	const struct maps_snapshot *prev;
	size_t i;

	for (i = 0; i < n; i++) {
		struct maps_runs *r = &m->runs[idx[i]];

		if (r->n && r->r[2 * r->n - 1] == q)
			continue;	/* twice in one snapshot */
		if (r->n && r->r[2 * r->n - 1] + 1 == q) {
			r->r[2 * r->n - 1] = q;
			continue;
		}
		if (r->n == r->cap) {
			r->cap = r->cap ? r->cap * 2 : 1;
			r->r = xrealloc(r->r, 2 * sizeof(*r->r) * r->cap);
		}
		r->r[2 * r->n] = q;
		r->r[2 * r->n + 1] = q;
		r->n++;
	}
	if (!q)
		return false;
	prev = &m->snaps[mp->pos[q - 1]];
	for (i = 0; i < prev->n; i++) {
		const struct maps_runs *r = &m->runs[prev->idx[i]];

		if (r->r[2 * r->n - 1] != q)
			return true;
	}
	return false;
}

/*
 * snap (its mappings interned, its runs added, its epoch set) becomes
 * mp's newest snapshot and m's last: in mp's positions (out of time
 * order: unordered) and in m's time index of lows.
 */
static void push_snapshot(struct maps *m, struct maps_pid *mp,
			  const struct maps_snapshot *snap)
{
	if (mp->npos && m->snaps[mp->pos[mp->npos - 1]].time_ns > snap->time_ns)
		mp->unordered = true;
	if (mp->npos == mp->cappos) {
		mp->cappos = mp->cappos ? mp->cappos * 2 : 1;
		mp->pos = xrealloc(mp->pos, mp->cappos * sizeof(*mp->pos));
	}
	mp->pos[mp->npos++] = m->nsnaps;
	while (m->nlows &&
	       m->snaps[m->lows[m->nlows - 1]].time_ns >= snap->time_ns)
		m->nlows--;
	GROW(m->lows, m->caplows, m->nlows + 1);
	m->lows[m->nlows++] = m->nsnaps;
	GROW(m->snaps, m->capsnaps, m->nsnaps + 1);
	m->snaps[m->nsnaps++] = *snap;
}

int maps__add_snapshot(struct maps *m, int pid, uint64_t time_ns,
		       const char *text, size_t len)
{
	struct maps_snapshot snap = { .time_ns = time_ns, .pid = pid };
	struct maps_pid *mp = pid_get(m, pid);
	size_t cap = 0;
	const char *s = text, *end = text + len;
	bool dropped;

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
			warn_bad_line(m, pid, s, eol);
			s = eol + 1;
			continue;
		}
		s = eol + 1;
		if (l.perms[2] != 'x')
			continue;
		GROW(snap.idx, cap, snap.n + 1);
		snap.idx[snap.n++] = intern(m, mp, &l);
	}
	/* the epoch: see maps.h */
	dropped = add_runs(m, mp, mp->npos, snap.idx, snap.n);
	snap.epoch = (m->nsnaps ? m->snaps[m->nsnaps - 1].epoch : 0) + dropped;
	push_snapshot(m, mp, &snap);
	return (int)snap.n;
}

static struct mapping *find_in(const struct maps *m,
			       const struct maps_snapshot *s,
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

static bool found_one(void *ctx, uint32_t id)
{
	(void)ctx;
	(void)id;
	return true;
}

bool maps__covered(struct maps *m, uint64_t addr)
{
	return itree_query(m->gnodes, m->all_root, addr, addr, true,
			   found_one, NULL);
}

struct mmap_walk {
	const struct maps *m;
	uint64_t start, pgoff, inode;
	uint32_t dev_major, dev_minor;
};

/* A mapping the MMAP overlaps: other code than it maps there? */
static bool other_code(void *ctx, uint32_t id)
{
	const struct mmap_walk *w = ctx;
	const struct mapping *e = &w->m->all[id - 1];

	/* the same code still: an mprotect, or a segment remapped */
	return !(e->inode == w->inode && e->dev_major == w->dev_major &&
		 e->dev_minor == w->dev_minor &&
		 (!w->inode || e->offset - e->start == w->pgoff - w->start));
}

static uint64_t mark_hash(int pid, uint64_t start, uint64_t end)
{
	return hash_u64(start ^ hash_u64(end ^ hash_u64((uint32_t)pid)));
}

/* The mark range (pid, start, end), added if new. */
static struct maps_mark *mark_get(struct maps *m, struct maps_pid *mp,
				  uint64_t start, uint64_t end)
{
	uint64_t h = mark_hash(mp->pid, start, end);
	struct hiter it = { 0 };
	struct maps_mark *k;
	uint32_t item;

	while (hindex_next(&m->mark_idx, h, &it, &item)) {
		k = &m->marks[item - 1];
		if (k->pid == mp->pid && k->start == start && k->end == end)
			return k;
	}
	GROW(m->marks, m->capmarks, m->nmarks + 1);
	GROW(m->knodes, m->capk, m->nmarks + 1);
	k = &m->marks[m->nmarks];
	memset(k, 0, sizeof(*k));
	k->start = start;
	k->end = end;
	k->pid = mp->pid;
	m->knodes[m->nmarks] = (struct itnode){ .start = start, .limit = end };
	itree_insert(m->knodes, &mp->mark_root, m->nmarks + 1);
	hindex_put(&m->mark_idx, h, ++m->nmarks);
	return k;
}

bool maps__add_mmap(struct maps *m, int pid, uint64_t time_ns,
		    uint64_t start, uint64_t end, uint64_t pgoff,
		    uint32_t dev_major, uint32_t dev_minor, uint64_t inode)
{
	struct mmap_walk w = { .m = m, .start = start, .pgoff = pgoff,
			       .inode = inode, .dev_major = dev_major,
			       .dev_minor = dev_minor };
	struct maps_pid *mp = pid_find(m, pid);
	struct maps_mark *k;

	if (!mp || !itree_query(m->pnodes, mp->map_root, start, end, false,
				other_code, &w))
		return false;
	k = mark_get(m, mp, start, end);
	timeline__add(&k->times, time_ns, k->times.n);
	timeline__add(&m->mark_times, time_ns, m->mark_times.n);
	return true;
}

/* The last snapshot (by arrival) taken at or before time_ns, if any. */
static bool snap_at(const struct maps *m, uint64_t time_ns, uint32_t *cur)
{
	size_t lo = 0, hi = m->nlows;

	/* lows' times grow: the last of them at or before time_ns */
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (m->snaps[m->lows[mid]].time_ns <= time_ns)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return false;
	*cur = m->lows[lo - 1];
	return true;
}

uint32_t maps__epoch_at(const struct maps *m, uint64_t time_ns)
{
	uint32_t cur, n = 0;

	if (snap_at(m, time_ns, &cur))
		n = m->snaps[cur].epoch;
	return n + (uint32_t)timeline__count_le(&m->mark_times, time_ns);
}

struct mark_walk {
	const struct maps *m;
	uint64_t time_ns, best;
};

static bool newer_mark(void *ctx, uint32_t id)
{
	struct mark_walk *w = ctx;
	struct tl_ent e;

	if (timeline__last_le(&w->m->marks[id - 1].times, w->time_ns, &e) &&
	    e.time > w->best)
		w->best = e.time;
	return false;
}

/* The newest mark of mp at addr at or before time_ns: its time, else 0. */
static uint64_t mark_before(const struct maps *m, const struct maps_pid *mp,
			    uint64_t addr, uint64_t time_ns)
{
	struct mark_walk w = { .m = m, .time_ns = time_ns };

	itree_query(m->knodes, mp->mark_root, addr, addr, true, newer_mark,
		    &w);
	return w.best;
}

/*
 * The positions of a process's snapshots that may answer: [s, c) newest
 * first, then [max(c, s), npos) oldest first. Each mapping holding the
 * address offers the nearest position it is in (a binary search of its
 * runs); the best offer is the snapshot a scan would have stopped at.
 */
struct cand_walk {
	const struct maps *m;
	uint32_t s, c, npos;
	int64_t back;		/* best in [s, c), -1: none */
	uint32_t fwd;		/* best in [max(c, s), npos), npos: none */
};

static bool offer(void *ctx, uint32_t id)
{
	struct cand_walk *w = ctx;
	const struct maps_runs *r = &w->m->runs[id - 1];
	uint32_t lo = 0, hi = r->n, from = w->c > w->s ? w->c : w->s;

	/* the runs that start at or before c - 1 */
	while (lo < hi) {
		uint32_t mid = (lo + hi) / 2;

		if (r->r[2 * mid] < w->c)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo) {
		uint32_t last = r->r[2 * lo - 1];
		uint32_t p = last < w->c - 1 ? last : w->c - 1;

		if (p >= w->s && (int64_t)p > w->back)
			w->back = p;
	}
	/* the first run that ends at or after from */
	for (hi = r->n, lo = lo ? lo - 1 : 0; lo < hi;) {
		uint32_t mid = (lo + hi) / 2;

		if (r->r[2 * mid + 1] < from)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < r->n) {
		uint32_t p = r->r[2 * lo] > from ? r->r[2 * lo] : from;

		if (p < w->fwd)
			w->fwd = p;
	}
	/* nothing beats the newest snapshot before the sample */
	return w->c && w->back == (int64_t)w->c - 1;
}

/* The first position of mp taken at or after since_ns (times in order). */
static uint32_t first_since(const struct maps *m, const struct maps_pid *mp,
			    uint64_t since_ns)
{
	uint32_t lo = 0, hi = mp->npos;

	while (lo < hi) {
		uint32_t mid = (lo + hi) / 2;

		if (m->snaps[mp->pos[mid]].time_ns < since_ns)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Snapshots of one process taken out of time order: each in turn. */
static struct mapping *find_walk(const struct maps *m,
				 const struct maps_pid *mp,
				 uint32_t c, uint64_t addr, uint64_t since_ns)
{
	struct mapping *e;
	uint32_t i;

	for (i = c; i-- > 0;)
		if (m->snaps[mp->pos[i]].time_ns >= since_ns &&
		    (e = find_in(m, &m->snaps[mp->pos[i]], addr)))
			return e;
	for (i = c; i < mp->npos; i++)
		if (m->snaps[mp->pos[i]].time_ns >= since_ns &&
		    (e = find_in(m, &m->snaps[mp->pos[i]], addr)))
			return e;
	return NULL;
}

/*
 * maps__find_since() within pid's own snapshots: the newest at or before
 * the sample (by arrival) first, then older ones, then newer ones; none
 * older than since_ns or than a mark at addr before the sample.
 */
static struct mapping *find_of(const struct maps *m, int pid, uint64_t addr,
			       uint64_t time_ns, uint64_t since_ns)
{
	const struct maps_pid *mp = pid_find(m, pid);
	struct cand_walk w = { .m = m };
	const struct maps_snapshot *sn;
	struct mapping *e;
	uint32_t cur, lo, hi;
	uint64_t mark;

	if (!mp || !mp->npos)
		return NULL;
	mark = mark_before(m, mp, addr, time_ns);
	if (mark > since_ns)
		since_ns = mark;
	/* c: the process's snapshots up to the last one before the sample */
	lo = 0;
	hi = mp->npos;
	if (snap_at(m, time_ns, &cur)) {
		while (lo < hi) {
			uint32_t mid = (lo + hi) / 2;

			if (mp->pos[mid] <= cur)
				lo = mid + 1;
			else
				hi = mid;
		}
	}
	w.c = lo;
	/* the usual answer: the newest snapshot before the sample has it */
	if (w.c) {
		sn = &m->snaps[mp->pos[w.c - 1]];
		if (sn->time_ns >= since_ns && (e = find_in(m, sn, addr)))
			return e;
	}
	if (since_ns && mp->unordered)
		return find_walk(m, mp, w.c, addr, since_ns);
	/*
	 * None before the sample (a short run's maps read after its samples
	 * came): the oldest after it, when it has addr, is what the query
	 * below would find first.
	 */
	if (!w.c) {
		sn = &m->snaps[mp->pos[0]];
		if (sn->time_ns >= since_ns && (e = find_in(m, sn, addr)))
			return e;
	}
	w.s = since_ns ? first_since(m, mp, since_ns) : 0;
	w.npos = w.fwd = mp->npos;
	w.back = -1;
	itree_query(m->pnodes, mp->map_root, addr, addr, true, offer, &w);
	if (w.back >= 0)
		return find_in(m, &m->snaps[mp->pos[w.back]], addr);
	if (w.fwd < mp->npos)
		return find_in(m, &m->snaps[mp->pos[w.fwd]], addr);
	return NULL;
}

/* Forks of forks: a worker pool's workers, a shell's subshells. */
#define MAX_FORK_DEPTH 8

struct mapping *maps__find_since(const struct maps *m, int pid, uint64_t addr,
				 uint64_t time_ns, uint64_t since_ns)
{
	const struct maps_pid *mp;
	struct mapping *e;
	int depth;

	for (depth = 0; depth < MAX_FORK_DEPTH && pid > 0; depth++) {
		e = find_of(m, pid, addr, time_ns, since_ns);
		/* after an exec the parent's maps are another program's */
		if (e || since_ns)
			return e;
		mp = pid_find(m, pid);
		pid = mp ? mp->ppid : 0;
	}
	return NULL;
}

struct mapping *maps__find(const struct maps *m, int pid, uint64_t addr,
			   uint64_t time_ns)
{
	return maps__find_since(m, pid, addr, time_ns, 0);
}


/* ---- forgetting (a live agent's eviction) ---- */

/*
 * Which of mp's snapshots stay: none of a process gone; of one alive, its
 * newest taken at or before before_ns and all after it (the older ones
 * can name only samples older than before_ns). A process whose snapshots
 * came out of time order keeps them all.
 */
static void keep_of(const struct maps *m, const struct maps_pid *mp,
		    bool gone, uint64_t before_ns, bool *keep)
{
	uint32_t q, from = 0;

	if (gone)
		return;
	if (!mp->unordered)
		for (q = 0; q < mp->npos; q++)
			if (m->snaps[mp->pos[q]].time_ns <= before_ns)
				from = q;
	for (q = from; q < mp->npos; q++)
		keep[mp->pos[q]] = true;
}

/* Old snapshot s again into n, with its own epoch. */
static void readd(struct maps *n, const struct maps *m,
		  const struct maps_snapshot *s)
{
	struct maps_snapshot snap = { .time_ns = s->time_ns, .pid = s->pid,
				      .epoch = s->epoch, .n = s->n };
	struct maps_pid *mp = pid_get(n, s->pid);
	size_t i;

	snap.idx = xmalloc((s->n ? s->n : 1) * sizeof(*snap.idx));
	for (i = 0; i < s->n; i++) {
		const struct mapping *e = &m->all[s->idx[i]];
		struct maps_line l = {
			.start = e->start, .limit = e->limit,
			.offset = e->offset, .inode = e->inode,
			.dev_major = e->dev_major, .dev_minor = e->dev_minor,
			.path = e->path, .plen = strlen(e->path),
		};

		snap.idx[i] = intern(n, mp, &l);
		n->all[snap.idx[i]].bid_tried |= e->bid_tried;
	}
	add_runs(n, mp, mp->npos, snap.idx, snap.n);
	push_snapshot(n, mp, &snap);
}

size_t maps__forget(struct maps *m, bool (*gone)(void *ctx, int pid),
		    void *ctx, uint64_t before_ns)
{
	bool *keep = xcalloc(m->nsnaps ? m->nsnaps : 1, sizeof(*keep));
	size_t i, dropped = 0;
	struct maps n;

	for (i = 0; i < m->npids; i++)
		keep_of(m, &m->pids[i], gone(ctx, m->pids[i].pid), before_ns,
			keep);
	for (i = 0; i < m->nsnaps; i++)
		dropped += !keep[i];
	if (!dropped) {
		free(keep);
		return 0;
	}
	maps__init(&n);
	n.bad_lines = m->bad_lines;
	/* the processes kept, their parents and vDSO images first: a
	 * mapping interned takes its image then */
	for (i = 0; i < m->npids; i++)
		if (!gone(ctx, m->pids[i].pid))
			pid_get(&n, m->pids[i].pid)->ppid = m->pids[i].ppid;
	for (i = 0; i < m->nvdsos; i++)
		if (pid_find(&n, m->vdsos[i].pid))
			maps__add_vdso(&n, m->vdsos[i].pid, m->vdsos[i].start,
				       m->vdsos[i].image, m->vdsos[i].len);
	for (i = 0; i < m->nsnaps; i++)
		if (keep[i])
			readd(&n, m, &m->snaps[i]);
	/* build-ids of the files still mapped */
	for (i = 0; i < m->nfiles; i++) {
		const struct maps_file *f = &m->files[i];
		struct maps_line l = { .dev_major = f->dev_major,
			.dev_minor = f->dev_minor, .inode = f->inode,
			.path = f->path, .plen = strlen(f->path) };

		if (f->hex && file_find(&n, &l))
			maps__add_buildid(&n, f->dev_major, f->dev_minor,
					  f->inode, f->path, l.plen, f->hex);
	}
	/* marks are few (code addresses reused): kept whole, each live
	 * process's tree of them with it */
	n.marks = m->marks;
	n.nmarks = m->nmarks;
	n.capmarks = m->capmarks;
	n.mark_idx = m->mark_idx;
	n.knodes = m->knodes;
	n.capk = m->capk;
	n.mark_times = m->mark_times;
	for (i = 0; i < n.npids; i++) {
		const struct maps_pid *old = pid_find(m, n.pids[i].pid);

		n.pids[i].mark_root = old ? old->mark_root : 0;
	}
	m->marks = NULL;
	m->nmarks = m->capmarks = m->capk = 0;
	m->knodes = NULL;
	hindex_init(&m->mark_idx);
	memset(&m->mark_times, 0, sizeof(m->mark_times));
	free(keep);
	maps__free(m);
	*m = n;
	return dropped;
}
