// SPDX-License-Identifier: GPL-2.0
/*
 * tprof-agent: one continuous tprof session of a process tree, served over
 * HTTP as Go's net/http/pprof serves a program's own profile. It is
 * tprof-read's live session (live/loop.c) with hooks: the HTTP daemon's fd
 * in the loop's poll(), the model's samples handed to the open windows
 * (agent/windows.c) instead of one whole-session aggregation, each window
 * encoded by the same passes as tprof-read's output (output/write.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/evict.h"
#include "agent/http.h"
#include "agent/metrics.h"
#include "agent/windows.h"
#include "analyze/unwind.h"
#include "lib/parse.h"
#include "lib/util.h"
#include "live/loop.h"
#include "live/recorder.h"
#include "object/ksyms.h"
#include "object/object.h"
#include "object/symbols.h"
#include "options.h"
#include "output/write.h"

struct agent {
	struct agent_options o;
	struct profile prof;
	struct unwinder *unwind;
	struct objects *objects;
	struct recorder rc;
	struct live live;
	struct http *http;
	struct windows ws;
	struct evict ev;
	struct output_env env;
	char root[64];
	bool ksyms_tried;
};


/* ---- the model's sink ---- */

static void sink_sample(void *ctx, const struct profile *p,
			const struct agg_sample *s, uint64_t time_ns)
{
	struct agent *a = ctx;

	(void)p;
	windows__sample(&a->ws, s, time_ns);
}

static void sink_lost(void *ctx, const struct profile *p, uint64_t time_ns,
		      uint64_t samples, uint64_t weight_ns)
{
	struct agent *a = ctx;

	(void)p;
	windows__lost(&a->ws, time_ns, samples, weight_ns);
}

/* ---- routes ---- */

/* ?seconds=N as Go reads it: absent is 30; else a whole number in range. */
static int window_seconds(struct agent *a, struct http_req *q,
			  unsigned int *seconds)
{
	const char *arg = http__arg(q, "seconds");
	unsigned long long v;

	if (!arg) {
		*seconds = a->o.max_seconds < 30 ? a->o.max_seconds : 30;
		return 0;
	}
	if (parse_uint(arg, UINT32_MAX, &v) || !v) {
		http__error(q, 400, "seconds=%.64s: expected a whole number of seconds from 1 to %u",
			    arg, a->o.max_seconds);
		return -EINVAL;
	}
	if (v > a->o.max_seconds) {
		http__error(q, 400, "seconds=%llu: more than this agent serves (--max-seconds %u)",
			    v, a->o.max_seconds);
		return -EINVAL;
	}
	*seconds = v;
	return 0;
}

static void open_window(struct agent *a, struct http_req *q, bool cpu_only)
{
	unsigned int seconds;

	if (window_seconds(a, q, &seconds))
		return;
	windows__open(&a->ws, q, now_ns(CLOCK_MONOTONIC), seconds, cpu_only);
}

static void on_profile(void *ctx, struct http_req *q)
{
	struct agent *a = ctx;

	open_window(a, q, true);
}

static void on_wall(void *ctx, struct http_req *q)
{
	struct agent *a = ctx;

	if (a->o.live.mode != LIVE_WALL) {
		http__error(q, 404, "/debug/pprof/wall: this agent samples CPU time only (--mode wall for off-CPU time)");
		return;
	}
	open_window(a, q, false);
}

static void on_metrics(void *ctx, struct http_req *q)
{
	struct agent *a = ctx;
	size_t len;
	char *text = metrics__text(&a->prof, &a->ws, &a->ev, &len);

	http__reply(q, 200, "text/plain; version=0.0.4; charset=utf-8", text,
		    len, NULL);
}

/* what kind of target: pid, cgroup, all (of the cgroup v2 root) */
static const char *target_kind(const struct agent *a)
{
	if (a->o.live.all)
		return "all";
	return a->o.live.cgroup ? "cgroup" : "pid";
}

/* -p's pid or --cgroup's path, as text (the index page, the first line) */
static const char *target_name(struct agent *a)
{
	static char pid[16];

	if (a->o.live.cgroup)
		return a->o.live.cgroup;
	snprintf(pid, sizeof(pid), "%d", a->o.live.pid);
	return pid;
}

static void on_index(void *ctx, struct http_req *q)
{
	struct agent *a = ctx;
	char *page = xmalloc(2048);
	int n;

	n = snprintf(page, 2048,
		     "<html><head><title>tprof-agent</title></head><body>\n"
		     "<p>tprof-agent: %s %s%s, %s time, one session for every request.</p>\n"
		     "<ul>\n"
		     "<li><a href=\"profile?seconds=30\">profile</a>: CPU time of the next N seconds (?seconds=N, at most %u)</li>\n"
		     "%s"
		     "<li><a href=\"/metrics\">/metrics</a>: the session's counts, Prometheus text</li>\n"
		     "</ul>\n</body></html>\n",
		     target_kind(a), target_name(a),
		     a->o.live.children > 0 ? " and its children" : "",
		     a->o.live.mode == LIVE_WALL ? "on- and off-CPU" : "CPU",
		     a->o.max_seconds,
		     a->o.live.mode == LIVE_WALL ?
		     "<li><a href=\"wall?seconds=30\">wall</a>: on- and off-CPU time of the next N seconds</li>\n" : "");
	http__reply(q, 200, "text/html; charset=utf-8", page,
		    n < 2048 ? (size_t)n : 2047, NULL);
}

