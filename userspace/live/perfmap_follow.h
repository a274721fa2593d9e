/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tprof-read, live: follow the target's JIT symbol map as it grows. The
 * file is the one the target writes: /tmp/perf-NSPID.map in its own /tmp
 * (/proc/PID/root/tmp) under its pid in its own pid namespace (NSpid).
 */
#ifndef _TPROF_PERFMAP_FOLLOW_H
#define _TPROF_PERFMAP_FOLLOW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct perfmap_follow {
	int pid;		/* the target, in our pid namespace */
	bool probed;		/* nspid, uid, start read from /proc */
	int nspid;		/* its pid in its own namespace */
	uid_t uid;		/* its effective uid: the file's owner */
	bool have_uid;
	int64_t start_s;	/* CLOCK_REALTIME seconds it started; 0 unknown */
	bool have_file;
	dev_t dev;
	ino_t ino;
	uint64_t offset;	/* bytes of whole lines read so far */
};

void perfmap_follow__init(struct perfmap_follow *f, int pid);

/*
 * The whole lines the map gained since the last call, in a malloc'd
 * buffer: 1 with *text, *len and the file *offset they start at (0 again
 * after the file was rewritten); 0 when there is nothing new or no file.
 * Only a regular file the target (or we) own, not a symlink, and not one
 * older than the target (a stale map of a former process of that pid).
 */
int perfmap_follow__read(struct perfmap_follow *f, char **text, size_t *len,
			 uint64_t *offset);

#endif /* _TPROF_PERFMAP_FOLLOW_H */
