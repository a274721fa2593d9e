// SPDX-License-Identifier: GPL-2.0
/* tprof-read: gzip (RFC 1952) in memory, with zlib. */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <zlib.h>

#include "lib/gzip.h"
#include "lib/util.h"

int gzip__compress(const uint8_t *in, size_t len, uint8_t **out,
		   size_t *outlen)
{
	z_stream z = { 0 };
	size_t cap;
	int ret;

	/* zlib counts in 32 bits: one deflate() call takes it all or none */
	if (len > UINT_MAX / 2)
		return -EFBIG;
	if (deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) !=
	    Z_OK)
		return -ENOMEM;
	cap = deflateBound(&z, len) + 64;
	*out = xmalloc(cap);
	z.next_in = (Bytef *)in;
	z.avail_in = len;
	z.next_out = *out;
	z.avail_out = cap;
	ret = deflate(&z, Z_FINISH);
	*outlen = cap - z.avail_out;
	deflateEnd(&z);
	if (ret != Z_STREAM_END) {
		free(*out);
		*out = NULL;
		return -EIO;
	}
	return 0;
}

int gzip__decompress(const uint8_t *in, size_t len, uint8_t **out,
		     size_t *outlen)
{
	z_stream z = { 0 };
	size_t cap = len * 4 + 1024;
	int ret;

	if (len > UINT_MAX)
		return -EFBIG;
	if (inflateInit2(&z, 15 + 32) != Z_OK)
		return -ENOMEM;
	*out = xmalloc(cap);
	z.next_in = (Bytef *)in;
	z.avail_in = len;
	for (;;) {
		z.next_out = *out + z.total_out;
		z.avail_out = cap - z.total_out;
		ret = inflate(&z, Z_NO_FLUSH);
		if (ret == Z_STREAM_END)
			break;
		if (ret != Z_OK && ret != Z_BUF_ERROR) {
			inflateEnd(&z);
			free(*out);
			*out = NULL;
			return -EINVAL;
		}
		if (z.avail_out == 0) {
			cap *= 2;
			*out = xrealloc(*out, cap);
		} else if (z.avail_in == 0) {
			inflateEnd(&z);
			free(*out);
			*out = NULL;
			return -EINVAL;	/* truncated */
		}
	}
	*outlen = z.total_out;
	inflateEnd(&z);
	return 0;
}
