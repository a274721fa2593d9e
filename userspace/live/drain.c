// SPDX-License-Identifier: GPL-2.0
/*
 * tprof-read: the drain thread. It reads the device into a queue: a ptrace
 * stop that reads maps and build-ids for hundreds of milliseconds (a TCG
 * guest, a thread's exit) no longer leaves the rings to fill, as it did
 * when the loop read them itself. The one thing it does besides: a
 * process that exec'd or joined the session (an EXEC or PROC record) has
 * its maps and cgroup read when the thread reads the record, since the
 * loop may get to the record after the process exited (case 53's tree on
 * a 6.12-arm64 guest: a child's maps read seconds late, its code
 * unnamed).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "uapi/tprof.h"
#include "lib/util.h"
#include "live/device.h"
#include "live/drain.h"
#include "stream/records.h"

/* an empty device is polled again this often, to see stop and last */
#define DRAIN_POLL_MS 20
/*
 * The thread only copies the rings into the queue and sleeps; starved of
 * CPU by the target's own threads (16 spinners on 8 CPUs of a
 * 6.12-arm64 guest: the rings filled, 4% of the samples lost) it loses
 * samples. Where the user may (root, or RLIMIT_NICE), it runs at this
 * nice, so that it gets a CPU soon after it wakes.
 */
#define DRAIN_NICE (-10)

/* a chunk of what one read of the device returned */
struct drain_chunk {
	struct spsc_node node;		/* first: the list's */
	size_t cap;			/* bytes[]'s size */
	size_t len;
	size_t off;			/* the loop's: read back up to here */
	unsigned char bytes[];
};

/* a maps snapshot the thread read (drain__next_maps()) */
struct drain_maps {
	struct spsc_node node;		/* first: the list's */
	struct drain_snap s;		/* its texts the thread's */
};

/* snapshots held for the loop: past it, none more */
#define DRAIN_MAPS_MAX 1024
/* a process's maps after an MMAP record: at most once in this long */
#define DRAIN_MAPS_GAP_NS 10000000ULL
/* at the queue's bound: how long the thread sleeps between looks */
#define DRAIN_FULL_MS 10
/*
 * The thread allocates its memory before ENABLE and touches it then: a
 * pool of DRAIN_POOL chunks of one read's most (all the rings hold), which
 * come back to it when the loop is done with them, and a buffer to read
 * into when none is free (the loop is behind), copied out to a chunk of
 * the read's size. An allocation, a free, or a first touch of new memory
 * while the session runs may wait for the process's mmap lock (an arena's
 * mprotect(), a large chunk's mmap() or munmap(), a page fault), and a
 * loop preempted in a page fault holds that lock: the thread once waited
 * 100 ms in mprotect() so, and 64 KiB rings filled. Three chunks: one
 * being filled, one the loop reads, one it has read but still holds
 * (lib/spsc.h); DRAIN_SPARE (drain.h) kept in all.
 */
#define DRAIN_POOL 3

static void free_maps(struct drain_maps *m)
{
	free(m->s.maps);
	free(m->s.cgroup);
	free(m);
}

/*
 * What the loop is done with, freed here: nothing of the thread's is
 * freed by the loop. Context: the thread.
 */
static void reclaim(struct drain *d)
{
	struct spsc_node *n;

	while ((n = spsc__reclaim(&d->chunks))) {
		struct drain_chunk *c = (struct drain_chunk *)n;

		if (c->cap == d->read_bytes && d->nspare < DRAIN_SPARE)
			d->spare[d->nspare++] = c;
		else
			free(c);
	}
	while ((n = spsc__reclaim(&d->maps)))
		free_maps((struct drain_maps *)n);
}

/*
 * Queue pid's maps, read now, stamped time_ns, and with cgroup its cgroup
 * (at EXEC and PROC records: a process changes cgroups rarely, and not by
 * mapping), by the PROC record's cgroup_id where it has one: a process
 * reaped before the thread got to its record has no /proc/PID left, and
 * its cgroup's directory still names it. Context: the thread.
 */
