// SPDX-License-Identifier: GPL-2.0
/*
 * tprof-read: --format folded, Brendan Gregg's collapsed stacks, as
 * `perf script | stackcollapse-perf.pl` writes them and flamegraph.pl,
 * inferno and speedscope read them: one line per distinct stack, its
 * frames root first joined by ';', a space, the value.
 *
 * - The value is nanoseconds of CPU (`folded`, pprof's default column
 *   "cpu") or of off-CPU time (`folded:off_cpu`), an integer: a sample
 *   weighs its thread's period, so threads sampled at different rates
 *   compare (a count would not), and the lines sum to the pprof's column.
 *   stackcollapse-perf.pl does the same: it sums each sample's period,
 *   nanoseconds for cpu-clock. flamegraph.pl --countname=ns labels it.
 * - The root frame is the thread's comm at the sample's time, spaces made
 *   '_', as stackcollapse-perf.pl's default (no pid or tid); ":TID" as
 *   perf says when no record named the thread.
 * - Then each location's frames, inline frames expanded (outermost
 *   first). A name is the pprof Function.name, with ';' made ':' (the
 *   separator) and, as stackcollapse-perf.pl tidies, a C++ parameter list
 *   and its qualifiers dropped ("geo::Circle::area(unsigned long) const"
 *   is "geo::Circle::area"; overloads share a frame, as in perf). Spaces
 *   inside a name stay (template arguments): every reader splits the value
 *   off at the last space. A frame without a name is "[FILE]" (its
 *   mapping's file name), "[kernel.kallsyms]" or "[unknown]", as
 *   stackcollapse-perf.pl names an unknown symbol by its module.
 * - Pseudo frames stay as pprof has them: "[lost]" (a line per thread
 *   that lost samples, under its comm, and one of the loss no thread
 *   claims, alone), "[unknown]", "[truncated]", "[no stack]".
 * - off_cpu: the state of the wait is the leaf frame ("[sleeping]",
 *   "[uninterruptible]", "[runnable]"): pprof keeps it as a label, which a
 *   flame graph cannot filter by.
 * - wakers (`folded:wakers`, bcc offwaketime's convention, which
 *   flamegraph.pl draws): one line per (waiter stack, waker stack) of the
 *   off-CPU samples that have a waker: the waiter's frames as off_cpu has
 *   them (comm root first, the state leaf last), then "--", then the
 *   waker's frames leaf first and its comm (":TID" unnamed) last, or the
 *   one pseudo-frame that says why it has no stack
 *   (pprof__waker_pseudo(): "[interrupt]", ...), then the off-CPU
 *   nanoseconds.
 * - Lines are sorted bytewise, as stackcollapse-perf.pl sorts; lines whose
 *   value is 0 are left out.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/utf8.h"
#include "lib/util.h"
#include "output/folded.h"
#include "output/pprof.h"
#include "output/summary.h"

struct line {
	char *stack;
	uint64_t value;
};

struct folder {
	const struct output_ctx *c;
	bool off;		/* off_cpu: the off-CPU column */
	bool wakers;		/* wakers: waiter -- waker lines */
	struct line *lines;
	size_t nlines, caplines;
	struct hindex idx;
	char *buf;		/* the stack being built */
	size_t len, cap;
	char **locs;		/* per resolved location: its frames */
};

/* Where a C++ name's parameter list begins, or len: none. */
static size_t params_start(const char *s, size_t len)
{
	static const char *const quals[] = { " const", " volatile", " &&",
					     " &", " noexcept" };
	size_t i, depth = 0;
	bool more = true;

	while (more) {
		more = false;
		for (i = 0; i < ARRAY_SIZE(quals); i++) {
			size_t n = strlen(quals[i]);

			if (len > n && !memcmp(s + len - n, quals[i], n)) {
				len -= n;
				more = true;
			}
		}
	}
	if (!len || s[len - 1] != ')')
		return SIZE_MAX;
	for (i = len; i-- > 0;) {
		if (s[i] == ')')
			depth++;
		else if (s[i] == '(' && !--depth)
			return i ? i : SIZE_MAX;
	}
	return SIZE_MAX;
}

/*
 * name as a frame, malloc'd: valid UTF-8, ';' made ':' (the separator), a
 * control character ' ' (a line break would end the line), a space '_' if
 * asked, the C++ parameter list dropped if asked.
 */
