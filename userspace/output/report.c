// SPDX-License-Identifier: GPL-2.0
/*
 * tprof-read: --report, the per-thread, off-CPU and per-process tables on
 * stderr, and the one-line notes the CLI prints (output/report.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/resolve.h"
#include "analyze/unwind.h"
#include "lib/util.h"
#include "output/pprof.h"
#include "output/report.h"
#include "output/summary.h"

/* What the module's sampling budget did to the session, in one line. */
const char *report__throttle_line(const struct profile *p)
{
	static char line[256];
	const struct tprof_rec_throttle *t = &p->throttle;

	snprintf(line, sizeof(line),
		 "the module throttled sampling %llu time%s: it took %.0f%% of CPU %u (over its sample_cpu_percent), so periods were stretched %llux; weights stay exact",
		 (unsigned long long)p->throttles, p->throttles == 1 ? "" : "s",
		 t->window_ns ? 100.0 * (double)t->path_ns / (double)t->window_ns : 0,
		 t->cpu, 1ULL << (t->shift < 63 ? t->shift : 63));
	return line;
}

const char *report__loss_line(const struct profile *p)
{
	static char line[160];
	struct summary s;
	uint64_t all, lost;

	summary__compute(&s, p, &p->whole);
	all = s.weight_ns + s.off_weight_ns + s.lost.weight_ns;
	lost = s.lost.samples;
	if (lost)
		snprintf(line, sizeof(line),
			 "%llu sample%s lost (%.1f%% of the sampled time)",
			 (unsigned long long)s.lost.samples,
			 s.lost.samples == 1 ? "" : "s",
			 all ? 100.0 * (double)s.lost.weight_ns / (double)all :
			 0.0);
	summary__free(&s);
	return lost ? line : NULL;
}

const char *report__wake_stacks_line(const struct profile *p)
{
	static char line[320];

	snprintf(line, sizeof(line),
		 "waker stacks: the module took %llu (%llu dropped), %llu read, %llu joined to their waits, %llu waker stacks unmatched (no sampled wait), %llu waits whose stack was lost, %llu without their WAKER",
		 (unsigned long long)p->stats.waker_stacks,
		 (unsigned long long)p->stats.waker_stacks_dropped,
		 (unsigned long long)p->wake_stacks,
		 (unsigned long long)p->wakes.joined,
		 (unsigned long long)p->wakes.lost_stacks,
		 (unsigned long long)p->wakes.lost_waits,
		 (unsigned long long)p->wake_stack_orphans);
	return line;
}

/* -v: what became of the snapshots; always: USTACKs that went astray. */
void report__unwind(const struct profile *p, struct unwinder *u)
{
	const struct unwind_stats *st = unwinder__stats(u);

	if (st->samples)
		pr_debug("unwound %llu snapshots in %.1f ms (%.0f/s): %llu whole, %llu joined to the FP chain (%llu of them cut where a link was not proven), %llu FP chain only (no CFI at the pc), %llu truncated; %llu CFI rows computed, %llu reused",
			 (unsigned long long)st->samples, st->ns / 1e6,
			 st->ns ? st->samples * 1e9 / st->ns : 0.0,
			 (unsigned long long)st->complete,
			 (unsigned long long)st->spliced,
			 (unsigned long long)st->unproven,
			 (unsigned long long)st->fp_fallback,
			 (unsigned long long)st->truncated,
			 (unsigned long long)st->rules,
			 (unsigned long long)st->rule_hits);
	if (st->fp_checked)
		pr_debug("frame-pointer chains: %llu checked against CFI, %llu cut where a function kept no frame pointer",
			 (unsigned long long)st->fp_checked,
			 (unsigned long long)st->fp_cut);
	if (st->lr_kept || st->lr_dropped)
		pr_debug("arm64 link registers of frame-pointer stacks: %llu kept as the caller, %llu dropped as stale",
			 (unsigned long long)st->lr_kept,
			 (unsigned long long)st->lr_dropped);
	if (p->ustack_missing || p->ustack_orphans)
		pr_err("warning: %llu samples came without their USTACK record and %llu USTACK records without their sample: those samples keep their frame-pointer stacks",
		       (unsigned long long)p->ustack_missing,
		       (unsigned long long)p->ustack_orphans);
	report__python(p);
	if (p->stats.wakers || p->wakers_paired || p->waker_orphans)
		pr_debug("wakers: the module told %llu (%llu WAKER records, %llu dropped); %llu joined to their sample, %llu without one",
			 (unsigned long long)p->stats.wakers,
			 (unsigned long long)p->stats.waker_records,
			 (unsigned long long)p->stats.wakers_dropped,
			 (unsigned long long)p->wakers_paired,
			 (unsigned long long)p->waker_orphans);
	if (p->stats.waker_stacks || p->stats.waker_stacks_dropped ||
	    p->wake_stacks)
		pr_debug("%s", report__wake_stacks_line(p));
}

