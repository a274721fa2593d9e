/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tprof-read: where every record goes (--save-raw, then the profile), and
 * the pseudo-records a live session adds so that a saved stream replays
 * alone: MAPS as the target's maps change, BUILDID and VDSO as a snapshot
 * first shows a file, CGROUP as a process joins or execs, KALLSYMS before
 * ENABLE, PERFMAP as the JIT map grows.
 */
#ifndef _TPROF_LIVE_RECORDER_H
#define _TPROF_LIVE_RECORDER_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "lib/cgroup_ids.h"
#include "lib/util.h"
#include "live/perfmap_follow.h"
#include "model/profile.h"
#include "stream/records.h"

/* The last maps and cgroup texts read of one process, to skip repeats. */
struct last_maps {
	int pid;
	char *text;
	size_t len;
	char *cgroup;
	size_t cgroup_len;
};

struct recorder {
	struct profile *prof;
	FILE *raw;			/* --save-raw (NULL: none) */
	int raw_err;			/* errno of a write to it that failed */
	int target;			/* the process ENABLE named */
	int root_fd;			/* the target's root at the last read */
	const char *kallsyms;		/* what a KALLSYMS record holds */
	struct perfmap_follow jit;	/* the target's perf-PID.map */
	uint64_t last_jit_ns;		/* the last read of it */
	uint64_t last_snap_ns;		/* the last read of any maps */
	struct last_maps *last;		/* per process read */
	size_t nlast, caplast;
	struct hindex last_idx;		/* pid -> last[] */
	struct cgroup_ids cgroups;	/* PROC records' cgroup ids */
	/* live: called with each MAPS record's snapshot, after its BUILDID
	 * records (CPython found in it, live/pywalk.h) */
	void (*maps_hook)(void *ctx, int pid, const struct maps_snapshot *sn);
	void *maps_ctx;
	/* each record, the device's and ours, after the profile took it
	 * (the agent's: LOST and THROTTLE by time, PROC_EXIT); NULL: none */
	void (*tap)(void *ctx, const struct tprof_record *rec);
	void *tap_ctx;
	bool denied_noted;		/* the DENIED line was printed */
	bool line_shown;		/* a progress line is on the terminal */
};

void recorder__init(struct recorder *rc, struct profile *prof);
/* A live session of target begins: its maps and JIT map are followed. */
void recorder__start(struct recorder *rc, int target);
void recorder__free(struct recorder *rc);

/*
 * Every record, the device's, a saved stream's or ours: --save-raw, then
 * the profile, then the tap. A DENIED record is said on stderr (once for
 * the target).
 */
void recorder__add(struct recorder *rc, const struct tprof_record *rec);

/*
 * A pseudo-record of type, made and added now: fixed is the type's struct
 * (header included: it is filled here), tail the text or image after it.
 */
void recorder__urec(struct recorder *rc, unsigned int type, const void *fixed,
		    size_t fixed_size, const void *tail, size_t tail_len);

/*
 * A MAPS record of pid's /proc/PID/maps, unless it says what the last one
 * of pid said (force: even so), with the BUILDID and VDSO records of the
 * files it is the first to show. Returns whether one was written.
 */
bool recorder__maps(struct recorder *rc, int pid, bool force);
/*
 * The same of text (len bytes, malloc'd: taken), read earlier: the MAPS
 * record is stamped time_ns (0: now), the time the samples from which on
 * it names (an EXEC record's).
 */
bool recorder__maps_text(struct recorder *rc, int pid, char *text,
			 size_t len, bool force, uint64_t time_ns);

/*
 * A CGROUP record of pid's cgroup, stamped time_ns (0: now: the record
 * that called for it, PROC or EXEC, else the read), unless it says what
 * pid's last one said; nothing if it cannot be told. id: the PROC
 * record's cgroup_id (0: none; /proc/PID/cgroup, lib/cgroup_ids.h). The
 * model makes the labels of it (a v1-only text has none).
 */
void recorder__cgroup(struct recorder *rc, int pid, uint64_t id,
		      uint64_t time_ns);
/* The same of text (len bytes, malloc'd: taken), read earlier. */
void recorder__cgroup_text(struct recorder *rc, int pid, char *text,
			   size_t len, uint64_t time_ns);

/*
 * pid's last maps text (an empty entry the first time), found through a
 * hash index: a process tree's thousands of pids cost no scan.
 */
struct last_maps *recorder__last_maps(struct recorder *rc, int pid);
/* A live agent's eviction: the last maps and cgroup texts of the
 * pids[0..n) go. */
void recorder__forget(struct recorder *rc, const int *pids, size_t n);

/* A KALLSYMS record of rc->kallsyms and its modules file. */
void recorder__kallsyms(struct recorder *rc);

/* PERFMAP records of what the target's JIT map gained since the last. */
void recorder__perfmap(struct recorder *rc);

/* Clear a progress line from the terminal before a line of ours. */
void recorder__end_line(struct recorder *rc);

#endif /* _TPROF_LIVE_RECORDER_H */
