// SPDX-License-Identifier: GPL-2.0
/* tprof-read: the target's mapped files as it sees them: build-ids and its
 * vDSO image, for the stream's BUILDID and VDSO records. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "live/target_files.h"
#include "lib/util.h"

/* A vDSO is a few pages; anything larger is not one */
#define VDSO_MAX (1U << 20)

static int open_mapped(int pid, const struct mapping *m)
{
	char path[4200];
	struct stat st;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/map_files/%llx-%llx", pid,
		 (unsigned long long)m->start, (unsigned long long)m->limit);
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd >= 0)
		return fd;
	/* the target's mount namespace: a container's file, not the host's */
	snprintf(path, sizeof(path), "/proc/%d/root%s", pid, m->path);
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	/* replaced since it was mapped: not the file the samples ran */
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_ino != m->inode) {
		close(fd);
		return -ESTALE;
	}
	return fd;
}

int target_files__buildid(int pid, const struct mapping *m,
			  unsigned char bits[BUILDID_MAX])
{
	int fd, n;

	if (m->path[0] != '/')
		return -EINVAL;
	fd = open_mapped(pid, m);
	if (fd < 0) {
		pr_debug("%s: build-id: %s", m->path, strerror(-fd));
		return fd;
	}
	n = buildid__from_fd(fd, bits);
	close(fd);
	return n;
}

int target_files__vdso(int pid, const struct mapping *m,
		       unsigned char **image, size_t *len)
{
	size_t size = m->limit - m->start;
	char path[64];
	ssize_t n;
	int fd, err;

	*image = NULL;
	*len = 0;
	if (size > VDSO_MAX)
		return -EFBIG;
	snprintf(path, sizeof(path), "/proc/%d/mem", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		pr_debug("%s: %s", path, strerror(errno));
		return err;
	}
	*image = xmalloc(size);
	n = pread(fd, *image, size, (off_t)m->start);
	err = n < 0 ? -errno : -EIO;
	close(fd);
	if (n != (ssize_t)size) {
		pr_debug("%s: vDSO at %llx: %s", path,
			 (unsigned long long)m->start, strerror(-err));
		free(*image);
		*image = NULL;
		return err;
	}
	*len = size;
	return 0;
}
