// SPDX-License-Identifier: GPL-2.0
/* tprof-read and tprof-agent: the command lines: options, their checks, --help. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/parse.h"
#include "lib/util.h"
#include "options.h"
#include "output/format.h"

#ifndef TPROF_READ_VERSION
#error "TPROF_READ_VERSION: userspace/build.mk sets it from dkms.conf"
#endif
/* tprof.ko refuses longer periods (TPROF_MAX_PERIOD_NS in kmod/tprof.h) */
#define MAX_PERIOD_NS (100ULL * 1000000000ULL)

static const char *argp_usage =
"Usage: tprof-read [options] -p PID\n"
"       tprof-read [options] --cgroup PATH\n"
"       tprof-read [options] --all\n"
"       tprof-read [options] -- CMD [ARGS...]\n"
"       tprof-read [options] --input FILE\n"
"\n"
"Profile every thread of a process by its own CPU time (tprof.ko) and write\n"
"a symbolized, gzipped pprof profile.\n"
"\n"
"  -p, --pid PID              attach: all threads, current and future, until the\n"
"                             process exits, -d expires or SIGINT/SIGTERM\n"
"  -- CMD [ARGS...]           launch: profile CMD from its first instruction\n"
"                             until it and its children exit; exit with CMD's\n"
"                             status\n"
"      --children             also every process the target forks, and theirs\n"
"                             (with -p: and the ones it has); the default with\n"
"                             -- CMD\n"
"      --no-children          the target process alone\n"
"      --cgroup PATH          every process of a cgroup v2 directory and\n"
"                             its subtree: those there, forked or moved in\n"
"                             (one moved out stops being sampled); until -d\n"
"                             expires or SIGINT/SIGTERM; root or CAP_PERFMON\n"
"      --all                  every process (not kernel threads): --cgroup of\n"
"                             the cgroup v2 root; root or CAP_PERFMON\n"
"      --mode MODE            what is sampled: cpu (default), off-cpu (where\n"
"                             threads wait: asleep, in uninterruptible I/O,\n"
"                             or preempted; -sample_index=off_cpu), wall\n"
"                             (both: on- plus off-CPU is each thread's life)\n"
"                             or wakers (off-CPU waits by the stack of the\n"
"                             thread that ended them, the release site:\n"
"                             wait/nanoseconds; also with --input)\n"
"      --off-cpu-period DURATION  off-CPU sampling period (default: the\n"
"                             CPU period)\n"
"  -o, --output FILE          gzipped pprof (default: stdout, never a terminal)\n"
"      --format FORMAT        pprof (default), or folded: collapsed stacks,\n"
"                             one line per stack (FlameGraph, speedscope);\n"
"                             folded:VALUE picks the value (see the man page);\n"
"                             folded:wakers: waiter;--;waker lines (--mode\n"
"                             wakers)\n"
"  -d, --duration SECONDS     stop after this long\n"
"  -F, --frequency HZ         samples per second of each thread's CPU time\n"
"                             (default 1000)\n"
"      --period DURATION      the same as a period: 250us, 1ms, ...\n"
"      --thread-period TID=DURATION  per-thread period (repeatable)\n"
"      --kernel-stacks        include kernel frames (root or CAP_PERFMON)\n"
"      --kallsyms FILE        kernel symbols from FILE, not /proc/kallsyms\n"
"                             (with --input: not the recorded ones)\n"
"      --max-frames N         user stack depth (default 127, at most 512)\n"
"      --call-graph MODE      how user stacks are unwound:\n"
"                             hybrid[=BYTES] (default): a small snapshot of\n"
"                               the stack (1024 bytes) unwound with the\n"
"                               binaries' CFI, then the frame-pointer chain;\n"
"                               gives frameless leaf functions their caller;\n"
"                               8K for a CPython target (its C frames are\n"
"                               large), unless --call-graph is given\n"
"                             dwarf[=BYTES]: CFI only, 8K snapshot (code\n"
"                               without frame pointers; up to 65528)\n"
"                             fp: the frame-pointer chain only\n"
"                             (with --input: unwind the saved snapshots so)\n"
"      --ring-bytes N         per-CPU ring size: a power of two, 4096 to 64M\n"
"                             (suffixes K, M: 256K, 64M)\n"
"      --report               per-thread table on stderr\n"
"      --input FILE           read a saved raw record stream, not /dev/tprof\n"
"      --save-raw FILE        also write the raw record stream to FILE\n"
"      --no-symbolize         leave addresses for pprof to symbolize\n"
"      --debuginfod           debug info by build-id from the servers in\n"
"                             DEBUGINFOD_URLS when no local file has it\n"
"      --device PATH          default /dev/tprof\n"
"  -v, --verbose              debug output on stderr\n"
"  -h, --help                 this help\n"
"      --version              print the version\n"
"\n"
"Examples:\n"
"  tprof-read -p 1234 -d 10 -o cpu.pb.gz     # 10 s of a running process\n"
"  tprof-read -o cpu.pb.gz -- make -j8       # a whole build\n"
"  tprof-read --cgroup /sys/fs/cgroup/system.slice/nginx.service -d 30 \\\n"
"      -o nginx.pb.gz                        # a service, by its cgroup\n"
"  tprof-read -F 4000 --report -o go.pb.gz -- ./server\n"
"  tprof-read --mode wall -p 1234 -d 10 -o wall.pb.gz\n"
"  go tool pprof -sample_index=off_cpu -top wall.pb.gz\n"
"  tprof-read --mode wakers -p 1234 -d 10 -o wakers.pb.gz  # who made them wait\n"
"  go tool pprof -top cpu.pb.gz; go build -pgo=cpu.pb.gz\n";

