// SPDX-License-Identifier: GPL-2.0
/* tprof-read: the symbolize pass: names for resolved locations, from the
 * target's own files, build-id checked. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/symbolize.h"
#include "lib/util.h"

static void set_lines(struct rloc *l, const struct sym_frame *fr, int n)
{
	l->lines = xmalloc((size_t)n * sizeof(*fr));
	memcpy(l->lines, fr, (size_t)n * sizeof(*fr));
	l->nlines = n;
}

static void name_user(struct resolved *r, const struct profile *p,
		      const struct symbolize_opts *o, struct object **objs,
		      struct rloc *l)
{
	struct sym_frame fr[SYM_MAX_INLINE];
	struct mapping *m = &p->maps.all[l->map - 1];
	struct rmap *rm = &r->maps[l->map - 1];
	const char *base;
	int n;

	if (!rm->loaded)
		return;
	n = symbolizer__lookup_object(o->sym, objs[l->map - 1], m->start,
				      m->offset, l->addr, fr, SYM_MAX_INLINE);
	if (n > 0) {
		set_lines(l, fr, n);
		return;
	}
	/* no symbol covers it (e.g. a vDSO-internal helper): say which
	 * object, as perf does */
	memset(&fr[0], 0, sizeof(fr[0]));
	base = strrchr(m->path, '/');
	if (m->path[0] == '[') {
		fr[0].name = resolve__strdup(r, m->path);
	} else {
		char name[256];

		snprintf(name, sizeof(name), "[%s]", base ? base + 1 : m->path);
		fr[0].name = resolve__strdup(r, name);
	}
	fr[0].system_name = fr[0].name;
	fr[0].file = "";
	set_lines(l, fr, 1);
}

static void name_kernel(struct resolved *r, const struct symbolize_opts *o,
			struct rloc *l)
{
	const char *mod = "", *name = ksyms__lookup(o->ksyms, l->addr, &mod);
	struct sym_frame fr = { .file = "" };
	char file[160];

	if (!name)
		return;
	fr.name = fr.system_name = name;
	if (*mod) {
		snprintf(file, sizeof(file), "[%s]", mod);
		fr.file = resolve__strdup(r, file);
	}
	set_lines(l, &fr, 1);
}

/*
 * JIT code (anonymous executable memory): its name from the target's perf
 * map (PERFMAP records), as perf names it. false: not JIT, or no entry.
 */
static bool name_jit(struct resolved *r, const struct profile *p,
		     struct rloc *l)
{
	const struct mapping *m = &p->maps.all[l->map - 1];
	const struct perfmap_entry *e;
	struct sym_frame fr = { .file = "" };

	if (!perfmap__jit_path(m->path) ||
	    !(e = perfmap__lookup(&p->jit, m->pid, l->addr)))
		return false;
	fr.name = fr.system_name = e->name;
	set_lines(l, &fr, 1);
	r->maps[l->map - 1].has_functions = true;
	return true;
}

/*
 * --no-symbolize, no build-id recorded (an older stream): the build-id of
 * the file symbolizing would have used, so that pprof, Parca or debuginfod
 * can find the right file later: a profile written without names must
 * still say which build it came from.
 */
static void read_buildid(struct resolved *r, const struct symbolize_opts *o,
			 const struct mapping *m, struct rmap *rm)
{
	struct object *obj;

	if (m->path[0] != '/')
		return;
	obj = objects__get(o->objs, m, &o->view);
	if (obj && obj->info.loaded)
		rm->build_id = resolve__strdup(r, obj->build_id);
}

/* Which file each used mapping is symbolized from, and its flags. */
static void open_maps(struct resolved *r, const struct profile *p,
		      const struct symbolize_opts *o, struct object **objs)
{
	size_t i, j;

	for (i = 0; i < r->nmaps; i++) {
		struct mapping *m = &p->maps.all[i];
		struct rmap *rm = &r->maps[i];
		const struct sym_file_info *fi;
		bool warned = false;

		if (!rm->used)
			continue;
		rm->build_id = m->build_id ? m->build_id : "";
		if (!o->sym && !m->build_id)
			read_buildid(r, o, m, rm);
		if (!o->sym || !(objs[i] = objects__get(o->objs, m, &o->view)))
			continue;
		fi = symbolizer__object(o->sym, objs[i]);
		if (!fi->loaded) {
			/* one line per file, not per mapping of it */
			for (j = 0; j < i && !warned; j++)
				warned = r->maps[j].used &&
					 p->maps.all[j].build_id == m->build_id &&
					 !strcmp(p->maps.all[j].path, m->path);
			if (m->build_id && *fi->mismatch && !warned)
				pr_err("warning: %s: build-id %s, not the profiled %s (rebuilt or replaced since?): its frames are left unsymbolized",
				       m->path, fi->mismatch,
				       *m->build_id ? m->build_id : "(none)");
			continue;
		}
		rm->loaded = true;
		if (!m->build_id)
			rm->build_id = fi->build_id;
		rm->has_functions = fi->has_symtab || fi->has_dwarf;
		rm->has_filenames = fi->has_dwarf;
		rm->has_line_numbers = fi->has_dwarf;
		rm->has_inline_frames = fi->has_dwarf;
	}
}

/*
 * A clone wrapper's own name at l: glibc's x86-64 __clone3 and __clone
 * (and the bare names some libcs export).
 */
static bool thread_entry(const struct rloc *l)
{
	static const char *const names[] = { "__clone3", "__clone", "clone3",
					     "clone" };
	const char *name;
	size_t i;

	if (l->kind != RLOC_USER || !l->nlines)
		return false;
	name = l->lines[l->nlines - 1].name;
	for (i = 0; name && i < ARRAY_SIZE(names); i++)
		if (!strcmp(name, names[i]))
			return true;
	return false;
}

/*
 * A new thread sampled at its first instruction, the clone wrapper's
 * return from the syscall, on a stack that holds nothing yet. The wrapper's
 * CFI there is the parent's (a return address at the stack pointer), so the
 * unwinder took the word past the new stack's top (glibc's thread
 * descriptor) for one: "[unknown]" above the wrapper. One instruction on,
 * the wrapper says that nothing called it (cfi_undefined rip): the stack
 * ends at the wrapper. The parent's own return from the wrapper has a
 * caller, never "[unknown]".
 */
static void end_at_thread_entry(struct resolved *r)
{
	size_t i;

	for (i = 0; i < r->nsamples; i++) {
		struct rsample *s = &r->samples[i];
		const struct rloc *root;

		if (s->nlocs < 2)
			continue;
		root = &r->locs[s->locs[s->nlocs - 1]];
		if (root->kind == RLOC_PSEUDO && !strcmp(root->pseudo, "[unknown]") &&
		    thread_entry(&r->locs[s->locs[s->nlocs - 2]]))
			s->nlocs--;
	}
}

void symbolize__run(struct resolved *r, const struct profile *p,
		    const struct symbolize_opts *o)
{
	struct object **objs = xcalloc(r->nmaps ? r->nmaps : 1, sizeof(*objs));
	size_t i;

	open_maps(r, p, o, objs);
	r->kernel_named = o->ksyms != NULL;
	for (i = 0; i < r->nlocs; i++) {
		struct rloc *l = &r->locs[i];

		if (l->kind == RLOC_KERNEL && o->ksyms)
			name_kernel(r, o, l);
		else if (l->kind == RLOC_USER && l->map && o->sym &&
			 !name_jit(r, p, l))
			name_user(r, p, o, objs, l);
	}
	free(objs);
	end_at_thread_entry(r);
}
