// SPDX-License-Identifier: GPL-2.0
/* tprof-read: turn tprof records into a symbolized, gzipped pprof profile. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "analyze/resolve.h"
#include "analyze/symbolize.h"
#include "analyze/unwind.h"
#include "lib/outfile.h"
#include "lib/parse.h"
#include "lib/util.h"
#include "live/launch.h"
#include "live/perfmap_follow.h"
#include "live/session.h"
#include "live/target_files.h"
#include "model/profile.h"
#include "object/debuginfod.h"
#include "object/symbols.h"
#include "output/report.h"
#include "output/write.h"
#include "stream/records.h"

#ifndef TPROF_READ_VERSION
#error "TPROF_READ_VERSION: userspace/build.mk sets it from dkms.conf"
#endif
#define MAX_THREAD_PERIODS 256
/*
 * The default (hybrid) snapshot: enough for the return address of the
 * interrupted function when it has no frame of its own. Measured over the
 * CFI of libc, libstdc++, libm, Go and the test programs
 * (docs/unwinding.md): 1024 bytes hold it for 99.07% of their frameless
 * functions wherever they are interrupted (512: 98.67%).
 */
#define HYBRID_SNAPSHOT_BYTES 1024
/* tprof.ko refuses longer periods (TPROF_MAX_PERIOD_NS in kmod/tprof.h) */
#define MAX_PERIOD_NS (100ULL * 1000000000ULL)

static struct env {
	int pid;
	char **argv;			/* launch mode */
	const char *output;		/* NULL = stdout */
	const char *input;		/* replay instead of /dev/tprof */
	const char *save_raw;
	const char *device;
	double duration_s;
	uint64_t period_ns;
	struct { int tid; uint64_t period_ns; } tperiods[MAX_THREAD_PERIODS];
	int ntperiods;
	bool kernel_stacks;
	int children;			/* -1: launch yes, -p no */
	enum { MODE_CPU, MODE_OFF_CPU, MODE_WALL } mode;
	uint64_t off_period_ns;		/* 0: the CPU period */
	bool report;
	bool no_symbolize;
	bool debuginfod;		/* ask DEBUGINFOD_URLS for debug info */
	unsigned int max_frames;
	unsigned int ring_bytes;
	const char *kallsyms;
	bool kallsyms_given;		/* --kallsyms: over a recorded one */
	enum unwind_mode call_graph;
	bool call_graph_given;		/* --call-graph: over a recorded one */
	unsigned int snapshot_bytes;	/* 0: the mode's default */
	const char *live_opt;		/* first option --input cannot honour */
} env = {
	.device = TPROF_DEVICE,
	.kallsyms = "/proc/kallsyms",
	.call_graph = UNWIND_HYBRID,
	.children = -1,
};

/* The last maps text read of one process, to skip repeats. */
struct last_maps {
	int pid;
	char *text;
	size_t len;
};

/* Everything one run accumulates. */
struct run {
	struct profile prof;
	struct unwinder *unwind;	/* the profile's snapshots' unwinder */
	FILE *raw;			/* --save-raw, on raw_out's temp file */
	struct outfile raw_out;
	int raw_err;
	struct session sess;
	struct launch launch;
	int target;			/* the process ENABLE named */
	bool live;
	struct last_maps *last;		/* per process followed */
	size_t nlast, caplast;
	uint64_t last_snap_ns;		/* the last read of the maps */
	uint64_t snap_gap_ns;		/* throttle of re-reads (see below) */
	int root_fd;			/* the target's root at the last read */
	int decode_err;
	bool exec_failed;		/* launch: the command could not run */
	bool denied_noted;		/* the DENIED line was printed */
	struct perfmap_follow jit;	/* the target's perf-PID.map */
	uint64_t last_jit_ns;
};

static void progress(struct run *r, uint64_t start, bool final);

static volatile sig_atomic_t stop_signal;
/* where a profile for stdout goes (launch mode moves it off fd 1) */
static int profile_fd = STDOUT_FILENO;
static int sig_pipe[2] = { -1, -1 };

static const char *argp_usage =
"Usage: tprof-read [options] -p PID\n"
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
"      --mode MODE            what is sampled: cpu (default), off-cpu (where\n"
"                             threads wait: asleep, in uninterruptible I/O,\n"
"                             or preempted; -sample_index=off_cpu) or wall\n"
"                             (both: on- plus off-CPU is each thread's life)\n"
"      --off-cpu-period DURATION  off-CPU sampling period (default: the\n"
"                             CPU period)\n"
"  -o, --output FILE          gzipped pprof (default: stdout, never a terminal)\n"
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
"                               gives frameless leaf functions their caller\n"
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
"  tprof-read -F 4000 --report -o go.pb.gz -- ./server\n"
"  tprof-read --mode wall -p 1234 -d 10 -o wall.pb.gz\n"
"  go tool pprof -sample_index=off_cpu -top wall.pb.gz\n"
"  go tool pprof -top cpu.pb.gz; go build -pgo=cpu.pb.gz\n";

enum {
	OPT_PERIOD = 256, OPT_THREAD_PERIOD, OPT_KERNEL, OPT_REPORT, OPT_INPUT,
	OPT_SAVE_RAW, OPT_NO_SYM, OPT_DEVICE, OPT_VERSION, OPT_MAX_FRAMES,
	OPT_RING, OPT_KALLSYMS, OPT_DEBUGINFOD, OPT_CALL_GRAPH, OPT_CHILDREN,
	OPT_NO_CHILDREN, OPT_MODE, OPT_OFF_PERIOD,
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
	{ "mode", required_argument, NULL, OPT_MODE },
	{ "off-cpu-period", required_argument, NULL, OPT_OFF_PERIOD },
	{ "verbose", no_argument, NULL, 'v' },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, OPT_VERSION },
	{ 0 },
};