enum {
	OPT_PERIOD = 256, OPT_THREAD_PERIOD, OPT_KERNEL, OPT_REPORT, OPT_INPUT,
	OPT_SAVE_RAW, OPT_NO_SYM, OPT_DEVICE, OPT_VERSION, OPT_MAX_FRAMES,
	OPT_RING, OPT_KALLSYMS, OPT_DEBUGINFOD, OPT_CALL_GRAPH, OPT_CHILDREN,
	OPT_NO_CHILDREN, OPT_MODE, OPT_OFF_PERIOD, OPT_FORMAT, OPT_LISTEN,
	OPT_MAX_SECONDS, OPT_MAX_OBJECTS, OPT_CGROUP, OPT_ALL,
};

static const struct option long_opts[] = {
	{ "pid", required_argument, NULL, 'p' },
	{ "output", required_argument, NULL, 'o' },
	{ "duration", required_argument, NULL, 'd' },
	{ "frequency", required_argument, NULL, 'F' },
	{ "period", required_argument, NULL, OPT_PERIOD },
	{ "thread-period", required_argument, NULL, OPT_THREAD_PERIOD },
	{ "kernel-stacks", no_argument, NULL, OPT_KERNEL },
	{ "report", no_argument, NULL, OPT_REPORT },
	{ "input", required_argument, NULL, OPT_INPUT },
	{ "save-raw", required_argument, NULL, OPT_SAVE_RAW },
	{ "no-symbolize", no_argument, NULL, OPT_NO_SYM },
	{ "device", required_argument, NULL, OPT_DEVICE },
	{ "max-frames", required_argument, NULL, OPT_MAX_FRAMES },
	{ "ring-bytes", required_argument, NULL, OPT_RING },
	{ "kallsyms", required_argument, NULL, OPT_KALLSYMS },
	{ "debuginfod", no_argument, NULL, OPT_DEBUGINFOD },
	{ "call-graph", required_argument, NULL, OPT_CALL_GRAPH },
	{ "children", no_argument, NULL, OPT_CHILDREN },
	{ "no-children", no_argument, NULL, OPT_NO_CHILDREN },
	{ "cgroup", required_argument, NULL, OPT_CGROUP },
	{ "all", no_argument, NULL, OPT_ALL },
	{ "mode", required_argument, NULL, OPT_MODE },
	{ "off-cpu-period", required_argument, NULL, OPT_OFF_PERIOD },
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "verbose", no_argument, NULL, 'v' },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, OPT_VERSION },
	{ 0 },
};