/*
 * -v: what became of the Python walks; always: walks that went astray,
 * and stacks left native because their walk did not fit, past 1% of them
 * (one native eval frame too many is tolerated, and not said).
 */
void report__python(const struct profile *p)
{
	const struct py_stats *st = &p->py.st;
	uint64_t left = st->no_proc + st->bad_words + st->mismatched;

	if (st->walks || st->orphans)
		pr_debug("python: %llu walks, %llu without frames, %llu merged (%llu frames; %llu with activations under the native stack, %llu with one eval frame more), %llu native only (%llu no interpreter known, %llu of other words, %llu not fitting the native stack); %llu code objects named, %llu frames left out for room",
			 (unsigned long long)st->walks,
			 (unsigned long long)st->empty,
			 (unsigned long long)st->merged,
			 (unsigned long long)st->frames,
			 (unsigned long long)st->appended,
			 (unsigned long long)st->extra_eval,
			 (unsigned long long)left,
			 (unsigned long long)st->no_proc,
			 (unsigned long long)st->bad_words,
			 (unsigned long long)st->mismatched,
			 (unsigned long long)p->py.ncodes,
			 (unsigned long long)st->overflow);
	if (st->missing || st->orphans)
		pr_err("warning: %llu samples came without their UWALK record and %llu UWALK records without their sample: those samples have no Python frames",
		       (unsigned long long)st->missing,
		       (unsigned long long)st->orphans);
	if (st->mismatched && st->mismatched * 100 > st->walks)
		pr_err("warning: %llu of %llu Python stacks did not fit their native stacks (more eval-loop frames than Python activations): they keep their native frames",
		       (unsigned long long)st->mismatched,
		       (unsigned long long)st->walks);
}

/* A process tree: per-process totals, in the order processes appeared. */
static void report_procs(const struct profile *p, const struct summary *s)
{
	char b1[32], b2[32], end[96];
	uint64_t nprocs, ndropped;
	size_t i;

	if (!profile__has_tree(p, &nprocs, &ndropped))
		return;
	fprintf(stderr, "%8s %8s %-16s %7s %9s %12s %12s %8s  %s\n", "PID",
		"PPID", "PROCESS", "THREADS", "SAMPLES", "SAMPLED", "EXACT",
		"ERROR%", "END");
	for (i = 0; i < s->nprocs; i++) {
		const struct proc_summary *ps = &s->procs[i];
		const struct proc_info *pi = ps->pi;
		const char *name = profile__proc_name(p, pi->pid, UINT64_MAX);
		char err[16] = "-";
		double pct;

		if (ps->t.exact &&
		    summary__error_pct(ps->t.weight_ns, ps->t.lost_weight_ns,
				       ps->t.on_cpu_ns, &pct))
			snprintf(err, sizeof(err), "%+.2f", pct);
		fprintf(stderr, "%8d %8d %-16s %7llu %9llu %12s %12s %8s  %s\n",
			pi->pid, pi->ppid, *name ? name : "-",
			(unsigned long long)ps->t.threads,
			(unsigned long long)ps->t.samples,
			fmt_ns(b1, sizeof(b1), ps->t.weight_ns),
			ps->t.exact && ps->t.threads ?
			fmt_ns(b2, sizeof(b2), ps->t.on_cpu_ns) : "-", err,
			profile__proc_end(p, pi, end, sizeof(end)));
	}
	fprintf(stderr, "processes: %llu, %llu not followed, %llu denied\n",
		(unsigned long long)nprocs, (unsigned long long)ndropped,
		(unsigned long long)p->procs_denied);
}

/*
 * Off-CPU sessions: per thread, on-CPU and off-CPU time by state (the
 * kernel's exact totals), their sum against the thread's time in the
 * session, and the sampled off-CPU time against the exact one.
 */