static void snap_maps(struct drain *d, int pid, uint64_t time_ns, bool exec,
		      bool cgroup, uint64_t cgroup_id)
{
	struct drain_maps *m;

	if (atomic_load(&d->nmaps) >= DRAIN_MAPS_MAX) {
		d->maps_dropped++;
		return;
	}
	m = xcalloc(1, sizeof(*m));
	m->s.pid = pid;
	m->s.time_ns = time_ns;
	m->s.exec = exec;
	/* unreadable (gone since): no maps, the cgroup still goes */
	if (proc_maps_read(pid, &m->s.maps, &m->s.maps_len))
		m->s.maps = NULL;
	if (cgroup && cgroup_ids__text(&d->cgroups, pid, cgroup_id,
				       &m->s.cgroup, &m->s.cgroup_len))
		m->s.cgroup = NULL;
	if (!m->s.maps && !m->s.cgroup) {
		free(m);
		return;
	}
	atomic_fetch_add(&d->nmaps, 1);
	spsc__append(&d->maps, &m->node);
	d->maps_read++;
}

/* pid's slot in the MMAP throttle (the oldest one taken over). */
static struct drain_pid *pid_slot(struct drain *d, int pid)
{
	struct drain_pid *old = &d->pids[0];
	unsigned int i;

	for (i = 0; i < DRAIN_PIDS; i++) {
		if (d->pids[i].pid == pid)
			return &d->pids[i];
		if (d->pids[i].last_ns < old->last_ns)
			old = &d->pids[i];
	}
	memset(old, 0, sizeof(*old));
	old->pid = pid;
	return old;
}

/*
 * An MMAP record of pid: its maps now, or once DRAIN_MAPS_GAP_NS passed
 * since the last read (a loader maps a library in several records).
 */
static void mmap_seen(struct drain *d, int pid)
{
	struct drain_pid *p = pid_slot(d, pid);
	uint64_t now = now_ns(CLOCK_MONOTONIC);

	if (now - p->last_ns < DRAIN_MAPS_GAP_NS) {
		p->dirty = true;
		return;
	}
	p->last_ns = now;
	p->dirty = false;
	snap_maps(d, pid, now, false, false, 0);
}

/* The deferred reads whose gap passed. */
static void mmap_deferred(struct drain *d)
{
	uint64_t now = now_ns(CLOCK_MONOTONIC);
	unsigned int i;

	for (i = 0; i < DRAIN_PIDS; i++) {
		struct drain_pid *p = &d->pids[i];

		if (!p->dirty || now - p->last_ns < DRAIN_MAPS_GAP_NS)
			continue;
		p->last_ns = now;
		p->dirty = false;
		snap_maps(d, p->pid, now, false, false, 0);
	}
}

/*
 * The maps the records in buf call for: of a process that exec'd or
 * joined (EXEC, PROC), stamped with the record's time (the maps from
 * there on); of one that mapped something (MMAP), throttled, stamped with
 * the read's.
 */
static void read_maps(struct drain *d, const unsigned char *buf, size_t n)
{
	struct tprof_record r;
	size_t off = 0;
	long got;

	/* a malformed record is the loop's to report: skipped when its
	 * size holds, the end of the scan when it does not */
	for (; off < n; off += (size_t)got) {
		got = tprof_record_decode(buf + off, n - off, &r);
		if (got == -EINVAL) {
			got = r.hdr.size;
			continue;
		}
		if (got <= 0)
			break;
		if (r.hdr.type == TPROF_REC_EXEC) {
			pid_slot(d, (int)r.u.exec.pid)->last_ns =
				now_ns(CLOCK_MONOTONIC);
			snap_maps(d, (int)r.u.exec.pid, r.hdr.time_ns, true,
				  true, 0);
		} else if (r.hdr.type == TPROF_REC_PROC &&
			   !(r.hdr.flags & (TPROF_RF_PROC_DROPPED |
					    TPROF_RF_PROC_TOTALS))) {
			snap_maps(d, (int)r.u.proc.pid, r.hdr.time_ns,
				  false, true, r.u.proc.cgroup_id);
		} else if (r.hdr.type == TPROF_REC_MMAP) {
			mmap_seen(d, (int)r.u.mmap.pid);
		}
	}
}

