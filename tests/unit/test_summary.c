// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests: output facts computed once (lost, periods, sampled against
 * exact: output/summary.h) and the folded format (output/folded.c).
 */
#include <regex.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/util.h"
#include "output/folded.h"
#include "output/summary.h"
#include "output/write.h"
#include "pbload.h"
#include "testlib.h"

#define PID 7070
#define TID2 7071
#define MS 1000000ULL

static const char *S(const PbProfile *p, int64_t i)
{
	return i >= 0 && (size_t)i < p->n_string_table ? p->string_table[i] :
							  "<bad index>";
}

/* A STATS record, as tprof-read saves the ioctl's answer at the end. */
static void sb_stats(struct sbuf *b, uint64_t n, uint64_t w, uint64_t t)
{
	struct tprof_urec_stats s;

	memset(&s, 0, sizeof(s));
	s.hdr.type = TPROF_UREC_STATS;
	s.hdr.size = sizeof(s);
	s.hdr.time_ns = t;
	s.stats.lost_samples = n;
	s.stats.lost_weight_ns = w;
	sb_raw(b, &s, sizeof(s));
}

/* A THREAD_OFF record with off-CPU samples lost (or not allowed). */
static void sb_off_lost(struct sbuf *b, uint32_t tid, uint64_t n, uint64_t w,
			uint64_t t)
{
	struct tprof_rec_thread_off o;

	memset(&o, 0, sizeof(o));
	o.hdr.type = TPROF_REC_THREAD_OFF;
	o.hdr.size = sizeof(o);
	o.hdr.time_ns = t;
	o.pid = PID;
	o.tid = tid;
	o.begin_ns = 1000;
	o.sleeping_ns = 50 * MS;
	o.samples = n + 1;
	o.weight_ns = w + 10 * MS;
	o.lost_samples = n;
	o.lost_weight_ns = w;
	o.period_ns = 10 * MS;
	sb_raw(b, &o, sizeof(o));
}

enum { STATS_MORE_N, STATS_MORE_W, OFF_NOT_ALLOWED, NVARIANTS };

/*
 * Two threads, 10 + 5 samples; the worker lost 1 sample (1ms). STATS and
 * the LOST records disagree: STATS counts more samples but less weight,
 * or the reverse; or there is no STATS and the worker's THREAD_OFF counts
 * off-CPU samples it was not allowed to take, more than the ring lost.
 * Sets the total lost the rule gives (output/summary.h).
 */
static void lost_stream(struct sbuf *b, int variant, uint64_t *n,
			uint64_t *w)
{
	uint64_t u[2] = { 0x401000, 0x401100 };
	int i;

	sb_session(b, PID, MS, 1700000000000000000ULL, 1000);
	sb_thread(b, PID, PID, "main", 1001);
	sb_thread(b, PID, TID2, "worker", 1002);
	for (i = 0; i < 10; i++)
		sb_sample(b, PID, PID, MS, MS, 2000 + i, 0, NULL, 2, u);
	for (i = 0; i < 5; i++)
		sb_sample(b, PID, TID2, MS, MS, 3000 + i, 0, NULL, 1, u);
	if (variant == OFF_NOT_ALLOWED) {
		sb_off_sample(b, PID, TID2, TPROF_OFF_SLEEPING, 10 * MS,
			      10 * MS, 3500, 1, u);
		sb_off_lost(b, TID2, 2, 20 * MS, 3900);
	}
	sb_stat(b, TPROF_REC_THREAD_EXIT, PID, TID2, 6 * MS, 6, 6 * MS, 1, MS,
		MS, "worker", 4000);
	sb_stat(b, TPROF_REC_THREAD_STAT, PID, PID, 10 * MS, 10, 10 * MS, 0, 0,
		MS, "main", 4001);
	switch (variant) {
	case STATS_MORE_N:
		sb_lost(b, 4, 4 * MS, 0, 4002);
		sb_stats(b, 6, 3 * MS, 5000);
		*n = 6;
		*w = 3 * MS;
		break;
	case STATS_MORE_W:
		sb_lost(b, 6, 3 * MS, 0, 4002);
		sb_stats(b, 4, 4 * MS, 5000);
		*n = 4;
		*w = 4 * MS;
		break;
	default:
		/* 1 ring drop; 1 on-CPU and 2 off-CPU by the threads */
		sb_lost(b, 1, MS, 0, 4002);
		*n = 3;
		*w = 21 * MS;
		break;
	}
}