static char *clean(const char *name, bool params, bool spaces)
{
	size_t len, cut, i;
	char *out;

	if (!name || !*name)
		name = "[unknown]";
	len = strlen(name);
	out = utf8_valid(name, len) ? xstrdup(name) : utf8_sanitize(name, len);
	len = strlen(out);
	/* a Go method ("main.(*T).Method") ends with no ')': kept whole */
	cut = params ? params_start(out, len) : SIZE_MAX;
	if (cut < len) {
		len = cut;
		while (len > 1 && out[len - 1] == ' ')
			len--;
	}
	for (i = 0; i < len; i++) {
		unsigned char ch = (unsigned char)out[i];

		if (ch == ';')
			ch = ':';
		else if (ch < 0x20 || ch == 0x7f)
			ch = ' ';
		if (ch == ' ' && spaces)
			ch = '_';
		out[i] = (char)ch;
	}
	out[len] = 0;
	return out;
}

char *folded__frame_name(const char *name)
{
	return clean(name, true, false);
}

static void put(struct folder *f, const char *s, size_t n)
{
	GROW(f->buf, f->cap, f->len + n + 2);
	memcpy(f->buf + f->len, s, n);
	f->len += n;
	f->buf[f->len] = 0;
}

/* Append frames (one, or several joined by ';') to the stack. */
static void put_frames(struct folder *f, const char *frames)
{
	if (f->len)
		put(f, ";", 1);
	put(f, frames, strlen(frames));
}

static void frame(struct folder *f, const char *name)
{
	char *tidy = folded__frame_name(name);

	put_frames(f, tidy);
	free(tidy);
}

/* The root frame: the thread's comm, spaces as '_'. */
static void root(struct folder *f, const char *comm, int tid)
{
	char name[32], *tidy;

	if (comm && *comm)
		snprintf(name, sizeof(name), "%s", comm);
	else
		snprintf(name, sizeof(name), ":%d", tid);
	tidy = clean(name, false, true);
	put_frames(f, tidy);
	free(tidy);
}

/* A location's frames, outermost first, into the (empty) stack. */
static void location_frames(struct folder *f, const struct rloc *rl)
{
	const struct mapping *m;
	const char *base;
	char *name;
	int j;

	if (rl->kind == RLOC_PSEUDO) {
		frame(f, rl->pseudo);
		return;
	}
	for (j = rl->nlines - 1; j >= 0; j--)
		frame(f, rl->lines[j].name);
	if (rl->nlines)
		return;
	if (rl->kind == RLOC_KERNEL) {
		frame(f, "[kernel.kallsyms]");
		return;
	}
	if (rl->kind == RLOC_PYTHON || !rl->map) {
		frame(f, "[unknown]");
		return;
	}
	m = &f->c->p->maps.all[rl->map - 1];
	base = m->path ? strrchr(m->path, '/') : NULL;
	base = base ? base + 1 : m->path;
	name = xmalloc(strlen(base ? base : "") + 10);
	sprintf(name, "[%s]", base && *base ? base : "unknown");
	frame(f, name);
	free(name);
}

/* Location i's frames, made once (f->locs), appended to the stack. */
static void location(struct folder *f, uint32_t i)
{
	if (!f->locs[i]) {
		size_t len = f->len;

		location_frames(f, &f->c->r->locs[i]);
		/* the frames alone, without the ';' before them */
		f->locs[i] = xstrdup(f->buf + len + (len ? 1 : 0));
		f->len = len;
	}
	put_frames(f, f->locs[i]);
}

/* Add the stack in f->buf with value v: a new line, or to its line. */
static void add_line(struct folder *f, uint64_t v)
{
	uint64_t h = hash_bytes(f->buf, f->len, 0x5eed);
	struct hiter it = { 0 };
	struct line *l;
	uint32_t item;

	while (hindex_next(&f->idx, h, &it, &item))
		if (!strcmp(f->lines[item - 1].stack, f->buf)) {
			l = &f->lines[item - 1];
			l->value = sat_add(l->value, v);
			return;
		}
	GROW(f->lines, f->caplines, f->nlines + 1);
	l = &f->lines[f->nlines++];
	l->stack = xstrdup(f->buf);
	l->value = v;
	hindex_put(&f->idx, h, f->nlines);
}

static const char *state_frame(uint32_t off_state)
{
	static char buf[40];

	snprintf(buf, sizeof(buf), "[%s]", pprof__state_name(off_state));
	return buf;
}

/*
 * The waker's part of a wakers line, appended: its stack wk leaf first
 * (each location's frames innermost first) then its comm, or why.
 */