bool drain__next_maps(struct drain *d, uint64_t upto_ns,
		      struct drain_snap *out)
{
	struct drain_maps *m;

	if (!d->on)
		return false;
	m = (struct drain_maps *)spsc__peek(&d->maps);
	if (!m || m->s.time_ns > upto_ns)
		return false;
	spsc__take(&d->maps);
	/* copies: the node and its texts are the thread's to free */
	*out = m->s;
	if (m->s.maps)
		out->maps = xstrndup(m->s.maps, m->s.maps_len);
	if (m->s.cgroup)
		out->cgroup = xstrndup(m->s.cgroup, m->s.cgroup_len);
	atomic_fetch_sub(&d->nmaps, 1);
	return true;
}

static void wake(struct drain *d)
{
	if (write(d->wake[1], "d", 1) < 0) {
		/* pipe full: a wakeup is already pending */
	}
}

/*
 * Say drain__start() may return, and sleep until drain__go() or a stop;
 * false on a stop.
 */
static bool wait_go(struct drain *d)
{
	bool go;

	pthread_mutex_lock(&d->lock);
	d->ready = true;
	pthread_cond_broadcast(&d->cond);
	while (!d->go && !atomic_load(&d->stop))
		pthread_cond_wait(&d->cond, &d->lock);
	go = d->go && !atomic_load(&d->stop);
	pthread_mutex_unlock(&d->lock);
	return go;
}

/*
 * Wait for room in the queue, looking again every DRAIN_FULL_MS (the
 * loop signals nothing: it takes no lock the thread waits on); false
 * when told to stop.
 */
static bool wait_room(struct drain *d)
{
	const struct timespec ts = { 0, DRAIN_FULL_MS * 1000000L };
	bool waited = false;

	while (!atomic_load(&d->stop) &&
	       atomic_load(&d->queued) >= atomic_load(&d->bound)) {
		if (!waited)
			d->full_waits++;
		waited = true;
		reclaim(d);
		nanosleep(&ts, NULL);
	}
	return !atomic_load(&d->stop);
}

/* A chunk of cap bytes, each page touched. */
static struct drain_chunk *chunk_new(size_t cap)
{
	struct drain_chunk *c = xmalloc(sizeof(*c) + cap);

	c->cap = cap;
	memset(c->bytes, 0, cap);
	return c;
}

/*
 * The n bytes just read at dst into the queue: c, the pool's chunk they
 * were read into, or (NULL) a chunk of their size, copied from the
 * thread's buffer. Context: the thread.
 */
static void enqueue(struct drain *d, struct drain_chunk *c,
		    const unsigned char *dst, size_t n)
{
	if (!c) {
		c = xmalloc(sizeof(*c) + n);
		c->cap = n;
		memcpy(c->bytes, dst, n);
	}
	c->len = n;
	c->off = 0;
	atomic_fetch_add(&d->queued, n);
	spsc__append(&d->chunks, &c->node);
	wake(d);
}

static void end_with(struct drain *d, bool eof, int err)
{
	atomic_store(&d->err, err);
	/* after everything appended: the loop sees it all first */
	atomic_store(&d->eof, eof || err);
	wake(d);
}

/*
 * Read until the device ends the stream, fails, or (after DISABLE) has
 * nothing more; between reads of an empty device, poll it.
 */
