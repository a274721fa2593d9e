// SPDX-License-Identifier: GPL-2.0
/* tprof-read: write an output file whole or not at all (temp + rename). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/outfile.h"
#include "lib/util.h"

bool outfile_dangling(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0 && S_ISLNK(st.st_mode) &&
	       stat(path, &st) < 0 && errno == ENOENT;
}

int outfile__open(struct outfile *o, const char *path)
{
	struct stat st;
	char *real;
	size_t n;
	int ret;

	memset(o, 0, sizeof(*o));
	o->fd = -1;
	if (outfile_dangling(path))
		return -ENOENT;
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
		/* never rename over a device or a FIFO: write into it */
		o->fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
		return o->fd < 0 ? -errno : 0;
	}
	if (stat(path, &st) == 0) {
		o->keep_attrs = true;
		o->mode = st.st_mode & 07777;
		o->uid = st.st_uid;
		o->gid = st.st_gid;
	}
	/* replace a symlink's target, not the link */
	real = realpath(path, NULL);
	o->path = real ? real : xstrdup(path);
	n = strlen(o->path) + 32;
	o->tmp = xmalloc(n);
	snprintf(o->tmp, n, "%s.tmp.XXXXXX", o->path);
	o->fd = mkostemp(o->tmp, O_CLOEXEC);
	if (o->fd < 0) {
		ret = -errno;
		free(o->tmp);
		o->tmp = NULL;
		free(o->path);
		o->path = NULL;
		return ret;
	}
	return 0;
}

/* The temp file gets the old file's owner and mode, or a new file's. */
static int set_attrs(struct outfile *o)
{
	mode_t um;

	if (!o->keep_attrs) {
		um = umask(0);
		umask(um);
		return fchmod(o->fd, 0666 & ~um) ? -errno : 0;
	}
	/* owner first: chown clears set-id bits that fchmod then restores */
	if (fchown(o->fd, o->uid, o->gid) && errno != EPERM)
		return -errno;
	if (fchmod(o->fd, o->mode))
		return -errno;
	return 0;
}

int outfile__commit(struct outfile *o)
{
	struct stat st;
	int ret = 0;

	if (o->fd < 0)
		return -EBADF;
	if (o->tmp) {
		ret = set_attrs(o);
		if (!ret && fsync(o->fd))
			ret = -errno;
		/* someone else's file we may not give back: say so, once */
		if (!ret && o->keep_attrs && !fstat(o->fd, &st) &&
		    (st.st_uid != o->uid || st.st_gid != o->gid))
			pr_err("warning: %s: owner %u:%u not kept (the new file is %u:%u): %s",
			       o->path, o->uid, o->gid, (unsigned int)st.st_uid,
			       (unsigned int)st.st_gid, strerror(EPERM));
	}
	if (close(o->fd) && !ret)
		ret = -errno;
	o->fd = -1;
	if (o->tmp && !ret && rename(o->tmp, o->path))
		ret = -errno;
	if (ret)
		outfile__abort(o);
	free(o->tmp);
	free(o->path);
	o->tmp = o->path = NULL;
	return ret;
}

void outfile__abort(struct outfile *o)
{
	if (o->fd >= 0)
		close(o->fd);
	o->fd = -1;
	if (o->tmp)
		unlink(o->tmp);
	free(o->tmp);
	free(o->path);
	o->tmp = o->path = NULL;
}

int write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t w = write(fd, p, len);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += w;
		len -= w;
	}
	return 0;
}

int write_file_atomic(const char *path, const void *buf, size_t len)
{
	struct outfile o;
	int ret;

	if (!path || !strcmp(path, "-"))
		return write_all(STDOUT_FILENO, buf, len);
	ret = outfile__open(&o, path);
	if (ret)
		return ret;
	ret = write_all(o.fd, buf, len);
	if (ret) {
		outfile__abort(&o);
		return ret;
	}
	return outfile__commit(&o);
}