/* --version: this release, the module ABI it speaks, and the loaded module. */
static void print_version(const char *prog)
{
	char loaded[64] = "";
	FILE *f;

	printf("%s %s (tprof.ko ABI %d)\n", prog, TPROF_READ_VERSION,
	       TPROF_ABI_VERSION);
	f = fopen("/sys/module/tprof/version", "r");
	if (f && fgets(loaded, sizeof(loaded), f)) {
		loaded[strcspn(loaded, "\n")] = '\0';
		printf("loaded tprof.ko: %s\n", loaded);
	}
	if (f)
		fclose(f);
}

/* A period option's value, within what the module takes; 0 or -EINVAL. */
static int parse_period(const char *opt, const char *arg, uint64_t *ns)
{
	if (parse_duration_ns(arg, ns) || *ns < TPROF_MIN_PERIOD_NS ||
	    *ns > MAX_PERIOD_NS) {
		pr_err("%s %s: need a duration from 10us to 100s (e.g. 250us, 1ms)",
		       opt, arg);
		return -EINVAL;
	}
	return 0;
}

/*
 * Options of a live session (sampling, the device): remember the first one
 * given, so --input can refuse it by name rather than ignore it.
 */
static void note_live_opt(struct options *o, int c, int idx)
{
	static char name[32];

	if (o->live_opt)
		return;
	switch (c) {
	case 'd': case 'F': case OPT_PERIOD: case OPT_THREAD_PERIOD:
	case OPT_KERNEL: case OPT_MAX_FRAMES: case OPT_RING: case OPT_DEVICE:
	case OPT_CHILDREN: case OPT_NO_CHILDREN: case OPT_MODE:
	case OPT_OFF_PERIOD:
		if (idx >= 0)
			snprintf(name, sizeof(name), "--%s", long_opts[idx].name);
		else
			snprintf(name, sizeof(name), "-%c", c);
		o->live_opt = name;
		break;
	default:
		break;
	}
}

/* --call-graph fp | hybrid[=BYTES] | dwarf[=BYTES], as perf spells it */
static int parse_call_graph(struct live_opts *l, const char *arg)
{
	const char *eq = strchr(arg, '=');
	size_t len = eq ? (size_t)(eq - arg) : strlen(arg);
	unsigned long long v;

	if (len == 2 && !strncmp(arg, "fp", 2) && !eq)
		l->call_graph = UNWIND_FP;
	else if (len == 6 && !strncmp(arg, "hybrid", 6))
		l->call_graph = UNWIND_HYBRID;
	else if (len == 5 && !strncmp(arg, "dwarf", 5))
		l->call_graph = UNWIND_DWARF;
	else
		goto err;
	l->call_graph_given = true;
	l->snapshot_bytes = 0;
	if (!eq)
		return 0;
	if (parse_size(eq + 1, TPROF_MAX_SNAPSHOT_BYTES, &v) || !v || v % 8)
		goto err;
	l->snapshot_bytes = v;
	return 0;
err:
	pr_err("--call-graph %s: expected fp, hybrid[=BYTES] or dwarf[=BYTES] (BYTES a multiple of 8, at most %u)",
	       arg, TPROF_MAX_SNAPSHOT_BYTES);
	return -EINVAL;
}


/* --thread-period TID=DURATION (repeatable) */
static int parse_thread_period(struct live_opts *l, char *arg)
{
	char *eq = strchr(arg, '=');
	unsigned long long v;
	uint64_t ns;

	if (l->ntperiods == LIVE_MAX_THREAD_PERIODS) {
		pr_err("--thread-period: at most %d", LIVE_MAX_THREAD_PERIODS);
		return -EINVAL;
	}
	if (!eq) {
		pr_err("--thread-period %s: expected TID=DURATION", arg);
		return -EINVAL;
	}
	*eq = 0;
	if (parse_uint(arg, INT_MAX, &v) || !v ||
	    parse_duration_ns(eq + 1, &ns) ||
	    ns < TPROF_MIN_PERIOD_NS || ns > MAX_PERIOD_NS) {
		*eq = '=';
		pr_err("--thread-period %s: expected TID=DURATION (10us to 100s)",
		       arg);
		return -EINVAL;
	}
	*eq = '=';
	l->tperiods[l->ntperiods].tid = v;
	l->tperiods[l->ntperiods++].period_ns = ns;
	return 0;
}

