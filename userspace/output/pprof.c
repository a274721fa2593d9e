// SPDX-License-Identifier: GPL-2.0
/* tprof-read: encode a resolved, named profile as a pprof protobuf (gzipped
 * by output/write.c). */
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/utf8.h"
#include "output/pprof.h"
#include "output/summary.h"
#include "profile.pb-c.h"

typedef Perftools__Profiles__Profile PbProfile;
typedef Perftools__Profiles__Sample PbSample;
typedef Perftools__Profiles__Label PbLabel;
typedef Perftools__Profiles__Mapping PbMapping;
typedef Perftools__Profiles__Location PbLocation;
typedef Perftools__Profiles__Line PbLine;
typedef Perftools__Profiles__Function PbFunction;
typedef Perftools__Profiles__ValueType PbValueType;

#define KERNEL_MAPPING_START 0xffff800000000000ULL

struct builder {
	const struct profile *p;
	const struct resolved *r;
	const struct pprof_opts *o;
	const struct summary *s;	/* lost, periods, totals */
	PbProfile prof;

	char **strs;
	size_t nstrs, capstrs;
	struct hindex str_idx;

	PbFunction **funcs;
	size_t nfuncs, capfuncs;
	struct hindex func_idx;

	PbLocation **locs;
	size_t nlocs, caplocs;
	struct hindex loc_idx;

	PbMapping **maps;
	size_t nmaps, capmaps;
	uint32_t *map_ids;	/* per profile.maps.all: pprof id, 0 = none yet */
	uint32_t kernel_map;	/* pprof id, 0 = none yet */

	PbSample **samples;	/* [lost]: built as messages */
	size_t nsamples, capsamples;
	/* the resolved samples, each packed as it is made (see put_sample) */
	uint8_t *sbytes;
	size_t slen, scap;
	uint64_t *locids;
	size_t caplocids;

	int64_t *comments;
	size_t ncomments, capcomments;

	uint64_t clamped;	/* values past INT64_MAX, written as INT64_MAX */
	/* 3 with off-CPU time (cpu, off_cpu, samples), else 2 (cpu, samples) */
	size_t nval;
};

/* Thread lines in the profile's comments; --report has them all. */
#define MAX_THREAD_COMMENTS 100

/*
 * pprof's values are int64: a bogus weight (or a sum of them) past INT64_MAX
 * would read as negative ("Duration: -1.0"). Saturate and count it.
 */
static int64_t clamp_i64(struct builder *b, uint64_t v)
{
	if (v > INT64_MAX) {
		b->clamped++;
		return INT64_MAX;
	}
	return (int64_t)v;
}

/*
 * Every string of the profile goes through here, so every one is valid
 * UTF-8: protobuf's string fields must be (protoc and Go's decoders refuse the
 * whole profile otherwise), and comm cut at 15 bytes or a path may not be.
 */
static int64_t str(struct builder *b, const char *s)
{
	struct hiter it = { 0 };
	char *fixed = NULL;
	uint32_t item;
	uint64_t h;
	size_t n;

	if (!s)
		s = "";
	n = strlen(s);
	if (!utf8_valid(s, n)) {
		fixed = utf8_sanitize(s, n);
		s = fixed;
		n = strlen(s);
	}
	h = hash_bytes(s, n, 0);
	while (hindex_next(&b->str_idx, h, &it, &item))
		if (!strcmp(b->strs[item - 1], s)) {
			free(fixed);
			return item - 1;
		}
	GROW(b->strs, b->capstrs, b->nstrs + 1);
	b->strs[b->nstrs++] = fixed ? fixed : xstrdup(s);
	hindex_put(&b->str_idx, h, b->nstrs);
	return b->nstrs - 1;
}

static uint64_t func_id(struct builder *b, const char *name,
			const char *system_name, const char *file,
			int64_t start_line)
{
	int64_t n = str(b, name), sn = str(b, system_name), f = str(b, file);
	uint64_t h = hash_u64(n ^ hash_u64(sn ^ hash_u64(f ^ hash_u64(start_line))));
	struct hiter it = { 0 };
	PbFunction *fn;
	uint32_t item;

	while (hindex_next(&b->func_idx, h, &it, &item)) {
		fn = b->funcs[item - 1];
		if (fn->name == n && fn->system_name == sn &&
		    fn->filename == f && fn->start_line == start_line)
			return fn->id;
	}
	fn = xmalloc(sizeof(*fn));
	perftools__profiles__function__init(fn);
	fn->id = b->nfuncs + 1;
	fn->name = n;
	fn->system_name = sn;
	fn->filename = f;
	fn->start_line = start_line;
	GROW(b->funcs, b->capfuncs, b->nfuncs + 1);
	b->funcs[b->nfuncs++] = fn;
	hindex_put(&b->func_idx, h, b->nfuncs);
	return fn->id;
}

static PbMapping *new_mapping(struct builder *b)
{
	PbMapping *m = xmalloc(sizeof(*m));

	perftools__profiles__mapping__init(m);
	GROW(b->maps, b->capmaps, b->nmaps + 1);
	b->maps[b->nmaps++] = m;
	m->id = b->nmaps;
	return m;
}

