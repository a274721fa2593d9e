// SPDX-License-Identifier: GPL-2.0
/* tprof-read, live: follow the target's /tmp/perf-PID.map as it grows. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "live/perfmap_follow.h"
#include "lib/util.h"

/* One call reads at most this much; the rest comes next time. */
#define READ_MAX (16U << 20)

void perfmap_follow__init(struct perfmap_follow *f, int pid)
{
	memset(f, 0, sizeof(*f));
	f->pid = pid;
	f->nspid = pid;
}

/* When the target started, in CLOCK_REALTIME seconds (0: unknown). */
static int64_t start_time(int pid)
{
	char path[64], buf[1024], *p;
	unsigned long long start_ticks, btime = 0;
	long hz = sysconf(_SC_CLK_TCK);
	FILE *fp;
	int i;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	fp = fopen(path, "re");
	if (!fp)
		return 0;
	p = fgets(buf, sizeof(buf), fp);
	fclose(fp);
	/* after the comm, which may hold spaces and parentheses */
	if (!p || !(p = strrchr(buf, ')')))
		return 0;
	for (i = 0; i < 19 && p; i++)	/* to field 22, starttime */
		p = strchr(p + 1, ' ');
	if (!p || sscanf(p + 1, "%llu", &start_ticks) != 1 || hz <= 0)
		return 0;
	fp = fopen("/proc/stat", "re");
	if (!fp)
		return 0;
	while (fgets(buf, sizeof(buf), fp))
		if (sscanf(buf, "btime %llu", &btime) == 1)
			break;
	fclose(fp);
	return btime ? (int64_t)(btime + start_ticks / hz) : 0;
}

/* NSpid (the pid in its own namespace, the name of its file) and euid. */
static void probe(struct perfmap_follow *f)
{
	char path[64], line[256];
	FILE *fp;

	snprintf(path, sizeof(path), "/proc/%d/status", f->pid);
	fp = fopen(path, "re");
	if (!fp)
		return;		/* gone: the host's view, same pid */
	f->probed = true;
	while (fgets(line, sizeof(line), fp)) {
		unsigned int ruid, euid;

		if (!strncmp(line, "NSpid:", 6)) {
			/* the last field: the innermost namespace's pid */
			char *last = strrchr(line, '\t');

			if (last && atoi(last + 1) > 0)
				f->nspid = atoi(last + 1);
		} else if (sscanf(line, "Uid: %u %u", &ruid, &euid) == 2) {
			f->uid = euid;
			f->have_uid = true;
		}
	}
	fclose(fp);
	f->start_s = start_time(f->pid);
}

/* The target's file: in its /tmp while its root reads, else the host's. */
static int open_map(struct perfmap_follow *f)
{
	char path[128];
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/root/tmp/perf-%d.map", f->pid,
		 f->nspid);
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd >= 0 || errno == ENOENT || errno == ELOOP)
		return fd;
	/* no root to read (it exited): /tmp is the host's, and so is a pid
	 * that is its own in the namespace it had */
	if (f->nspid != f->pid)
		return -1;
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", f->pid);
	return open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
}

/*
 * A file the target could have written itself: its content is then no
 * more than it could tell us anyway (not some other user's file linked
 * there), and not left over from an earlier process of the same pid.
 */
static bool acceptable(const struct perfmap_follow *f, const struct stat *st)
{
	if (!S_ISREG(st->st_mode))
		return false;
	if (st->st_uid != geteuid() && (!f->have_uid || st->st_uid != f->uid))
		return false;
	return f->have_file || !f->start_s || st->st_mtime + 1 >= f->start_s;
}

int perfmap_follow__read(struct perfmap_follow *f, char **text, size_t *len,
			 uint64_t *offset)
{
	struct stat st;
	char *buf;
	size_t n = 0, want, keep;
	int fd;

	if (!f->probed)
		probe(f);
	fd = open_map(f);
	if (fd < 0)
		return 0;
	if (fstat(fd, &st) || !acceptable(f, &st)) {
		close(fd);
		return 0;
	}
	/* another file at the name, or the same one truncated: rewritten */
	if (!f->have_file || st.st_dev != f->dev || st.st_ino != f->ino ||
	    (uint64_t)st.st_size < f->offset) {
		if (f->have_file)
			pr_debug("perf-%d.map rewritten: reading it again",
				 f->nspid);
		f->have_file = true;
		f->dev = st.st_dev;
		f->ino = st.st_ino;
		f->offset = 0;
	}
	if ((uint64_t)st.st_size <= f->offset) {
		close(fd);
		return 0;
	}
	want = (uint64_t)st.st_size - f->offset > READ_MAX ? READ_MAX :
	       (size_t)((uint64_t)st.st_size - f->offset);
	buf = xmalloc(want + 1);
	while (n < want) {
		ssize_t r = pread(fd, buf + n, want - n, f->offset + n);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		n += r;
	}
	close(fd);
	/* whole lines only: the writer may be in the middle of one */
	for (keep = n; keep > 0 && buf[keep - 1] != '\n'; keep--)
		;
	if (!keep) {
		free(buf);
		return 0;
	}
	*text = buf;
	*len = keep;
	*offset = f->offset;
	f->offset += keep;
	return 1;
}