/* --mode cpu | off-cpu | wall | wakers */
static int parse_mode(struct live_opts *l, const char *arg)
{
	l->mode_given = true;
	if (!strcmp(arg, "wakers")) {
		l->mode = LIVE_WAKERS;
	} else if (!strcmp(arg, "cpu")) {
		l->mode = LIVE_CPU;
	} else if (!strcmp(arg, "off-cpu")) {
		l->mode = LIVE_OFF_CPU;
	} else if (!strcmp(arg, "wall")) {
		l->mode = LIVE_WALL;
	} else {
		pr_err("--mode %s: expected cpu, off-cpu, wall or wakers", arg);
		return -EINVAL;
	}
	return 0;
}

/*
 * An option of how the session samples (the period, the stacks, the ring):
 * 0, -EINVAL after one line, or 1 when c is not one of them.
 */
static int parse_sampling(struct live_opts *l, int c, char *arg)
{
	unsigned long long v;

	switch (c) {
	case 'F':
		if (parse_uint(arg, 100000, &v) || !v) {
			pr_err("-F %s: frequency must be 1..100000 Hz", arg);
			return -EINVAL;
		}
		l->period_ns = 1000000000ULL / v;
		return 0;
	case OPT_PERIOD:
		return parse_period("--period", arg, &l->period_ns);
	case OPT_THREAD_PERIOD:
		return parse_thread_period(l, arg);
	case OPT_OFF_PERIOD:
		return parse_period("--off-cpu-period", arg, &l->off_period_ns);
	case OPT_MODE:
		return parse_mode(l, arg);
	case OPT_CALL_GRAPH:
		return parse_call_graph(l, arg);
	case OPT_MAX_FRAMES:
		if (parse_uint(arg, TPROF_MAX_USER_FRAMES, &v) || !v) {
			pr_err("--max-frames %s: 1..%d", arg,
			       TPROF_MAX_USER_FRAMES);
			return -EINVAL;
		}
		l->max_frames = v;
		return 0;
	case OPT_RING:
		if (parse_size(arg, 64ULL << 20, &v) || v < 4096 ||
		    (v & (v - 1))) {
			pr_err("--ring-bytes %s: a power of two from 4096 to 64M (suffixes K, M)",
			       arg);
			return -EINVAL;
		}
		l->ring_bytes = v;
		return 0;
	default:
		return 1;
	}
}

/* The options of a live session: 0, -EINVAL, or 1 when c is not one. */
static int parse_live(struct live_opts *l, int c, char *arg)
{
	unsigned long long v;

	switch (c) {
	case 'p':
		if (parse_uint(arg, INT_MAX, &v) || !v) {
			pr_err("-p %s: not a pid", arg);
			return -EINVAL;
		}
		l->pid = v;
		return 0;
	case 'd':
		if (parse_decimal(arg, &l->duration_s) ||
		    !(l->duration_s > 0 && l->duration_s < 1e9)) {
			pr_err("-d %s: not a positive number of seconds", arg);
			return -EINVAL;
		}
		return 0;
	case OPT_KERNEL:
		l->kernel_stacks = true;
		return 0;
	case OPT_DEVICE:
		l->device = arg;
		return 0;
	case OPT_CHILDREN:
		l->children = 1;
		return 0;
	case OPT_NO_CHILDREN:
		l->children = 0;
		return 0;
	case OPT_CGROUP:
		l->cgroup = arg;
		return 0;
	case OPT_ALL:
		l->all = true;
		return 0;
	default:
		return parse_sampling(l, c, arg);
	}
}

