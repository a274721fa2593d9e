/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tprof-read: a thread that only empties the device's rings into memory,
 * so that nothing the live loop does (a ptrace stop's maps and build-ids,
 * unwinding, symbol tables, a CPython walk) keeps the module from writing
 * samples. The loop takes the bytes back, whole records, through the
 * stream reader's read callback.
 */
#ifndef _TPROF_LIVE_DRAIN_H
#define _TPROF_LIVE_DRAIN_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "lib/cgroup_ids.h"
#include "lib/spsc.h"

struct device;
struct drain_chunk;
struct drain_maps;

/* processes whose MMAP records the thread throttles at once */
#define DRAIN_PIDS 64
/* chunks the loop is done with, kept for the thread's next reads */
#define DRAIN_SPARE 8

struct drain {
	struct device *sess;
	pthread_t thread;
	bool on;			/* started: the loop reads through it */
	bool running;
	/*
	 * The start's handshake only (drain__start(), drain__go(), a stop
	 * before it): after it the thread takes no lock the loop takes, so
	 * a loop kept from its CPU cannot keep it from the rings.
	 */
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool ready;			/* the thread has its nice */
	bool go;			/* ENABLE done: read */
	bool hurried;			/* the loop's thread at that nice */
	int loop_nice;			/* its own before */
	/* what was read and not yet read back, oldest first (lib/spsc.h) */
	struct spsc chunks;
	struct drain_chunk *cur;	/* the loop's: the chunk it reads */
	_Atomic size_t queued;		/* bytes, cur's unread ones included */
	_Atomic size_t bound;		/* the queue's most, in bytes */
	/* the thread's: free chunks of read_bytes, and a buffer to read
	 * into when none is (drain.c) */
	struct drain_chunk *spare[DRAIN_SPARE];
	unsigned int nspare;
	unsigned char *buf;
	uint64_t full_waits;		/* the thread's: times it waited for room */
	atomic_bool last;		/* DISABLE done: read until empty */
	atomic_bool stop;
	atomic_bool eof;		/* the device said end of stream */
	_Atomic int err;		/* a read's -errno, else 0 */
	/* a byte written on each new chunk: the loop polls the read end */
	int wake[2];
	/*
	 * The consumed-to watermark (drain__consumed_to()). empty_at_ns is
	 * the thread's: the CLOCK_MONOTONIC time it took before its last
	 * read that found every ring empty. An atomic, not the lock: the
	 * thread takes no lock the loop takes (above). consumed_to_ns is
	 * the loop's: empty_at_ns as drain__read() last saw it with the
	 * queue empty.
	 */
	_Atomic uint64_t empty_at_ns;
	uint64_t consumed_to_ns;
	/* the device's reads: at most this many bytes each, all the rings
	 * hold at most (drain__start()) */
	size_t read_bytes;
	/*
	 * Maps snapshots the thread read when it read the records that call
	 * for them (the loop gets to the records later, maybe after the
	 * process exited), in time order; at most DRAIN_MAPS_MAX (drain.c).
	 */
	struct spsc maps;
	_Atomic unsigned int nmaps;
	uint64_t maps_read, maps_dropped;	/* the thread's */
	struct cgroup_ids cgroups;		/* the thread's */
	/* the thread's own: when it last read a process's maps after an
	 * MMAP record, and whether one came since */
	struct drain_pid {
		int pid;
		bool dirty;
		uint64_t last_ns;
	} pids[DRAIN_PIDS];
};

/*
 * Start the thread on sess's device (signals blocked in it: they stay the
 * loop's), before ENABLE: it takes its nice and sleeps until drain__go();
 * this returns once it sleeps.
 * read_bytes: one read's most, what all the rings can hold; the thread's
 * memory, four times that, is allocated and touched here, before the
 * session (drain.c).
 * bound: the queue's most bytes; at the bound the thread waits, and the
 * rings fill as they would with a slow reader. 0 or -errno.
 */
int drain__start(struct drain *d, struct device *sess, size_t read_bytes,
		 size_t bound);
