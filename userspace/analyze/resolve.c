// SPDX-License-Identifier: GPL-2.0
/* tprof-read: the resolve pass: frames to (mapping, address) at each
 * sample's own time, then merge samples that resolve alike. */
#include <stdlib.h>
#include <string.h>

#include "analyze/pyframes.h"
#include "analyze/resolve.h"
#include "object/ksyms.h"

static uint32_t loc_index(struct resolved *r, enum rloc_kind kind,
			  uint32_t map, uint64_t addr, const char *pseudo)
{
	uint64_t h = hash_u64(addr ^ hash_u64(((uint64_t)map << 2) | kind));
	struct hiter it = { 0 };
	struct rloc *l;
	uint32_t item;

	if (pseudo)
		h ^= hash_bytes(pseudo, strlen(pseudo), 7);
	while (hindex_next(&r->loc_idx, h, &it, &item)) {
		l = &r->locs[item - 1];
		if (l->kind == kind && l->map == map && l->addr == addr &&
		    (!pseudo || !strcmp(l->pseudo, pseudo)))
			return item - 1;
	}
	GROW(r->locs, r->caplocs, r->nlocs + 1);
	l = &r->locs[r->nlocs++];
	memset(l, 0, sizeof(*l));
	l->kind = kind;
	l->map = map;
	l->addr = addr;
	l->pseudo = pseudo;
	hindex_put(&r->loc_idx, h, r->nlocs);
	if (kind == RLOC_USER && map)
		r->maps[map - 1].used = true;
	if (kind == RLOC_KERNEL)
		r->kernel_used = true;
	return r->nlocs - 1;
}

static void add_rsample(struct resolved *r, const struct agg_sample *a,
			const char *comm, const char *pcomm,
			const struct cgroup_change *cg,
			const uint32_t *locs, uint32_t n)
{
	uint64_t h = hash_bytes(locs, (size_t)n * sizeof(*locs),
				hash_u64(((uint64_t)(uint32_t)a->tid << 32) ^
					 (uint32_t)a->pid) ^
				hash_u64(a->period_ns ^
					 (uint64_t)a->off_state << 60) ^
				hash_bytes(comm, strlen(comm), 3) ^
				hash_bytes(pcomm, strlen(pcomm), 5) ^
				hash_u64((uintptr_t)cg) ^
				hash_bytes(&a->waker, sizeof(a->waker), 11)) ^
		     (a->wake_id ? hash_u64(a->wake_id) : 0);
	struct hiter it = { 0 };
	struct rsample *s;
	uint32_t item;

	/* a waker's stack: its own, found by its wait's id */
	if (a->wake_stack) {
		GROW(r->wakes, r->capwakes, r->nwakes + 1);
		s = &r->wakes[r->nwakes++];
		memset(s, 0, sizeof(*s));
		hindex_put(&r->wake_idx, hash_u64(a->wake_id), r->nwakes);
		goto fill;
	}
	while (hindex_next(&r->sample_idx, h, &it, &item)) {
		s = &r->samples[item - 1];
		if (s->tid == a->tid && s->pid == a->pid &&
		    s->period_ns == a->period_ns &&
		    s->off_state == a->off_state && s->nlocs == n &&
		    !memcmp(&s->waker, &a->waker, sizeof(a->waker)) &&
		    s->wake_id == a->wake_id && !strcmp(s->comm, comm) &&
		    !strcmp(s->pcomm, pcomm) &&
		    s->cgroup == cg &&
		    !memcmp(s->locs, locs, (size_t)n * sizeof(*locs)))
			goto found;
	}
	GROW(r->samples, r->capsamples, r->nsamples + 1);
	s = &r->samples[r->nsamples++];
	memset(s, 0, sizeof(*s));
	hindex_put(&r->sample_idx, h, r->nsamples);
fill:
	s->wake_id = a->wake_id;
	s->pid = a->pid;
	s->tid = a->tid;
	s->period_ns = a->period_ns;
	s->off_state = a->off_state;
	s->waker = a->waker;
	s->comm = comm;
	s->pcomm = pcomm;
	s->cgroup = cg;
	s->nlocs = n;
	s->locs = xmalloc((size_t)n * sizeof(*locs) + 1);
	memcpy(s->locs, locs, (size_t)n * sizeof(*locs));
found:
	s->weight_ns = sat_add(s->weight_ns, a->weight_ns);
	s->count = sat_add(s->count, a->count);
}

