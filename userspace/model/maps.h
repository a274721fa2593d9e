/* SPDX-License-Identifier: GPL-2.0 */
/* tprof-read: /proc/PID/maps snapshots, kept so that code gone later
 * (exited process, dlclose, exec) still resolves to the right mapping. */
#ifndef _TPROF_MAPS_H
#define _TPROF_MAPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/util.h"
#include "model/itree.h"
#include "model/timeline.h"

struct mapping {
	uint64_t start, limit, offset;
	char *path;		/* as in maps: absolute path or "[vdso]" etc. */
	/* which file: a path rebuilt or replaced since is another inode */
	uint32_t dev_major, dev_minor;
	uint64_t inode;
	/*
	 * GNU build-id from a BUILDID record, lowercase hex; "" when the
	 * file has none; NULL when no record names this file.
	 */
	const char *build_id;
	bool bid_tried;		/* live: the writer looked for one */
	/* [vdso]: the target's image from a VDSO record, else NULL */
	const unsigned char *image;
	size_t image_len;
	uint32_t id;		/* pprof Mapping.id, 0 until used */
	int pid;
};

/*
 * A file (dev, inode, path) of the mappings, with its build-id from the
 * first BUILDID record naming it (hex NULL until one does), and its
 * mappings listed (first_map, then each mapping's index entry's next).
 */
struct maps_file {
	uint32_t dev_major, dev_minor;
	uint64_t inode;
	char *path;
	char *hex;
	uint32_t first_map;	/* 1-based into maps.all, 0: none */
};

struct maps_snapshot {
	uint64_t time_ns;	/* CLOCK_MONOTONIC when read */
	/*
	 * Bumped when this snapshot drops or replaces a mapping the pid's
	 * previous one had (exec, dlclose, munmap): only then can an address
	 * mean other code. Snapshots that only add (dlopen, JIT growth) keep
	 * it, so aggregation does not split on them.
	 */
	uint32_t epoch;
	int pid;
	uint32_t *idx;		/* indexes into maps.all, executable only */
	size_t n;
};

/*
 * MMAP records that put other code where an earlier snapshot of the pid
 * showed code (another file, or another offset of it: a dlopen where a
 * dlclose'd library was), one entry per range: samples after one at those
 * addresses resolve only against snapshots read after it. A library
 * dlopen'd and dlclose'd again and again comes back to one range: its
 * times are one timeline, so a lookup costs the ranges over the address,
 * not the records.
 */
struct maps_mark {
	uint64_t start, end;
	int pid;
	struct timeline times;
};

/* A VDSO record: pid's vDSO image, mapped at start. */
struct maps_vdso {
	int pid;
	uint64_t start;
	unsigned char *image;
	size_t len;
};

/*
 * One process's maps over time: its snapshots in the order they came
 * (positions 0, 1, ...), its mappings and marks by address, its parent.
 */
struct maps_pid {
	int pid, ppid;		/* ppid: the last PROC record's, else 0 */
	uint32_t *pos;		/* position -> index into maps.snaps */
	uint32_t npos, cappos;
	uint32_t map_root;	/* maps.pnodes: this pid's mappings */
	uint32_t mark_root;	/* maps.knodes: this pid's marks */
	bool unordered;		/* a snapshot older than the one before */
};

/*
 * Where one mapping (maps.all[i]) is in its process's snapshots: runs of
 * consecutive positions [r[2k], r[2k + 1]], and the next mapping of its
 * file.
 */
struct maps_runs {
	uint32_t *r;
	uint32_t n, cap;	/* runs, and room for them */
	uint32_t next_of_file;	/* 1-based into maps.all, 0: none */
};

struct maps {
	struct mapping *all;	/* unique mappings of every snapshot */
	size_t nall, capall;
	struct hindex all_idx;	/* all by identity: snapshots of thousands
				 * of mappings intern in O(1) per line */
	struct maps_snapshot *snaps;
	size_t nsnaps, capsnaps;