/* The options of the output and the replay: 0, -EINVAL or 1 (not one). */
static int parse_output(struct options *o, int c, char *arg)
{
	switch (c) {
	case 'o':
		o->output = arg;
		return 0;
	case OPT_FORMAT:
		if (!output__format(arg, NULL)) {
			pr_err("--format %s: expected %s", arg,
			       output__format_list());
			return -EINVAL;
		}
		o->format = arg;
		return 0;
	case OPT_REPORT:
		o->report = true;
		return 0;
	case OPT_INPUT:
		o->input = arg;
		return 0;
	case OPT_SAVE_RAW:
		o->save_raw = arg;
		return 0;
	case OPT_NO_SYM:
		o->no_symbolize = true;
		return 0;
	case OPT_DEBUGINFOD:
		o->debuginfod = true;
		return 0;
	case OPT_KALLSYMS:
		o->kallsyms = arg;
		o->kallsyms_given = true;
		return 0;
	default:
		return 1;
	}
}

/*
 * --all: a cgroup session of the root of the cgroup v2 hierarchy this
 * process sees (every process in it, and in its namespace, as the module
 * follows a cgroup's subtree), so the session is --cgroup's; 0 or -errno
 * with one line.
 */
static int resolve_all(struct live_opts *l)
{
	static char root[PATH_MAX];
	int ret;

	if (!l->all)
		return 0;
	if (l->cgroup) {
		pr_err("--all and --cgroup %s: give one of them", l->cgroup);
		return -EINVAL;
	}
	ret = cgroup2_root(root, sizeof(root));
	if (ret) {
		pr_err("--all: %s",
		       ret == -ENOENT ? "no cgroup v2 hierarchy is mounted (mount -t cgroup2 none /sys/fs/cgroup)"
				      : strerror(-ret));
		return ret;
	}
	l->cgroup = root;
	return 0;
}

/*
 * --mode wakers and its outputs: the wakers pprof unless folded:wakers
 * is asked; folded:wakers alone implies the mode. 0 or -EINVAL.
 */
static int check_wakers(struct options *o)
{
	const char *value = NULL;
	bool wakers_format;

	output__format(o->format, &value);
	wakers_format = value && !strcmp(value, "wakers");
	if (wakers_format && o->live.mode_given &&
	    o->live.mode != LIVE_WAKERS) {
		pr_err("--format %s: the waits by waker (--mode wakers), not another --mode",
		       o->format);
		return -EINVAL;
	}
	if (wakers_format) {
		o->live.mode = LIVE_WAKERS;
		return 0;
	}
	if (o->live.mode != LIVE_WAKERS)
		return 0;
	if (o->format && !wakers_format) {
		pr_err("--mode wakers: writes pprof (the default) or --format folded:wakers, not %s",
		       o->format);
		return -EINVAL;
	}
	o->format = "pprof:wakers";
	return 0;
}

/* What the options say together: one mode, nothing --input ignores. */
static int check_combination(const struct options *o)
{
	if (!!o->live.pid + !!o->live.argv + !!o->live.cgroup + !!o->input !=
	    1) {
		pr_err("need exactly one of -p PID, --cgroup PATH, --all, -- CMD, or --input FILE (see --help)");
		return -EINVAL;
	}
	if (o->live.cgroup && o->live.children >= 0) {
		pr_err("%s: --children and --no-children do not apply",
		       o->live.all ? "--all follows every process"
				   : "--cgroup follows the cgroup's processes");
		return -EINVAL;
	}
	/* an option that would change nothing is a mistake worth a stop */
	if (o->input && o->live_opt) {
		pr_err("--input replays a saved stream: %s does not apply",
		       o->live_opt);
		return -EINVAL;
	}
	if (o->input && o->live.snapshot_bytes) {
		pr_err("--input replays a saved stream: the snapshot size of --call-graph does not apply (give the mode alone)");
		return -EINVAL;
	}
	return 0;
}