/* A merged Python frame's location, named from the stream. */
static uint32_t python_loc(struct resolved *r, const struct profile *p,
			   struct pyframes *pf, const struct agg_sample *a,
			   uint64_t ip)
{
	uint32_t func, i;
	int32_t line;
	struct rloc *l;

	pyframes__frame(pf, a, ip, &func, &line);
	i = loc_index(r, RLOC_PYTHON, func, (uint64_t)line, NULL);
	l = &r->locs[i];
	if (!l->nlines) {
		const struct py_func *fn = func ? &p->py.funcs[func - 1] : NULL;

		l->lines = xcalloc(1, sizeof(*l->lines));
		l->nlines = 1;
		l->lines->name = fn ? fn->qualname : PY_UNKNOWN_CODE;
		l->lines->system_name = l->lines->name;
		l->lines->file = fn ? fn->filename : "";
		l->lines->line = line;
		l->lines->start_line = fn ? (int)fn->first_line : 0;
	}
	return i;
}

/* The next Python frame of a merged stack from i on, else a->nr. */
static uint32_t next_python(const struct agg_sample *a, uint32_t i)
{
	while (a->python && i < a->nr && !py_frame_ip(a->ips[i]))
		i++;
	return a->python ? i : a->nr;
}

/*
 * TPROF_RF_KERNEL_LR: is ips[1], the interrupted link register, the caller
 * of the function at the pc? Not where it points into that function (the
 * return from a call it made), is the frame records' first return address
 * (the function saved it: the records have it), or is no kernel text;
 * without the kernel's symbols it cannot be told, and is not kept.
 */
static bool keep_kernel_lr(const struct ksyms *k, const struct agg_sample *a)
{
	uint64_t pc = a->ips[0], lr = a->ips[1];

	if (!lr || (a->nr_kernel > 2 && lr == a->ips[2]))
		return false;
	return ksyms__same(k, pc, lr - 1) == 0;
}

