// SPDX-License-Identifier: GPL-2.0
/* tprof-read: the one read loop, from bytes to checked records. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "lib/util.h"
#include "stream/reader.h"

/*
 * Malformed records named one by one; past these, a count at the end (a
 * stream of garbage that keeps its framing would otherwise print a line
 * per record).
 */
#define BAD_NAMED 10

void stream__init(struct stream_reader *sr, const char *name, size_t cap,
		  const struct stream_source *src)
{
	memset(sr, 0, sizeof(*sr));
	sr->src = *src;
	sr->name = name;
	sr->cap = cap;
	sr->buf = xmalloc(cap);
}

void stream__init_mapped(struct stream_reader *sr, const char *name,
			 const void *data, size_t len,
			 const struct stream_source *src)
{
	memset(sr, 0, sizeof(*sr));
	sr->src = *src;
	sr->name = name;
	sr->mapped = data;
	sr->mapped_len = len;
	sr->have = len;
}

void stream__end(struct stream_reader *sr)
{
	if (sr->nbad > BAD_NAMED)
		pr_err("warning: %s: %llu malformed records skipped in all (the first %d named above)",
		       sr->name, (unsigned long long)sr->nbad, BAD_NAMED);
	free(sr->buf);
	sr->buf = NULL;
}

/* A record whose size holds but whose contents do not: skip it, say so. */
static void skip_bad(struct stream_reader *sr, const struct tprof_record *rec,
		     uint64_t off)
{
	if (++sr->nbad <= BAD_NAMED)
		pr_err("warning: %s: %s record at offset %llu skipped (%u bytes): %s",
		       sr->name, tprof_record_type_name(rec->hdr.type),
		       (unsigned long long)off, rec->hdr.size, rec->fault);
}

/* The bytes not yet handed on: the mapping's, or the buffer's. */
static const unsigned char *bytes(const struct stream_reader *sr)
{
	return sr->mapped ? sr->mapped + sr->base : sr->buf;
}

/*
 * Hand on the whole records of buf[0..have), skipping malformed ones; what
 * is left is the start of a record that more bytes may complete.
 */
static int feed(struct stream_reader *sr)
{
	const unsigned char *buf = bytes(sr);
	size_t off = 0;
	int ret = 0;

	while (off < sr->have) {
		struct tprof_record rec;
		long n = tprof_record_decode(buf + off, sr->have - off, &rec);

		if (n == -ENODATA)
			break;
		if (n == -EBADMSG) {
			pr_err("%s: framing lost at offset %llu: a record header (%s, size %u) with %s; nothing after it can be read",
			       sr->name, (unsigned long long)(sr->base + off),
			       tprof_record_type_name(rec.hdr.type),
			       rec.hdr.size, rec.fault);
			ret = -EBADMSG;
			break;
		}
		if (n < 0) {
			skip_bad(sr, &rec, sr->base + off);
			off += rec.hdr.size;
			continue;
		}
		sr->nrecords++;
		off += n;
		ret = sr->src.record(sr->src.ctx, &rec);
		if (ret)
			break;
	}
	if (!sr->mapped)
		memmove(sr->buf, sr->buf + off, sr->have - off);
	sr->have -= off;
	sr->base += off;
	return ret;
}

/* --input: is this a stream we can read? Decided by its first record. */
static int check_start(struct stream_reader *sr, bool *more)
{
	char why[256];
	int c = tprof_stream_check(bytes(sr), sr->have, why, sizeof(why));

	*more = c == -ENODATA && !sr->eof;
	if (*more)
		return 0;
	if (c) {
		pr_err("%s: %s", sr->name, why);
		return c == -ENODATA ? -EINVAL : c;
	}
	sr->started = true;
	return 0;
}

/* A stream cut by a writer killed mid-record: keep what came whole. */
static void say_cut(const struct stream_reader *sr)
{
	pr_err("warning: %s: stream cut inside a record at offset %llu (%zu bytes dropped); the profile has the %llu whole records before it",
	       sr->name, (unsigned long long)sr->base, sr->have,
	       (unsigned long long)sr->nrecords);
}

/*
 * A mapped stream, a window at a time: its pages are mapped ahead in one
 * call (no fault per page), and dropped behind once their records went
 * through, so a replay holds a window of the file (as much as the read
 * buffer was), not all of it.
 */
#define MAP_WINDOW (512UL << 10)

static int pump_mapped(struct stream_reader *sr)
{
	size_t len = sr->mapped_len, page = sysconf(_SC_PAGESIZE);
	size_t win = MAP_WINDOW, done = 0, end, from;
	bool more;
	int ret;

	sr->eof = true;		/* all of it is there: nothing more to wait for */
	if (sr->check_start) {
		ret = check_start(sr, &more);
		if (ret)
			return ret;
	}
	while (sr->base < len) {
		end = sr->base + win < len ? sr->base + win : len;
		from = sr->base & ~(page - 1);
		madvise((void *)(sr->mapped + from), end - from,
			MADV_POPULATE_READ);
		sr->have = end - sr->base;
		from = sr->base;
		ret = feed(sr);
		if (ret)
			return ret;
		/* a record longer than the window: a longer one */
		if (sr->base == from && end < len)
			win *= 2;
		else if (end == len)
			break;
		/* behind: records are copied by whoever keeps them */
		if ((sr->base & ~(page - 1)) > done) {
			madvise((void *)(sr->mapped + done),
				(sr->base & ~(page - 1)) - done,
				MADV_DONTNEED);
			done = sr->base & ~(page - 1);
		}
	}
	if (sr->have)
		say_cut(sr);
	return 0;
}

int stream__pump(struct stream_reader *sr)
{
	size_t got = 0;

	if (sr->mapped)
		return pump_mapped(sr);
	for (;;) {
		ssize_t n;
		bool more;
		int ret;

		if (sr->have == sr->cap) {
			sr->cap *= 2;
			sr->buf = xrealloc(sr->buf, sr->cap);
		}
		n = sr->src.read(sr->src.ctx, sr->buf + sr->have,
				 sr->cap - sr->have);
		if (n == -EAGAIN)
			return 0;
		if (n < 0)
			return n;
		sr->have += n;
		got += n;
		sr->eof = n == 0;
		if (sr->check_start && !sr->started) {
			ret = check_start(sr, &more);
			if (ret)
				return ret;
			if (more)
				continue;
		}
		ret = feed(sr);
		if (ret)
			return ret;
		if (sr->have && sr->whole_reads) {
			pr_err("%s: read returned a partial record", sr->name);
			return -EPROTO;
		}
		if (!sr->eof) {
			if (sr->pump_bytes && got >= sr->pump_bytes)
				return 0;
			continue;
		}
		if (sr->have)
			say_cut(sr);
		return 0;
	}
}
