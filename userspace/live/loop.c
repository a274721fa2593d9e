// SPDX-License-Identifier: GPL-2.0
/* tprof-read: a live session from ENABLE to the last drained record. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/vfs.h>
#include <unistd.h>
#include <linux/magic.h>

#include "live/drain.h"
#include "live/loop.h"
#include "live/pytarget.h"
#include "stream/reader.h"
#include "output/report.h"
#include "output/summary.h"

/*
 * The default (hybrid) snapshot: enough for the return address of the
 * interrupted function when it has no frame of its own. Measured over the
 * CFI of libc, libstdc++, libm, Go and the test programs
 * (docs/unwinding.md): 1024 bytes hold it for 99.07% of their frameless
 * functions wherever they are interrupted (512: 98.67%).
 */
#define HYBRID_SNAPSHOT_BYTES 1024
/* a CPython target's rings when --ring-bytes was not given (ring_bytes()) */
#define PY_RING_BYTES (1U << 20)
/* the device's reads: whole records, up to this many bytes at once */
#define READ_BYTES (4 << 20)
/*
 * What the drain thread holds for the loop, at most: seconds of a busy
 * session (16 threads at 1 kHz with 1 KiB snapshots write ~19 MB/s).
 * Past it the thread waits and the rings fill, as with any slow reader.
 */
#define DRAIN_BOUND_BYTES (256 << 20)
/* Re-reads for unmapped addresses: 20 ms apart, up to 1 s while in vain. */
#define SNAP_GAP_MIN_NS 20000000ULL
#define SNAP_GAP_MAX_NS 1000000000ULL

/* ---- signals: a stop, told to the poll loop through a pipe ---- */

static volatile sig_atomic_t stop_signal;
static volatile sig_atomic_t stop_from_user;
static int sig_pipe[2] = { -1, -1 };

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

static void drain_sig_pipe(void)
{
	char junk[64];

	while (sig_pipe[0] >= 0 && read(sig_pipe[0], junk, sizeof(junk)) > 0)
		;
}

/* launch mode: pass a stop on to the command, whose end ends the profile */
static void pass_stop_on(struct live *l)
{
	if (stop_from_user)
		kill(l->launch.pid, stop_signal);
	stop_signal = 0;
}

/* ---- progress line and hooks ---- */

static void progress(struct live *l, uint64_t start)
{
	const struct profile *p = l->rc->prof;

	/* not in launch mode: the command may be writing to the terminal */
	if (!isatty(STDERR_FILENO) || tprof_verbose || l->o->argv)
		return;
	fprintf(stderr, "\r\033[Ktprof-read: %.1fs  %llu samples  %llu lost",
		(now_ns(CLOCK_MONOTONIC) - start) / 1e9,
		(unsigned long long)p->sample_records,
		(unsigned long long)summary__lost(p).samples);
	l->rc->line_shown = true;
}

void live__init(struct live *l, const struct live_opts *o,
		struct recorder *rc)
{
	memset(l, 0, sizeof(*l));
	l->o = o;
	l->rc = rc;
	l->sess.fd = -1;
	l->cgroup_fd = -1;
	l->snap_gap_ns = SNAP_GAP_MIN_NS;
}

static void on_launch_stop(void *ctx, enum launch_event ev)
{
	struct live *l = ctx;

	pr_debug("target stopped at %s: snapshot maps",
		 ev == LAUNCH_EXEC ? "exec" : "exit");
	recorder__maps(l->rc, l->rc->target, false);
	/* at exit, the last chance to read it from the target's root */
	recorder__perfmap(l->rc);
}

/* A maps snapshot of pid: CPython in it? (only once ENABLE ran: the
 * walk is the session's) */
static void on_maps(void *ctx, int pid, const struct maps_snapshot *sn)
{
	struct live *l = ctx;

	if (l->enabled)
		python_live__maps(&l->py, pid, sn);
}

/*
 * The maps snapshots the drain thread read up to the time of rec, in time
 * order, each stamped with its own time: the loop may be seconds behind
 * the device, and the process gone by the time it gets to rec.
 */
static void drain_maps_upto(struct live *l, const struct tprof_record *rec)
{
	struct drain_snap sn;

	/*
	 * One read at an exec is kept even if it is the text already kept:
	 * a reader behind its target read the fork's (PROC) maps after the
	 * exec too, and the resolver names a sample after an exec only from
	 * maps stamped since (a tree of short programs on one vCPU lost every
	 * name so).
	 */
	while (drain__next_maps(&l->drain, rec->hdr.time_ns, &sn)) {
		if (sn.maps)
			recorder__maps_text(l->rc, sn.pid, sn.maps,
					    sn.maps_len, sn.exec, sn.time_ns);
		if (sn.cgroup)
			recorder__cgroup_text(l->rc, sn.pid, sn.cgroup,
					      sn.cgroup_len, sn.time_ns);
	}
}