/* --version: this release, the module ABI it speaks, and the loaded module. */
static void print_version(void)
{
	char loaded[64] = "";
	FILE *f;

	printf("tprof-read %s (tprof.ko ABI %d)\n", TPROF_READ_VERSION,
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
static void note_live_opt(int c, int idx)
{
	static char name[32];

	if (env.live_opt)
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
		env.live_opt = name;
		break;
	default:
		break;
	}
}

/* --call-graph fp | hybrid[=BYTES] | dwarf[=BYTES], as perf spells it */
static int parse_call_graph(const char *arg)
{
	const char *eq = strchr(arg, '=');
	size_t len = eq ? (size_t)(eq - arg) : strlen(arg);
	unsigned long long v;

	if (len == 2 && !strncmp(arg, "fp", 2) && !eq)
		env.call_graph = UNWIND_FP;
	else if (len == 6 && !strncmp(arg, "hybrid", 6))
		env.call_graph = UNWIND_HYBRID;
	else if (len == 5 && !strncmp(arg, "dwarf", 5))
		env.call_graph = UNWIND_DWARF;
	else
		goto err;
	env.call_graph_given = true;
	env.snapshot_bytes = 0;
	if (!eq)
		return 0;
	if (parse_size(eq + 1, TPROF_MAX_SNAPSHOT_BYTES, &v) || !v || v % 8)
		goto err;
	env.snapshot_bytes = v;
	return 0;
err:
	pr_err("--call-graph %s: expected fp, hybrid[=BYTES] or dwarf[=BYTES] (BYTES a multiple of 8, at most %u)",
	       arg, TPROF_MAX_SNAPSHOT_BYTES);
	return -EINVAL;
}

static int parse_args(int argc, char **argv)
{
	unsigned long long v;
	int c, idx = -1;

	while ((c = getopt_long(argc, argv, "+p:o:d:F:vh", long_opts, &idx)) !=
	       -1) {
		note_live_opt(c, idx);
		idx = -1;
		switch (c) {
		case 'p':
			if (parse_uint(optarg, INT_MAX, &v) || !v) {
				pr_err("-p %s: not a pid", optarg);
				return -EINVAL;
			}
			env.pid = v;
			break;
		case 'o':
			env.output = optarg;
			break;
		case 'd':
			if (parse_decimal(optarg, &env.duration_s) ||
			    !(env.duration_s > 0 && env.duration_s < 1e9)) {
				pr_err("-d %s: not a positive number of seconds", optarg);
				return -EINVAL;
			}
			break;
		case 'F':
			if (parse_uint(optarg, 100000, &v) || !v) {
				pr_err("-F %s: frequency must be 1..100000 Hz", optarg);
				return -EINVAL;
			}
			env.period_ns = 1000000000ULL / v;
			break;
		case OPT_PERIOD:
			if (parse_period("--period", optarg, &env.period_ns))
				return -EINVAL;
			break;
		case OPT_THREAD_PERIOD: {
			char *eq = strchr(optarg, '=');
			uint64_t ns;

			if (env.ntperiods == MAX_THREAD_PERIODS) {
				pr_err("--thread-period: at most %d", MAX_THREAD_PERIODS);
				return -EINVAL;
			}
			if (!eq) {
				pr_err("--thread-period %s: expected TID=DURATION", optarg);
				return -EINVAL;
			}
			*eq = 0;
			if (parse_uint(optarg, INT_MAX, &v) || !v ||
			    parse_duration_ns(eq + 1, &ns) ||
			    ns < TPROF_MIN_PERIOD_NS || ns > MAX_PERIOD_NS) {
				*eq = '=';
				pr_err("--thread-period %s: expected TID=DURATION (10us to 100s)",
				       optarg);
				return -EINVAL;
			}
			*eq = '=';
			env.tperiods[env.ntperiods].tid = v;
			env.tperiods[env.ntperiods++].period_ns = ns;
			break;
		}
		case OPT_KERNEL:
			env.kernel_stacks = true;
			break;
		case OPT_REPORT:
			env.report = true;
			break;
		case OPT_INPUT:
			env.input = optarg;
			break;
		case OPT_SAVE_RAW:
			env.save_raw = optarg;
			break;
		case OPT_NO_SYM:
			env.no_symbolize = true;
			break;
		case OPT_DEBUGINFOD:
			env.debuginfod = true;
			break;
		case OPT_DEVICE:
			env.device = optarg;
			break;
		case OPT_KALLSYMS:
			env.kallsyms = optarg;
			env.kallsyms_given = true;
			break;
		case OPT_CHILDREN:
			env.children = 1;
			break;
		case OPT_NO_CHILDREN:
			env.children = 0;
			break;
		case OPT_MODE:
			if (!strcmp(optarg, "cpu")) {
				env.mode = MODE_CPU;
			} else if (!strcmp(optarg, "off-cpu")) {
				env.mode = MODE_OFF_CPU;
			} else if (!strcmp(optarg, "wall")) {
				env.mode = MODE_WALL;
			} else {
				pr_err("--mode %s: expected cpu, off-cpu or wall",
				       optarg);
				return -EINVAL;
			}
			break;
		case OPT_OFF_PERIOD:
			if (parse_period("--off-cpu-period", optarg,
					 &env.off_period_ns))
				return -EINVAL;
			break;
		case OPT_CALL_GRAPH:
			if (parse_call_graph(optarg))
				return -EINVAL;
			break;
		case OPT_MAX_FRAMES:
			if (parse_uint(optarg, TPROF_MAX_USER_FRAMES, &v) || !v) {
				pr_err("--max-frames %s: 1..%d", optarg,
				       TPROF_MAX_USER_FRAMES);
				return -EINVAL;
			}
			env.max_frames = v;
			break;
		case OPT_RING:
			if (parse_size(optarg, 64ULL << 20, &v) || v < 4096 ||
			    (v & (v - 1))) {
				pr_err("--ring-bytes %s: a power of two from 4096 to 64M (suffixes K, M)",
				       optarg);
				return -EINVAL;
			}
			env.ring_bytes = v;
			break;
		case 'v':
			tprof_verbose++;
			break;
		case 'h':
			fputs(argp_usage, stdout);
			exit(0);
		case OPT_VERSION:
			print_version();
			exit(0);
		default:
			fputs("Try 'tprof-read --help'.\n", stderr);
			return -EINVAL;
		}
	}
	if (optind < argc)
		env.argv = argv + optind;
	if (!!env.pid + !!env.argv + !!env.input != 1) {
		pr_err("need exactly one of -p PID, -- CMD, or --input FILE (see --help)");
		return -EINVAL;
	}
	/* an option that would change nothing is a mistake worth a stop */
	if (env.input && env.live_opt) {
		pr_err("--input replays a saved stream: %s does not apply",
		       env.live_opt);
		return -EINVAL;
	}
	if (env.input && env.snapshot_bytes) {
		pr_err("--input replays a saved stream: the snapshot size of --call-graph does not apply (give the mode alone)");
		return -EINVAL;
	}
	return 0;
}

static uint64_t now_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* ---- record plumbing: every record goes to --save-raw and the profile ---- */

static void emit(struct run *r, const struct tprof_record *rec)
{
	if (r->raw && !r->raw_err &&
	    fwrite(rec->raw, rec->hdr.size, 1, r->raw) != 1)
		r->raw_err = errno ? errno : EIO;
	if (profile__add(&r->prof, rec))
		pr_debug("inconsistent %s record ignored",
			 tprof_record_type_name(rec->hdr.type));
}

/* Build a userspace pseudo-record in a malloc'd buffer and emit it. */
static void emit_urec(struct run *r, unsigned int type, const void *body,
		      size_t blen, const void *tail, size_t tlen)
{
	size_t size = (sizeof(struct tprof_rec_hdr) + blen + tlen + 7) & ~7UL;
	struct tprof_rec_hdr hdr = {
		.type = type, .size = size, .time_ns = now_ns(CLOCK_MONOTONIC),
	};
	unsigned char *buf = xcalloc(1, size);
	struct tprof_record rec;

	memcpy(buf, &hdr, sizeof(hdr));
	memcpy(buf + sizeof(hdr), body, blen);
	if (tlen)
		memcpy(buf + sizeof(hdr) + blen, tail, tlen);
	if (tprof_record_decode(buf, size, &rec) > 0)
		emit(r, &rec);
	free(buf);
}

/*
 * A VDSO record with the target's vDSO image, so that a replay on another
 * kernel (or after a reboot) does not name it from its own. Without ptrace
 * access there is none, and a replay falls back to its own kernel's image.
 */
static void record_vdso(struct run *r, const struct mapping *m)
{
	struct tprof_urec_vdso v = { .pid = m->pid, .start = m->start };
	unsigned char *img;
	size_t len;

	if (target_files__vdso(m->pid, m, &img, &len))
		return;
	v.len = len;
	emit_urec(r, TPROF_UREC_VDSO, (char *)&v + sizeof(v.hdr),
		  sizeof(v) - sizeof(v.hdr), img, len);
	free(img);
}

/*
 * A BUILDID record for each file the newest snapshot is the first to show,
 * so that a replay symbolizes from that build only; a VDSO record for a new
 * [vdso] mapping.
 */
static void record_buildids(struct run *r)
{
	struct maps *mp = &r->prof.maps;
	const struct maps_snapshot *sn;
	size_t i;

	if (!mp->nsnaps)
		return;
	sn = &mp->snaps[mp->nsnaps - 1];
	for (i = 0; i < sn->n; i++) {
		struct mapping *m = &mp->all[sn->idx[i]];
		struct tprof_urec_buildid b = { .pid = m->pid };
		unsigned char bits[BUILDID_MAX], tail[BUILDID_MAX + 4096];
		size_t plen = strlen(m->path);
		int n;

		if (m->bid_tried || m->build_id || m->image)
			continue;
		if (!strcmp(m->path, "[vdso]")) {
			m->bid_tried = true;
			record_vdso(r, m);
			continue;
		}
		if (m->path[0] != '/' || plen > 4096)
			continue;
		m->bid_tried = true;
		n = target_files__buildid(m->pid, m, bits);
		if (n < 0)
			continue;
		b.dev_major = m->dev_major;
		b.dev_minor = m->dev_minor;
		b.inode = m->inode;
		b.bid_len = n;
		b.path_len = plen;
		memcpy(tail, bits, n);
		memcpy(tail + n, m->path, plen);
		emit_urec(r, TPROF_UREC_BUILDID, (char *)&b + sizeof(b.hdr),
			  sizeof(b) - sizeof(b.hdr), tail, n + plen);
	}
}

/* Re-reads for unmapped addresses: 20 ms apart, up to 1 s while in vain. */
#define SNAP_GAP_MIN_NS 20000000ULL
#define SNAP_GAP_MAX_NS 1000000000ULL

/*
 * The target's root as of this read, held open: the symbolize pass reads the
 * target's files through it even after the target exited (a launched
 * chroot or container, whose /proc/PID/root is gone by then).
 */
static void keep_root(struct run *r)
{
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/root", r->target);
	fd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return;
	if (r->root_fd >= 0)
		close(r->root_fd);
	r->root_fd = fd;
}

static struct last_maps *last_maps_of(struct run *r, int pid)
{
	size_t i;

	for (i = r->nlast; i-- > 0;)
		if (r->last[i].pid == pid)
			return &r->last[i];
	GROW(r->last, r->caplast, r->nlast + 1);
	memset(&r->last[r->nlast], 0, sizeof(r->last[0]));
	r->last[r->nlast].pid = pid;
	return &r->last[r->nlast++];
}

/*
 * A MAPS record of pid's /proc/PID/maps, unless it is what the last one
 * said (force: even so). Returns whether one was written.
 */
static bool snapshot_maps_of(struct run *r, int pid, bool force)
{
	struct tprof_urec_maps m = { .pid = pid };
	struct last_maps *lm;
	char *text;
	size_t len;

	/* every read counts for the throttle, not only one that found a
	 * change: frames in code without frame pointers are unmapped for
	 * good, and re-reading for each cost an open per sample */
	r->last_snap_ns = now_ns(CLOCK_MONOTONIC);
	if (maps__read_proc(pid, &text, &len))
		return false;
	if (pid == r->target)
		keep_root(r);
	lm = last_maps_of(r, pid);
	if (!force && lm->text && len == lm->len &&
	    !memcmp(text, lm->text, len)) {
		free(text);
		return false;
	}
	m.len = len;
	emit_urec(r, TPROF_UREC_MAPS, (char *)&m + sizeof(m.hdr),
		  sizeof(m) - sizeof(m.hdr), text, len);
	record_buildids(r);
	free(lm->text);
	lm->text = text;
	lm->len = len;
	return true;
}

/* The target's maps (launch stops, the start). */
static bool snapshot_maps(struct run *r, bool force)
{
	return snapshot_maps_of(r, r->target, force);
}

/*
 * With kernel stacks, a KALLSYMS record: a replay after a reboot (KASLR) or
 * elsewhere names kernel frames from the session's kernel. Read before
 * ENABLE: megabytes of /proc/kallsyms, while nothing fills the rings.
 */
static void record_kallsyms(struct run *r)
{
	struct tprof_urec_kallsyms k = { 0 };
	char *text, *mods, *both;
	size_t len, mlen;
	int ret = ksyms__read(env.kallsyms, &text, &len, &mods, &mlen);

	if (ret) {
		pr_debug("%s: not recorded: %s", env.kallsyms, strerror(-ret));
		return;
	}
	if (len + mlen + sizeof(k) > TPROF_REC_MAX_SIZE) {
		pr_debug("%s: %zu bytes: not recorded", env.kallsyms, len);
		free(text);
		free(mods);
		return;
	}
	k.len = len;
	k.modules_len = mlen;
	both = xmalloc(len + mlen + 1);
	memcpy(both, text, len);
	if (mlen)
		memcpy(both + len, mods, mlen);
	emit_urec(r, TPROF_UREC_KALLSYMS, (char *)&k + sizeof(k.hdr),
		  sizeof(k) - sizeof(k.hdr), both, len + mlen);
	free(both);
	free(text);
	free(mods);
}

/*
 * PERFMAP records: what the target's JIT symbol map gained since the last
 * read, so that a replay names JIT code without the file (gone with a
 * container, rewritten, or on another machine).
 */
static void record_perfmap(struct run *r)
{
	struct tprof_urec_perfmap pm = { .pid = r->target };
	uint64_t off;
	char *text;
	size_t len;

	r->last_jit_ns = now_ns(CLOCK_MONOTONIC);
	while (perfmap_follow__read(&r->jit, &text, &len, &off) > 0) {
		pm.offset = off;
		pm.len = len;
		emit_urec(r, TPROF_UREC_PERFMAP, (char *)&pm + sizeof(pm.hdr),
			  sizeof(pm) - sizeof(pm.hdr), text, len);
		free(text);
	}
}

static void on_launch_stop(void *ctx, enum launch_event ev)
{
	struct run *r = ctx;

	pr_debug("target stopped at %s: snapshot maps",
		 ev == LAUNCH_EXEC ? "exec" : "exit");
	snapshot_maps(r, false);
	/* at exit, the last chance to read it from the target's root */
	record_perfmap(r);
}

/*
 * The module ended the session (a DENIED record): say why, once. The samples
 * before it still make the profile; the exit status does not change.
 */
static void note_denied(struct run *r, const struct tprof_rec_denied *rd)
{
	const struct tprof_rec_denied *d = &r->prof.denied_rec;

	/* a descendant's: the rest of the tree goes on */
	if ((int)rd->pid != profile__target(&r->prof)) {
		/* its name may come later: records of two CPUs interleave */
		const char *name = profile__proc_name(&r->prof, (int)rd->pid,
						      UINT64_MAX);

		progress(r, 0, true);
		pr_err("pid %u%s%s%s became non-profilable: %s; nothing more of it is recorded",
		       rd->pid, *name ? " (" : "", name, *name ? ")" : "",
		       tprof_denied_reason(rd->reason));
		return;
	}
	if (!r->prof.denied || r->denied_noted)
		return;
	r->denied_noted = true;
	progress(r, 0, true);
	pr_err("pid %u became non-profilable: %s; the session ended", d->pid,
	       tprof_denied_reason(d->reason));
}

/*
 * Decode buf[0..len) record by record. Returns bytes consumed; sets
 * r->decode_err on garbage.
 */
static size_t process_bytes(struct run *r, const unsigned char *buf,
			    size_t len, uint64_t base_off)
{
	size_t off = 0;

	while (off < len) {
		struct tprof_record rec;
		long n = tprof_record_decode(buf + off, len - off, &rec);

		if (n == -ENODATA)
			break;
		if (n < 0) {
			r->decode_err = -EINVAL;
			pr_err("%s: malformed record at offset %llu (type %u, size %u)",
			       env.input ? env.input : env.device,
			       (unsigned long long)(base_off + off),
			       rec.hdr.type, rec.hdr.size);
			return off;
		}
		/*
		 * code we have no mapping for: the process may have
		 * dlopen'ed. Reads that find nothing new double the gap to
		 * the next one (to 1 s); a change brings it back to 20 ms.
		 * Before the SAMPLE goes out: its snapshot is unwound with
		 * the maps known then, and the MAPS record must not come
		 * between it and its USTACK record.
		 */
		if (r->live && rec.hdr.type == TPROF_REC_SAMPLE &&
		    now_ns(CLOCK_MONOTONIC) - r->last_snap_ns > r->snap_gap_ns &&
		    profile__sample_unmapped(&r->prof, &rec)) {
			if (snapshot_maps_of(r, (int)rec.u.sample.pid, false))
				r->snap_gap_ns = SNAP_GAP_MIN_NS;
			else if (r->snap_gap_ns < SNAP_GAP_MAX_NS)
				r->snap_gap_ns *= 2;
		}
		emit(r, &rec);
		if (rec.hdr.type == TPROF_REC_DENIED)
			note_denied(r, &rec.u.denied);
		/* an exec, or a dlopen where other code was: the samples
		 * after it are named from a snapshot read after it; a new
		 * process of the tree: its maps, while it lives */
		if (r->live && rec.hdr.type == TPROF_REC_EXEC)
			snapshot_maps_of(r, (int)rec.u.exec.pid, false);
		else if (r->live && rec.hdr.type == TPROF_REC_MMAP &&
			 r->prof.maps_reused)
			snapshot_maps_of(r, (int)rec.u.mmap.pid, false);
		else if (r->live && rec.hdr.type == TPROF_REC_PROC &&
			 !(rec.hdr.flags & (TPROF_RF_PROC_DROPPED |
					    TPROF_RF_PROC_TOTALS))) {
			/* nothing of it comes before we prove we may see it */
			if (rec.hdr.flags & TPROF_RF_PROC_PENDING)
				session__prove(&r->sess, (int)rec.u.proc.pid);
			snapshot_maps_of(r, (int)rec.u.proc.pid, false);
		}
		r->prof.maps_reused = false;
		off += n;
	}
	return off;
}

static int replay(struct run *r)
{
	size_t cap = 1 << 20, have = 0;
	unsigned char *buf = xmalloc(cap);
	uint64_t base = 0;
	bool checked = false;
	char why[256];
	int fd, ret = 0;

	fd = open(env.input, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		pr_err("%s: %s", env.input, strerror(errno));
		free(buf);
		return ret;
	}
	for (;;) {
		ssize_t n;
		size_t used;

		if (have == cap) {
			cap *= 2;
			buf = xrealloc(buf, cap);
		}
		n = read(fd, buf + have, cap - have);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			ret = -errno;
			pr_err("%s: %s", env.input, strerror(errno));
			break;
		}
		have += n;
		/* the first record says whether this is a stream we can read */
		if (!checked) {
			int c = tprof_stream_check(buf, have, why, sizeof(why));

			if (c == -ENODATA && n > 0)
				continue;
			if (c) {
				ret = c == -ENODATA ? -EINVAL : c;
				pr_err("%s: %s", env.input, why);
				break;
			}
			checked = true;
		}
		used = process_bytes(r, buf, have, base);
		if (r->decode_err) {
			ret = r->decode_err;
			break;
		}
		memmove(buf, buf + used, have - used);
		have -= used;
		base += used;
		if (n == 0) {
			/* a writer killed mid-record: keep what came whole */
			if (have)
				pr_err("warning: %s: stream cut inside a record at offset %llu (%zu bytes dropped); the profile has the %llu whole records before it",
				       env.input, (unsigned long long)base, have,
				       (unsigned long long)r->prof.nrecords);
			break;
		}
	}
	close(fd);
	free(buf);
	if (!ret && !r->prof.have_session && r->prof.nrecords == 0) {
		pr_err("%s: no records", env.input);
		ret = -ENODATA;
	}
	return ret;
}

