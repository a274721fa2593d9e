// SPDX-License-Identifier: GPL-2.0
/* tprof-read: CPython in the stream: its PYPROC and PYCODE records kept per
 * process, the merged frames interned (model/pyrecords.h). */
#include <stdlib.h>
#include <string.h>

#include "model/pyrecords.h"

void python__init(struct python *py)
{
	memset(py, 0, sizeof(*py));
}

void python__free(struct python *py)
{
	size_t i;

	if (!py)
		return;
	for (i = 0; i < py->nprocs; i++)
		free(py->procs[i].ranges);
	for (i = 0; i < py->nfuncs; i++) {
		free(py->funcs[i].qualname);
		free(py->funcs[i].filename);
	}
	for (i = 0; i < py->ncodes; i++)
		free(py->codes[i].linetable);
	free(py->procs);
	free(py->funcs);
	free(py->codes);
	free(py->frames);
	free(py->free_frames);
	hindex_free(&py->proc_idx);
	hindex_free(&py->func_idx);
	hindex_free(&py->code_idx);
	hindex_free(&py->frame_idx);
	memset(py, 0, sizeof(*py));
}

static uint64_t pid_hash(int pid)
{
	return hash_u64((uint32_t)pid ^ 0x7079ULL << 32);
}

static struct py_proc *find_proc(const struct python *py, int pid)
{
	struct hiter it = { 0 };
	uint32_t item;

	while (hindex_next(&py->proc_idx, pid_hash(pid), &it, &item))
		if (py->procs[item - 1].pid == pid)
			return &py->procs[item - 1];
	return NULL;
}

void python__add_proc(struct python *py, const struct tprof_record *r)
{
	int pid = (int)r->u.pyproc.pid;
	struct py_proc *pp = find_proc(py, pid);
	unsigned int i, n = r->u.pyproc.nr_ranges;

	if (!pp) {
		GROW(py->procs, py->capprocs, py->nprocs + 1);
		pp = &py->procs[py->nprocs++];
		pp->pid = pid;
		hindex_put(&py->proc_idx, pid_hash(pid), py->nprocs);
	}
	free(pp->ranges);
	pp->valid = true;
	pp->time_ns = r->hdr.time_ns;
	pp->d = r->u.pyproc;
	pp->ranges = xmalloc((size_t)n * 2 * sizeof(*pp->ranges) + 1);
	for (i = 0; i < 2 * n; i++)
		pp->ranges[i] = tprof_record_word(r, i);
}

/*
 * The exec's new program has new memory and no walk (the module drops it):
 * its interpreter, if any, comes in a PYPROC record written after the
 * exec, whichever of the two records the stream has first.
 */
void python__exec(struct python *py, int pid, uint64_t time_ns)
{
	struct py_proc *pp = find_proc(py, pid);

	if (pp && pp->time_ns < time_ns)
		pp->valid = false;
}

const struct py_proc *python__proc(const struct python *py, int pid)
{
	const struct py_proc *pp = find_proc(py, pid);

	return pp && pp->valid ? pp : NULL;
}

/* The function (qualname, filename, first_line), interned: 1-based. */
static uint32_t func_index(struct python *py, const char *q, size_t qlen,
			   const char *f, size_t flen, uint32_t first_line)
{
	uint64_t h = hash_bytes(q, qlen, hash_bytes(f, flen, first_line));
	struct hiter it = { 0 };
	struct py_func *fn;
	uint32_t item;

	while (hindex_next(&py->func_idx, h, &it, &item)) {
		fn = &py->funcs[item - 1];
		if (fn->first_line == first_line &&
		    strlen(fn->qualname) == qlen &&
		    !memcmp(fn->qualname, q, qlen) &&
		    strlen(fn->filename) == flen &&
		    !memcmp(fn->filename, f, flen))
			return item;
	}
	GROW(py->funcs, py->capfuncs, py->nfuncs + 1);
	fn = &py->funcs[py->nfuncs++];
	/* a NUL inside stops the name there, as C strings do */
	fn->qualname = xstrndup(q, qlen);
	fn->filename = xstrndup(f, flen);
	fn->first_line = first_line;
	hindex_put(&py->func_idx, h, py->nfuncs);
	return py->nfuncs;
}

static uint64_t code_hash(int pid, uint64_t addr, uint64_t check)
{
	return hash_u64(addr ^ hash_u64(check ^ pid_hash(pid)));
}

static struct py_code *first_code(const struct python *py, int pid,
				  uint64_t addr, uint64_t check)
{
	struct hiter it = { 0 };
	struct py_code *c;
	uint32_t item;

	while (hindex_next(&py->code_idx, code_hash(pid, addr, check), &it,
			   &item)) {
		c = &py->codes[item - 1];
		if (c->pid == pid && c->addr == addr && c->check == check)
			return c;
	}
	return NULL;
}