/*
 * A record of the device. Code we have no mapping for: the process may
 * have dlopen'ed. Reads that find nothing new double the gap to the next
 * one (to 1 s); a change brings it back to 20 ms. Before the SAMPLE goes
 * out: its snapshot is unwound with the maps known then, and the MAPS
 * record must not come between it and its USTACK record. A chain in the
 * USTACK record (TPROF_RF_USTACK_CHAIN) is seen only there: its re-read
 * waits for the group's last record, for the samples after it.
 */
static void maps_reread(struct live *l, int pid)
{
	struct recorder *rc = l->rc;

	if (recorder__maps(rc, pid, false))
		l->snap_gap_ns = SNAP_GAP_MIN_NS;
	else if (l->snap_gap_ns < SNAP_GAP_MAX_NS)
		l->snap_gap_ns *= 2;
}

static int handle_record(struct live *l, const struct tprof_record *rec)
{
	struct recorder *rc = l->rc;
	unsigned int type = rec->hdr.type;
	bool due;

	drain_maps_upto(l, rec);
	/* a USTACK record follows its SAMPLE: a chain there is that pid's */
	if (type == TPROF_REC_SAMPLE)
		l->sample_pid = (int)rec->u.sample.pid;
	due = (type == TPROF_REC_SAMPLE ||
	       (type == TPROF_REC_USTACK &&
		(rec->hdr.flags & TPROF_RF_USTACK_CHAIN))) &&
	      now_ns(CLOCK_MONOTONIC) - rc->last_snap_ns > l->snap_gap_ns &&
	      profile__sample_unmapped(rc->prof, rec, l->sample_pid);
	if (due && type == TPROF_REC_SAMPLE)
		maps_reread(l, l->sample_pid);
	else if (due)
		l->maps_due = true;
	recorder__add(rc, rec);
	if (l->maps_due && !(rec->hdr.flags & TPROF_RF_GROUP) &&
	    (type == TPROF_REC_USTACK || type == TPROF_REC_UWALK)) {
		l->maps_due = false;
		maps_reread(l, l->sample_pid);
	}
	/* an exec, or a dlopen where other code was: the samples after it
	 * are named from a snapshot read after it; a new process of the
	 * tree: its maps, while it lives */
	if (type == TPROF_REC_EXEC) {
		python_live__exec(&l->py, (int)rec->u.exec.pid);
		/* the drain thread read them at the record; kept even if
		 * the same text (drain_maps_upto()) */
		if (!l->drain.on) {
			recorder__maps(rc, (int)rec->u.exec.pid, true);
			recorder__cgroup(rc, (int)rec->u.exec.pid, 0,
					 rec->hdr.time_ns);
		}
	} else if (type == TPROF_REC_MMAP && rc->prof->maps_reused) {
		recorder__maps(rc, (int)rec->u.mmap.pid, false);
	} else if (type == TPROF_REC_PROC &&
		   !(rec->hdr.flags & (TPROF_RF_PROC_DROPPED |
				       TPROF_RF_PROC_TOTALS))) {
		/* nothing of it comes before we prove we may see it */
		if (rec->hdr.flags & TPROF_RF_PROC_PENDING)
			device__prove(&l->sess, (int)rec->u.proc.pid);
		if (!l->drain.on) {
			recorder__maps(rc, (int)rec->u.proc.pid, false);
			recorder__cgroup(rc, (int)rec->u.proc.pid,
					 rec->u.proc.cgroup_id,
					 rec->hdr.time_ns);
		}
	}
	else if (type == TPROF_REC_THREAD)
		python_live__thread(&l->py, (int)rec->u.thread.pid);
	rc->prof->maps_reused = false;
	return 0;
}

/* groups of more records than SAMPLE, USTACK, UWALK are not held */
#define GROUP_MAX_RECORDS 4

/*
 * A held group, whole (or cut short: the stream's end): first the PYCODE
 * records of its UWALK's code objects, then its records in order.
 */
static void group_flush(struct live *l)
{
	struct tprof_record rec;
	size_t off;
	long n;
	int pass;

	for (pass = 0; pass < 2; pass++) {
		for (off = 0; off < l->grp.len; off += n) {
			n = tprof_record_decode(l->grp.buf + off,
						l->grp.len - off, &rec);
			if (n <= 0)
				break;
			if (pass)
				handle_record(l, &rec);
			else if (rec.hdr.type == TPROF_REC_UWALK)
				python_live__uwalk(&l->py, l->grp.pid, &rec);
		}
	}
	l->grp.len = 0;
	l->grp.nrec = 0;
}

/*
 * Each record of the device. A sample of a process with a Python walk is
 * held with its group (TPROF_RF_GROUP: USTACK, UWALK follow) so that the
 * code objects its walk names are read, and recorded, before it.
 */