static void resolve_sample(struct resolved *r, const struct profile *p,
			   struct pyframes *pf, const struct ksyms *k,
			   const struct agg_sample *a, uint32_t *locs)
{
	const struct thread_info *t = profile__find_thread(p, a->tid);
	/* snapshots before the process's last exec show another program */
	uint64_t since = profile__exec_before(p, a->pid, a->first_time_ns);
	const struct maps *m = &p->maps;
	bool drop_lr = a->kernel_lr && !keep_kernel_lr(k, a);
	uint32_t i, n = 0;

	for (i = 0; i < a->nr; i++) {
		bool kernel = i < a->nr_kernel;
		/* ips[0] and ips[nr_kernel] are pcs; the rest return addrs */
		bool leaf = i == 0 || i == a->nr_kernel;
		uint64_t ip = a->ips[i];
		struct mapping *mp;

		if ((a->abi == TPROF_ABI_IA32 || a->abi == TPROF_ABI_ARM32) &&
		    !kernel)
			ip &= 0xffffffffULL;
		if (!ip || (drop_lr && i == 1))
			continue;
		if (kernel) {
			locs[n++] = loc_index(r, RLOC_KERNEL, 0,
					      leaf ? ip : ip - 1, NULL);
			continue;
		}
		if (a->python && py_frame_ip(ip)) {
			locs[n++] = python_loc(r, p, pf, a, ip);
			continue;
		}
		mp = maps__find_since(m, a->pid, leaf ? ip : ip - 1,
				      a->first_time_ns,
				      since);
		/*
		 * A frame-pointer walk through code built without frame
		 * pointers yields stack or data words: a return address that
		 * no snapshot maps as code ends the trustworthy part. The
		 * Python frames the walk had past it are the callers that
		 * part lost (pymerge.c put them under the native stack).
		 */
		if (!leaf && m->nsnaps && !mp) {
			i = next_python(a, i);
			if (i < a->nr) {
				i--;
				continue;
			}
			locs[n++] = loc_index(r, RLOC_PSEUDO, 0, 0,
					      "[unknown]");
			break;
		}
		locs[n++] = loc_index(r, RLOC_USER,
				      mp ? (uint32_t)(mp - m->all) + 1 : 0,
				      leaf ? ip : ip - 1, NULL);
	}
	/* the unwinder knows the stack goes on: say so at its root */
	if (a->truncated && (!n || r->locs[locs[n - 1]].kind != RLOC_PSEUDO))
		locs[n++] = loc_index(r, RLOC_PSEUDO, 0, 0, "[truncated]");
	/* the exit path (kernel frames, when allowed, above it): the user
	 * stack went with the mm, or with the thread's share of it */
	if (a->exiting && a->nr == a->nr_kernel)
		locs[n++] = loc_index(r, RLOC_PSEUDO, 0, 0,
				      a->thread_exit ? "[thread exit]" :
						       "[process exit]");
	if (!n)	/* no frames, and not said why */
		locs[n++] = loc_index(r, RLOC_PSEUDO, 0, 0, "[no stack]");
	add_rsample(r, a, t ? thread__comm_at(t, a->first_time_ns) : "",
		    profile__proc_name(p, a->pid, a->first_time_ns),
		    profile__cgroup_at(p, a->pid, a->first_time_ns), locs, n);
}

void resolve__run(struct resolved *r, const struct profile *p,
		  struct agg_sample *samples, size_t n,
		  const struct ksyms *ksyms)
{
	struct pyframes *pf;
	uint32_t *locs = NULL;
	size_t cap = 0, i;

	memset(r, 0, sizeof(*r));
	pf = pyframes__new(p);
	r->nmaps = p->maps.nall;
	r->maps = xcalloc(r->nmaps + 1, sizeof(*r->maps));
	for (i = 0; i < n; i++) {
		GROW(locs, cap, (size_t)samples[i].nr + 2);
		resolve_sample(r, p, pf, ksyms, &samples[i], locs);
		/* made locations: its stack is not needed any more */
		free(samples[i].ips);
		samples[i].ips = NULL;
	}
	agg__free_samples(samples, n);
	pyframes__free(pf);
	free(locs);
}

const char *resolve__strdup(struct resolved *r, const char *str)
{
	GROW(r->strs, r->capstrs, r->nstrs + 1);
	r->strs[r->nstrs] = xstrdup(str);
	return r->strs[r->nstrs++];
}

void resolve__free(struct resolved *r)
{
	size_t i;

	if (!r)
		return;
	for (i = 0; i < r->nlocs; i++)
		free(r->locs[i].lines);
	for (i = 0; i < r->nsamples; i++)
		free(r->samples[i].locs);
	for (i = 0; i < r->nwakes; i++)
		free(r->wakes[i].locs);
	for (i = 0; i < r->nstrs; i++)
		free(r->strs[i]);
	free(r->locs);
	free(r->samples);
	free(r->wakes);
	hindex_free(&r->wake_idx);
	free(r->maps);
	free(r->strs);
	hindex_free(&r->loc_idx);
	hindex_free(&r->sample_idx);
	memset(r, 0, sizeof(*r));
}

const struct rsample *resolve__wake(const struct resolved *r, uint64_t id)
{
	struct hiter it = { 0 };
	uint32_t item;

	while (id && hindex_next(&r->wake_idx, hash_u64(id), &it, &item))
		if (r->wakes[item - 1].wake_id == id)
			return &r->wakes[item - 1];
	return NULL;
}