	/* the indexes (maps.c): lookups never scan the snapshots */
	struct itnode *pnodes, *gnodes;	/* per all[]: pid's tree, all's */
	struct maps_runs *runs;		/* per all[] */
	size_t capp, capg, capr;
	uint32_t all_root;		/* gnodes: every mapping */
	struct maps_pid *pids;
	size_t npids, cappids;
	struct hindex pid_idx;
	/* snapshots newer than every later one (strict suffix minima of
	 * time): the last snapshot at or before a time in O(log n) */
	uint32_t *lows;
	size_t nlows, caplows;
	struct maps_file *files;
	size_t nfiles, capfiles;
	struct hindex file_idx;
	struct maps_vdso *vdsos;
	size_t nvdsos, capvdsos;
	struct hindex vdso_idx;
	struct maps_mark *marks;	/* ranges, in the order they came */
	size_t nmarks, capmarks;
	struct hindex mark_idx;		/* marks by (pid, start, end) */
	struct itnode *knodes;		/* per marks[] */
	size_t capk;
	struct timeline mark_times;	/* every MMAP record's that marked */
	uint64_t bad_lines;		/* maps lines that did not parse */
};

void maps__init(struct maps *m);
void maps__free(struct maps *m);

/*
 * Add a snapshot from the text of /proc/PID/maps. Only executable mappings
 * are kept. A line that does not parse is skipped (counted in bad_lines;
 * the reader's first one with a warning naming the pid and the line): the
 * rest of the snapshot still names its frames. Returns the number of
 * executable mappings.
 */
int maps__add_snapshot(struct maps *m, int pid, uint64_t time_ns,
		       const char *text, size_t len);

/*
 * An MMAP record: pid mapped code of the file (dev, inode; 0 for anonymous
 * memory) at file offset pgoff on [start, end) at time_ns. Returns whether
 * it reuses addresses an earlier snapshot showed as other code (then it is
 * kept as a mark: a snapshot read after it is needed to name them).
 */
bool maps__add_mmap(struct maps *m, int pid, uint64_t time_ns,
		    uint64_t start, uint64_t end, uint64_t pgoff,
		    uint32_t dev_major, uint32_t dev_minor, uint64_t inode);

/*
 * The epoch at time_ns: of the newest snapshot taken at or before it, plus
 * the marks before it. It changes only where an address may have come to
 * mean other code: samples of different epochs are not merged.
 */
uint32_t maps__epoch_at(const struct maps *m, uint64_t time_ns);

/* Does any snapshot map addr? O(log n) over the unique mappings. */
bool maps__covered(struct maps *m, uint64_t addr);

/*
 * The mapping holding addr in process pid for a sample taken at time_ns:
 * pid's newest snapshot taken before the sample first, then older ones,
 * then newer; never one taken before a mark at addr that precedes the
 * sample. Another process's snapshots never answer (a tree's programs
 * share addresses), except a parent's for a child that has none there and
 * no exec before the sample: a fork is a copy of its parent's maps.
 * Cost: O(log n) in the process's snapshots and mappings when the newest
 * snapshot before the sample maps addr (the usual case); else the
 * mappings of the process that ever held addr, a binary search of each
 * one's runs of snapshots (and, only where a process's snapshots came out
 * of time order and an exec or mark bounds the search, its snapshots).
 */
struct mapping *maps__find(const struct maps *m, int pid, uint64_t addr,
			   uint64_t time_ns);

/*
 * Same, never from a snapshot taken before since_ns (the process's exec
 * before the sample: older snapshots show the previous program's code at
 * possibly the same addresses).
 */
struct mapping *maps__find_since(const struct maps *m, int pid, uint64_t addr,
				 uint64_t time_ns, uint64_t since_ns);

/* A PROC record: pid is a child of ppid (maps__find's fallback). */
void maps__set_parent(struct maps *m, int pid, int ppid);

/*
 * Record that the file (dev, inode, path) has GNU build-id hex ("" for
 * none); mappings of that file, present and future, carry it.
 */
void maps__add_buildid(struct maps *m, uint32_t dev_major, uint32_t dev_minor,
		       uint64_t inode, const char *path, size_t plen,
		       const char *hex);

/* Record pid's vDSO image at start: its [vdso] mappings carry it. */
void maps__add_vdso(struct maps *m, int pid, uint64_t start,
		    const unsigned char *image, size_t len);

/*
 * A live agent's eviction (profile__forget()): drop every snapshot of the
 * processes gone(ctx, pid) says are, and of the others those older than
 * their newest taken at or before before_ns; the mappings, files and
 * vDSO images only those held. The rest is rebuilt: indexes into
 * maps.all change (the unwinder's cache of them must be reset), each
 * kept snapshot keeps its epoch. Returns the snapshots dropped.
 */
size_t maps__forget(struct maps *m, bool (*gone)(void *ctx, int pid),
		    void *ctx, uint64_t before_ns);

#endif /* _TPROF_MAPS_H */