static uint32_t user_mapping_id(struct builder *b, uint32_t map)
{
	const struct mapping *m = &b->p->maps.all[map - 1];
	const struct rmap *rm = &b->r->maps[map - 1];
	PbMapping *pm;

	if (b->map_ids[map - 1])
		return b->map_ids[map - 1];
	pm = new_mapping(b);
	pm->memory_start = m->start;
	pm->memory_limit = m->limit;
	pm->file_offset = m->offset;
	pm->filename = str(b, m->path);
	pm->build_id = str(b, rm->build_id ? rm->build_id : "");
	pm->has_functions = rm->has_functions;
	pm->has_filenames = rm->has_filenames;
	pm->has_line_numbers = rm->has_line_numbers;
	pm->has_inline_frames = rm->has_inline_frames;
	b->map_ids[map - 1] = pm->id;
	return pm->id;
}

static uint32_t kernel_mapping_id(struct builder *b)
{
	PbMapping *pm;

	if (b->kernel_map)
		return b->kernel_map;
	pm = new_mapping(b);
	pm->memory_start = KERNEL_MAPPING_START;
	pm->memory_limit = UINT64_MAX;
	pm->filename = str(b, "[kernel]");
	pm->build_id = str(b, "");
	pm->has_functions = b->r->kernel_named;
	b->kernel_map = pm->id;
	return b->kernel_map;
}

static void add_line(PbLocation *l, uint64_t fid, int64_t line)
{
	PbLine *ln = xmalloc(sizeof(*ln));

	perftools__profiles__line__init(ln);
	ln->function_id = fid;
	ln->line = line;
	l->line = xrealloc(l->line, (l->n_line + 1) * sizeof(*l->line));
	l->line[l->n_line++] = ln;
}

static PbLocation *new_location(struct builder *b, uint64_t h)
{
	PbLocation *l = xmalloc(sizeof(*l));

	perftools__profiles__location__init(l);
	GROW(b->locs, b->caplocs, b->nlocs + 1);
	b->locs[b->nlocs++] = l;
	l->id = b->nlocs;
	hindex_put(&b->loc_idx, h, b->nlocs);
	return l;
}

/* One pprof Location per resolved location, with the names found for it. */
static void add_locations(struct builder *b)
{
	size_t i;
	int j;

	for (i = 0; i < b->r->nlocs; i++) {
		const struct rloc *rl = &b->r->locs[i];
		PbLocation *l = new_location(b, hash_u64(i));

		if (rl->kind == RLOC_PSEUDO) {
			add_line(l, func_id(b, rl->pseudo, rl->pseudo, "", 0), 0);
			continue;
		}
		/*
		 * A Python frame is its function and line alone: no mapping
		 * (the interpreter's would say its symbols were looked up
		 * there, and an address in it would be a code object's, not
		 * an instruction pprof could disassemble or symbolize).
		 */
		if (rl->kind != RLOC_PYTHON)
			l->address = rl->addr;
		if (rl->kind == RLOC_KERNEL)
			l->mapping_id = kernel_mapping_id(b);
		else if (rl->kind == RLOC_USER && rl->map)
			l->mapping_id = user_mapping_id(b, rl->map);
		/*
		 * A Python function has no system name: pprof "demangles"
		 * one equal to its name again, and one that looks like C++
		 * (a '<' and no ".<") loses each <...>: `<module>` and a
		 * module's `<listcomp>` would become "" (go tool pprof:
		 * `<unknown>`, or only file:line).
		 */
		for (j = 0; j < rl->nlines; j++)
			add_line(l, func_id(b, rl->lines[j].name,
					    rl->kind == RLOC_PYTHON ? "" :
					    rl->lines[j].system_name,
					    rl->lines[j].file,
					    rl->lines[j].start_line),
				 rl->lines[j].line);
	}
}

static uint64_t pseudo_location(struct builder *b, const char *name)
{
	uint64_t h = hash_bytes(name, strlen(name), 7);
	struct hiter it = { 0 };
	PbLocation *l;
	uint32_t item;

	while (hindex_next(&b->loc_idx, h, &it, &item))
		if (!b->locs[item - 1]->address && b->locs[item - 1]->n_line &&
		    b->funcs[b->locs[item - 1]->line[0]->function_id - 1]->name ==
		    str(b, name))
			return item;
	l = new_location(b, h);
	add_line(l, func_id(b, name, name, "", 0), 0);
	return l->id;
}

#define MAX_LABELS 12

/* The "state" label's value: what the thread was doing (ps's R/S/D). */
const char *pprof__state_name(uint32_t off_state)
{
	switch (off_state) {
	case 0: return "running";
	case TPROF_OFF_SLEEPING: return "sleeping";
	case TPROF_OFF_BLOCKED: return "uninterruptible";
	case TPROF_OFF_RUNNABLE: return "runnable";
	default: return "unknown";
	}
}

/* The "waker_kind" label's value (TPROF_WAKER_*; 0: no wakeup told). */
const char *pprof__waker_kind_name(uint32_t kind)
{
	switch (kind) {
	case 0: return "none";
	case TPROF_WAKER_TASK: return "thread";
	case TPROF_WAKER_SESSION: return "followed process";
	case TPROF_WAKER_OTHER: return "other process";
	case TPROF_WAKER_KTHREAD: return "kernel thread";
	case TPROF_WAKER_HARDIRQ: return "hardirq";
	case TPROF_WAKER_SOFTIRQ: return "softirq";
	default: return "unknown";
	}
}