int options__parse(struct options *o, int argc, char **argv)
{
	int c, idx = -1, ret;

	memset(o, 0, sizeof(*o));
	o->live.device = TPROF_DEVICE;
	o->live.call_graph = UNWIND_HYBRID;
	o->live.children = -1;
	o->kallsyms = "/proc/kallsyms";
	while ((c = getopt_long(argc, argv, "+p:o:d:F:vh", long_opts, &idx)) !=
	       -1) {
		/* --mode wakers also names the output of a replay */
		if (c != OPT_MODE || strcmp(optarg, "wakers"))
			note_live_opt(o, c, idx);
		idx = -1;
		ret = parse_live(&o->live, c, optarg);
		if (ret > 0)
			ret = parse_output(o, c, optarg);
		if (ret < 0)
			return ret;
		if (!ret)
			continue;
		switch (c) {
		case 'v':
			tprof_verbose++;
			break;
		case 'h':
			fputs(argp_usage, stdout);
			exit(0);
		case OPT_VERSION:
			print_version("tprof-read");
			exit(0);
		default:
			fputs("Try 'tprof-read --help'.\n", stderr);
			return -EINVAL;
		}
	}
	if (optind < argc)
		o->live.argv = argv + optind;
	ret = resolve_all(&o->live);
	if (!ret)
		ret = check_wakers(o);
	return ret ? ret : check_combination(o);
}

/* ---- tprof-agent ---- */

static const char *agent_usage =
"Usage: tprof-agent [options] -p PID\n"
"       tprof-agent [options] --cgroup PATH\n"
"       tprof-agent [options] --all\n"
"\n"
"Profile a process and its children, or a cgroup's processes, continuously\n"
"(tprof.ko) and serve\n"
"windows of the session over HTTP, as Go's net/http/pprof does:\n"
"  GET /debug/pprof/profile?seconds=N   gzipped pprof of the next N seconds\n"
"                                       (default 30): CPU time\n"
"  GET /debug/pprof/wall?seconds=N      the same with off-CPU time (--mode wall)\n"
"  GET /debug/pprof/                    an index\n"
"  GET /metrics                         Prometheus text: samples, losses, the\n"
"                                       agent's memory, files and scrapes\n"
"Any number of scrapers share one session: a request costs no sampling.\n"
"\n"
"      --listen ADDR:PORT     where to serve (default 127.0.0.1:6060; [::1]:PORT;\n"
"                             port 0: any free one). Profiles hold paths and\n"
"                             symbol names: serve beyond loopback only behind\n"
"                             a proxy that authenticates (README)\n"
"      --max-seconds N        the longest window a request may ask (default 300)\n"
"      --max-objects N        binaries cached (symbols, CFI) past those that\n"
"                             live processes map, least recently used first\n"
"                             (default 256)\n"
"  -p, --pid PID              the process to follow, until it exits or\n"
"                             SIGINT/SIGTERM\n"
"      --cgroup PATH          every process of a cgroup v2 directory and\n"
"                             below, those that join it later too, until\n"
"                             SIGINT/SIGTERM (root or CAP_PERFMON): a\n"
"                             systemd unit's or a container's\n"
"      --all                  every process (not kernel threads), root or\n"
"                             CAP_PERFMON\n"
"      --no-children          the process alone, not what it forks\n"
"      --mode MODE            cpu (default) or wall (also off-CPU time)\n"
"      --off-cpu-period DURATION  off-CPU sampling period (default: the\n"
"                             CPU period)\n"
"  -F, --frequency HZ         samples per second of each thread's CPU time\n"
"                             (default 1000)\n"
"      --period DURATION      the same as a period: 250us, 1ms, ...\n"
"      --kernel-stacks        include kernel frames (root or CAP_PERFMON)\n"
"      --max-frames N         user stack depth (default 127, at most 512)\n"
"      --call-graph MODE      hybrid[=BYTES] (default), dwarf[=BYTES] or fp\n"
"                             (tprof-read(1))\n"
"      --ring-bytes N         per-CPU ring size: a power of two, 4096 to 64M\n"
"      --no-symbolize         leave addresses for pprof to symbolize\n"
"      --device PATH          default /dev/tprof\n"
"  -v, --verbose              debug output on stderr\n"
"  -h, --help                 this help\n"
"      --version              print the version\n"
"\n"
"Example:\n"
"  tprof-agent -p $(pidof server) &\n"
"  go tool pprof -top http://127.0.0.1:6060/debug/pprof/profile?seconds=10\n";

