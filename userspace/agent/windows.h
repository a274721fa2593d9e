/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tprof-agent: the open windows of one session. Each HTTP request for a
 * profile is a window [t0, t1) of CLOCK_MONOTONIC, the clock of the
 * records' stamps, with an aggregation of its own (model/agg.h): the
 * session's sink adds each sample to every open window that holds its
 * time, once the shared model has unwound it. A window is encoded and
 * answered once the reader has consumed every record stamped before t1.
 */
#ifndef _TPROF_AGENT_WINDOWS_H
#define _TPROF_AGENT_WINDOWS_H

#include <stdbool.h>
#include <stdint.h>

#include "agent/http.h"
#include "model/agg.h"
#include "model/profile.h"
#include "output/write.h"

/* Records may be stamped a little before they are committed to a ring. */
#define WINDOW_SLACK_NS		5000000ULL
/* Recently closed windows remembered to count samples that came late. */
#define WINDOW_CLOSED_KEPT	16

struct window {
	struct agg agg;
	struct output_window w;
	struct http_req *q;
	uint64_t deadline_ns;	/* answered then even if the reader lags */
	bool cpu_only;		/* /debug/pprof/profile: no off-CPU samples */
	struct window *next;
};

struct windows {
	struct window *open;
	unsigned int nopen;
	struct { uint64_t t0, t1; } closed[WINDOW_CLOSED_KEPT];
	unsigned int nclosed;
	/* for /metrics */
	uint64_t served, failed, late_samples;
	uint64_t encode_ns, encodes;	/* sum and count */
	uint64_t last_encode_ns;
};

/* A window of the next @seconds from @t0_ns, answered to q. */
void windows__open(struct windows *ws, struct http_req *q, uint64_t t0_ns,
		   unsigned int seconds, bool cpu_only);
/* The session's sink: a sample and a LOST record (model/profile.h). */
void windows__sample(struct windows *ws, const struct agg_sample *s,
		     uint64_t time_ns);
void windows__lost(struct windows *ws, uint64_t time_ns, uint64_t samples,
		   uint64_t weight_ns);
/*
 * Encode and answer each window whose records are all in: consumed_to_ns
 * past its end (with WINDOW_SLACK_NS), its deadline passed, or with
 * @ended every window (the session is over: a window is cut where the
 * stream ended).
 */
void windows__close_due(struct windows *ws, const struct profile *p,
			const struct output_env *env, uint64_t now_ns,
			uint64_t consumed_to_ns, bool ended);
/* ms until the next deadline (-1: none open). */
int windows__timeout_ms(const struct windows *ws, uint64_t now_ns);

#endif /* _TPROF_AGENT_WINDOWS_H */