static void feed(struct profile *p, const struct sbuf *b)
{
	profile__init(p);
	profile_feed(p, b, false);
	profile__finish(p);
}

/* The summary itself: one total, the `[lost]` entries summing to it. */
static void check_summary(const struct sbuf *b, uint64_t n, uint64_t w)
{
	uint64_t en = 0, ew = 0;
	struct lost_count lc;
	struct profile p;
	struct summary s;
	size_t i;

	feed(&p, b);
	summary__compute(&s, &p, &p.whole);
	CHECK_EQ(s.lost.samples, n);
	CHECK_EQ(s.lost.weight_ns, w);
	for (i = 0; i < s.nlost_entries; i++) {
		en += s.lost_entries[i].n.samples;
		ew += s.lost_entries[i].n.weight_ns;
	}
	CHECK_EQ(en, n);
	CHECK_EQ(ew, w);
	/* the progress line's rule is the same */
	lc = summary__lost(&p);
	CHECK_EQ(lc.samples, n);
	CHECK_EQ(lc.weight_ns, w);
	/* periods: THREAD_EXIT/STAT's */
	CHECK_EQ(s.nthreads, 2);
	CHECK_EQ(s.threads[0].period_ns, MS);
	CHECK_EQ(s.threads[1].lost.samples, 1);
	CHECK_EQ(s.nprocs, 1);
	CHECK_EQ(s.procs[0].t.threads, 2);
	CHECK_EQ(s.procs[0].t.samples, 15);
	CHECK_EQ(s.procs[0].t.lost_weight_ns, MS);
	summary__free(&s);
	profile__free(&p);
}

/* The pprof's `[lost]` samples summed: count, and weight (cpu + off_cpu). */
static void pprof_lost(const PbProfile *p, uint64_t *n, uint64_t *w)
{
	size_t i;

	*n = *w = 0;
	for (i = 0; i < p->n_sample; i++) {
		const Perftools__Profiles__Sample *s = p->sample[i];
		const Perftools__Profiles__Location *l;
		size_t nv = s->n_value;

		if (s->n_location_id != 1 || !s->location_id[0] ||
		    s->location_id[0] > p->n_location)
			continue;
		l = p->location[s->location_id[0] - 1];
		if (l->n_line != 1 || !l->line[0]->function_id ||
		    strcmp(S(p, p->function[l->line[0]->function_id - 1]->name),
			   "[lost]"))
			continue;
		*n += s->value[nv - 1];
		*w += s->value[0] + (nv == 3 ? s->value[1] : 0);
	}
}

/*
 * Whichever way STATS and the records disagree, the comment's "N lost",
 * the `[lost]` samples and --report's "total:" line say the same, by the
 * one rule. Before the summary, the comment took the larger count, the
 * samples STATS only when its weight was larger, --report STATS.
 */
