/* SPDX-License-Identifier: GPL-2.0 */
/* tprof-read and tprof-agent: the command lines: options, their checks, --help. */
#ifndef _TPROF_OPTIONS_H
#define _TPROF_OPTIONS_H

#include <stdbool.h>

#include "live/loop.h"

struct options {
	struct live_opts live;		/* -p, -- CMD, and a session's own */
	const char *output;		/* NULL = stdout */
	const char *input;		/* replay instead of /dev/tprof */
	const char *save_raw;
	const char *format;		/* --format (NULL: pprof) */
	bool report;
	bool no_symbolize;
	bool debuginfod;		/* ask DEBUGINFOD_URLS for debug info */
	const char *kallsyms;
	bool kallsyms_given;		/* --kallsyms: over a recorded one */
	const char *live_opt;		/* first option --input cannot honour */
};

/*
 * Parse argv into o (defaults first). --help and --version print and
 * exit 0; 0, or -EINVAL after one line on stderr (exit status 2).
 */
int options__parse(struct options *o, int argc, char **argv);

/* tprof-agent's command line: a live session's options and its own. */
struct agent_options {
	struct live_opts live;		/* -p, and how it samples */
	const char *listen;		/* ADDR:PORT */
	unsigned int max_seconds;	/* the longest window a request gets */
	unsigned int max_objects;	/* objects cached (evict.h), at most */
	bool no_symbolize;
};

/* As options__parse(), for tprof-agent. */
int options__parse_agent(struct agent_options *o, int argc, char **argv);

#endif /* _TPROF_OPTIONS_H */
