/* SPDX-License-Identifier: GPL-2.0 */
/* tprof-read: write an output file whole or not at all (temp + rename). */
#ifndef _TPROF_OUTFILE_H
#define _TPROF_OUTFILE_H

#include <stdbool.h>
#include <stddef.h>

/*
 * A regular file (or a new one) is written to a temporary file in the same
 * directory and renamed over it at commit, so a failure never leaves a
 * truncated file and the old one stays. The replaced file keeps its mode and
 * owner; a symlink's target is replaced, the link stays. Anything else that
 * exists (/dev/null, /dev/full, a FIFO, /dev/stdout) is written in place.
 */
struct outfile {
	char *path;	/* what commit renames over: a symlink's target */
	char *tmp;	/* NULL when written in place */
	int fd;
	bool keep_attrs;	/* the file existed: copy its mode and owner */
	unsigned int mode, uid, gid;
};

/*
 * 0, or -errno. A symlink to nothing is refused with -ENOENT: writing through
 * it would create a file wherever it points (see outfile_dangling()).
 */
int outfile__open(struct outfile *o, const char *path);
/* fsync, mode and owner, rename. 0 or -errno; the temp file is gone either way. */
int outfile__commit(struct outfile *o);
/* Remove the temp file (safe after commit and on a zeroed struct). */
void outfile__abort(struct outfile *o);

/* Is path a symlink whose target does not exist? */
bool outfile_dangling(const char *path);

/* write(2) all of buf, retrying short writes. 0 or -errno. */
int write_all(int fd, const void *buf, size_t len);
/* outfile__open + write_all + outfile__commit. 0 or -errno. */
int write_file_atomic(const char *path, const void *buf, size_t len);

#endif /* _TPROF_OUTFILE_H */