static void test_lost_agrees(void)
{
	const char *raw = build_path("unit/summary-lost.raw");
	const char *pb = build_path("unit/summary-lost.pb.gz");
	int v;

	for (v = 0; v < NVARIANTS; v++) {
		unsigned long long cn = 0, rn = 0, rs = 0;
		char rw[64] = "", want[32], *out = NULL, *t;
		uint64_t n = 0, w = 0, ln, lw;
		struct sbuf b = { 0 };
		PbProfile *p;

		lost_stream(&b, v, &n, &w);
		check_summary(&b, n, w);
		CHECK_EQ(sb_write(&b, raw), 0);
		sb_free(&b);
		unlink(pb);
		CHECK_EQ(run_read(&out, "--input '%s' -o '%s' --report 2>&1",
				  raw, pb), 0);
		p = load_checked(pb);
		if (!p) {
			free(out);
			continue;
		}
		/* "tprof: pid 7070, default period 1ms, 15 samples, N lost" */
		CHECK(p->n_comment > 0);
		t = p->n_comment ? strstr(S(p, p->comment[0]), "samples, ") :
				   NULL;
		CHECK(t && sscanf(t, "samples, %llu lost", &cn) == 1);
		pprof_lost(p, &ln, &lw);
		t = out ? strstr(out, "total: ") : NULL;
		CHECK(t && sscanf(t, "total: %llu samples, %*[^,], %llu lost (%63[^)])",
				  &rs, &rn, rw) == 3);
		fmt_ns(want, sizeof(want), w);
		CHECK_EQ(cn, n);
		CHECK_EQ(ln, n);
		CHECK_EQ(lw, w);
		CHECK_EQ(rn, n);
		CHECK_STR(rw, want);
		CHECK_EQ(rs, 15);
		if (t_checks_failed)
			fprintf(stderr, "    variant %d: comment %llu, [lost] %llu/%llu, report %llu (%s); want %llu (%s)\n%s\n",
				v, cn, (unsigned long long)ln,
				(unsigned long long)lw, rn, rw,
				(unsigned long long)n, want, out ? out : "");
		pb_free(p);
		free(out);
	}
}

/* ---- folded ---- */

static void test_frame_names(void)
{
	static const char *const cases[][2] = {
		{ "geo::Circle::area(unsigned long) const", "geo::Circle::area" },
		{ "main::{lambda(unsigned long)#1}::operator()(unsigned long) const",
		  "main::{lambda(unsigned long)#1}::operator()" },
		{ "std::vector<int, std::allocator<int> >::push_back(int const&)",
		  "std::vector<int, std::allocator<int> >::push_back" },
		{ "(anonymous namespace)::f(int)", "(anonymous namespace)::f" },
		{ "foo()", "foo" },
		{ "S::get() const &&", "S::get" },
		{ "main.(*T).Method", "main.(*T).Method" },
		{ "main.Sum[go.shape.int]", "main.Sum[go.shape.int]" },
		{ "Ljava/lang/Thread;::run", "Ljava/lang/Thread:::run" },
		{ "LazyCompile:*fib /tmp/x.js:3", "LazyCompile:*fib /tmp/x.js:3" },
		{ "a\nb\tc", "a b c" },
		{ "", "[unknown]" },
		{ "[lost]", "[lost]" },
		{ "\xff" "bad", "\xef\xbf\xbd" "bad" },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *got = folded__frame_name(cases[i][0]);

		CHECK_STR(got, cases[i][1]);
		free(got);
	}
}

#define PIE_BASE 0x555555554000ULL
#define TID3 7072
#define TID4 7073

static uint64_t sym_mid(const char *bin, const char *name)
{
	uint64_t v = 0, sz = 0;

	if (elf_symbol(bin, name, &v, &sz))
		return 0;
	return v + sz / 2;
}

/*
 * The e2e program's session with on- and off-CPU samples: the main thread
 * in hot_outer's inline chain (two periods), a worker whose comm has a
 * space in cold_func (some with a kernel frame), asleep and in
 * uninterruptible waits, a thread no record named, a frame in no mapping,
 * and lost samples of a thread and of none.
 */