const char *pprof__waker_pseudo(const struct resolved *r,
				const struct rsample *rs,
				const struct rsample **wake)
{
	*wake = resolve__wake(r, rs->wake_id);
	if (*wake)
		return NULL;
	switch (rs->waker.kind) {
	case TPROF_WAKER_HARDIRQ:
	case TPROF_WAKER_SOFTIRQ:
		return "[interrupt]";
	case TPROF_WAKER_KTHREAD:
		return "[kernel thread]";
	case TPROF_WAKER_OTHER:
		return "[other process]";
	default:
		return rs->wake_id ? "[waker stack lost]" :
				     "[waker stack not taken]";
	}
}

const struct agg_waker *pprof__waker_of(const struct rsample *rs,
					const struct rsample *wake)
{
	return wake && wake->waker.kind ? &wake->waker : &rs->waker;
}

/*
 * A sample's values: its weight in the cpu or off_cpu column (off-CPU
 * profiles only), its count last. Returns how many (b->nval).
 */
static size_t fill_values(struct builder *b, int64_t val[3],
			  uint32_t off_state, uint64_t weight_ns,
			  uint64_t count)
{
	int64_t w = clamp_i64(b, weight_ns);

	if (b->nval == 2) {
		val[0] = w;
		val[1] = clamp_i64(b, count);
		return 2;
	}
	val[0] = off_state ? 0 : w;
	val[1] = off_state ? w : 0;
	val[2] = clamp_i64(b, count);
	return 3;
}

/* A sample's labels, in lab[] (at most MAX_LABELS); returns how many. */
static size_t fill_labels(struct builder *b, PbLabel lab[MAX_LABELS], int pid,
			  int tid, const char *comm, const char *pcomm,
			  const struct cgroup_change *cg,
			  uint64_t period_ns, uint32_t off_state,
			  const struct agg_waker *wk)
{
	size_t nl = 0;

	/* off-CPU profiles: what the time was, so that -tagfocus splits it */
	if (b->nval == 3) {
		perftools__profiles__label__init(&lab[nl]);
		lab[nl].key = str(b, "state");
		lab[nl++].str = str(b, pprof__state_name(off_state));
	}
	if (pid) {
		perftools__profiles__label__init(&lab[nl]);
		lab[nl].key = str(b, "pid");
		lab[nl++].num = pid;
	}
	/* the program the process ran then (its main thread's comm) */
	if (pcomm && *pcomm) {
		perftools__profiles__label__init(&lab[nl]);
		lab[nl].key = str(b, "process");
		lab[nl++].str = str(b, pcomm);
	}
	if (tid) {
		perftools__profiles__label__init(&lab[nl]);
		lab[nl].key = str(b, "tid");
		lab[nl++].num = tid;
	}
	/* no THREAD record named it: no label, rather than an empty one */
	if (comm && *comm) {
		perftools__profiles__label__init(&lab[nl]);
		lab[nl].key = str(b, "thread_comm");
		lab[nl++].str = str(b, comm);
	}
	/* its process's cgroup then, and what the path names (none: no
	 * label; a container's scope is its container_id alone) */
	if (cg) {
		perftools__profiles__label__init(&lab[nl]);
		lab[nl].key = str(b, "cgroup");
		lab[nl++].str = str(b, cg->path);
	}
	if (cg && *cg->unit) {
		perftools__profiles__label__init(&lab[nl]);
		lab[nl].key = str(b, "systemd_unit");
		lab[nl++].str = str(b, cg->unit);
	}
	if (cg && *cg->container_id) {
		perftools__profiles__label__init(&lab[nl]);
		lab[nl].key = str(b, "container_id");
		lab[nl++].str = str(b, cg->container_id);
	}
	if (period_ns) {
		perftools__profiles__label__init(&lab[nl]);
		lab[nl].key = str(b, "period");
		lab[nl].num = clamp_i64(b, period_ns);
		lab[nl++].num_unit = str(b, "nanoseconds");
	}
	/* who ended the wait (WAKER): its kind always, the rest if told */
	if (off_state && wk) {
		perftools__profiles__label__init(&lab[nl]);
		lab[nl].key = str(b, "waker_kind");
		lab[nl++].str = str(b, pprof__waker_kind_name(wk->kind));
	}
	if (off_state && wk && wk->tid) {
		perftools__profiles__label__init(&lab[nl]);
		lab[nl].key = str(b, "waker_tid");
		lab[nl++].num = wk->tid;
	}
	if (off_state && wk && wk->comm[0]) {
		perftools__profiles__label__init(&lab[nl]);
		lab[nl].key = str(b, "waker_comm");
		lab[nl++].str = str(b, wk->comm);
	}
	return nl;
}