static void *drain_main(void *arg)
{
	struct drain *d = arg;

	/* Linux: a thread's own nice, by its tid */
	if (setpriority(PRIO_PROCESS, (id_t)gettid(), DRAIN_NICE))
		pr_debug("drain: nice %d refused (%s): the thread runs at the process's",
			 DRAIN_NICE, strerror(errno));
	if (!wait_go(d))
		goto out;
	while (wait_room(d)) {
		/* DISABLE asked before this read: empty means all read */
		bool last = atomic_load(&d->last);
		struct pollfd pfd = { .fd = d->sess->fd, .events = POLLIN };
		struct drain_chunk *c = NULL;
		unsigned char *dst = d->buf;
		/* before the read: an empty device was empty after it */
		uint64_t before = now_ns(CLOCK_MONOTONIC);
		ssize_t n;

		reclaim(d);
		if (d->nspare) {
			c = d->spare[--d->nspare];
			dst = c->bytes;
		}
		n = device__read(d->sess, dst, d->read_bytes);
		if (n > 0) {
			read_maps(d, dst, n);
			enqueue(d, c, dst, n);
			mmap_deferred(d);
			continue;
		}
		if (c)
			d->spare[d->nspare++] = c;
		if (n == 0) {
			end_with(d, true, 0);
			break;
		}
		if (n != -EAGAIN) {
			end_with(d, false, (int)n);
			break;
		}
		/* after every chunk read before it was appended */
		atomic_store(&d->empty_at_ns, before);
		if (last) {
			wake(d);
			break;
		}
		poll(&pfd, 1, DRAIN_POLL_MS);
		mmap_deferred(d);
	}
out:
	return NULL;
}

/* The pool and the read buffer (the thread is gone or never ran). */
static void free_memory(struct drain *d)
{
	cgroup_ids__free(&d->cgroups);
	while (d->nspare)
		free(d->spare[--d->nspare]);
	free(d->buf);
	d->buf = NULL;
}

void drain__fill_pool(struct drain *d)
{
	while (d->buf && d->nspare < DRAIN_SPARE)
		d->spare[d->nspare++] = chunk_new(d->read_bytes);
}

int drain__start(struct drain *d, struct device *sess, size_t read_bytes,
		 size_t bound)
{
	sigset_t all, old;
	int ret;

	memset(d, 0, sizeof(*d));
	d->sess = sess;
	d->read_bytes = read_bytes;
	atomic_init(&d->bound, bound);
	atomic_init(&d->queued, 0);
	atomic_init(&d->nmaps, 0);
	atomic_init(&d->last, false);
	atomic_init(&d->stop, false);
	atomic_init(&d->eof, false);
	atomic_init(&d->err, 0);
	atomic_init(&d->empty_at_ns, 0);
	spsc__init(&d->chunks);
	spsc__init(&d->maps);
	cgroup_ids__init(&d->cgroups, NULL);
	/* before ENABLE: nothing waits for the thread yet */
	d->buf = xmalloc(read_bytes);
	memset(d->buf, 0, read_bytes);
	while (d->nspare < DRAIN_POOL)
		d->spare[d->nspare++] = chunk_new(read_bytes);
	if (pipe2(d->wake, O_CLOEXEC | O_NONBLOCK)) {
		ret = -errno;
		free_memory(d);
		return ret;
	}
	pthread_mutex_init(&d->lock, NULL);
	pthread_cond_init(&d->cond, NULL);
	/* SIGINT, SIGTERM, SIGCHLD stay the loop's */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	ret = -pthread_create(&d->thread, NULL, drain_main, d);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (ret) {
		close(d->wake[0]);
		close(d->wake[1]);
		pthread_mutex_destroy(&d->lock);
		pthread_cond_destroy(&d->cond);
		free_memory(d);
		return ret;
	}
	d->on = d->running = true;
	/* its nice taken, asleep: ENABLE's first samples wake it at once */
	pthread_mutex_lock(&d->lock);
	while (!d->ready)
		pthread_cond_wait(&d->cond, &d->lock);
	pthread_mutex_unlock(&d->lock);
	return 0;
}

void drain__hurry(struct drain *d)
{
	id_t self = (id_t)gettid();

	if (!d->on)
		return;
	errno = 0;
	d->loop_nice = getpriority(PRIO_PROCESS, self);
	d->hurried = !errno && d->loop_nice > DRAIN_NICE &&
		     !setpriority(PRIO_PROCESS, self, DRAIN_NICE);
}

/* The loop's thread back at its own nice (raising it needs no right). */
static void unhurry(struct drain *d)
{
	if (d->hurried &&
	    setpriority(PRIO_PROCESS, (id_t)gettid(), d->loop_nice))
		pr_debug("drain: nice %d back: %s", d->loop_nice,
			 strerror(errno));
	d->hurried = false;
}

