/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tprof-agent: what ended is forgotten, so that a session of months holds
 * what its live processes need and no more. Every few seconds, from the
 * live loop's tick: the processes that exited (or were denied) before the
 * horizon go from the model (profile__forget(): threads, maps snapshots,
 * perf map entries, Python records), from the recorder (last maps texts)
 * and from the Python walker (its /proc/PID/mem); the unwinder's caches
 * of the rebuilt maps go; objects (binaries) no kept mapping names go in
 * LRU order past --max-objects. The horizon is the earliest of the open
 * windows' starts and the reader's watermark less EVICT_LAG_NS: no window
 * still to be answered can hold a sample older than it.
 */
#ifndef _TPROF_AGENT_EVICT_H
#define _TPROF_AGENT_EVICT_H

#include <stddef.h>
#include <stdint.h>

#include "agent/windows.h"
#include "analyze/unwind.h"
#include "live/pywalk.h"
#include "live/recorder.h"
#include "model/profile.h"
#include "object/object.h"

/* a process's last samples may be read up to this late (a child's wait
 * for its PROC record is bounded by count, not time: 2 s is generous) */
#define EVICT_LAG_NS		2000000000ULL
#define EVICT_EVERY_NS		5000000000ULL
#define EVICT_MAX_OBJECTS	256
/*
 * CFI rows the unwinder keeps (1.1 kB each, 4.5 MiB): a leaf's row is one
 * per sampled pc, so unbounded they grow with the code that ever ran (the
 * soak: 16,384 rows, 18 MiB, in 150 s; the agent's RSS +38% in 9 min)
 */
#define EVICT_CFI_ROWS		4096

struct evict {
	struct profile *p;
	struct recorder *rc;
	struct python_live *py;
	struct unwinder *u;
	struct objects *objs;
	size_t max_objects;
	uint64_t last_ns;
	/* for /metrics */
	uint64_t runs, procs, objects;
	uint64_t run_ns;		/* time spent, all runs */
};

/* Forget, if EVICT_EVERY_NS passed since the last time. */
void evict__tick(struct evict *e, const struct windows *ws, uint64_t now_ns,
		 uint64_t consumed_to_ns);
/* Forget what ended before before_ns now (the tick's work; tests). */
void evict__run(struct evict *e, uint64_t before_ns);

#endif /* _TPROF_AGENT_EVICT_H */