static void waker_frames(struct folder *f, const struct rsample *rs,
			 const struct rsample *wk, const char *why)
{
	size_t start = f->len, n, i;
	const char *comm;
	char *part, *end;

	if (why) {
		frame(f, why);
		return;
	}
	/* root first as usual, then the frames reversed in place */
	/* the WAKER's comm: the kernel's at the wakeup (a thread renamed
	 * since its THREAD record has its new name there) */
	comm = pprof__waker_of(rs, wk)->comm;
	root(f, *comm ? comm : wk->comm, wk->tid);
	for (i = wk->nlocs; i-- > 0;)
		location(f, wk->locs[i]);
	part = xstrdup(f->buf + start + (start ? 1 : 0));
	f->len = start;
	f->buf[f->len] = 0;
	/* frames never hold ';' (clean()): split there */
	for (end = part + strlen(part); end > part;) {
		char *semi = end;

		while (semi > part && semi[-1] != ';')
			semi--;
		n = (size_t)(end - semi);
		if (f->len)
			put(f, ";", 1);
		put(f, semi, n);
		end = semi > part ? semi - 1 : part;
	}
	free(part);
}

static void add_waits(struct folder *f)
{
	const struct resolved *r = f->c->r;
	size_t i;
	uint32_t j;

	for (i = 0; i < r->nsamples; i++) {
		const struct rsample *rs = &r->samples[i], *wk;
		const char *why;

		if (!rs->weight_ns || !rs->off_state || !rs->waker.kind)
			continue;
		why = pprof__waker_pseudo(r, rs, &wk);
		f->len = 0;
		root(f, rs->comm, rs->tid);
		for (j = rs->nlocs; j-- > 0;)
			location(f, rs->locs[j]);
		frame(f, state_frame(rs->off_state));
		put_frames(f, "--");
		waker_frames(f, rs, wk, why);
		add_line(f, rs->weight_ns);
	}
}

static void add_samples(struct folder *f)
{
	const struct resolved *r = f->c->r;
	size_t i;
	uint32_t j;

	for (i = 0; i < r->nsamples; i++) {
		const struct rsample *rs = &r->samples[i];

		if (!rs->weight_ns || !rs->off_state != !f->off)
			continue;
		f->len = 0;
		root(f, rs->comm, rs->tid);
		for (j = rs->nlocs; j-- > 0;)
			location(f, rs->locs[j]);
		if (f->off)
			frame(f, state_frame(rs->off_state));
		add_line(f, rs->weight_ns);
	}
}

/* The summary's `[lost]` samples of this column. */
static void add_lost(struct folder *f)
{
	const struct summary *s = f->c->s;
	size_t i;

	for (i = 0; i < s->nlost_entries; i++) {
		const struct lost_entry *e = &s->lost_entries[i];

		if (!e->n.weight_ns || e->off_cpu != f->off)
			continue;
		f->len = 0;
		if (e->t)
			root(f, thread__comm_at(e->t, UINT64_MAX), e->t->tid);
		frame(f, "[lost]");
		add_line(f, e->n.weight_ns);
	}
}

static int cmp_line(const void *a, const void *b)
{
	return strcmp(((const struct line *)a)->stack,
		      ((const struct line *)b)->stack);
}

static int encode(const struct output_ctx *c, uint8_t **out, size_t *outlen)
{
	struct folder f = { .c = c };
	size_t i, len = 0, cap = 0;
	char *o = NULL;

	f.off = c->value && !strcmp(c->value, "off_cpu");
	f.wakers = c->value && !strcmp(c->value, "wakers");
	f.locs = xcalloc(c->r->nlocs + 1, sizeof(*f.locs));
	hindex_init(&f.idx);
	if (f.wakers) {
		add_waits(&f);
	} else {
		add_samples(&f);
		add_lost(&f);
	}
	if (f.nlines)
		qsort(f.lines, f.nlines, sizeof(*f.lines), cmp_line);
	for (i = 0; i < f.nlines; i++) {
		size_t n = strlen(f.lines[i].stack);

		GROW(o, cap, len + n + 24);
		memcpy(o + len, f.lines[i].stack, n);
		len += n;
		len += (size_t)snprintf(o + len, 24, " %llu\n",
					(unsigned long long)f.lines[i].value);
		free(f.lines[i].stack);
	}
	for (i = 0; i < c->r->nlocs; i++)
		free(f.locs[i]);
	free(f.locs);
	free(f.lines);
	free(f.buf);
	hindex_free(&f.idx);
	*out = (uint8_t *)(o ? o : xmalloc(1));
	*outlen = len;
	return 0;
}

static const char *const folded_values[] = { "cpu", "off_cpu", "wakers",
					     NULL };

const struct output_format folded_format = {
	.name = "folded",
	.values = folded_values,
	.gzip = false,
	.encode = encode,
};
