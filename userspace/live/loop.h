/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tprof-read: a live session, from ENABLE to the last drained record: the
 * launch or attach, the poll/read loop through the stream reader, signals,
 * progress, maps re-reads, DISABLE + drain + STATS.
 */
#ifndef _TPROF_LIVE_LOOP_H
#define _TPROF_LIVE_LOOP_H

#include <poll.h>
#include <stdbool.h>
#include <stdint.h>

#include "analyze/unwind.h"
#include "live/device.h"
#include "live/drain.h"
#include "live/launch.h"
#include "live/pywalk.h"
#include "live/recorder.h"

#define LIVE_MAX_THREAD_PERIODS 256

/* LIVE_WAKERS: off-CPU, and the wakers' stacks (TPROF_F_WAKER_STACKS) */
enum live_mode { LIVE_CPU, LIVE_OFF_CPU, LIVE_WALL, LIVE_WAKERS };

/* What the options ask of a live session. */
struct live_opts {
	int pid;			/* attach */
	char **argv;			/* launch */
	const char *cgroup;		/* --cgroup: a cgroup v2 directory */
	bool all;			/* --all: cgroup is the root's */
	const char *device;
	double duration_s;		/* 0: until the end */
	uint64_t period_ns;		/* 0: the module's default */
	struct { int tid; uint64_t period_ns; }
		tperiods[LIVE_MAX_THREAD_PERIODS];
	int ntperiods;
	bool kernel_stacks;
	int children;			/* -1: launch yes, -p no */
	enum live_mode mode;
	bool mode_given;		/* --mode: not the default */
	uint64_t off_period_ns;		/* 0: the CPU period */
	unsigned int max_frames;
	unsigned int ring_bytes;
	enum unwind_mode call_graph;
	bool call_graph_given;		/* a refused snapshot is an error */
	unsigned int snapshot_bytes;	/* 0: the mode's default */
};

/* the most descriptors a hook's fds() may add to the loop's poll() */
#define LIVE_HOOK_FDS 256

/*
 * Another program's work inside the live loop's thread (the profiling
 * agent's HTTP server and time windows): its descriptors in the loop's
 * poll(), a call after each pass, a limit on the wait. Each pass of the
 * loop calls fds() and timeout_ms() before its poll(), then reads what
 * the device has (the stream reader's records through the recorder), then
 * tick(). Every callback may be NULL. A hook with no descriptors whose
 * timeout_ms() says -1 changes nothing in the loop.
 */
struct live_hooks {
	void *ctx;
	/* append the hook's fds (events set) to pfd, at most room
	 * (LIVE_HOOK_FDS); returns how many */
	int (*fds)(void *ctx, struct pollfd *pfd, int room);
	/*
	 * After each pass of the loop (its poll() returned, the stream
	 * pumped): revents of the hook's fds are in pfd as it appended
	 * them (cleared before the poll()). now_ns: CLOCK_MONOTONIC, taken
	 * after the pump. consumed_to_ns: the loop's consumed-to watermark,
	 * CLOCK_MONOTONIC ns (the records' hdr.time_ns), never past now_ns,
	 * monotonic, 0 until the first: every record the module committed
	 * to its ring before it has been handed to the recorder
	 * (recorder__add(): the profile, then the tap), none is held in
	 * the loop (a Python group) or the profile (a SAMPLE or USTACK
	 * waiting for the rest of its group). It moves when a read finds
	 * the device empty and nothing queued, with the bounds of
	 * drain__consumed_to() (live/drain.h): a record is stamped
	 * microseconds before its commit (so one stamped just before the
	 * watermark may still come: keep a few ms of slack); idle, the
	 * drain thread looks at the device every 20 ms, so the watermark
	 * lags now_ns by about 20 ms (without the drain thread, the loop's
	 * own read: by the time since its last pass); a loop behind the
	 * drain thread (its queue not empty) or a device never empty
	 * leaves it where it was until it catches up. A sample the profile
	 * holds for its process's PROC record (profile.h: waiting) was
	 * handed over but is aggregated only when that record comes: a
	 * child's PROC record is committed before its first sample, so it
	 * was read by then, unless it was lost (a full ring): then the
	 * sample comes at the waiting list's bound or profile__finish().
	 */
	void (*tick)(void *ctx, const struct pollfd *pfd, int n,
		     uint64_t now_ns, uint64_t consumed_to_ns);
	/* the most the loop may wait in poll(), ms; -1: no limit of its
	 * own (the loop's is 100 ms) */
	int (*timeout_ms)(void *ctx);
};

struct live {
	const struct live_opts *o;
	struct recorder *rc;
	struct device sess;
	int cgroup_fd;			/* --cgroup's directory, or -1 */
	/* reads the device while the loop handles stops (live/drain.h) */
	struct drain drain;
	bool whole_pool;		/* drain__fill_pool() (the agent) */
	struct launch launch;
	bool enabled;			/* a session ran */
	unsigned int ring_bytes;	/* ENABLE's rings (0: the default) */
	bool exec_failed;		/* launch: the command could not run */
	uint64_t snap_gap_ns;		/* throttle of maps re-reads */
	int sample_pid;			/* the last SAMPLE's process */
	bool maps_due;			/* re-read its maps after the group */
	/* the run's object cache (NULL: the Python side opens its own) */
	struct objects *objs;
	struct python_live py;		/* CPython's frame walks */
	/* a sample's group held until its last record: the PYCODE records
	 * its UWALK needs go before it */
	struct {
		unsigned char *buf;
		size_t len, cap;
		unsigned int nrec;
		int pid;
	} grp;
	/* set after live__init(), before live__collect() (NULL: none,
	 * tprof-read) */
	const struct live_hooks *hooks;
	bool stop;			/* live__stop() */
	/* the watermark tick() gets (struct live_hooks) */
	uint64_t consumed_to_ns;
};

void live__init(struct live *l, const struct live_opts *o,
		struct recorder *rc);

/*
 * Run the session to its end (the target's, -d, a signal) and drain it:
 * every record through rc. 0, or -errno after one line on stderr.
 */
int live__collect(struct live *l);

/*
 * Ends the session from a hook: the loop stops as at -d's deadline
 * (DISABLE, drain, STATS, profile__finish()), before its next poll();
 * live__collect() then returns. In launch mode it waits for the
 * command's end, as after -d.
 */
void live__stop(struct live *l);

#endif /* _TPROF_LIVE_LOOP_H */