static int on_record(void *ctx, const struct tprof_record *rec)
{
	struct live *l = ctx;

	if (!l->grp.nrec && !(rec->hdr.type == TPROF_REC_SAMPLE &&
			      (rec->hdr.flags & TPROF_RF_GROUP) &&
			      python_live__on(&l->py, (int)rec->u.sample.pid)))
		return handle_record(l, rec);
	if (!l->grp.nrec)
		l->grp.pid = (int)rec->u.sample.pid;
	GROW(l->grp.buf, l->grp.cap, l->grp.len + rec->hdr.size);
	memcpy(l->grp.buf + l->grp.len, rec->raw, rec->hdr.size);
	l->grp.len += rec->hdr.size;
	l->grp.nrec++;
	if (!(rec->hdr.flags & TPROF_RF_GROUP) ||
	    l->grp.nrec >= GROUP_MAX_RECORDS)
		group_flush(l);
	return 0;
}

/*
 * The device said -EAGAIN (through the drain's queue or itself): every
 * record it committed before t was read, and the stream reader parsed
 * each read before this one. A record held (a Python group, the
 * profile's SAMPLE or USTACK waiting for the rest of its group) keeps
 * the watermark where it was: the device's reads end at a group's end
 * (kmod/ring.c: tprof_ring_unit()), so none is held here, but a stream
 * that broke a group must not pass it.
 */
static void consumed_to(struct live *l, uint64_t t)
{
	const struct profile *p = l->rc->prof;

	if (!l->grp.nrec && !p->have_pending && !p->have_pending_us &&
	    t > l->consumed_to_ns)
		l->consumed_to_ns = t;
}

/* the device's records: from the drain thread's queue (live/drain.h) */
static ssize_t read_device(void *ctx, void *buf, size_t cap)
{
	struct live *l = ctx;
	/* the loop's own read: the rings were empty after this */
	uint64_t before = l->drain.on ? 0 : now_ns(CLOCK_MONOTONIC);
	ssize_t n = l->drain.on ? drain__read(&l->drain, buf, cap) :
		    device__read(&l->sess, buf, cap);

	if (n == -EAGAIN)
		consumed_to(l, l->drain.on ? drain__consumed_to(&l->drain) :
			    before);
	if (n < 0 && n != -EAGAIN)
		pr_err("%s: read: %s", l->o->device, strerror(-n));
	return n;
}

/* ---- from open to ENABLE ---- */

/*
 * --cgroup PATH: its directory, open, for ENABLE's cgroup_fd; one line
 * and -errno when it is not a cgroup v2 directory.
 */
static int open_cgroup(struct live *l)
{
	const char *path = l->o->cgroup;
	struct statfs sf;
	int ret;

	l->cgroup_fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (l->cgroup_fd < 0) {
		ret = -errno;
		pr_err("--cgroup %s: %s", path, strerror(errno));
		return ret;
	}
	if (fstatfs(l->cgroup_fd, &sf) || sf.f_type != CGROUP2_SUPER_MAGIC) {
		pr_err("--cgroup %s: not a cgroup v2 directory (mount -t cgroup2 none /sys/fs/cgroup)",
		       path);
		return -ENOTDIR;
	}
	return 0;
}

/* ENABLE of a --cgroup session returned ret: one line if it failed. */
static int enable_cgroup(struct live *l, const struct tprof_ioc_enable *en,
			 int ret)
{
	const char *path = l->o->cgroup;

	switch (ret) {
	case 0:
		break;
	case -EPERM:
	case -EACCES:
		if (l->o->all)
			pr_err("--all: %s: profiling every process needs root or CAP_PERFMON",
			       strerror(-ret));
		else
			pr_err("--cgroup %s: %s: profiling a cgroup needs root or CAP_PERFMON",
			       path, strerror(-ret));
		break;
	case -EBADF:
		pr_err("--cgroup %s: not a cgroup v2 directory", path);
		break;
	case -EINVAL:
		if (en->period_ns && l->sess.info.min_period_ns &&
		    en->period_ns < l->sess.info.min_period_ns)
			pr_err("--cgroup %s: the period is below what tprof.ko allows", path);
		else
			pr_err("--cgroup %s: %s (a tprof.ko without cgroup targets? or a setting out of range)",
			       path, strerror(-ret));
		break;
	case -EOPNOTSUPP:
		pr_err("--cgroup %s: this kernel's cgroup moves cannot be watched (no cgroup_attach_task tracepoint)",
		       path);
		break;
	default:
		device__enable_failed(&l->sess, (struct tprof_ioc_enable *)en,
				      ret);
	}
	return ret;
}

/*
 * ENABLE. The default mode asks for stack snapshots but does not need
 * them: when they are refused (a module that predates them says -EINVAL;
 * no ptrace-attach access, e.g. Yama's ptrace_scope, -EPERM), one line
 * says so and the session runs with frame pointers only. An explicit
 * --call-graph dwarf or hybrid fails instead.
 */