static int folded_stream(const char *out)
{
	const char *bin = build_path("progs/inlines");
	uint64_t worker = sym_mid(bin, "worker"), main_ret = sym_mid(bin, "main");
	uint64_t k = 0xffffffff81000150ULL, leaf, cold, v, sz;
	uint64_t off_ns[3] = { 40 * MS, 20 * MS, 0 };
	char *maps = fake_maps(bin, PIE_BASE);
	struct sbuf b = { 0 };
	int i, ret;

	if (!maps || !worker || !main_ret || elf_symbol(bin, "hot_outer", &v, &sz))
		return -1;
	leaf = PIE_BASE + v + 0x10;
	cold = PIE_BASE + sym_mid(bin, "cold_func");
	worker += PIE_BASE + 1;
	main_ret += PIE_BASE + 1;
	sb_session(&b, PID, MS, 1700000000000000000ULL, 1000);
	sb_maps(&b, PID, 1001, maps);
	sb_thread(&b, PID, PID, "inlines", 1002);
	sb_thread(&b, PID, TID2, "inl worker", 1003);
	for (i = 0; i < 300; i++) {
		uint64_t st[3] = { leaf, worker, main_ret };

		sb_sample(&b, PID, PID, i < 200 ? MS : MS / 2,
			  i < 200 ? MS : MS / 2, 2000 + i, 0, NULL, 3, st);
	}
	for (i = 0; i < 140; i++) {
		uint64_t st[2] = { cold, worker };

		sb_sample(&b, PID, TID2, 250000, 250000, 3000 + i, i < 40,
			  &k, 2, st);
	}
	for (i = 0; i < 30; i++) {
		uint64_t st[2] = { cold, worker };

		sb_off_sample(&b, PID, TID2, i < 20 ? TPROF_OFF_SLEEPING :
			      TPROF_OFF_BLOCKED, 2 * MS, 2 * MS, 3500 + i, 2,
			      st);
	}
	for (i = 0; i < 7; i++) {
		uint64_t st[2] = { 0x7f0000001000ULL, main_ret };

		sb_sample(&b, PID, TID3, MS, MS, 3600 + i, 0, NULL, 2, st);
	}
	sb_thread_off(&b, PID, TID2, 1000, off_ns, 0, 30, 60 * MS, 2 * MS,
		      5000);
	sb_off_lost(&b, TID4, 1, 10 * MS, 5001);
	sb_stat(&b, TPROF_REC_THREAD_EXIT, PID, TID2, 36 * MS, 143, 35750000,
		3, 750000, 250000, "inl worker", 6000);
	sb_stat(&b, TPROF_REC_THREAD_STAT, PID, PID, 251 * MS, 300, 250 * MS,
		0, 0, MS / 2, "inlines", 6001);
	/* the ring lost 5 (12.75ms): 1 (2ms) more than the threads say */
	sb_lost(&b, 5, 12750000, 0, 6002);
	free(maps);
	ret = sb_write(&b, out);
	sb_free(&b);
	return ret;
}

/* Replay raw in-process through output__write() in format fmt. */
static int write_as(const char *raw, const char *fmt, const char *out,
		    const char *ks)
{
	struct output_opts o = { .kallsyms = ks, .kallsyms_given = true,
				 .path = out, .format = fmt };
	struct sbuf b = { 0 };
	struct profile p;
	int ret;

	b.p = read_whole(raw, &b.len);
	if (!b.p)
		return -1;
	feed(&p, &b);
	ret = output__write(&p, &o);
	profile__free(&p);
	free(b.p);
	return ret;
}

/* stack -> value, the lines of a folded file or made from a pprof */
struct stacks {
	char **stack;
	uint64_t *value;
	size_t n;
};

static void stacks_add(struct stacks *s, const char *stack, uint64_t v)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (!strcmp(s->stack[i], stack)) {
			s->value[i] += v;
			return;
		}
	s->stack = xrealloc(s->stack, (s->n + 1) * sizeof(*s->stack));
	s->value = xrealloc(s->value, (s->n + 1) * sizeof(*s->value));
	s->stack[s->n] = xstrdup(stack);
	s->value[s->n++] = v;
}

static void stacks_free(struct stacks *s)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		free(s->stack[i]);
	free(s->stack);
	free(s->value);
}

static void append(char *buf, size_t cap, const char *frame)
{
	size_t len = strlen(buf);

	snprintf(buf + len, cap - len, "%s%s", len ? ";" : "", frame);
}

/*
 * The folded lines a pprof's column col should give, by the rules of
 * output/folded.c, made here from the decoded profile.
 */
static void stacks_of_pprof(const PbProfile *p, size_t col, bool off,
			    struct stacks *out)
{
	size_t i, j, k;