/* ---- live session ---- */

static volatile sig_atomic_t stop_from_user;

static void on_signal(int sig, siginfo_t *si, void *uc)
{
	int saved = errno;

	(void)uc;
	if (sig != SIGCHLD) {
		stop_signal = sig;
		/* a terminal's ^C (SI_KERNEL) reached the command already */
		stop_from_user = si && si->si_code <= 0;
	}
	if (sig_pipe[1] >= 0 && write(sig_pipe[1], "s", 1) < 0) {
		/* pipe full: a wakeup is already pending */
	}
	errno = saved;
}

static void setup_signals(void)
{
	struct sigaction sa = { .sa_sigaction = on_signal,
				.sa_flags = SA_SIGINFO };

	if (pipe2(sig_pipe, O_CLOEXEC | O_NONBLOCK))
		sig_pipe[0] = sig_pipe[1] = -1;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGCHLD, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

static void progress(struct run *r, uint64_t start, bool final)
{
	static bool shown;
	uint64_t lost;

	/* not in launch mode: the command may be writing to the terminal */
	if (!isatty(STDERR_FILENO) || tprof_verbose || env.argv)
		return;
	if (final) {
		if (shown)
			fputs("\r\033[K", stderr);
		return;
	}
	lost = r->prof.lost_samples;
	fprintf(stderr, "\r\033[Ktprof-read: %.1fs  %llu samples  %llu lost",
		(now_ns(CLOCK_MONOTONIC) - start) / 1e9,
		(unsigned long long)r->prof.sample_records,
		(unsigned long long)lost);
	shown = true;
}

static int drain(struct run *r, unsigned char *buf, size_t cap)
{
	for (;;) {
		ssize_t n = session__read(&r->sess, buf, cap);

		if (n == -EAGAIN || n == 0)
			return 0;
		if (n < 0) {
			pr_err("%s: read: %s", env.device, strerror(-n));
			return n;
		}
		if (process_bytes(r, buf, n, 0) != (size_t)n && !r->decode_err) {
			pr_err("%s: read returned a partial record", env.device);
			r->decode_err = -EPROTO;
		}
		if (r->decode_err)
			return r->decode_err;
	}
}

/*
 * ENABLE. The default mode asks for stack snapshots but does not need
 * them: when they are refused (a module that predates them says -EINVAL;
 * no ptrace-attach access, e.g. Yama's ptrace_scope, -EPERM), one line
 * says so and the session runs with frame pointers only. An explicit
 * --call-graph dwarf or hybrid fails instead.
 */
static int enable(struct run *r, struct tprof_ioc_enable *en)
{
	int ret = session__try_enable(&r->sess, en), ret2;
	char why[160];

	if (!ret || !(en->flags & TPROF_F_USER_SNAPSHOT) ||
	    env.call_graph_given ||
	    (ret != -EINVAL && ret != -EPERM && ret != -EACCES))
		goto out;
	if (ret == -EINVAL)
		snprintf(why, sizeof(why), "this tprof.ko predates them");
	else if (r->sess.mem_proof_err)
		snprintf(why, sizeof(why), "/proc/%d/mem: %s", en->pid,
			 strerror(r->sess.mem_proof_err));
	else
		snprintf(why, sizeof(why), "%s", strerror(-ret));
	en->flags &= ~(TPROF_F_USER_SNAPSHOT | TPROF_F_MEM_PROOF);
	en->snapshot_bytes = 0;
	en->mem_fd = 0;
	ret2 = session__try_enable(&r->sess, en);
	if (!ret2)
		pr_err("pid %d: no user stack snapshots (%s): frame-pointer stacks only, as with --call-graph fp",
		       en->pid, why);
	/* refused again: the first error explains it less well */
	ret = ret2;
out:
	if (ret)
		session__enable_failed(&r->sess, en, ret);
	return ret;
}

/*
 * A process tree: has every process the stream named ended (exited, left
 * or not followed)? Then the module's end of the session is near.
 */
static bool tree_done(const struct run *r)
{
	size_t i;

	for (i = 0; i < r->prof.nprocs; i++) {
		const struct proc_info *pi = &r->prof.procs[i];

		if (!pi->exited && !pi->denied && !pi->dropped)
			return false;
	}
	return true;
}

static int collect(struct run *r)
{
	struct tprof_ioc_enable en = { 0 };
	struct tprof_urec_session sess = { 0 };
	struct tprof_ioc_stats st;
	size_t cap = 4 << 20;
	unsigned char *buf = NULL;
	uint64_t start, deadline = 0, last_progress = 0, exited_at = 0;
	uint64_t nprocs, ndropped;
	int auxv_fd = -1, mem_fd = -1, ret, i;
	bool eof = false;

	ret = session__open(&r->sess, env.device);
	if (ret)
		return ret;
	setup_signals();
	if (env.argv) {
		/*
		 * Off-CPU time: a traced thread waits for us at its creation
		 * and exit, which would be the program's off-CPU time.
		 * Only the main thread then (its exit keeps the mm for the
		 * last maps; an exec from another thread goes unseen here,
		 * its EXEC record still comes).
		 */
		ret = launch__fork(&r->launch, env.argv,
				   env.mode == MODE_CPU);
		if (ret) {
			pr_err("%s: fork: %s", env.argv[0], strerror(-ret));
			goto out;
		}
		r->target = r->launch.pid;
	} else {
		r->target = env.pid;
	}
	perfmap_follow__init(&r->jit, r->target);

	en.pid = r->target;
	if (env.children > 0 || (env.children < 0 && env.argv))
		en.flags |= TPROF_F_CHILDREN;
	en.period_ns = env.period_ns;
	if (env.mode != MODE_CPU) {
		en.flags |= TPROF_F_OFF_CPU;
		en.off_cpu_period_ns = env.off_period_ns;
	}
	if (env.mode == MODE_OFF_CPU)
		en.flags |= TPROF_F_NO_CPU_SAMPLES;
	en.max_user_frames = env.max_frames;
	en.ring_bytes = env.ring_bytes;
	if (env.kernel_stacks) {
		en.flags |= TPROF_F_KERNEL_STACK;
		en.max_kernel_frames = TPROF_MAX_KERNEL_FRAMES;
	}
	if (env.call_graph != UNWIND_FP) {
		en.flags |= TPROF_F_USER_SNAPSHOT;
		en.snapshot_bytes = env.snapshot_bytes ? env.snapshot_bytes :
				    env.call_graph == UNWIND_DWARF ?
				    TPROF_DEFAULT_SNAPSHOT_BYTES :
				    HYBRID_SNAPSHOT_BYTES;
	}
	if (geteuid() != 0) {
		char path[64];

		/* procfs hands this out only after a ptrace-read check */
		snprintf(path, sizeof(path), "/proc/%d/auxv", r->target);
		auxv_fd = open(path, O_RDONLY | O_CLOEXEC);
		if (auxv_fd >= 0) {
			en.flags |= TPROF_F_AUXV_PROOF;
			en.auxv_fd = auxv_fd;
		} else {
			r->sess.proof_err = errno;
		}
		/* raw stack bytes: the proof of ptrace-attach access */
		snprintf(path, sizeof(path), "/proc/%d/mem", r->target);
		if (en.flags & TPROF_F_USER_SNAPSHOT) {
			mem_fd = open(path, O_RDONLY | O_CLOEXEC);
			if (mem_fd >= 0) {
				en.flags |= TPROF_F_MEM_PROOF;
				en.mem_fd = mem_fd;
			} else {
				r->sess.mem_proof_err = errno;
			}
		}
	}
	sess.magic = TPROF_RAW_MAGIC;
	sess.realtime_ns = now_ns(CLOCK_REALTIME);
	sess.period_ns = env.period_ns ? env.period_ns : TPROF_DEFAULT_PERIOD_NS;
	sess.pid = r->target;
	sess.flags = en.flags;
	if (env.call_graph == UNWIND_DWARF)
		sess.flags |= TPROF_SESSION_F_DWARF;
	sess.abi_version = r->sess.info.abi_version;
	sess.record_version = r->sess.info.record_version;
	emit_urec(r, TPROF_UREC_SESSION, (char *)&sess + sizeof(sess.hdr),
		  sizeof(sess) - sizeof(sess.hdr), NULL, 0);
	if (en.flags & TPROF_F_KERNEL_STACK)
		record_kallsyms(r);

	ret = enable(r, &en);
	if (auxv_fd >= 0)
		close(auxv_fd);
	if (mem_fd >= 0)
		close(mem_fd);
	if (ret) {
		if (env.argv)
			kill(r->launch.pid, SIGKILL);
		goto out;
	}
	r->live = true;
	/* a period the user asked for and did not get is an error, not a
	 * profile at the wrong rate */
	for (i = 0; i < env.ntperiods; i++) {
		ret = session__set_thread_period(&r->sess, env.tperiods[i].tid,
						 env.tperiods[i].period_ns);
		if (ret) {
			if (env.argv)
				kill(r->launch.pid, SIGKILL);
			session__disable(&r->sess);
			goto out;
		}
	}
	if (env.argv) {
		/* samples of the child before exec are tprof-read's own code */
		snapshot_maps(r, true);
		ret = launch__release(&r->launch);
		if (ret) {
			pr_err("%s: %s", env.argv[0],
			       ret == -ENOENT ? "command not found" :
			       strerror(-ret));
			r->exec_failed = true;
			session__disable(&r->sess);
			while (!launch__poll(&r->launch, NULL, NULL))
				usleep(1000);
			goto out;
		}
	} else {
		snapshot_maps(r, true);
	}

	buf = xmalloc(cap);
	start = now_ns(CLOCK_MONOTONIC);
	if (env.duration_s)
		deadline = start + (uint64_t)(env.duration_s * 1e9);
	while (!eof) {
		struct pollfd pfd[2] = {
			{ .fd = r->sess.fd, .events = POLLIN },
			{ .fd = sig_pipe[0], .events = POLLIN },
		};
		uint64_t now;
		ssize_t n;
		char junk[64];

		if (env.argv && !r->launch.exited &&
		    launch__poll(&r->launch, on_launch_stop, r))
			exited_at = now_ns(CLOCK_MONOTONIC);
		if (stop_signal) {
			if (!env.argv)
				break;
			/* launch mode: pass it on, the profile ends with CMD */
			if (stop_from_user)
				kill(r->launch.pid, stop_signal);
			stop_signal = 0;
		}
		now = now_ns(CLOCK_MONOTONIC);
		if (deadline && now >= deadline)
			break;
		/* the module reports EOF after the target (and, with
		 * children, the last process of its tree) exits and is
		 * drained; do not hang if that never comes */
		if (exited_at && now - exited_at > 2000000000ULL &&
		    (!(en.flags & TPROF_F_CHILDREN) || tree_done(r)))
			break;
		if (!env.argv && kill(r->target, 0) && errno == ESRCH &&
		    !exited_at)
			exited_at = now;
		if (now - last_progress > 500000000ULL) {
			progress(r, start, false);
			last_progress = now;
		}
		/* JIT names as they come: the file may be rewritten later */
		if (now - r->last_jit_ns > 1000000000ULL)
			record_perfmap(r);
		if (poll(pfd, sig_pipe[0] >= 0 ? 2 : 1, 100) < 0 &&
		    errno != EINTR) {
			ret = -errno;
			pr_err("poll: %s", strerror(errno));
			break;
		}
		if (pfd[1].revents)
			while (read(sig_pipe[0], junk, sizeof(junk)) > 0)
				;
		for (;;) {
			n = session__read(&r->sess, buf, cap);
			if (n == -EAGAIN)
				break;
			if (n == 0) {
				eof = true;
				break;
			}
			if (n < 0) {
				ret = n;
				pr_err("%s: read: %s", env.device, strerror(-n));
				goto out_disable;
			}
			if (process_bytes(r, buf, n, 0) != (size_t)n &&
			    !r->decode_err) {
				/* read() returns whole records only */
				pr_err("%s: read returned a partial record", env.device);
				r->decode_err = -EPROTO;
			}
			if (r->decode_err) {
				ret = r->decode_err;
				goto out_disable;
			}
		}
	}
	ret = 0;

out_disable:
	session__disable(&r->sess);
	if (!ret)
		ret = drain(r, buf, cap);
	record_perfmap(r);
	if (session__stats(&r->sess, &st) == 0)
		emit_urec(r, TPROF_UREC_STATS, &st, sizeof(st), NULL, 0);
	progress(r, 0, true);
	if (r->prof.throttles)
		pr_err("warning: %s", report__throttle_line(&r->prof));
	profile__proc_counts(&r->prof, &nprocs, &ndropped);
	if (ndropped)
		pr_err("warning: %llu processes of the tree were not followed: more than %d at once (the module's limit)",
		       (unsigned long long)ndropped,
		       TPROF_MAX_PROCS);
	if (env.argv) {
		/* let the command finish; its exit stop snapshots the maps */
		while (!launch__poll(&r->launch, on_launch_stop, r)) {
			struct pollfd pfd = { .fd = sig_pipe[0], .events = POLLIN };
			char junk[64];

			if (stop_signal) {
				if (stop_from_user)
					kill(r->launch.pid, stop_signal);
				stop_signal = 0;
			}
			poll(&pfd, sig_pipe[0] >= 0 ? 1 : 0, 100);
			while (sig_pipe[0] >= 0 &&
			       read(sig_pipe[0], junk, sizeof(junk)) > 0)
				;
		}
	}
out:
	free(buf);
	session__close(&r->sess);
	return ret;
}

/* ---- output ---- */

/* The profile, through the passes of output/write.c. */
static int write_profile(struct run *r)
{
	struct output_opts o = {
		.no_symbolize = env.no_symbolize, .kallsyms = env.kallsyms,
		.kallsyms_given = env.kallsyms_given, .live = r->live,
		.path = env.output, .fd = profile_fd,
	};
	char root[64];

	/* files as the target sees them (chroot, container), through the
	 * root held since the last maps read, which outlives the target */
	if (r->root_fd >= 0) {
		snprintf(root, sizeof(root), "/proc/self/fd/%d", r->root_fd);
		o.root = root;
	} else if (r->prof.have_session && r->prof.session.pid) {
		snprintf(root, sizeof(root), "/proc/%u/root",
			 r->prof.session.pid);
		o.root = root;
	}
	return output__write(&r->prof, &o);
}

/* Fail before profiling anything if the output cannot be written. */
static int check_output(void)
{
	char *dir, *slash;
	int ret = 0;

	if (!env.output || !strcmp(env.output, "-")) {
		if (isatty(STDOUT_FILENO)) {
			pr_err("stdout: refusing to write a binary profile to a terminal: use -o FILE or redirect");
			return -EINVAL;
		}
		return 0;
	}
	if (outfile_dangling(env.output)) {
		pr_err("%s: output is a symlink to a missing file: refusing to create its target; remove the link or name the target",
		       env.output);
		return -ENOENT;
	}
	dir = xstrdup(env.output);
	slash = strrchr(dir, '/');
	if (slash)
		slash[slash == dir] = 0;
	if (access(slash ? dir : ".", W_OK | X_OK)) {
		ret = -errno;
		pr_err("%s: output not writable: %s", env.output, strerror(errno));
	} else {
		struct stat stb;

		if (!stat(env.output, &stb) && S_ISDIR(stb.st_mode)) {
			ret = -EISDIR;
			pr_err("%s: output not writable: %s", env.output,
			       strerror(EISDIR));
		}
	}
	free(dir);
	return ret;
}

/*
 * --save-raw or -o naming the --input stream itself (any path to the same
 * inode) would replace what is being read.
 */
static int check_not_input(const char *opt, const char *path)
{
	struct stat in, out;

	if (!env.input || !path || !strcmp(path, "-") ||
	    stat(env.input, &in) || stat(path, &out))
		return 0;
	if (in.st_dev == out.st_dev && in.st_ino == out.st_ino &&
	    S_ISREG(in.st_mode)) {
		pr_err("%s: %s would overwrite the --input stream", path, opt);
		return -EINVAL;
	}
	return 0;
}

/* --save-raw: a temp file, renamed over FILE only when the stream is whole. */
static int open_raw(struct run *r)
{
	int ret = outfile__open(&r->raw_out, env.save_raw), fd;

	if (ret) {
		pr_err("%s: %s", env.save_raw, ret == -ENOENT &&
		       outfile_dangling(env.save_raw) ?
		       "a symlink to a missing file: refusing to create its target" :
		       strerror(-ret));
		return ret;
	}
	fd = fcntl(r->raw_out.fd, F_DUPFD_CLOEXEC, 3);
	r->raw = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!r->raw) {
		ret = -errno;
		pr_err("%s: %s", env.save_raw, strerror(errno));
		if (fd >= 0)
			close(fd);
		outfile__abort(&r->raw_out);
	}
	return ret;
}