static int enable(struct live *l, struct tprof_ioc_enable *en)
{
	int ret = device__try_enable(&l->sess, en), ret2;
	char why[160];

	/* a module that predates waker stacks: the wakers without them */
	if (ret == -EINVAL && (en->flags & TPROF_F_WAKER_STACKS)) {
		en->flags &= ~TPROF_F_WAKER_STACKS;
		ret = device__try_enable(&l->sess, en);
		if (ret != -EINVAL)
			pr_err("warning: this tprof.ko takes no waker stacks (TPROF_F_WAKER_STACKS): each wait names its waker, with \"[waker stack not taken]\" for its stack");
	}
	if (en->flags & TPROF_F_CGROUP) {
		/* the same fallbacks, for an older module's refusals */
		if (ret == -EINVAL && (en->flags & TPROF_F_USTACK_CHAIN)) {
			en->flags &= ~TPROF_F_USTACK_CHAIN;
			ret = device__try_enable(&l->sess, en);
		}
		return enable_cgroup(l, en, ret);
	}

	/* a module that predates chains in snapshots: in the SAMPLE */
	if (ret == -EINVAL && (en->flags & TPROF_F_USTACK_CHAIN)) {
		en->flags &= ~TPROF_F_USTACK_CHAIN;
		ret = device__try_enable(&l->sess, en);
	}
	/* a module that predates the red zone: snapshots from sp, as before */
	if (ret == -EINVAL && (en->flags & TPROF_F_SNAPSHOT_BELOW)) {
		en->flags &= ~TPROF_F_SNAPSHOT_BELOW;
		ret = device__try_enable(&l->sess, en);
	}
	/* CPython's larger rings (ring_bytes()), refused: the default ones */
	if (ret == -ENOMEM && !l->o->ring_bytes && en->ring_bytes) {
		en->ring_bytes = 0;
		ret = device__try_enable(&l->sess, en);
		if (!ret)
			pr_err("warning: pid %d: the module's default rings (%u KiB a CPU): CPython's %u KiB ones were refused (locked memory); busy threads may lose samples",
			       en->pid, l->sess.info.default_ring_bytes >> 10,
			       PY_RING_BYTES >> 10);
	}
	if (!ret || !(en->flags & TPROF_F_USER_SNAPSHOT) ||
	    l->o->call_graph_given ||
	    (ret != -EINVAL && ret != -EPERM && ret != -EACCES))
		goto out;
	if (ret == -EINVAL)
		snprintf(why, sizeof(why), "this tprof.ko predates them");
	else if (l->sess.mem_proof_err)
		snprintf(why, sizeof(why), "/proc/%d/mem: %s", en->pid,
			 strerror(l->sess.mem_proof_err));
	else
		snprintf(why, sizeof(why), "%s", strerror(-ret));
	en->flags &= ~(TPROF_F_USER_SNAPSHOT | TPROF_F_MEM_PROOF |
		       TPROF_F_SNAPSHOT_BELOW | TPROF_F_USTACK_CHAIN);
	en->snapshot_bytes = 0;
	en->mem_fd = 0;
	ret2 = device__try_enable(&l->sess, en);
	if (!ret2)
		pr_err("pid %d: no user stack snapshots (%s): frame-pointer stacks only, as with --call-graph fp",
		       en->pid, why);
	/* refused again: the first error explains it less well */
	ret = ret2;
out:
	if (ret)
		device__enable_failed(&l->sess, en, ret);
	return ret;
}

/* The launched command could not run: say why, and let its child end. */
static void exec_failed(struct live *l, int err)
{
	pr_err("%s: %s", l->o->argv[0],
	       err == -ENOENT ? "command not found" : strerror(-err));
	l->exec_failed = true;
	while (!launch__poll(&l->launch, NULL, NULL))
		usleep(1000);
}

/* The device, the signals, and the target: launched (held before exec)
 * or the attached pid. */
static int start_target(struct live *l)
{
	const struct live_opts *o = l->o;
	int ret = o->cgroup ? open_cgroup(l) : 0, target = o->pid;

	if (!ret)
		ret = device__open(&l->sess, o->device);
	if (ret)
		return ret;
	setup_signals();
	if (o->argv) {
		/*
		 * Off-CPU time: a traced thread waits for us at its creation
		 * and exit, which would be the program's off-CPU time.
		 * Only the main thread then (its exit keeps the mm for the
		 * last maps; an exec from another thread goes unseen here,
		 * its EXEC record still comes).
		 */
		ret = launch__fork(&l->launch, o->argv, o->mode == LIVE_CPU);
		if (ret) {
			pr_err("%s: fork: %s", o->argv[0], strerror(-ret));
			return ret;
		}
		target = l->launch.pid;
		/*
		 * The session starts at the command's exec stop, as perf's
		 * enable_on_exec does: the child's wait for the go-ahead
		 * (tprof-read's own code) is no part of the profile.
		 * Untraced, it starts before the exec (begin()).
		 */
		ret = launch__exec(&l->launch);
		if (ret && ret != -EAGAIN) {
			exec_failed(l, ret);
			return ret;
		}
	}
	recorder__start(l->rc, target);
	return 0;
}