void python__add_code(struct python *py, const struct tprof_record *r)
{
	const struct tprof_urec_pycode *rc = &r->u.pycode;
	int pid = (int)rc->pid;
	struct py_code *c, *first = first_code(py, pid, rc->addr, rc->check);
	uint32_t fi = 0;

	if (!(rc->flags & TPROF_PYCODE_F_STALE))
		fi = func_index(py, r->text, rc->qualname_len,
				r->text + rc->qualname_len, rc->filename_len,
				rc->first_line);
	GROW(py->codes, py->capcodes, py->ncodes + 1);
	c = &py->codes[py->ncodes++];
	c->pid = pid;
	c->addr = rc->addr;
	c->check = rc->check;
	c->time_ns = r->hdr.time_ns;
	c->stale = !fi;
	c->func = fi;
	if (fi && rc->linetable_len) {
		c->linetable = xmalloc(rc->linetable_len);
		memcpy(c->linetable, r->linetable, rc->linetable_len);
		c->linetable_len = rc->linetable_len;
	}
	if (!first) {
		hindex_put(&py->code_idx, code_hash(pid, c->addr, c->check),
			   py->ncodes);
		return;
	}
	/* first may have moved with the array: find the chain's end again */
	first = first_code(py, pid, c->addr, c->check);
	while (first->next)
		first = &py->codes[first->next - 1];
	first->next = py->ncodes;
}

const struct py_code *python__code(const struct python *py, int pid,
				   uint64_t addr, uint64_t check)
{
	return first_code(py, pid, addr, check);
}

const struct py_code *python__code_next(const struct python *py,
					const struct py_code *c)
{
	return c->next ? &py->codes[c->next - 1] : NULL;
}

uint64_t python__frame(struct python *py, int pid, uint64_t code,
		       uint64_t check, int64_t off)
{
	uint64_t h = hash_u64((uint64_t)off ^ hash_u64(code ^ hash_u64(check ^
							       pid_hash(pid))));
	struct hiter it = { 0 };
	struct py_frame *f;
	uint32_t item;

	while (hindex_next(&py->frame_idx, h, &it, &item)) {
		f = &py->frames[item - 1];
		if (f->pid == pid && f->code == code && f->check == check &&
		    f->off == off)
			return PY_FRAME_TAG | (item - 1);
	}
	if (py->nfree_frames) {
		item = py->free_frames[--py->nfree_frames] + 1;
	} else {
		GROW(py->frames, py->capframes, py->nframes + 1);
		item = ++py->nframes;
	}
	f = &py->frames[item - 1];
	f->pid = pid;
	f->code = code;
	f->check = check;
	f->off = off;
	hindex_put(&py->frame_idx, h, item);
	return PY_FRAME_TAG | (item - 1);
}

uint64_t python__cut_frame(struct python *py, int pid)
{
	if (!py->cut_func)
		py->cut_func = func_index(py, "[truncated]", 11, "", 0, 0);
	return python__frame(py, pid, 0, 0, 0);
}

const struct py_frame *python__frame_of(const struct python *py,
					uint64_t ip)
{
	uint64_t i = ip & ~PY_FRAME_MASK;

	return py_frame_ip(ip) && i < py->nframes ? &py->frames[i] : NULL;
}

static uint64_t frame_hash(const struct py_frame *f)
{
	return hash_u64((uint64_t)f->off ^ hash_u64(f->code ^
			hash_u64(f->check ^ pid_hash(f->pid))));
}

size_t python__forget(struct python *py, bool (*gone)(void *ctx, int pid),
		      void *ctx)
{
	size_t i, n, dropped;
	uint32_t *newpos;

	for (i = n = 0; i < py->nprocs; i++) {
		if (gone(ctx, py->procs[i].pid))
			free(py->procs[i].ranges);
		else
			py->procs[n++] = py->procs[i];
	}
	if (n != py->nprocs) {
		/* a slot past the end is taken as new (GROW's zeroes) */
		memset(py->procs + n, 0, (py->nprocs - n) * sizeof(*py->procs));
		py->nprocs = n;
		hindex_free(&py->proc_idx);
		for (i = 0; i < n; i++)
			hindex_put(&py->proc_idx, pid_hash(py->procs[i].pid),
				   i + 1);
	}
	/* codes: compacted in order, their chains renumbered */
	newpos = xmalloc((py->ncodes + 1) * sizeof(*newpos));
	for (i = n = 0; i < py->ncodes; i++) {
		if (gone(ctx, py->codes[i].pid)) {
			free(py->codes[i].linetable);
			newpos[i] = 0;
			continue;
		}
		newpos[i] = n + 1;
		py->codes[n++] = py->codes[i];
	}
	dropped = py->ncodes - n;
	if (dropped) {
		memset(py->codes + n, 0, dropped * sizeof(*py->codes));
		py->ncodes = n;
		hindex_free(&py->code_idx);
		for (i = 0; i < n; i++) {
			struct py_code *c = &py->codes[i];

			/* a chain is one pid's: all of it stays or goes */
			c->next = c->next ? newpos[c->next - 1] : 0;
		}
		for (i = 0; i < n; i++) {
			struct py_code *c = &py->codes[i];

			if (!first_code(py, c->pid, c->addr, c->check))
				hindex_put(&py->code_idx,
					   code_hash(c->pid, c->addr, c->check),
					   i + 1);
		}
	}
	free(newpos);
	/* frames: slots freed, the index rebuilt from the rest */
	for (i = n = 0; i < py->nframes; i++) {
		struct py_frame *f = &py->frames[i];

		if (f->pid == -1 || !gone(ctx, f->pid))
			continue;
		f->pid = -1;
		GROW(py->free_frames, py->capfree_frames, py->nfree_frames + 1);
		py->free_frames[py->nfree_frames++] = (uint32_t)i;
		n++;
	}
	if (n) {
		hindex_free(&py->frame_idx);
		for (i = 0; i < py->nframes; i++)
			if (py->frames[i].pid != -1)
				hindex_put(&py->frame_idx,
					   frame_hash(&py->frames[i]), i + 1);
	}
	return dropped;
}