static PbSample *new_sample(struct builder *b, int pid, int tid,
			    const char *comm, const char *pcomm,
			    const struct cgroup_change *cg, uint64_t period_ns,
			    uint32_t off_state, uint64_t weight_ns,
			    uint64_t count)
{
	PbSample *s = xmalloc(sizeof(*s));
	PbLabel lab[MAX_LABELS];
	int64_t val[3];
	size_t i;

	perftools__profiles__sample__init(s);
	s->n_value = fill_values(b, val, off_state, weight_ns, count);
	s->value = xmalloc(s->n_value * sizeof(*s->value));
	memcpy(s->value, val, s->n_value * sizeof(*s->value));
	s->n_label = fill_labels(b, lab, pid, tid, comm, pcomm, cg,
				 period_ns, off_state, NULL);
	s->label = xcalloc(MAX_LABELS, sizeof(*s->label));
	for (i = 0; i < s->n_label; i++) {
		s->label[i] = xmalloc(sizeof(*s->label[i]));
		*s->label[i] = lab[i];
	}
	GROW(b->samples, b->capsamples, b->nsamples + 1);
	b->samples[b->nsamples++] = s;
	return s;
}

/* Appends sample s, packed, as the Profile's field 2 (b->sbytes). */
static void pack_sample(struct builder *b, const PbSample *s)
{
	size_t i, n = perftools__profiles__sample__get_packed_size(s);

	GROW(b->sbytes, b->scap, b->slen + 11 + n);
	b->sbytes[b->slen++] = 2 << 3 | 2;	/* field 2, length-delimited */
	for (i = n; i >= 0x80; i >>= 7)
		b->sbytes[b->slen++] = (uint8_t)(i | 0x80);
	b->sbytes[b->slen++] = (uint8_t)i;
	b->slen += perftools__profiles__sample__pack(s, b->sbytes + b->slen);
}

/*
 * A resolved sample, packed now as Profile field 2 (a length-delimited
 * Sample) into b->sbytes: a million Sample messages with their labels and
 * location arrays took 680 bytes each until the whole profile was packed;
 * packed, one is ~100 bytes. A message's fields may come
 * in any order, so pprof__encode appends the rest of the profile after them.
 */
static void put_sample(struct builder *b, const struct rsample *rs)
{
	PbSample s;
	PbLabel lab[MAX_LABELS], *labp[MAX_LABELS];
	int64_t val[3];
	size_t i;

	perftools__profiles__sample__init(&s);
	s.n_value = fill_values(b, val, rs->off_state, rs->weight_ns,
				rs->count);
	s.value = val;
	s.n_label = fill_labels(b, lab, rs->pid, rs->tid, rs->comm, rs->pcomm,
				rs->cgroup, rs->period_ns, rs->off_state,
				&rs->waker);
	for (i = 0; i < s.n_label; i++)
		labp[i] = &lab[i];
	s.label = labp;
	GROW(b->locids, b->caplocids, (size_t)rs->nlocs + 1);
	/* location i of the resolved set is pprof Location i + 1 */
	for (i = 0; i < rs->nlocs; i++)
		b->locids[i] = rs->locs[i] + 1;
	s.n_location_id = rs->nlocs;
	s.location_id = b->locids;
	pack_sample(b, &s);
}

/* One sample of a wakers profile: a wait, by its waker's stack. */
struct wait_sample {
	const struct rsample *rs;	/* the wait (labels) */
	const struct agg_waker *waker;	/* who ended it (pprof__waker_of()) */
	const uint64_t *locids;		/* pprof ids, leaf first */
	uint32_t nlocs;
	uint64_t weight_ns, count;
};

/* Do two waits make one sample: same waker stack and labels? */
static bool same_wait(const struct wait_sample *x, const struct wait_sample *y)
{
	const struct rsample *a = x->rs, *c = y->rs;

	return a->pid == c->pid && a->tid == c->tid &&
	       a->off_state == c->off_state && !strcmp(a->comm, c->comm) &&
	       !memcmp(x->waker, y->waker, sizeof(*x->waker)) &&
	       x->nlocs == y->nlocs &&
	       !memcmp(x->locids, y->locids, x->nlocs * sizeof(*x->locids));
}

static uint64_t wait_hash(const struct wait_sample *w)
{
	return hash_bytes(w->locids, w->nlocs * sizeof(*w->locids),
			  hash_u64(((uint64_t)(uint32_t)w->rs->tid << 32) ^
				   w->rs->off_state) ^
			  hash_bytes(w->waker, sizeof(*w->waker), 3));
}