/*
 * Is the target CPython? Known only for the target itself: the pid's maps
 * (attach, or a command held at its exec stop) or the command as exec runs
 * it; a followed child that execs Python later shares what the session
 * decided here. @what names it, for -v.
 */
static bool target_cpython(const struct live *l, char *what, size_t len)
{
	if (l->o->cgroup)	/* no one target */
		return false;
	return pytarget__pid(l->rc->target, what, len) ||
	       (l->o->argv && pytarget__command(l->o->argv[0], what, len));
}

/*
 * The default mode's snapshot size. CPython's eval loop keeps no frame
 * pointers and its C frames are large, so 1 KiB can end the CFI unwind
 * below them, and a Python caller then sits right on top of libz: a
 * CPython target gets dwarf's 8 KiB unless --call-graph was given
 * (measured in case 60, zlib.compress: the interpreter's frames between
 * the caller and libz in 92.1% -> 96.4% of its CPU, none missing 4.3% ->
 * 0%).
 */
static unsigned int hybrid_bytes(const struct live *l)
{
	char what[PATH_MAX];

	if (l->o->call_graph_given || !target_cpython(l, what, sizeof(what)))
		return HYBRID_SNAPSHOT_BYTES;
	pr_debug("pid %d: CPython (%s): %u-byte stack snapshots (its eval loop's frames are large; --call-graph hybrid keeps %u)",
		 l->rc->target, what, TPROF_DEFAULT_SNAPSHOT_BYTES,
		 HYBRID_SNAPSHOT_BYTES);
	return TPROF_DEFAULT_SNAPSHOT_BYTES;
}

/*
 * The rings' size when --ring-bytes was not given: the module's default,
 * or PY_RING_BYTES for CPython. A CPython sample carries its walk's
 * frames and (by default) an 8 KiB snapshot, ~8.8 KB, so the module's
 * 256 KiB ring holds ~29 ms of a busy CPU's samples at 1 kHz a thread,
 * and eight busy threads on a guest's two CPUs lost 0.7-3% of their
 * samples there; 1 MiB lost none (case 60's busy8). Where the
 * user's locked memory refuses it, enable() falls back to the default.
 */
static unsigned int ring_bytes(const struct live *l)
{
	char what[PATH_MAX];

	if (l->o->ring_bytes || !target_cpython(l, what, sizeof(what)))
		return l->o->ring_bytes;
	pr_debug("pid %d: CPython (%s): %u KiB rings (its samples carry its frames; --ring-bytes sets them)",
		 l->rc->target, what, PY_RING_BYTES >> 10);
	return PY_RING_BYTES;
}

/* What ENABLE asks for, from the options. */
static void enable_request(const struct live *l, struct tprof_ioc_enable *en)
{
	const struct live_opts *o = l->o;

	en->pid = l->rc->target;
	if (o->children > 0 || (o->children < 0 && o->argv))
		en->flags |= TPROF_F_CHILDREN;
	/* a cgroup's processes, followed as a tree's (PROC records) */
	if (o->cgroup) {
		en->flags |= TPROF_F_CGROUP | TPROF_F_CHILDREN;
		en->cgroup_fd = l->cgroup_fd;
		en->pid = 0;
	}
	en->period_ns = o->period_ns;
	if (o->mode != LIVE_CPU) {
		en->flags |= TPROF_F_OFF_CPU;
		en->off_cpu_period_ns = o->off_period_ns;
	}
	if (o->mode == LIVE_OFF_CPU || o->mode == LIVE_WAKERS)
		en->flags |= TPROF_F_NO_CPU_SAMPLES;
	/* the cost of a stack per sampled wait: only when they are shown */
	if (o->mode == LIVE_WAKERS)
		en->flags |= TPROF_F_WAKER_STACKS;
	en->max_user_frames = o->max_frames;
	en->ring_bytes = ring_bytes(l);
	if (o->kernel_stacks) {
		en->flags |= TPROF_F_KERNEL_STACK;
		en->max_kernel_frames = TPROF_MAX_KERNEL_FRAMES;
	}
	if (o->call_graph != UNWIND_FP) {
		/* and the red zone, which some code's CFI reads (OpenSSL) */
		en->flags |= TPROF_F_USER_SNAPSHOT | TPROF_F_SNAPSHOT_BELOW |
			     TPROF_F_USTACK_CHAIN;
		en->snapshot_bytes = o->snapshot_bytes ? o->snapshot_bytes :
				     o->call_graph == UNWIND_DWARF ?
				     TPROF_DEFAULT_SNAPSHOT_BYTES :
				     hybrid_bytes(l);
	}
}