static void report_off(const struct summary *sm)
{
	char on[32], s[32], d[32], r[32], q[32], sum[32], span[32], w[32];
	size_t i;

	fprintf(stderr, "%8s %-16s %12s %12s %12s %12s %12s %12s %12s %7s %12s %8s\n",
		"TID", "COMM", "ON-CPU", "SLEEPING", "UNINTERR", "RUNNABLE",
		"IRQ", "SUM", "LIFETIME", "SUM%", "OFF-SAMPLED", "ERROR%");
	for (i = 0; i < sm->nthreads; i++) {
		const struct thread_summary *ts = &sm->threads[i];
		const struct thread_info *t = ts->t;
		const struct tprof_rec_thread_off *o = &t->off;
		const char *comm = thread__comm_at(t, UINT64_MAX);
		uint64_t oncpu = t->have_stat ? t->stat.on_cpu_ns : 0;
		uint64_t off = o->sleeping_ns + o->blocked_ns + o->runnable_ns;
		uint64_t all = oncpu + off + o->irq_ns;
		uint64_t life = o->hdr.time_ns > o->begin_ns ?
				o->hdr.time_ns - o->begin_ns : 0;
		uint64_t sampled_off = off > o->unsampled_ns ?
				       off - o->unsampled_ns : 0;
		char pct[16] = "-", err[16] = "-";
		double e;

		if (!t->have_off)
			continue;
		if (life)
			snprintf(pct, sizeof(pct), "%.2f",
				 (double)all * 100.0 / (double)life);
		if (summary__error_pct(ts->off_weight_ns, o->lost_weight_ns,
				       sampled_off, &e))
			snprintf(err, sizeof(err), "%+.2f", e);
		fprintf(stderr, "%8d %-16s %12s %12s %12s %12s %12s %12s %12s %7s %12s %8s\n",
			t->tid, *comm ? comm : "-",
			t->have_stat ? fmt_ns(on, sizeof(on), oncpu) : "-",
			fmt_ns(s, sizeof(s), o->sleeping_ns),
			fmt_ns(d, sizeof(d), o->blocked_ns),
			fmt_ns(r, sizeof(r), o->runnable_ns),
			fmt_ns(q, sizeof(q), o->irq_ns),
			fmt_ns(sum, sizeof(sum), all),
			fmt_ns(span, sizeof(span), life), pct,
			fmt_ns(w, sizeof(w), ts->off_weight_ns), err);
	}
	fprintf(stderr, "off-CPU: %llu samples, %s sampled\n",
		(unsigned long long)sm->off_samples,
		fmt_ns(w, sizeof(w), sm->off_weight_ns));
}

/* Is a mapping's file one of the C library's or the dynamic loader's? */
static bool libc_file(const char *path)
{
	static const char *const libs[] = { "libc.so", "libc-", "libpthread",
					    "ld-linux", "ld.so", "ld-musl",
					    "libc.musl" };
	const char *base = path ? strrchr(path, '/') : NULL;
	size_t i;

	base = base ? base + 1 : path ? path : "";
	for (i = 0; i < ARRAY_SIZE(libs); i++)
		if (!strncmp(base, libs[i], strlen(libs[i])))
			return true;
	return false;
}

/*
 * A waker stack's release site: its first user frame (leaf first) that
 * is not in libc, libpthread or ld.so (pthread_mutex_unlock's caller);
 * a Python frame is one. NULL: none.
 */
static const char *release_site(const struct profile *p,
				const struct resolved *r,
				const struct rsample *wk)
{
	uint32_t i;

	for (i = 0; i < wk->nlocs; i++) {
		const struct rloc *l = &r->locs[wk->locs[i]];
		const struct mapping *m;

		if (l->kind == RLOC_PYTHON && l->nlines)
			return l->lines[0].name;
		if (l->kind != RLOC_USER)
			continue;
		m = l->map ? &p->maps.all[l->map - 1] : NULL;
		if (m && libc_file(m->path))
			continue;
		if (l->nlines && l->lines[0].name && *l->lines[0].name)
			return l->lines[0].name;
		return m && m->path ? m->path : NULL;
	}
	return NULL;
}

/* One (waiting thread, waker) pair's sampled off-CPU time. */
struct wait_by {
	int tid;
	struct agg_waker w;
	uint64_t ns;
	const char *site;	/* with a resolved profile: its release site */
};

/* by waiting thread, then waker (kind, tid, comm) */
static int wait_by_key(const void *a, const void *b)
{
	const struct wait_by *x = a, *y = b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->w.kind != y->w.kind)
		return x->w.kind < y->w.kind ? -1 : 1;
	if (x->w.tid != y->w.tid)
		return x->w.tid < y->w.tid ? -1 : 1;
	return strncmp(x->w.comm, y->w.comm, sizeof(x->w.comm));
}

/* by waiting thread, then the most time first */
static int wait_by_time(const void *a, const void *b)
{
	const struct wait_by *x = a, *y = b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->ns != y->ns)
		return x->ns > y->ns ? -1 : 1;
	return wait_by_key(a, b);
}

/* by release site, NULL last */
static int site_cmp(const char *a, const char *b)
{
	if (!a || !b)
		return !a - !b;
	return strcmp(a, b);
}

