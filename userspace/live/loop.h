/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tprof-read: a live session, from ENABLE to the last drained record: the
 * launch or attach, the poll/read loop through the stream reader, signals,
 * progress, maps re-reads, DISABLE + drain + STATS.
 */
#ifndef _TPROF_LIVE_LOOP_H
#define _TPROF_LIVE_LOOP_H

#include <stdbool.h>
#include <stdint.h>

#include "analyze/unwind.h"
#include "live/device.h"
#include "live/drain.h"
#include "live/launch.h"
#include "live/pywalk.h"
#include "live/recorder.h"

#define LIVE_MAX_THREAD_PERIODS 256

enum live_mode { LIVE_CPU, LIVE_OFF_CPU, LIVE_WALL };

/* What the options ask of a live session. */
struct live_opts {
	int pid;			/* attach */
	char **argv;			/* launch */
	const char *device;
	double duration_s;		/* 0: until the end */
	uint64_t period_ns;		/* 0: the module's default */
	struct { int tid; uint64_t period_ns; }
		tperiods[LIVE_MAX_THREAD_PERIODS];
	int ntperiods;
	bool kernel_stacks;
	int children;			/* -1: launch yes, -p no */
	enum live_mode mode;
	uint64_t off_period_ns;		/* 0: the CPU period */
	unsigned int max_frames;
	unsigned int ring_bytes;
	enum unwind_mode call_graph;
	bool call_graph_given;		/* a refused snapshot is an error */
	unsigned int snapshot_bytes;	/* 0: the mode's default */
};

struct live {
	const struct live_opts *o;
	struct recorder *rc;
	struct device sess;
	/* reads the device while the loop handles stops (live/drain.h) */
	struct drain drain;
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
};

void live__init(struct live *l, const struct live_opts *o,
		struct recorder *rc);

/*
 * Run the session to its end (the target's, -d, a signal) and drain it:
 * every record through rc. 0, or -errno after one line on stderr.
 */
int live__collect(struct live *l);

#endif /* _TPROF_LIVE_LOOP_H */