static const struct http_route routes[] = {
	{ "/debug/pprof/profile", on_profile },
	{ "/debug/pprof/wall", on_wall },
	{ "/debug/pprof/", on_index },
	{ "/debug/pprof", on_index },
	{ "/metrics", on_metrics },
	{ NULL, NULL },
};

/* ---- the live loop's hooks ---- */

static int hook_fds(void *ctx, struct pollfd *pfd, int room)
{
	struct agent *a = ctx;

	return http__fds(a->http, pfd, room);
}

static int hook_timeout(void *ctx)
{
	struct agent *a = ctx;
	int h = http__timeout_ms(a->http);
	int w = windows__timeout_ms(&a->ws, now_ns(CLOCK_MONOTONIC));

	if (h < 0)
		return w;
	return w < 0 || h < w ? h : w;
}

/* What an encode needs from the session so far: its root, its kernel's
 * symbols once they are recorded. */
static void refresh_env(struct agent *a)
{
	if (a->rc.root_fd >= 0) {
		snprintf(a->root, sizeof(a->root), "/proc/self/fd/%d",
			 a->rc.root_fd);
		a->env.root = a->root;
	}
	/* the session's KALLSYMS record comes before its first sample */
	if (!a->ksyms_tried && a->env.sym && a->o.live.kernel_stacks &&
	    a->prof.kallsyms) {
		a->ksyms_tried = true;
		a->env.ksyms = output__ksyms(&a->prof, NULL, false);
	}
	/* names of JIT code (perf maps) read so far */
	profile__index(&a->prof);
}

static void close_due(struct agent *a, uint64_t now, uint64_t consumed_to,
		      bool ended)
{
	if (!a->ws.open)
		return;
	refresh_env(a);
	windows__close_due(&a->ws, &a->prof, &a->env, now, consumed_to, ended);
}

static void hook_tick(void *ctx, const struct pollfd *pfd, int n,
		      uint64_t now_ns, uint64_t consumed_to_ns)
{
	struct agent *a = ctx;

	(void)pfd;
	(void)n;
	close_due(a, now_ns, consumed_to_ns, false);
	http__run(a->http);
	/* after the closes: the horizon moves with the windows answered */
	evict__tick(&a->ev, &a->ws, now_ns, consumed_to_ns);
}

int main(int argc, char **argv)
{
	static struct agent a;
	const struct profile_sink sink = {
		.ctx = &a, .sample = sink_sample, .lost = sink_lost,
	};
	const struct live_hooks hooks = {
		.ctx = &a, .fds = hook_fds, .tick = hook_tick,
		.timeout_ms = hook_timeout,
	};
	int ret, err = 1;

	pr_prog = "tprof-agent";
	if (options__parse_agent(&a.o, argc, argv))
		return 2;
	profile__init(&a.prof);
	profile__set_sink(&a.prof, &sink);
	recorder__init(&a.rc, &a.prof);
	live__init(&a.live, &a.o.live, &a.rc);
	a.live.hooks = &hooks;
	/* its memory flat from the start: the drain's spares all now */
	a.live.whole_pool = true;
	a.objects = objects__new();
	a.live.objs = a.objects;
	a.unwind = unwinder__new(a.objects, true);
	unwinder__bound_rows(a.unwind, EVICT_CFI_ROWS);
	unwinder__attach(a.unwind, &a.prof, a.o.live.call_graph_given ?
			 (int)a.o.live.call_graph : -1);
	a.env.objects = a.objects;
	a.env.live = true;
	if (!a.o.no_symbolize)
		a.env.sym = symbolizer__new_on(a.objects);
	a.ev = (struct evict){ .p = &a.prof, .rc = &a.rc, .py = &a.live.py,
			       .u = a.unwind, .objs = a.objects,
			       .max_objects = a.o.max_objects };
	ret = http__start(&a.http, a.o.listen, routes, &a);
	if (ret) {
		err = ret == -EINVAL ? 2 : 1;	/* a bad --listen is usage */
		goto out;
	}
	fprintf(stderr, "tprof-agent: %s %s: serving http://%s/debug/pprof/ (port %u)\n",
		target_kind(&a), target_name(&a), a.o.listen,
		http__port(a.http));
	ret = live__collect(&a.live);
	/* the session is over: what the windows hold is all they get */
	close_due(&a, now_ns(CLOCK_MONOTONIC), UINT64_MAX, true);
	http__stop(a.http);
	err = ret ? 1 : 0;
out:
	recorder__free(&a.rc);
	unwinder__free(a.unwind);
	symbolizer__free(a.env.sym);
	ksyms__free(a.env.ksyms);
	objects__free(a.objects);
	profile__free(&a.prof);
	return err;
}