/* The sites' rows, by the most time first */
static int site_by_time(const void *a, const void *b)
{
	const struct wait_by *x = a, *y = b;

	if (x->ns != y->ns)
		return x->ns > y->ns ? -1 : 1;
	return site_cmp(x->site, y->site);
}

/* release sites shown under a waker thread's row, at most */
#define REPORT_SITES 3

/*
 * Under the row of waits (v[0..n): one waiting thread, one waker thread,
 * each with its site) of all ns: the waker's top release sites.
 */
static void report_sites(struct wait_by *v, size_t n, uint64_t all)
{
	size_t i, m = 0;
	char ns[32];

	for (i = 0; i < n; i++) {
		size_t j;

		for (j = 0; j < m && site_cmp(v[j].site, v[i].site); j++)
			;
		if (j < m) {
			v[j].ns += v[i].ns;
		} else {
			v[m++] = v[i];
		}
	}
	qsort(v, m, sizeof(*v), site_by_time);
	for (i = 0; i < m && i < REPORT_SITES; i++)
		fprintf(stderr, "%8s %-16s   released at %-28.60s %12s %6.2f%%\n",
			"", "", v[i].site ? v[i].site : "[no user frame]",
			fmt_ns(ns, sizeof(ns), v[i].ns),
			all ? (double)v[i].ns * 100.0 / (double)all : 0.0);
}

/*
 * Off-CPU sessions whose module told wakers: per waiting thread, its
 * sampled off-CPU time by who ended the waits (the waker_* labels'
 * sums), the most first. r (--mode wakers: resolved and named): from its
 * samples, with each waker thread's top release sites under its row.
 */
static void report_wakers(const struct profile *p, const struct resolved *r)
{
	const struct agg *a = &p->whole;
	size_t ns = r ? r->nsamples : a->nsamples;
	struct wait_by *v = xcalloc(ns + 1, sizeof(*v));
	struct wait_by *sites = NULL;
	size_t i, n = 0, m = 0;
	uint64_t all = 0;
	bool told = false;

	for (i = 0; i < ns; i++) {
		const struct rsample *rs = r ? &r->samples[i] : NULL;
		const struct agg_sample *s = r ? NULL : &a->samples[i];
		const struct rsample *wk;

		if (!(rs ? rs->off_state : s->off_state) ||
		    (s && s->wake_stack))
			continue;
		v[n].tid = rs ? rs->tid : s->tid;
		v[n].w = rs ? rs->waker : s->waker;
		v[n].ns = rs ? rs->weight_ns : s->weight_ns;
		told |= v[n].w.kind != 0;
		if (rs && rs->waker.kind) {
			const char *why = pprof__waker_pseudo(r, rs, &wk);

			v[n].site = why ? why : release_site(p, r, wk);
			v[n].w = *pprof__waker_of(rs, why ? NULL : wk);
		}
		n++;
	}
	if (!told) {
		free(v);
		return;
	}
	/* stable: a pair's sites stay together after the merge below */
	if (r) {
		sites = xcalloc(n + 1, sizeof(*sites));
		memcpy(sites, v, n * sizeof(*v));
		qsort(sites, n, sizeof(*sites), wait_by_key);
	}
	qsort(v, n, sizeof(*v), wait_by_key);
	for (i = 0; i < n; i++) {
		if (m && !wait_by_key(&v[m - 1], &v[i]))
			v[m - 1].ns += v[i].ns;
		else
			v[m++] = v[i];
	}
	qsort(v, m, sizeof(*v), wait_by_time);
	fprintf(stderr, "%8s %-16s %-40s %12s %7s\n", "TID", "COMM",
		"WOKEN BY", "OFF-SAMPLED", "SHARE");
	for (i = 0; i < m; i++) {
		const struct thread_info *t = profile__find_thread(p, v[i].tid);
		const char *comm = t ? thread__comm_at(t, UINT64_MAX) : "";
		bool first = !i || v[i - 1].tid != v[i].tid;
		char who[64], nsb[32];
		size_t j, k;

		if (first) {	/* the thread's total, for its rows' shares */
			all = 0;
			for (j = i; j < m && v[j].tid == v[i].tid; j++)
				all += v[j].ns;
		}
		if (v[i].w.tid)
			snprintf(who, sizeof(who), "%s %d %.16s",
				 pprof__waker_kind_name(v[i].w.kind),
				 v[i].w.tid, v[i].w.comm);
		else
			snprintf(who, sizeof(who), "%s",
				 pprof__waker_kind_name(v[i].w.kind));
		fprintf(stderr, "%8d %-16s %-40s %12s %6.2f%%\n", v[i].tid,
			!first ? "" : (*comm ? comm : "-"), who,
			fmt_ns(nsb, sizeof(nsb), v[i].ns),
			all ? (double)v[i].ns * 100.0 / (double)all : 0.0);
		if (!sites || !v[i].w.tid)
			continue;
		/* this pair's waits: a run of sites[] */
		for (j = 0; j < n && wait_by_key(&sites[j], &v[i]); j++)
			;
		for (k = j; k < n && !wait_by_key(&sites[k], &v[i]); k++)
			;
		report_sites(sites + j, k - j, v[i].ns);
	}
	free(sites);
	free(v);
}