/* Not root: the proofs of access ENABLE asks for, as open descriptors. */
static void open_proofs(struct live *l, struct tprof_ioc_enable *en,
			int *auxv_fd, int *mem_fd)
{
	char path[64];

	/* no proof stands for a cgroup: root or CAP_PERFMON alone */
	if (geteuid() == 0 || l->o->cgroup)
		return;
	/* procfs hands this out only after a ptrace-read check */
	snprintf(path, sizeof(path), "/proc/%d/auxv", en->pid);
	*auxv_fd = open(path, O_RDONLY | O_CLOEXEC);
	if (*auxv_fd >= 0) {
		en->flags |= TPROF_F_AUXV_PROOF;
		en->auxv_fd = *auxv_fd;
	} else {
		l->sess.proof_err = errno;
	}
	/* raw stack bytes: the proof of ptrace-attach access */
	snprintf(path, sizeof(path), "/proc/%d/mem", en->pid);
	if (en->flags & TPROF_F_USER_SNAPSHOT) {
		*mem_fd = open(path, O_RDONLY | O_CLOEXEC);
		if (*mem_fd >= 0) {
			en->flags |= TPROF_F_MEM_PROOF;
			en->mem_fd = *mem_fd;
		} else {
			l->sess.mem_proof_err = errno;
		}
	}
}

/* The stream's first record, and the kernel's symbols before ENABLE. */
static void record_session(struct live *l, const struct tprof_ioc_enable *en)
{
	struct tprof_urec_session s = {
		.magic = TPROF_RAW_MAGIC,
		.realtime_ns = now_ns(CLOCK_REALTIME),
		.period_ns = l->o->period_ns ? l->o->period_ns :
			     TPROF_DEFAULT_PERIOD_NS,
		.pid = en->pid,
		.flags = en->flags,
		.abi_version = l->sess.info.abi_version,
		.record_version = l->sess.info.record_version,
	};

	if (l->o->call_graph == UNWIND_DWARF)
		s.flags |= TPROF_SESSION_F_DWARF;
	recorder__urec(l->rc, TPROF_UREC_SESSION, &s, sizeof(s), NULL, 0);
	/* modules before arm64 leave e_machine 0: x86-64, nothing to say */
	if (l->sess.info.e_machine) {
		struct tprof_urec_machine m = {
			.e_machine = l->sess.info.e_machine,
			.user_pac_mask = l->sess.info.user_pac_mask,
		};

		recorder__urec(l->rc, TPROF_UREC_MACHINE, &m, sizeof(m),
			       NULL, 0);
	}
	if (en->flags & TPROF_F_KERNEL_STACK)
		recorder__kallsyms(l->rc);
}

/*
 * After ENABLE: the per-thread periods (one asked for and not given is an
 * error, not a profile at the wrong rate), the first maps, and a launched
 * command let go to exec. Nonzero: the session is over.
 */
static int begin(struct live *l)
{
	const struct live_opts *o = l->o;
	int i, ret;

	for (i = 0; i < o->ntperiods; i++) {
		ret = device__set_thread_period(&l->sess, o->tperiods[i].tid,
						o->tperiods[i].period_ns);
		if (ret) {
			if (o->argv)
				kill(l->launch.pid, SIGKILL);
			device__disable(&l->sess);
			return ret;
		}
	}
	/* a cgroup's processes: their maps and cgroups at their PROC
	 * records */
	if (!o->cgroup) {
		recorder__maps(l->rc, l->rc->target, true);
		recorder__cgroup(l->rc, l->rc->target, 0, 0);
	}
	if (!o->argv)
		return 0;
	if (l->launch.at_exec) {
		launch__resume(&l->launch);
		return 0;
	}
	/* untraced: samples of the child before exec are tprof-read's own */
	ret = launch__release(&l->launch);
	if (ret) {
		device__disable(&l->sess);
		exec_failed(l, ret);
	}
	return ret;
}

/*
 * What all the rings can hold, at most READ_BYTES: no read of the device
 * returns more (the larger of the ring sizes asked for and the default,
 * which ENABLE may fall back to).
 */
static size_t rings_bytes(const struct live *l,
			  const struct tprof_ioc_enable *en)
{
	uint64_t ring = en->ring_bytes > l->sess.info.default_ring_bytes ?
			en->ring_bytes : l->sess.info.default_ring_bytes;
	uint64_t all = ring * (l->sess.info.nr_cpu_ids ?
			       l->sess.info.nr_cpu_ids : 1);

	return all && all < READ_BYTES ? (size_t)all : READ_BYTES;
}

