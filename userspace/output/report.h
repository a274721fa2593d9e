/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tprof-read: --report (per-thread, off-CPU and per-process tables on
 * stderr) and the lines the CLI prints about a finished profile.
 */
#ifndef _TPROF_OUTPUT_REPORT_H
#define _TPROF_OUTPUT_REPORT_H

#include "model/profile.h"

struct unwinder;

/* What the module's sampling budget did to the session, in one line. */
const char *report__throttle_line(const struct profile *p);

/*
 * What was lost, in the words of one line: "N samples lost (S% of the
 * sampled time)", by output/summary.h's rule; NULL when nothing was. The
 * caller says why it thinks so.
 */
const char *report__loss_line(const struct profile *p);

/* -v: what became of the snapshots; always: USTACKs that went astray. */
void report__unwind(const struct profile *p, struct unwinder *u);

/* -v: what became of the Python walks; always: those that went astray
 * (report__unwind() says it too). */
void report__python(const struct profile *p);

/* --report: the tables, on stderr. */
void report__write(const struct profile *p);

/*
 * --report --mode wakers (p->join_wakes): the waits by waker, of the
 * resolved and named samples r, each waker thread's top release sites
 * (its stacks' first frame outside libc and ld.so) under its row; the
 * output pass calls it (output_opts.report_wakers).
 */
struct resolved;
void report__wakers(const struct profile *p, const struct resolved *r);

/* The waker stacks' counts, in one line (-v, --report). */
const char *report__wake_stacks_line(const struct profile *p);

#endif /* _TPROF_OUTPUT_REPORT_H */
