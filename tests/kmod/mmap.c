// SPDX-License-Identifier: GPL-2.0
/*
 * MMAP records (the kprobe on perf_event_mmap()): a target's executable
 * mappings, each exactly once, with the file's identity and offset, for
 * every way one appears (anonymous mmap, mprotect to PROT_EXEC, a file,
 * MAP_FIXED over another); none for a non-executable mapping, none of a
 * process nobody profiles. Truth: the addresses mmap(2) returned and
 * fstat(2) of the file.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "ktest.h"

struct mm_shared {
	u64 anon, data, file, fixed;	/* where the target mapped */
	u64 ino, dev_major, dev_minor;	/* the file it mapped */
	u64 other;			/* the unprofiled process's */
	int tid;
};

static void mm_target(void *arg)
{
	struct mm_shared *sh = arg;
	int fd = open("/proc/self/exe", O_RDONLY);
	struct stat st;
	void *p;

	if (fd < 0 || fstat(fd, &st))
		_exit(2);
	sh->tid = gettid_();
	child_report("R %d 0\n", sh->tid);
	child_wait_go();
	p = mmap(NULL, 8192, PROT_READ | PROT_EXEC,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	sh->anon = (u64)(unsigned long)p;
	p = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	sh->data = (u64)(unsigned long)p;
	if (mprotect(p, 4096, PROT_READ | PROT_EXEC))
		_exit(3);
	p = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 4096);
	sh->file = (u64)(unsigned long)p;
	sh->ino = st.st_ino;
	sh->dev_major = major(st.st_dev);
	sh->dev_minor = minor(st.st_dev);
	p = mmap((void *)(unsigned long)sh->anon, 4096, PROT_READ | PROT_EXEC,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	sh->fixed = (u64)(unsigned long)p;
	child_report("D\n");
	child_wait_go();
	_exit(0);
}

static void mm_other(void *arg)
{
	struct mm_shared *sh = arg;
	void *p;

	child_report("R %d 1\n", gettid_());
	child_wait_go();
	p = mmap(NULL, 4096, PROT_READ | PROT_EXEC,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	sh->other = (u64)(unsigned long)p;
	child_report("D\n");
	child_wait_go();
	_exit(0);
}

static int by_time(const void *a, const void *b)
{
	const struct tprof_rec_mmap *x = a, *y = b;

	return x->hdr.time_ns < y->hdr.time_ns ? -1 :
	       x->hdr.time_ns > y->hdr.time_ns;
}

/* record r is [start, start + len) exactly */
static bool is(const struct tprof_rec_mmap *r, u64 start, u64 len)
{
	return r->start == start && r->end == start + len;
}

/* record r holds [start, start + len): the kernel merged it with a
 * neighbour of the same kind, and reports the merged mapping */
static bool holds(const struct tprof_rec_mmap *r, u64 start, u64 len)
{
	return r->start <= start && r->end >= start + len;
}

int t_mmap(void)
{
	struct mm_shared *sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
				    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	const struct tprof_rec_mmap *r = NULL;
	struct report rep = { 0 }, rep2 = { 0 };
	struct child c, o;
	struct sum s;
	int fd, i;

	if (sh == MAP_FAILED)
		die("mmap");
	memset(sh, 0, sizeof(*sh));
	spawn(&c, mm_target, sh);
	spawn(&o, mm_other, sh);
	if (!collect(&c, &rep, 1, false, 60000, -1, NULL) ||
	    !collect(&o, &rep2, 1, false, 60000, -1, NULL))
		die("mmap: children not ready");
	sum_init(&s, c.pid);
	fd = dev_open();
	ok(enable(fd, c.pid, 1000 * US, 0, 0) == 0, "mmap: ENABLE");
	child_go(&o);
	collect(&o, &rep2, 0, true, 60000, fd, &s);
	child_go(&c);
	collect(&c, &rep, 0, true, 60000, fd, &s);
	disable(fd);
	read_to_eof(fd, &s, 30000);
	for (i = 0; i < s.nmmap && i < 16; i++)
		note("mmap: MMAP tid %u %llx-%llx pgoff %llx inode %llu dev %u:%u",
		     s.mmap[i].tid, (unsigned long long)s.mmap[i].start,
		     (unsigned long long)s.mmap[i].end,
		     (unsigned long long)s.mmap[i].pgoff,
		     (unsigned long long)s.mmap[i].inode, s.mmap[i].dev_major,
		     s.mmap[i].dev_minor);
	/* the target's own order (the rings are per CPU) */
	qsort(s.mmap, s.nmmap < 16 ? s.nmmap : 16, sizeof(s.mmap[0]), by_time);
	ok(s.nmmap == 4,
	   "mmap: 4 MMAP records in all: none for the non-executable mapping (%d)",
	   s.nmmap);
	if (s.nmmap < 4)
		die("mmap: too few records to check");
	r = &s.mmap[0];
	ok(is(r, sh->anon, 8192) && !r->inode && !r->pgoff &&
	   r->tid == (u32)sh->tid,
	   "mmap: anonymous PROT_EXEC mmap: its range, inode 0, the mapping thread");
	/* 6.12 merges it with the anonymous one next to it */
	r = &s.mmap[1];
	ok(holds(r, sh->data, 4096),
	   "mmap: PROT_WRITE mmap then mprotect to PROT_EXEC: a record of the mprotect holding it");
	r = &s.mmap[2];
	ok(is(r, sh->file, 4096) && r->inode == sh->ino &&
	   r->dev_major == sh->dev_major && r->dev_minor == sh->dev_minor &&
	   r->pgoff == 4096,
	   "mmap: a file at offset 4096: its inode %llu, device %llu:%llu and offset",
	   (unsigned long long)sh->ino, (unsigned long long)sh->dev_major,
	   (unsigned long long)sh->dev_minor);
	/* the kernel merges it with the rest of the anonymous one */
	r = &s.mmap[3];
	ok(sh->fixed == sh->anon && holds(r, sh->fixed, 4096),
	   "mmap: MAP_FIXED over the anonymous one: a record holding its range");
	ok(sh->other && s.bad == 0,
	   "mmap: none of the unprofiled process's PROT_EXEC mmap, no malformed record (%llu bad)",
	   (unsigned long long)s.bad);
	close(fd);
	child_finish(&c);
	child_finish(&o);
	sum_free(&s);
	munmap(sh, sizeof(*sh));
	return 0;
}
