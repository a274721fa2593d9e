/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tprof-read: gzip (RFC 1952) in memory, with zlib: a pprof profile is a
 * gzipped protobuf, written by the output layer and read back by tests.
 */
#ifndef _TPROF_GZIP_H
#define _TPROF_GZIP_H

#include <stddef.h>
#include <stdint.h>

/*
 * in[0..len) gzipped into *out (malloc'd), *outlen bytes: 0, -ENOMEM
 * (zlib's state), -EFBIG (over 2 GiB: zlib counts in 32 bits) or -EIO.
 */
int gzip__compress(const uint8_t *in, size_t len, uint8_t **out,
		   size_t *outlen);
/* The same backwards (any gzip or zlib stream): 0, or -EINVAL when in is
 * not one or is cut short, -ENOMEM, -EFBIG (over 4 GiB). */
int gzip__decompress(const uint8_t *in, size_t len, uint8_t **out,
		     size_t *outlen);

#endif /* _TPROF_GZIP_H */