/*
 * Right after drain__start(), before ENABLE: the whole pool of spares
 * (DRAIN_SPARE chunks) allocated and touched now, not when a lagging
 * loop first needs them (a process of months: its memory flat from its
 * start, tprof-agent).
 */
void drain__fill_pool(struct drain *d);

/*
 * Before ENABLE, from the loop's thread: it runs at the drain thread's
 * nice until the session's end (drain__finish()), where the user may. At
 * nice 0 among the target's spinners (16 on one CPU) the loop once waited
 * 150 ms for its CPU right after ENABLE, before it could wake the drain
 * thread (102 of 64 KiB rings' samples lost, 14 of 256 KiB ones); and
 * later, preempted in a page fault, it kept the process's mmap lock from
 * the drain thread for 68 ms at a time (the lock an allocator's mprotect()
 * waits for, or a first touch of new memory). The loop's work is what it
 * is at any nice; at the thread's it is done in turns of milliseconds,
 * not of the target's whole round.
 */
void drain__hurry(struct drain *d);

/* ENABLE done: the thread reads from now on. */
void drain__go(struct drain *d);

/* The descriptor that becomes readable when a chunk was queued. */
int drain__wake_fd(const struct drain *d);

/* A maps snapshot the thread read, as drain__next_maps() hands it over. */
struct drain_snap {
	int pid;
	uint64_t time_ns;	/* from when it names the process's code */
	bool exec;		/* read at an EXEC record */
	char *maps;		/* /proc/PID/maps, maps_len bytes; NULL: gone */
	size_t maps_len;
	/* its /proc/PID/cgroup text at an EXEC or PROC record (the PROC's
	 * cgroup_id's: lib/cgroup_ids.h); NULL: not read (an MMAP
	 * record's snapshot), or unknown */
	char *cgroup;
	size_t cgroup_len;
};

/*
 * The oldest maps snapshot the thread read, if it is stamped upto_ns or
 * before: true with it in *out, its texts copies, malloc'd, the
 * caller's. The loop takes them before each record, so that the samples
 * after an exec or a library's mapping are named by what was mapped then.
 */
bool drain__next_maps(struct drain *d, uint64_t upto_ns,
		      struct drain_snap *out);

/*
 * The stream reader's read: whole records, up to cap bytes, from the
 * queue; -EAGAIN when it is empty for now, 0 once the device ended the
 * stream and everything was taken, or the device's read error.
 */
ssize_t drain__read(struct drain *d, void *buf, size_t cap);

/*
 * The consumed-to watermark, CLOCK_MONOTONIC ns (the clock of the
 * records' hdr.time_ns: the module's ktime_get_mono_fast_ns()), 0 until
 * the first: every record the module
 * committed to its ring before it has been returned by drain__read(), so
 * a stream reader (which parses each read before the next) has handed it
 * on. It is the time the thread took before a read that found every ring
 * empty (the device's -EAGAIN: tprof_rings_read() looks at each CPU's
 * ring, so each was empty at some instant after it), and it becomes this
 * value when drain__read() returns -EAGAIN with nothing taken and nothing
 * left: everything read before that read has been returned. Monotonic.
 * A record is stamped a little before its commit, on its CPU with IRQs
 * off (a SAMPLE before its group's snapshot and walk are copied:
 * microseconds, the module's sample_path_ns), so one stamped just before
 * the watermark may still come. Idle, the thread looks at the empty
 * device every DRAIN_POLL_MS (20 ms), so the watermark lags about that
 * behind the time the loop reads it; a device that is never empty
 * (the thread always behind the rings, or waiting for room at its bound)
 * leaves it where it was. The loop's thread.
 */
uint64_t drain__consumed_to(const struct drain *d);

/*
 * After DISABLE: the thread reads what the rings still hold, until the
 * device has nothing more, and ends; what it read stays queued. The
 * loop's thread is back at its own nice (raising it needs no right).
 */
void drain__finish(struct drain *d);

/* End the thread if it runs, and free what is queued. */
void drain__free(struct drain *d);

#endif /* _TPROF_LIVE_DRAIN_H */