static int start_session(struct live *l, struct tprof_ioc_enable *en)
{
	int auxv_fd = -1, mem_fd = -1, ret;

	enable_request(l, en);
	open_proofs(l, en, &auxv_fd, &mem_fd);
	record_session(l, en);
	/*
	 * From ENABLE on nothing else reads the rings: not the maps and
	 * build-ids of the first snapshot either, nor a stop's. The drain
	 * thread reads the maps of a process at its EXEC or PROC record
	 * itself (maps_at()): the loop may get there after the process
	 * exited. Started before ENABLE, it sleeps until then (drain.h).
	 * TPROF_READ_DRAIN=0: the loop reads the device itself.
	 */
	if (getenv("TPROF_READ_DRAIN") &&
	    !strcmp(getenv("TPROF_READ_DRAIN"), "0"))
		pr_debug("no drain thread (TPROF_READ_DRAIN=0): the loop reads the device");
	else if (drain__start(&l->drain, &l->sess, rings_bytes(l, en),
			      DRAIN_BOUND_BYTES))
		pr_debug("no drain thread: the loop reads the device");
	else if (l->whole_pool)
		drain__fill_pool(&l->drain);
	drain__hurry(&l->drain);
	ret = enable(l, en);
	if (auxv_fd >= 0)
		close(auxv_fd);
	if (mem_fd >= 0)
		close(mem_fd);
	if (ret) {
		if (l->o->argv)
			kill(l->launch.pid, SIGKILL);
		return ret;
	}
	l->enabled = true;
	l->ring_bytes = en->ring_bytes;
	drain__go(&l->drain);
	return begin(l);
}

/* ---- the loop ---- */

/*
 * A process tree: has every process the stream named ended (exited, left
 * or not followed)? Then the module's end of the session is near.
 */
static bool tree_done(const struct live *l)
{
	const struct profile *p = l->rc->prof;
	size_t i;

	for (i = 0; i < p->nprocs; i++) {
		const struct proc_info *pi = &p->procs[i];

		if (!pi->exited && !pi->denied && !pi->dropped)
			return false;
	}
	return true;
}

/* The hook's descriptors after the loop's two in pfd: how many. */
static int hook_fds(struct live *l, struct pollfd *pfd)
{
	const struct live_hooks *h = l->hooks;
	int n = h && h->fds ? h->fds(h->ctx, pfd, LIVE_HOOK_FDS) : 0, i;

	if (n < 0)
		n = 0;
	if (n > LIVE_HOOK_FDS)
		n = LIVE_HOOK_FDS;
	for (i = 0; i < n; i++)
		pfd[i].revents = 0;
	return n;
}

/* The poll()'s wait: the loop's, or the hook's if shorter. */
static int hook_timeout(const struct live *l, int ms)
{
	const struct live_hooks *h = l->hooks;
	int own = h && h->timeout_ms ? h->timeout_ms(h->ctx) : -1;

	return own >= 0 && (ms < 0 || own < ms) ? own : ms;
}

void live__stop(struct live *l)
{
	l->stop = true;
}

/*
 * Poll and read until the module's end of stream, -d, a stop (attach),
 * live__stop() or the target's end without one. 0 or a read's error.
 */
static int run(struct live *l, struct stream_reader *sr,
	       const struct tprof_ioc_enable *en)
{
	const struct live_opts *o = l->o;
	uint64_t start = now_ns(CLOCK_MONOTONIC), deadline = 0;
	uint64_t last_progress = 0, exited_at = 0;
	int ret;

	if (o->duration_s)
		deadline = start + (uint64_t)(o->duration_s * 1e9);
	while (!sr->eof) {
		/* the device (or the drain's queue), the signals, the hook's */
		struct pollfd pfd[2 + LIVE_HOOK_FDS] = {
			{ .fd = l->drain.on ? drain__wake_fd(&l->drain) :
				l->sess.fd, .events = POLLIN },
			{ .fd = sig_pipe[0], .events = POLLIN },
		};
		uint64_t now;
		int nh;

		if (o->argv && !l->launch.exited &&
		    launch__poll(&l->launch, on_launch_stop, l))
			exited_at = now_ns(CLOCK_MONOTONIC);
		if (stop_signal) {
			if (!o->argv)
				break;
			pass_stop_on(l);
		}
		now = now_ns(CLOCK_MONOTONIC);
		if (l->stop || (deadline && now >= deadline))
			break;
		/* the module reports EOF after the target (and, with
		 * children, the last process of its tree) exits and is
		 * drained; do not hang if that never comes */
		if (exited_at && now - exited_at > 2000000000ULL &&
		    (!(en->flags & TPROF_F_CHILDREN) || tree_done(l)))
			break;
		if (!o->argv && !o->cgroup && kill(l->rc->target, 0) &&
		    errno == ESRCH && !exited_at)
			exited_at = now;
		if (now - last_progress > 500000000ULL) {
			progress(l, start);
			last_progress = now;
		}
		/* JIT names as they come: the file may be rewritten later */
		if (now - l->rc->last_jit_ns > 1000000000ULL)
			recorder__perfmap(l->rc);
		/* interpreters waiting for their initialisation */
		python_live__poll(&l->py);
		nh = hook_fds(l, pfd + 2);
		/* a descriptor of -1 (no signal pipe) is left out by poll() */
		if (poll(pfd, nh ? 2 + nh : sig_pipe[0] >= 0 ? 2 : 1,
			 hook_timeout(l, python_live__poll_ms(&l->py, 100))) <
		    0 && errno != EINTR) {
			pr_err("poll: %s", strerror(errno));
			break;
		}
		if (pfd[1].revents)
			drain_sig_pipe();
		ret = stream__pump(sr);
		if (ret)
			return ret;
		if (l->hooks && l->hooks->tick)
			l->hooks->tick(l->hooks->ctx, pfd + 2, nh,
				       now_ns(CLOCK_MONOTONIC),
				       l->consumed_to_ns);
	}
	return 0;
}