/* A wakers profile's sample, packed as put_sample() packs one. */
static void put_wait(struct builder *b, const struct wait_sample *w)
{
	PbSample s;
	PbLabel lab[MAX_LABELS], *labp[MAX_LABELS];
	const struct rsample *rs = w->rs;
	int64_t val[2] = { clamp_i64(b, w->weight_ns), clamp_i64(b, w->count) };
	size_t i, nl = 0;

	perftools__profiles__sample__init(&s);
	s.n_value = 2;
	s.value = val;
	for (i = 0; i < MAX_LABELS; i++)
		perftools__profiles__label__init(&lab[i]);
	lab[nl].key = str(b, "pid");
	lab[nl++].num = rs->pid;
	lab[nl].key = str(b, "tid");
	lab[nl++].num = rs->tid;
	if (*rs->comm) {
		lab[nl].key = str(b, "thread_comm");
		lab[nl++].str = str(b, rs->comm);
	}
	lab[nl].key = str(b, "wait_state");
	lab[nl++].str = str(b, pprof__state_name(rs->off_state));
	lab[nl].key = str(b, "waker_kind");
	lab[nl++].str = str(b, pprof__waker_kind_name(w->waker->kind));
	if (w->waker->tid) {
		lab[nl].key = str(b, "waker_tid");
		lab[nl++].num = w->waker->tid;
	}
	if (w->waker->comm[0]) {
		lab[nl].key = str(b, "waker_comm");
		lab[nl++].str = str(b, w->waker->comm);
	}
	for (i = 0; i < nl; i++)
		labp[i] = &lab[i];
	s.n_label = nl;
	s.label = labp;
	s.n_location_id = w->nlocs;
	s.location_id = (uint64_t *)w->locids;
	pack_sample(b, &s);
}

/*
 * --mode wakers: each off-CPU sample with a waker (kind != 0: a wait
 * that preemption ended has none) by its waker's stack, leaf first, or
 * the pseudo-frame that says why there is none; waits alike merged.
 */
static void add_waits(struct builder *b)
{
	const struct resolved *r = b->r;
	struct wait_sample *v = xcalloc(r->nsamples + 1, sizeof(*v));
	uint64_t *ids = NULL;
	size_t i, j, nv = 0, nids = 0, capids = 0;
	struct hindex idx = { 0 };

	/* the stacks' pprof ids, one array (offsets first: it grows) */
	for (i = 0; i < r->nsamples; i++) {
		const struct rsample *rs = &r->samples[i], *wk;
		const char *why;

		if (!rs->off_state || !rs->waker.kind || !rs->weight_ns)
			continue;
		why = pprof__waker_pseudo(r, rs, &wk);
		v[nv].rs = rs;
		v[nv].waker = pprof__waker_of(rs, wk);
		v[nv].locids = (const uint64_t *)(uintptr_t)nids;
		if (why) {
			GROW(ids, capids, nids + 1);
			ids[nids++] = pseudo_location(b, why);
		} else {
			GROW(ids, capids, nids + wk->nlocs + 1);
			for (j = 0; j < wk->nlocs; j++)
				ids[nids++] = wk->locs[j] + 1;
		}
		v[nv].nlocs = (uint32_t)(nids - (uintptr_t)v[nv].locids);
		v[nv].weight_ns = rs->weight_ns;
		v[nv++].count = rs->count;
	}
	for (i = 0; i < nv; i++)
		v[i].locids = ids + (uintptr_t)v[i].locids;
	/* merge alike, in order of first appearance */
	for (i = j = 0; i < nv; i++) {
		uint64_t h = wait_hash(&v[i]);
		struct hiter it = { 0 };
		uint32_t item;
		bool merged = false;

		while (!merged && hindex_next(&idx, h, &it, &item))
			if (same_wait(&v[item - 1], &v[i])) {
				v[item - 1].weight_ns = sat_add(
					v[item - 1].weight_ns, v[i].weight_ns);
				v[item - 1].count = sat_add(v[item - 1].count,
							    v[i].count);
				merged = true;
			}
		if (merged)
			continue;
		v[j] = v[i];
		hindex_put(&idx, h, ++j);
	}
	for (i = 0; i < j; i++)
		put_wait(b, &v[i]);
	hindex_free(&idx);
	free(ids);
	free(v);
}