void drain__go(struct drain *d)
{
	if (!d->on)
		return;
	pthread_mutex_lock(&d->lock);
	d->go = true;
	pthread_cond_broadcast(&d->cond);
	pthread_mutex_unlock(&d->lock);
}

int drain__wake_fd(const struct drain *d)
{
	return d->wake[0];
}

/* bytes of c's whole records from its offset that fit in cap */
static size_t whole_fit(const struct drain_chunk *c, size_t cap)
{
	size_t off = c->off, n = 0;

	while (off < c->len) {
		struct tprof_rec_hdr h;

		if (c->len - off < sizeof(h))
			return c->len - c->off;	/* the reader says what it is */
		memcpy(&h, c->bytes + off, sizeof(h));
		if (h.size < sizeof(h) || h.size > c->len - off)
			return c->len - c->off;
		if (n + h.size > cap)
			break;
		n += h.size;
		off += h.size;
	}
	return n;
}

/*
 * Copy whole records of the queued chunks into buf, taking the next chunk
 * when the loop's is read through; bytes copied. *more: a chunk is left
 * (a record larger than what was left of cap).
 */
static size_t read_queued(struct drain *d, unsigned char *buf, size_t cap,
			  bool *more)
{
	size_t got = 0, n;

	*more = false;
	for (;;) {
		struct drain_chunk *c = d->cur;

		if (!c || c->off == c->len) {
			/* cur goes back to the thread with this */
			c = (struct drain_chunk *)spsc__take(&d->chunks);
			d->cur = c;
			if (!c)
				return got;
		}
		n = whole_fit(c, cap - got);
		if (n > cap - got)
			n = cap - got;
		if (!n) {
			*more = true;
			return got;
		}
		memcpy(buf + got, c->bytes + c->off, n);
		got += n;
		c->off += n;
	}
}

ssize_t drain__read(struct drain *d, void *buf, size_t cap)
{
	uint64_t empty_at;
	char junk[64];
	size_t got;
	bool more, eof;
	int err;

	while (read(d->wake[0], junk, sizeof(junk)) > 0)
		;
	/* before the queue: what the thread appended before it ended, or
	 * before it found the device empty */
	eof = atomic_load(&d->eof);
	err = atomic_load(&d->err);
	empty_at = atomic_load(&d->empty_at_ns);
	got = read_queued(d, buf, cap, &more);
	if (got) {
		atomic_fetch_sub(&d->queued, got);
		return (ssize_t)got;
	}
	/* queued since, or a record larger than cap: the caller's */
	if (more || spsc__peek(&d->chunks))
		return -EAGAIN;
	/* nothing left: all that was read before empty_at was returned */
	if (empty_at > d->consumed_to_ns)
		d->consumed_to_ns = empty_at;
	if (err)
		return err;
	return eof ? 0 : -EAGAIN;
}

uint64_t drain__consumed_to(const struct drain *d)
{
	return d->consumed_to_ns;
}

void drain__finish(struct drain *d)
{
	if (!d->running)
		return;
	/* the loop takes nothing until this returns: no bound now */
	atomic_store(&d->bound, SIZE_MAX);
	atomic_store(&d->last, true);
	pthread_join(d->thread, NULL);
	d->running = false;
	unhurry(d);
}

void drain__free(struct drain *d)
{
	struct spsc_node *n;

	if (!d->on)
		return;
	unhurry(d);
	if (d->running) {
		atomic_store(&d->stop, true);
		/* a thread still waiting for drain__go() */
		pthread_mutex_lock(&d->lock);
		pthread_cond_broadcast(&d->cond);
		pthread_mutex_unlock(&d->lock);
		pthread_join(d->thread, NULL);
		d->running = false;
	}
	/* the thread is gone: what is left is ours, cur included */
	while ((n = spsc__left(&d->chunks)))
		free(n);
	free_memory(d);
	d->cur = NULL;
	while ((n = spsc__left(&d->maps)))
		free_maps((struct drain_maps *)n);
	atomic_store(&d->nmaps, 0);
	close(d->wake[0]);
	close(d->wake[1]);
	d->on = false;
	pthread_mutex_destroy(&d->lock);
	pthread_cond_destroy(&d->cond);
}
