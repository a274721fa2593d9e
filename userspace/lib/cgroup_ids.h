/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tprof-read: a process's cgroup by the id its PROC record carries (struct
 * tprof_rec_proc's @cgroup_id: its cgroup2 directory's inode number). A
 * reader behind its target gets to a short process's record after it was
 * reaped, when /proc/PID/cgroup is gone; the directory is still there.
 */
#ifndef _TPROF_CGROUP_IDS_H
#define _TPROF_CGROUP_IDS_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/util.h"

/* one thread's: ids to paths seen, and where cgroup v2 is mounted */
struct cgroup_ids {
	char root[PATH_MAX];	/* the cgroup2 mount ("" : none seen) */
	int root_state;		/* 0: not looked for; 1: root; -1: none */
	struct cgroup_id_slot *slots;	/* ids seen (path NULL: a walk */
	size_t n, cap;			/* did not find it) */
	struct hindex idx;		/* id -> slots[] */
	unsigned long walks;		/* walks of the mount done */
};

/*
 * c empty; root: the cgroup v2 mount to use, NULL to find it in
 * /proc/self/mountinfo when first needed (tests pass a directory).
 */
void cgroup_ids__init(struct cgroup_ids *c, const char *root);
void cgroup_ids__free(struct cgroup_ids *c);

/*
 * pid's cgroup as a /proc/PID/cgroup text ("0::PATH\n", malloc'd, the
 * caller's) in *text and *len: with id 0 (an older module's record, or a
 * pending process's) /proc/PID/cgroup itself; else the path id was seen
 * at, /proc/PID/cgroup if its directory is id, or the directory a walk of
 * the mount finds with id (then every directory seen is remembered). 0 or
 * -errno (-ENOENT: pid gone and no directory is id).
 */
int cgroup_ids__text(struct cgroup_ids *c, int pid, uint64_t id, char **text,
		     size_t *len);

#endif /* _TPROF_CGROUP_IDS_H */