void report__wakers(const struct profile *p, const struct resolved *r)
{
	report_wakers(p, r);
}

/* Python: how many samples got their Python frames, and the module's
 * count of the walks (STATS). */
static void report_python(const struct profile *p)
{
	const struct py_stats *st = &p->py.st;

	fprintf(stderr, "python: %llu of %llu walks merged into their stacks (%llu frames), %llu without frames, %llu native only (%llu of no known interpreter, %llu not fitting the native stack)\n",
		(unsigned long long)st->merged, (unsigned long long)st->walks,
		(unsigned long long)st->frames, (unsigned long long)st->empty,
		(unsigned long long)(st->no_proc + st->bad_words +
				     st->mismatched),
		(unsigned long long)st->no_proc,
		(unsigned long long)st->mismatched);
	if (p->have_stats && p->stats.uwalks)
		fprintf(stderr, "python: the module walked %llu times (%llu frames, %llu faults, %llu cut at their limits)\n",
			(unsigned long long)p->stats.uwalks,
			(unsigned long long)p->stats.uwalk_frames,
			(unsigned long long)p->stats.uwalk_faults,
			(unsigned long long)p->stats.uwalk_truncated);
}

void report__write(const struct profile *p)
{
	char b1[32], b2[32], b3[32];
	struct summary s;
	size_t i;

	summary__compute(&s, p, &p->whole);
	fprintf(stderr, "%8s %-16s %10s %9s %12s %12s %8s %7s\n", "TID", "COMM",
		"PERIOD", "SAMPLES", "SAMPLED", "EXACT", "ERROR%", "LOST");
	for (i = 0; i < s.nthreads; i++) {
		const struct thread_summary *ts = &s.threads[i];
		const struct thread_info *t = ts->t;
		const char *comm = thread__comm_at(t, UINT64_MAX);
		char err[16] = "-";
		double pct;

		if (ts->exact && summary__error_pct(ts->weight_ns,
						    ts->lost.weight_ns,
						    ts->on_cpu_ns, &pct))
			snprintf(err, sizeof(err), "%+.2f", pct);
		fprintf(stderr, "%8d %-16s %10s %9llu %12s %12s %8s %7llu\n",
			t->tid, *comm ? comm : "-",
			ts->period_ns ? fmt_ns(b1, sizeof(b1), ts->period_ns) :
			"-",
			(unsigned long long)ts->samples,
			fmt_ns(b2, sizeof(b2), ts->weight_ns),
			ts->exact ? fmt_ns(b3, sizeof(b3), ts->on_cpu_ns) : "-",
			err, (unsigned long long)ts->lost.samples);
	}
	/* all that was lost, on- and off-CPU: what the [lost] samples sum */
	fprintf(stderr, "total: %llu samples, %s sampled, %llu lost (%s)\n",
		(unsigned long long)s.samples,
		fmt_ns(b1, sizeof(b1), s.weight_ns),
		(unsigned long long)s.lost.samples,
		fmt_ns(b2, sizeof(b2), s.lost.weight_ns));
	if (p->denied)
		fprintf(stderr, "denied: pid %u after %s: %s; the module ended the session\n",
			p->denied_rec.pid,
			fmt_ns(b1, sizeof(b1), profile__denied_after_ns(p)),
			tprof_denied_reason(p->denied_rec.reason));
	if (p->throttles)
		fprintf(stderr, "throttled: %s\n", report__throttle_line(p));
	if (p->stats.waker_stacks || p->stats.waker_stacks_dropped ||
	    p->wake_stacks)
		fprintf(stderr, "%s\n", report__wake_stacks_line(p));
	if (p->py.st.walks || p->py.st.orphans)
		report_python(p);
	if ((p->session.flags & TPROF_F_OFF_CPU) || s.off_samples) {
		report_off(&s);
		/* --mode wakers: after the resolve pass (report__wakers()) */
		if (!p->join_wakes)
			report_wakers(p, NULL);
	}
	report_procs(p, &s);
	summary__free(&s);
}
