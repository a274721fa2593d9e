// SPDX-License-Identifier: GPL-2.0
/* tprof-read: JIT symbol maps (/tmp/perf-PID.map): parse, look up. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "model/perfmap.h"
#include "lib/util.h"

void perfmap__init(struct perfmap *pm)
{
	memset(pm, 0, sizeof(*pm));
}

void perfmap__free(struct perfmap *pm)
{
	size_t i;

	if (!pm)
		return;
	for (i = 0; i < pm->n; i++)
		free(pm->e[i].name);
	free(pm->e);
	free(pm->bystart);
	free(pm->maxend);
	perfmap__init(pm);
}

/* A hex field, "0x" allowed (writers differ); advances *s. */
static bool hex_field(const char **s, const char *end, uint64_t *v)
{
	const char *p = *s;
	int digits = 0;

	if (end - p > 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
		p += 2;
	for (*v = 0; p < end && isxdigit((unsigned char)*p); p++, digits++) {
		if (digits == 16)
			return false;
		*v = *v << 4 | (uint64_t)(isdigit((unsigned char)*p) ?
					  *p - '0' : (*p | 0x20) - 'a' + 10);
	}
	if (!digits || p == end || *p != ' ')
		return false;
	*s = p + 1;
	return true;
}

static void build_index(struct perfmap *pm);

void perfmap__add_text(struct perfmap *pm, int pid, const char *text,
		       size_t len)
{
	const char *s = text, *end = text + len;

	while (s < end) {
		const char *eol = memchr(s, '\n', end - s), *p = s;
		uint64_t start, size;

		if (!eol)
			eol = end;
		/* the name is the rest of the line: it may hold spaces */
		if (hex_field(&p, eol, &start) && hex_field(&p, eol, &size) &&
		    size && start + size > start && p < eol) {
			GROW(pm->e, pm->cap, pm->n + 1);
			pm->e[pm->n] = (struct perfmap_entry){
				.start = start, .end = start + size,
				.seq = (uint32_t)(pm->n + pm->forgotten),
				.pid = pid,
				.name = xstrndup(p, eol - p),
			};
			pm->n++;
		} else if (eol > s) {
			pm->bad_lines++;
		}
		s = eol + 1;
	}
	if (pm->sealed && pm->nindexed != pm->n)
		build_index(pm);
}

bool perfmap__has(const struct perfmap *pm, int pid)
{
	size_t i;

	for (i = 0; i < pm->n; i++)
		if (pm->e[i].pid == pid)
			return true;
	return false;
}

static const struct perfmap *cmp_pm;
static int cmp_start(const void *a, const void *b)
{
	const struct perfmap_entry *x = &cmp_pm->e[*(const uint32_t *)a];
	const struct perfmap_entry *y = &cmp_pm->e[*(const uint32_t *)b];

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static void build_index(struct perfmap *pm)
{
	size_t i;

	pm->bystart = xrealloc(pm->bystart, (pm->n + 1) * sizeof(*pm->bystart));
	pm->maxend = xrealloc(pm->maxend, (pm->n + 1) * sizeof(*pm->maxend));
	for (i = 0; i < pm->n; i++)
		pm->bystart[i] = i;
	cmp_pm = pm;
	qsort(pm->bystart, pm->n, sizeof(*pm->bystart), cmp_start);
	for (i = 0; i < pm->n; i++) {
		const struct perfmap_entry *e = &pm->e[pm->bystart[i]];
		bool same = i && pm->e[pm->bystart[i - 1]].pid == e->pid;

		pm->maxend[i] = same && pm->maxend[i - 1] > e->end ?
				pm->maxend[i - 1] : e->end;
	}
	pm->nindexed = pm->n;
}

void perfmap__index(struct perfmap *pm)
{
	if (pm->nindexed != pm->n)
		build_index(pm);
}

void perfmap__seal(struct perfmap *pm)
{
	pm->sealed = true;
	perfmap__index(pm);
}

const struct perfmap_entry *perfmap__lookup(const struct perfmap *pm,
					    int pid, uint64_t addr)
{
	const struct perfmap_entry *best = NULL;
	size_t lo = 0, hi;

	/* one past the last indexed entry of (pid, start <= addr) */
	hi = pm->nindexed;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		const struct perfmap_entry *e = &pm->e[pm->bystart[mid]];

		if (e->pid < pid || (e->pid == pid && e->start <= addr))
			lo = mid + 1;
		else
			hi = mid;
	}
	/*
	 * Back from there while an entry so far could still reach addr: the
	 * newest covering one wins. Overlaps are rare, so this stops soon.
	 */
	while (lo-- > 0) {
		const struct perfmap_entry *e = &pm->e[pm->bystart[lo]];

		if (e->pid != pid || pm->maxend[lo] <= addr)
			break;
		if (addr < e->end && (!best || e->seq > best->seq))
			best = e;
	}
	return best;
}

bool perfmap__jit_path(const char *path)
{
	return !*path || !strcmp(path, "//anon") ||
	       !strncmp(path, "[anon:", 6) ||
	       !strncmp(path, "/dev/zero", 9) ||
	       !strncmp(path, "/anon_hugepage", 14) ||
	       !strncmp(path, "/memfd:", 7);
}

size_t perfmap__forget(struct perfmap *pm, bool (*gone)(void *ctx, int pid),
		       void *ctx)
{
	size_t i, n = 0, before = pm->n;

	for (i = 0; i < pm->n; i++) {
		if (gone(ctx, pm->e[i].pid))
			free(pm->e[i].name);
		else
			pm->e[n++] = pm->e[i];
	}
	pm->n = n;
	pm->forgotten += before - n;
	if (before != n && pm->nindexed)
		build_index(pm);
	return before - n;
}