/* tprof-read's options that tprof-agent takes too, and its own two. */
static const char *const agent_shared[] = {
	"pid", "cgroup", "all", "children", "no-children", "mode", "off-cpu-period",
	"frequency", "period", "kernel-stacks", "max-frames", "ring-bytes",
	"call-graph", "no-symbolize", "device", "verbose", "help", "version",
};

static void agent_options_table(struct option *t)
{
	size_t i, j, n = 0;

	t[n++] = (struct option){ "listen", required_argument, NULL,
				  OPT_LISTEN };
	t[n++] = (struct option){ "max-seconds", required_argument, NULL,
				  OPT_MAX_SECONDS };
	t[n++] = (struct option){ "max-objects", required_argument, NULL,
				  OPT_MAX_OBJECTS };
	for (i = 0; long_opts[i].name; i++)
		for (j = 0; j < ARRAY_SIZE(agent_shared); j++)
			if (!strcmp(long_opts[i].name, agent_shared[j]))
				t[n++] = long_opts[i];
	t[n] = (struct option){ 0 };
}

int options__parse_agent(struct agent_options *o, int argc, char **argv)
{
	struct option opts[ARRAY_SIZE(long_opts) + 3];
	unsigned long long v;
	int c, ret;

	memset(o, 0, sizeof(*o));
	o->live.device = TPROF_DEVICE;
	o->live.call_graph = UNWIND_HYBRID;
	o->live.children = 1;
	o->listen = "127.0.0.1:6060";
	o->max_seconds = 300;
	o->max_objects = 256;
	agent_options_table(opts);
	while ((c = getopt_long(argc, argv, "p:F:vh", opts, NULL)) != -1) {
		ret = parse_live(&o->live, c, optarg);
		if (ret < 0)
			return ret;
		if (!ret)
			continue;
		switch (c) {
		case OPT_LISTEN:
			o->listen = optarg;
			break;
		case OPT_MAX_SECONDS:
			if (parse_uint(optarg, 86400, &v) || !v) {
				pr_err("--max-seconds %s: 1..86400", optarg);
				return -EINVAL;
			}
			o->max_seconds = v;
			break;
		case OPT_MAX_OBJECTS:
			if (parse_uint(optarg, 1000000, &v) || !v) {
				pr_err("--max-objects %s: 1..1000000", optarg);
				return -EINVAL;
			}
			o->max_objects = v;
			break;
		case OPT_NO_SYM:
			o->no_symbolize = true;
			break;
		case 'v':
			tprof_verbose++;
			break;
		case 'h':
			fputs(agent_usage, stdout);
			exit(0);
		case OPT_VERSION:
			print_version("tprof-agent");
			exit(0);
		default:
			fputs("Try 'tprof-agent --help'.\n", stderr);
			return -EINVAL;
		}
	}
	if (optind < argc) {
		pr_err("%s: unexpected argument (see --help)", argv[optind]);
		return -EINVAL;
	}
	ret = resolve_all(&o->live);
	if (ret)
		return ret;
	if (!!o->live.pid + !!o->live.cgroup != 1) {
		pr_err("need exactly one of -p PID, --cgroup PATH or --all (see --help)");
		return -EINVAL;
	}
	/* a cgroup session follows the cgroup's processes, not a tree */
	if (o->live.cgroup)
		o->live.children = -1;
	if (o->live.mode == LIVE_OFF_CPU || o->live.mode == LIVE_WAKERS) {
		pr_err("--mode %s: the agent serves cpu or wall (its /debug/pprof/wall has the off-CPU time)",
		       o->live.mode == LIVE_WAKERS ? "wakers" : "off-cpu");
		return -EINVAL;
	}
	return 0;
}