/*
 * Lost samples, loud: one line with their share and the likely cause.
 * The drain thread keeps up with the rings unless its queue reached its
 * bound (the loop fell behind); else the rings filled between its reads.
 */
static void say_loss(struct live *l)
{
	const char *what = report__loss_line(l->rc->prof);
	unsigned int ring = l->ring_bytes ? l->ring_bytes :
			    l->sess.info.default_ring_bytes;

	if (!what)
		return;
	if (l->drain.full_waits)
		pr_err("warning: %s: tprof-read fell behind (%llu MiB of records waited for it %llu times); --report shows each thread's",
		       what, (unsigned long long)(DRAIN_BOUND_BYTES >> 20),
		       (unsigned long long)l->drain.full_waits);
	else
		pr_err("warning: %s: the per-CPU rings (%u KiB) filled between reads; a larger --ring-bytes or a longer period loses fewer; --report shows each thread's",
		       what, ring >> 10);
}

/*
 * DISABLE, then what the rings still hold, the JIT map's last lines, the
 * module's STATS, and in launch mode the command's end (its exit stop
 * snapshots the maps).
 */
static int finish(struct live *l, struct stream_reader *sr, int ret)
{
	struct tprof_urec_stats st = { 0 };
	struct profile *p = l->rc->prof;
	uint64_t nprocs, ndropped;

	device__disable(&l->sess);
	/* nothing more comes after DISABLE: all of what is there */
	drain__finish(&l->drain);
	if (l->drain.maps_read || l->drain.maps_dropped)
		pr_debug("drain: %llu maps read at their EXEC, PROC or MMAP records, %llu not kept (%u left)",
			 (unsigned long long)l->drain.maps_read,
			 (unsigned long long)l->drain.maps_dropped,
			 l->drain.nmaps);
	sr->pump_bytes = 0;
	if (!ret)
		ret = stream__pump(sr);
	stream__end(sr);
	if (l->grp.nrec)
		group_flush(l);
	recorder__perfmap(l->rc);
	if (device__stats(&l->sess, &st.stats) == 0)
		recorder__urec(l->rc, TPROF_UREC_STATS, &st, sizeof(st),
			       NULL, 0);
	recorder__end_line(l->rc);
	/* the stream's end: the samples still waiting for a PROC record
	 * count too (the exit stop below adds maps, no samples) */
	profile__finish(p);
	say_loss(l);
	if (p->throttles)
		pr_err("warning: %s", report__throttle_line(p));
	profile__proc_counts(p, &nprocs, &ndropped);
	if (ndropped)
		pr_err(l->o->cgroup ?
		       "warning: %llu processes of the cgroup were not followed: more than the module's limit at once (tprof.ko's cgroup_procs_bits: %d by default)" :
		       "warning: %llu processes of the tree were not followed: more than %d at once (the module's limit)",
		       (unsigned long long)ndropped,
		       l->o->cgroup ? TPROF_DEFAULT_CGROUP_PROCS : TPROF_MAX_PROCS);
	while (l->o->argv && !launch__poll(&l->launch, on_launch_stop, l)) {
		struct pollfd pfd = { .fd = sig_pipe[0], .events = POLLIN };

		if (stop_signal)
			pass_stop_on(l);
		poll(&pfd, sig_pipe[0] >= 0 ? 1 : 0, 100);
		drain_sig_pipe();
	}
	return ret;
}

int live__collect(struct live *l)
{
	struct stream_source src = {
		.read = read_device, .record = on_record, .ctx = l,
	};
	struct tprof_ioc_enable en = { 0 };
	struct stream_reader sr;
	int ret;

	python_live__init(&l->py, l->rc, &l->sess, l->objs);
	l->rc->maps_hook = on_maps;
	l->rc->maps_ctx = l;
	ret = start_target(l);
	if (!ret)
		ret = start_session(l, &en);
	if (!ret) {
		stream__init(&sr, l->o->device, READ_BYTES, &src);
		sr.whole_reads = true;
		/* a read at a time: -d and a stop must not wait for the
		 * rings to run dry (a target outpacing tprof-read: 41 on
		 * arm64 once ran past its -d 1 until killed) */
		sr.pump_bytes = READ_BYTES;
		ret = run(l, &sr, &en);
		ret = finish(l, &sr, ret);
	}
	drain__free(&l->drain);
	device__close(&l->sess);
	if (l->cgroup_fd >= 0)
		close(l->cgroup_fd);
	l->cgroup_fd = -1;
	l->rc->maps_hook = NULL;
	python_live__free(&l->py);
	free(l->grp.buf);
	l->grp.buf = NULL;
	return ret;
}