	for (i = 0; i < p->n_sample; i++) {
		const Perftools__Profiles__Sample *s = p->sample[i];
		const Perftools__Profiles__Label *comm, *tid, *st;
		char buf[8192] = "", name[64];

		if (!s->value[col])
			continue;
		comm = pb_label(p, s, "thread_comm");
		tid = pb_label(p, s, "tid");
		if (comm) {
			snprintf(name, sizeof(name), "%s", S(p, comm->str));
			for (k = 0; name[k]; k++)
				if (name[k] == ' ')
					name[k] = '_';
			append(buf, sizeof(buf), name);
		} else if (tid) {
			snprintf(name, sizeof(name), ":%lld", (long long)tid->num);
			append(buf, sizeof(buf), name);
		}
		for (j = s->n_location_id; j-- > 0;) {
			const Perftools__Profiles__Location *l =
				p->location[s->location_id[j] - 1];
			const char *file, *base;

			for (k = l->n_line; k-- > 0;) {
				char *f = folded__frame_name(S(p,
					p->function[l->line[k]->function_id - 1]->name));

				append(buf, sizeof(buf), f);
				free(f);
			}
			if (l->n_line)
				continue;
			if (!l->mapping_id) {
				append(buf, sizeof(buf), "[unknown]");
				continue;
			}
			file = S(p, p->mapping[l->mapping_id - 1]->filename);
			if (!strcmp(file, "[kernel]")) {
				append(buf, sizeof(buf), "[kernel.kallsyms]");
				continue;
			}
			base = strrchr(file, '/');
			snprintf(name, sizeof(name), "[%s]", base ? base + 1 : file);
			append(buf, sizeof(buf), name);
		}
		st = pb_label(p, s, "state");
		if (off && st && strcmp(S(p, st->str), "unknown")) {
			snprintf(name, sizeof(name), "[%s]", S(p, st->str));
			append(buf, sizeof(buf), name);
		}
		stacks_add(out, buf, s->value[col]);
	}
}

/*
 * The lines of a folded file, checked as flamegraph.pl, inferno and
 * speedscope read them: "FRAME;FRAME... VALUE", no empty frame, the value
 * an integer after the last space; sorted, each stack once.
 */
static void stacks_of_folded(const char *path, struct stacks *out,
			     uint64_t *total)
{
	size_t len = 0, nl = 0;
	char *text = (char *)read_whole(path, &len), *line, *save = NULL;
	char *prev = NULL;
	regex_t re;

	*total = 0;
	CHECK(text != NULL);
	if (!text)
		return;
	CHECK(len && text[len - 1] == '\n');
	CHECK(memchr(text, 0, len) == NULL);
	CHECK_EQ(regcomp(&re, "^[^; ][^;]*(;[^;]+)* [0-9]+$", REG_EXTENDED |
			 REG_NOSUB), 0);
	text = xrealloc(text, len + 1);
	text[len] = 0;
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save), nl++) {
		char *sp = strrchr(line, ' ');
		uint64_t v;

		if (regexec(&re, line, 0, NULL, 0)) {
			fprintf(stderr, "    not a folded line: '%s'\n", line);
			CHECK(!"a folded line");
			continue;
		}
		CHECK(!strstr(line, "; ") && !strstr(line, " ;"));
		*sp = 0;
		v = strtoull(sp + 1, NULL, 10);
		CHECK(v > 0);
		CHECK(!prev || strcmp(prev, line) < 0);
		prev = line;
		*total += v;
		stacks_add(out, line, v);
	}
	CHECK_EQ(nl, out->n);
	regfree(&re);
	free(text);
}

static uint64_t pprof_column(const PbProfile *p, size_t col,
			     const char *comm)
{
	uint64_t sum = 0;
	size_t i;

	for (i = 0; i < p->n_sample; i++) {
		const Perftools__Profiles__Label *l =
			pb_label(p, p->sample[i], "thread_comm");

		if (!comm || (l && !strcmp(S(p, l->str), comm)))
			sum += p->sample[i]->value[col];
	}
	return sum;
}

static uint64_t folded_root(const struct stacks *s, const char *root)
{
	size_t n = strlen(root), i;
	uint64_t sum = 0;

	for (i = 0; i < s->n; i++)
		if (!strncmp(s->stack[i], root, n) && s->stack[i][n] == ';')
			sum += s->value[i];
	return sum;
}