/*
 * End --save-raw: keep the stream if a session ran (even one that failed
 * later: its records are worth keeping) and every byte was written.
 * Returns -errno of a write that failed (then no file is left).
 */
static int close_raw(struct run *r, bool keep)
{
	int ret;

	if (fclose(r->raw) && !r->raw_err)
		r->raw_err = errno ? errno : EIO;
	r->raw = NULL;
	if (r->raw_err || !keep) {
		outfile__abort(&r->raw_out);
		if (r->raw_err)
			pr_err("%s: write: %s", env.save_raw,
			       strerror(r->raw_err));
		return -r->raw_err;
	}
	ret = outfile__commit(&r->raw_out);
	if (ret)
		pr_err("%s: write: %s", env.save_raw, strerror(-ret));
	return ret;
}

int main(int argc, char **argv)
{
	struct run r = { .snap_gap_ns = SNAP_GAP_MIN_NS, .root_fd = -1 };
	bool raw_failed = false;
	int err = 1, ret;

	r.sess.fd = -1;
	r.raw_out.fd = -1;
	profile__init(&r.prof);
	if (parse_args(argc, argv) ||
	    check_not_input("--save-raw", env.save_raw) ||
	    check_not_input("-o", env.output) ||
	    debuginfod__setup(env.debuginfod && !env.no_symbolize))
		return 2;
	if (check_output())
		goto cleanup;
	if (env.save_raw && open_raw(&r))
		goto cleanup;
	if (env.argv && (!env.output || !strcmp(env.output, "-"))) {
		/* the command's stdout must not end up inside the profile */
		profile_fd = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
		if (profile_fd < 0 || dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
			pr_err("stdout: %s", strerror(errno));
			goto cleanup;
		}
	}
	r.unwind = unwinder__new(!env.input);
	unwinder__attach(r.unwind, &r.prof,
			 env.call_graph_given ? (int)env.call_graph : -1);
	if (env.input)
		ret = replay(&r);
	else
		ret = collect(&r);
	profile__flush(&r.prof);
	report__unwind(&r.prof, r.unwind);
	/* no session ran (refused, no device, not a stream): leave no file */
	if (r.raw)
		raw_failed = close_raw(&r, !ret || r.live ||
				       (env.input && r.prof.nrecords)) != 0;
	if (r.exec_failed) {
		err = 127;	/* as a shell says "command not found" */
		goto cleanup;
	}
	if (ret)
		goto cleanup;
	if (env.report)
		report__write(&r.prof);
	if (write_profile(&r))
		goto cleanup;
	/* launch mode: exit with the command's status */
	err = env.argv ? launch__exit_code(&r.launch) : 0;
	/* the profile is good, but the stream asked for is not there */
	if (raw_failed && !err)
		err = 1;

cleanup:
	if (r.raw) {
		fclose(r.raw);
		outfile__abort(&r.raw_out);
	}
	while (r.nlast--)
		free(r.last[r.nlast].text);
	free(r.last);
	unwinder__free(r.unwind);
	if (r.root_fd >= 0)
		close(r.root_fd);
	profile__free(&r.prof);
	debuginfod__end();
	return err;
}
