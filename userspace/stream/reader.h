/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tprof-read: the one read loop: bytes from a source (a saved stream, the
 * device, a buffer) in, whole checked records out. A malformed record is
 * skipped with one warning; only a size that cannot be trusted (the
 * framing is lost) stops the stream.
 */
#ifndef _TPROF_STREAM_READER_H
#define _TPROF_STREAM_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "stream/records.h"

struct stream_source {
	/*
	 * Up to cap bytes into buf: > 0 bytes read, 0 at the end of the
	 * stream, -EAGAIN when nothing is there for now, another -errno
	 * after the source printed one line saying what failed.
	 */
	ssize_t (*read)(void *ctx, void *buf, size_t cap);
	/* a whole, checked record; nonzero stops the loop with that value */
	int (*record)(void *ctx, const struct tprof_record *rec);
	void *ctx;
};

struct stream_reader {
	struct stream_source src;
	const char *name;	/* the file or the device, in messages */
	/* the device: each read ends at a record's end, so bytes left over
	 * are an error, not the start of the next read's record */
	bool whole_reads;
	/* --input: the stream must start with a SESSION record of the
	 * versions this reader reads (tprof_stream_check()) */
	bool check_start;
	unsigned char *buf;
	/* a stream in memory whole (stream__init_mapped()): records are
	 * decoded in place, and nothing is read */
	const unsigned char *mapped;
	size_t mapped_len;
	size_t cap, have;
	uint64_t base;		/* the stream offset of buf[0] */
	uint64_t nrecords;	/* whole records handed on */
	uint64_t nbad;		/* malformed records skipped */
	/* stream__pump() returns after this many bytes read (0: no limit):
	 * a live loop's deadline and signals come between its calls, and a
	 * target that outpaces its reader never lets a read say -EAGAIN */
	size_t pump_bytes;
	bool started, eof;
};

/* A reader of src with a buffer of cap bytes (grown for longer records). */
void stream__init(struct stream_reader *sr, const char *name, size_t cap,
		  const struct stream_source *src);

/*
 * A reader of a mapped stream (a --input file): src.read is not called;
 * the pages of data are prefaulted ahead of the records and dropped
 * behind them (MADV_DONTNEED: data must be a private file mapping).
 */
void stream__init_mapped(struct stream_reader *sr, const char *name,
			 const void *data, size_t len,
			 const struct stream_source *src);

/*
 * Read and hand on records until the source has nothing for now (-EAGAIN),
 * ends (then sr->eof; a stream cut inside a record keeps the records
 * before the cut, with a warning), or sr->pump_bytes were read. 0, or a
 * negative error after one line on stderr: the source's, lost framing, a
 * record callback's value.
 */
int stream__pump(struct stream_reader *sr);

/* Say how many malformed records were skipped (if more than were named
 * one by one) and free the buffer. */
void stream__end(struct stream_reader *sr);

#endif /* _TPROF_STREAM_READER_H */