static void compare(const PbProfile *p, size_t col, bool off,
		    const char *path)
{
	struct stacks want = { 0 }, got = { 0 };
	uint64_t total;
	size_t i, j;

	stacks_of_pprof(p, col, off, &want);
	stacks_of_folded(path, &got, &total);
	/* the totals: overall and per thread */
	CHECK_EQ(total, pprof_column(p, col, NULL));
	CHECK_EQ(folded_root(&got, "inl_worker"),
		 pprof_column(p, col, "inl worker"));
	if (!off)
		CHECK_EQ(folded_root(&got, "inlines"),
			 pprof_column(p, col, "inlines"));
	/* the same stacks with the same values */
	CHECK_EQ(got.n, want.n);
	for (i = 0; i < want.n; i++) {
		for (j = 0; j < got.n; j++)
			if (!strcmp(got.stack[j], want.stack[i]))
				break;
		if (j == got.n || got.value[j] != want.value[i]) {
			fprintf(stderr, "    %s: '%s' %llu: %s\n", path,
				want.stack[i],
				(unsigned long long)want.value[i],
				j == got.n ? "missing" : "other value");
			CHECK(!"the pprof's stack in the folded file");
		}
	}
	stacks_free(&want);
	stacks_free(&got);
}

static bool has_stack(const char *path, const char *stack)
{
	size_t len = 0;
	char *text = (char *)read_whole(path, &len), *hit;
	bool ok = false;

	if (text) {
		text = xrealloc(text, len + 2);
		memmove(text + 1, text, len);
		text[0] = '\n';
		text[len + 1] = 0;
		hit = strstr(text, stack);
		ok = hit != NULL;
		free(text);
	}
	return ok;
}

static void test_folded_equals_pprof(void)
{
	const char *raw = build_path("unit/folded.raw");
	const char *pb = build_path("unit/folded.pb.gz");
	const char *cpu = build_path("unit/folded.cpu");
	const char *off = build_path("unit/folded.off");
	const char *ks = build_path("unit/folded-kallsyms");
	PbProfile *p;

	if (!need_file(build_path("progs/inlines"), "test programs not built"))
		return;
	if (write_text(ks, "ffffffff81000000 T _stext\nffffffff81000100 T do_syscall_64\n"
		       "ffffffff81000200 T schedule\n"))
		return;
	CHECK_EQ(folded_stream(raw), 0);
	CHECK_EQ(write_as(raw, NULL, pb, ks), 0);
	CHECK_EQ(write_as(raw, "folded", cpu, ks), 0);
	CHECK_EQ(write_as(raw, "folded:off_cpu", off, ks), 0);
	CHECK(output__format("folded:nope", NULL) == NULL);
	CHECK(output__format("pprof:cpu", NULL) == NULL);
	CHECK(output__format("fold", NULL) == NULL);
	CHECK(write_as(raw, "svg", cpu, ks) < 0);
	p = load_checked(pb);
	if (!p)
		return;
	CHECK_EQ(p->n_sample_type, 3);	/* cpu, off_cpu, samples */
	compare(p, 0, false, cpu);
	compare(p, 1, true, off);
	/* the shapes the rules promise: inline frames, comm roots, lost */
	CHECK(has_stack(cpu, "\ninlines;main;worker;hot_outer;hot_mid;hot_leaf 250000000\n"));
	CHECK(has_stack(cpu, "\ninl_worker;worker;cold_func;do_syscall_64 10000000\n"));
	CHECK(has_stack(cpu, "\ninl_worker;[lost] 750000\n"));
	CHECK(has_stack(cpu, "\n[lost] 2000000\n"));
	CHECK(has_stack(cpu, "\n:7072;main;[unknown] 7000000\n"));
	CHECK(has_stack(off, "\ninl_worker;worker;cold_func;[sleeping] 40000000\n"));
	CHECK(has_stack(off, "\ninl_worker;worker;cold_func;[uninterruptible] 20000000\n"));
	CHECK(has_stack(off, "\n:7073;[lost] 10000000\n"));
	pb_free(p);
}

const struct unit_test summary_tests[] = {
	{ "summary: STATS and the records disagree either way; the comment, the [lost] samples and --report say one total", test_lost_agrees },
	{ "folded: frame names as stackcollapse-perf tidies them", test_frame_names },
	{ "folded: cpu and off_cpu lines equal the pprof's columns: totals, per thread, every stack", test_folded_equals_pprof },
	{ NULL, NULL },
};
