/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tprof-read: JIT symbol maps, the /tmp/perf-PID.map convention (Node's
 * --perf-basic-prof, Python 3.12's -X perf, Java agents): one "START SIZE
 * name" line per piece of generated code, hex, appended while the target
 * runs. Entries can overlap (code freed and its memory reused): the newer
 * line wins, as in perf.
 */
#ifndef _TPROF_PERFMAP_H
#define _TPROF_PERFMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct perfmap_entry {
	uint64_t start, end;
	uint32_t seq;		/* line number over all text added: newer wins */
	int pid;
	char *name;
};

struct perfmap {
	struct perfmap_entry *e;	/* in the order added */
	size_t n, cap;
	uint32_t *bystart;	/* e by (pid, start): perfmap__seal() */
	uint64_t *maxend;	/* running maximum of end along bystart */
	size_t nindexed;
	bool sealed;		/* indexed from now on, at every add */
	uint64_t bad_lines;	/* not "START SIZE name": skipped */
	size_t forgotten;	/* entries dropped (perfmap__forget()): a
				 * new entry's seq still counts them */
};

void perfmap__init(struct perfmap *pm);
void perfmap__free(struct perfmap *pm);

/*
 * Add the lines of text[0..len) (whole lines; a last line without '\n' is
 * taken too) as pid's, newer than every entry before.
 */
void perfmap__add_text(struct perfmap *pm, int pid, const char *text,
		       size_t len);

/* Does pid have any entry? */
bool perfmap__has(const struct perfmap *pm, int pid);

/*
 * Index the entries for lookups, once they are (nearly) all there: at the
 * stream's end (profile__finish()). An add after it (a launch's exit stop
 * reads the map once more) indexes them again; one before it does not, so
 * that a live session's reads, one a second, sort nothing.
 */
void perfmap__seal(struct perfmap *pm);
/*
 * Index the entries now, without sealing: a pass over a window while the
 * stream goes on (profile__index()); later adds wait for the next call.
 */
void perfmap__index(struct perfmap *pm);

/* The newest entry of pid covering addr, or NULL; only what
 * perfmap__seal() indexed is found. */
const struct perfmap_entry *perfmap__lookup(const struct perfmap *pm,
					    int pid, uint64_t addr);

/*
 * Is a mapping of this path where JIT code lives, whose names a perf map
 * gives (perf's rule): anonymous memory ("" in /proc/PID/maps, "//anon",
 * "[anon:NAME]" from PR_SET_VMA_ANON_NAME), /dev/zero, hugetlb, memfd.
 */
bool perfmap__jit_path(const char *path);

/*
 * Drop the entries of every process gone(ctx, pid) says is (a live
 * agent's eviction); the index is rebuilt. Returns the entries dropped.
 */
size_t perfmap__forget(struct perfmap *pm, bool (*gone)(void *ctx, int pid),
		       void *ctx);

#endif /* _TPROF_PERFMAP_H */