static void comment(struct builder *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void comment(struct builder *b, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	GROW(b->comments, b->capcomments, b->ncomments + 1);
	b->comments[b->ncomments++] = str(b, buf);
}

/*
 * The "[lost]" samples the summary lists (output/summary.h: each thread's
 * on-CPU loss, its off-CPU loss in the off_cpu column with the state
 * unknown, then the loss no thread claims), so totals stay honest.
 */
static void add_lost(struct builder *b)
{
	size_t i;

	for (i = 0; i < b->s->nlost_entries; i++) {
		const struct lost_entry *e = &b->s->lost_entries[i];
		const struct thread_info *t = e->t;
		PbSample *s;

		if (t)
			s = new_sample(b, t->pid, t->tid,
				       thread__comm_at(t, UINT64_MAX),
				       profile__proc_name(b->p, t->pid,
							  UINT64_MAX),
				       profile__cgroup_at(b->p, t->pid,
							  UINT64_MAX),
				       e->period_ns,
				       e->off_cpu ? UINT32_MAX : 0,
				       e->n.weight_ns, e->n.samples);
		else
			s = new_sample(b, b->p->session.pid, 0, NULL, NULL,
				       NULL, 0, 0, e->n.weight_ns,
				       e->n.samples);
		s->location_id = xmalloc(sizeof(*s->location_id));
		s->location_id[s->n_location_id++] =
			pseudo_location(b, "[lost]");
	}
}

/* Threads by sampled CPU, most first; ties in the summary's order. */
static const struct summary *cmp_threads_s;
static int cmp_thread_weight(const void *a, const void *b)
{
	const struct thread_summary *x =
		&cmp_threads_s->threads[*(const size_t *)a];
	const struct thread_summary *y =
		&cmp_threads_s->threads[*(const size_t *)b];

	if (x->weight_ns != y->weight_ns)
		return x->weight_ns > y->weight_ns ? -1 : 1;
	return *(const size_t *)a < *(const size_t *)b ? -1 : 1;
}

/*
 * Which threads get a comment line: all, or the MAX_THREAD_COMMENTS with
 * the most sampled CPU (go tool pprof prints every comment in its header:
 * 10,000 threads made 10,087 lines).
 */
static bool *threads_to_comment(const struct summary *s)
{
	bool *show = xcalloc(s->nthreads + 1, sizeof(*show));
	size_t *order, i;

	if (s->nthreads <= MAX_THREAD_COMMENTS) {
		for (i = 0; i < s->nthreads; i++)
			show[i] = true;
		return show;
	}
	order = xcalloc(s->nthreads, sizeof(*order));
	for (i = 0; i < s->nthreads; i++)
		order[i] = i;
	cmp_threads_s = s;
	qsort(order, s->nthreads, sizeof(*order), cmp_thread_weight);
	for (i = 0; i < MAX_THREAD_COMMENTS; i++)
		show[order[i]] = true;
	free(order);
	return show;
}

#define MAX_PROC_COMMENTS 64

/* A process tree (TPROF_F_CHILDREN): each process's totals. */
static void add_proc_comments(struct builder *b)
{
	const struct profile *p = b->p;
	char t1[32], t2[32], end[96];
	uint64_t nprocs, ndropped;
	size_t i;

	if (!profile__has_tree(p, &nprocs, &ndropped))
		return;
	comment(b, "tprof: %llu processes, %llu not followed, %llu denied",
		(unsigned long long)nprocs, (unsigned long long)ndropped,
		(unsigned long long)p->procs_denied);
	for (i = 0; i < b->s->nprocs && i < MAX_PROC_COMMENTS; i++) {
		const struct proc_summary *ps = &b->s->procs[i];
		const struct proc_info *pi = ps->pi;
		const char *name = profile__proc_name(p, pi->pid, UINT64_MAX);

		comment(b, "process %d %s parent=%d threads=%llu samples=%llu sampled=%s exact=%s %s",
			pi->pid, *name ? name : "-", pi->ppid,
			(unsigned long long)ps->t.threads,
			(unsigned long long)ps->t.samples,
			fmt_ns(t1, sizeof(t1), ps->t.weight_ns),
			ps->t.exact && ps->t.threads ?
			fmt_ns(t2, sizeof(t2), ps->t.on_cpu_ns) : "?",
			profile__proc_end(p, pi, end, sizeof(end)));
	}
	if (b->s->nprocs > MAX_PROC_COMMENTS)
		comment(b, "tprof: %zu more processes; tprof-read --report lists all",
			b->s->nprocs - MAX_PROC_COMMENTS);
}

/*
 * A thread's off-CPU totals and its time in the session (THREAD_OFF); a
 * window's sampled time alone (THREAD_OFF is cumulative).
 */
static void add_off_comment(struct builder *b,
			    const struct thread_summary *ts)
{
	const struct thread_info *t = ts->t;
	const struct tprof_rec_thread_off *o = &t->off;
	char w[32], s[32], d[32], r[32], q[32], on[32], span[32];
	uint64_t end = o->hdr.time_ns;

	if (b->s->window) {
		comment(b, "tid %d off-CPU samples=%llu sampled=%s", t->tid,
			(unsigned long long)ts->off_samples,
			fmt_ns(w, sizeof(w), ts->off_weight_ns));
		return;
	}
	comment(b, "tid %d off-CPU samples=%llu sampled=%s exact: sleeping=%s uninterruptible=%s runnable=%s irq=%s on-CPU=%s span=%s",
		t->tid, (unsigned long long)ts->off_samples,
		fmt_ns(w, sizeof(w), ts->off_weight_ns),
		fmt_ns(s, sizeof(s), o->sleeping_ns),
		fmt_ns(d, sizeof(d), o->blocked_ns),
		fmt_ns(r, sizeof(r), o->runnable_ns),
		fmt_ns(q, sizeof(q), o->irq_ns),
		t->have_stat ? fmt_ns(on, sizeof(on), t->stat.on_cpu_ns) : "?",
		fmt_ns(span, sizeof(span),
		       end > o->begin_ns ? end - o->begin_ns : 0));
}

/* A window's span, and whether the module ended the session in it. */
static void add_window_comments(struct builder *b)
{
	const struct output_window *w = b->o->window;
	const struct profile *p = b->p;
	uint64_t denied = p->denied_rec.hdr.time_ns;
	char t1[32];

	comment(b, "tprof: window [%llu, %llu) ns CLOCK_MONOTONIC, %s: samples, sampled CPU and lost in it; no exact CPU (the module's totals are cumulative)",
		(unsigned long long)w->t0_ns, (unsigned long long)w->t1_ns,
		fmt_ns(t1, sizeof(t1), w->t1_ns - w->t0_ns));
	if (p->denied && denied >= w->t0_ns && denied < w->t1_ns)
		comment(b, "tprof: the module ended the session in this window: pid %u became non-profilable: %s",
			p->denied_rec.pid,
			tprof_denied_reason(p->denied_rec.reason));
}

static void add_comments(struct builder *b)
{
	const struct profile *p = b->p;
	const struct summary *s = b->s;
	char t1[32], t2[32], t3[32], t4[32];
	bool *show = threads_to_comment(s);
	size_t i;

	comment(b, "tprof: pid %u, default period %s, %llu samples, %llu lost",
		p->session.pid,
		fmt_ns(t1, sizeof(t1), p->session.period_ns ?
		       p->session.period_ns : b->o->default_period_ns),
		(unsigned long long)s->records,
		(unsigned long long)s->lost.samples);
	if (s->window)
		add_window_comments(b);
	else if (p->denied)
		comment(b, "tprof: the module ended the session after %s: pid %u became non-profilable: %s",
			fmt_ns(t1, sizeof(t1), profile__denied_after_ns(p)),
			p->denied_rec.pid,
			tprof_denied_reason(p->denied_rec.reason));
	for (i = 0; i < s->nthreads; i++) {
		const struct thread_summary *ts = &s->threads[i];
		const struct thread_info *t = ts->t;
		uint64_t period = ts->period_ns;
		const char *comm = thread__comm_at(t, UINT64_MAX);

		if (!show[i])
			continue;
		if (ts->exact)
			snprintf(t3, sizeof(t3), "%s",
				 fmt_ns(t4, sizeof(t4), ts->on_cpu_ns));
		else
			snprintf(t3, sizeof(t3), "?");
		comment(b, "tid %d %s period=%s samples=%llu sampled=%s exact=%s lost=%llu",
			t->tid, *comm ? comm : "-",
			period ? fmt_ns(t1, sizeof(t1), period) : "?",
			(unsigned long long)ts->samples,
			fmt_ns(t2, sizeof(t2), ts->weight_ns), t3,
			(unsigned long long)ts->lost.samples);
		if (t->have_off)
			add_off_comment(b, ts);
	}
	if (s->nthreads > MAX_THREAD_COMMENTS)
		comment(b, "tprof: %zu more threads with less sampled CPU; tprof-read --report lists all %zu",
			s->nthreads - MAX_THREAD_COMMENTS, s->nthreads);
	free(show);
	add_proc_comments(b);
}

static PbValueType *value_type(struct builder *b, const char *type,
			       const char *unit)
{
	PbValueType *v = xmalloc(sizeof(*v));

	perftools__profiles__value_type__init(v);
	v->type = str(b, type);
	v->unit = str(b, unit);
	return v;
}

static void free_builder(struct builder *b)
{
	size_t i, j;

	for (i = 0; i < b->nsamples; i++) {
		for (j = 0; j < b->samples[i]->n_label; j++)
			free(b->samples[i]->label[j]);
		free(b->samples[i]->label);
		free(b->samples[i]->value);
		free(b->samples[i]->location_id);
		free(b->samples[i]);
	}
	for (i = 0; i < b->nlocs; i++) {
		for (j = 0; j < b->locs[i]->n_line; j++)
			free(b->locs[i]->line[j]);
		free(b->locs[i]->line);
		free(b->locs[i]);
	}
	for (i = 0; i < b->nfuncs; i++)
		free(b->funcs[i]);
	for (i = 0; i < b->nmaps; i++)
		free(b->maps[i]);
	for (i = 0; i < b->nstrs; i++)
		free(b->strs[i]);
	for (i = 0; i < b->prof.n_sample_type; i++)
		free(b->prof.sample_type[i]);
	free(b->prof.sample_type);
	free(b->prof.period_type);
	free(b->samples);
	free(b->locs);
	free(b->funcs);
	free(b->maps);
	free(b->strs);
	free(b->comments);
	free(b->sbytes);
	free(b->locids);
	free(b->map_ids);
	hindex_free(&b->str_idx);
	hindex_free(&b->func_idx);
	hindex_free(&b->loc_idx);
}

static int cmp_mapping_ptr(const void *a, const void *b)
{
	const PbMapping *x = *(PbMapping *const *)a, *y = *(PbMapping *const *)b;

	return x->id < y->id ? -1 : x->id > y->id;
}

/*
 * mapping[0] should be the main binary: the newest snapshot (after any
 * exec) leads with its binary, then the rest by first use, the kernel
 * last; ids are renumbered in that order.
 */
static void order_mappings(struct builder *b)
{
	const struct profile *p = b->p;
	PbMapping **sorted = xcalloc(b->nmaps + 1, sizeof(*sorted));
	uint64_t *newid = xcalloc(b->nmaps + 1, sizeof(*newid));
	size_t i, k = 0;

	if (p->maps.nsnaps) {
		const struct maps_snapshot *ns =
			&p->maps.snaps[p->maps.nsnaps - 1];

		for (i = 0; i < ns->n; i++) {
			uint32_t id = b->map_ids[ns->idx[i]];

			if (id && !newid[id]) {
				newid[id] = 1;
				sorted[k++] = b->maps[id - 1];
			}
		}
	}
	for (i = 0; i < p->maps.nall; i++)
		if (b->map_ids[i] && !newid[b->map_ids[i]])
			sorted[k++] = b->maps[b->map_ids[i] - 1];
	if (b->kernel_map)
		sorted[k++] = b->maps[b->kernel_map - 1];
	for (i = 0; i < k; i++)
		newid[sorted[i]->id] = i + 1;
	for (i = 0; i < b->nlocs; i++)
		if (b->locs[i]->mapping_id)
			b->locs[i]->mapping_id = newid[b->locs[i]->mapping_id];
	for (i = 0; i < k; i++)
		sorted[i]->id = i + 1;
	qsort(sorted, k, sizeof(*sorted), cmp_mapping_ptr);
	if (k)
		memcpy(b->maps, sorted, k * sizeof(*sorted));
	free(sorted);
	free(newid);
}

int pprof__encode(const struct profile *p, const struct resolved *r,
		  const struct pprof_opts *o, uint8_t **out, size_t *outlen)
{
	struct builder b = { .p = p, .r = r, .o = o, .s = o->summary };
	PbProfile *pr = &b.prof;
	uint64_t start_mono, end_mono;
	struct summary own;
	size_t i, len;

	if (!b.s) {
		summary__compute(&own, p, &p->whole);
		b.s = &own;
	}
	perftools__profiles__profile__init(pr);
	str(&b, "");	/* string_table[0] must be "" */
	b.map_ids = xcalloc(p->maps.nall + 1, sizeof(*b.map_ids));

	b.nval = !o->wakers && ((p->session.flags & TPROF_F_OFF_CPU) ||
				b.s->off_samples) ? 3 : 2;
	pr->n_sample_type = b.nval;
	pr->sample_type = xmalloc(b.nval * sizeof(*pr->sample_type));
	/*
	 * cpu first: Go PGO weights by the first cpu or samples column, and
	 * off-CPU samples have 0 there (a wait is not a hot edge).
	 */
	pr->sample_type[0] = value_type(&b, o->wakers ? "wait" : "cpu",
					"nanoseconds");
	if (b.nval == 3)
		pr->sample_type[1] = value_type(&b, "off_cpu", "nanoseconds");
	pr->sample_type[b.nval - 1] = value_type(&b, "samples", "count");
	pr->default_sample_type = str(&b, o->wakers ? "wait" : "cpu");
	pr->period_type = value_type(&b, o->wakers ? "wait" : "cpu",
				     "nanoseconds");
	pr->period = p->session.period_ns ? p->session.period_ns :
					    o->default_period_ns;

	add_locations(&b);
	if (o->wakers) {
		/* the waits' time by waker: no CPU, no loss of CPU */
		add_waits(&b);
	} else {
		for (i = 0; i < r->nsamples; i++)
			put_sample(&b, &r->samples[i]);
		add_lost(&b);
	}
	add_comments(&b);

	order_mappings(&b);

	if (o->window) {
		pr->time_nanos = clamp_i64(&b, o->window->realtime_ns);
		pr->duration_nanos = clamp_i64(&b, o->window->t1_ns -
						   o->window->t0_ns);
	} else {
		if (p->have_session)
			pr->time_nanos = p->session.realtime_ns;
		start_mono = p->have_session && p->session.hdr.time_ns ?
			     p->session.hdr.time_ns : p->first_time_ns;
		end_mono = p->end_time_ns > p->last_time_ns ?
			   p->end_time_ns : p->last_time_ns;
		if (start_mono != UINT64_MAX && end_mono > start_mono)
			pr->duration_nanos = clamp_i64(&b, end_mono -
							   start_mono);
	}
	pr->period = clamp_i64(&b, pr->period);
	if (b.clamped)
		pr_err("warning: %llu values of the profile past 2^63-1 (bogus weights or times in the stream) written as 2^63-1",
		       (unsigned long long)b.clamped);

	pr->n_sample = b.nsamples;
	pr->sample = b.samples;
	pr->n_mapping = b.nmaps;
	pr->mapping = b.maps;
	pr->n_location = b.nlocs;
	pr->location = b.locs;
	pr->n_function = b.nfuncs;
	pr->function = b.funcs;
	pr->n_string_table = b.nstrs;
	pr->string_table = b.strs;
	pr->n_comment = b.ncomments;
	pr->comment = b.comments;

	/* the samples packed so far, then the rest: no copy of either */
	len = perftools__profiles__profile__get_packed_size(pr);
	*out = xrealloc(b.sbytes, b.slen + len + 1);
	*outlen = b.slen + perftools__profiles__profile__pack(pr, *out + b.slen);
	b.sbytes = NULL;
	free_builder(&b);
	if (b.s == &own)
		summary__free(&own);
	return 0;
}

static int encode_format(const struct output_ctx *c, uint8_t **out,
			 size_t *outlen)
{
	struct pprof_opts o = { .default_period_ns = c->default_period_ns,
				.summary = c->s, .window = c->window,
				.wakers = c->value && !strcmp(c->value, "wakers") };

	return pprof__encode(c->p, c->r, &o, out, outlen);
}

/* "pprof:wakers": --mode wakers' profile */
static const char *const pprof_values[] = { "default", "wakers", NULL };

const struct output_format pprof_format = {
	.name = "pprof",
	.values = pprof_values,
	.gzip = true,
	.encode = encode_format,
};
