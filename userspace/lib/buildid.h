/* SPDX-License-Identifier: GPL-2.0 */
/* tprof-read: an ELF file's GNU build-id (elfutils), as lowercase hex. */
#ifndef _TPROF_BUILDID_H
#define _TPROF_BUILDID_H

#include <stddef.h>

/* GNU build-ids are 20 bytes (sha1) in practice; the note allows more. */
#define BUILDID_MAX 64
#define BUILDID_HEX_LEN (2 * BUILDID_MAX + 1)

/*
 * The GNU build-id of the ELF open on fd (the file offset is not used).
 * Returns its length in bytes and fills bits[0..len), 0 when the file has
 * none (a Go binary without -B), -EINVAL when it is not an ELF file.
 */
int buildid__from_fd(int fd, unsigned char bits[BUILDID_MAX]);

/* bits[0..n) as lowercase hex into hex (BUILDID_HEX_LEN bytes). */
void buildid__hex(const unsigned char *bits, size_t n, char *hex);

/*
 * The two above: the build-id of the ELF open on fd as hex ("" when it has
 * none or is not ELF). Returns its length in bytes, or -EINVAL (not ELF).
 */
int buildid__hex_of_fd(int fd, char hex[BUILDID_HEX_LEN]);

#endif /* _TPROF_BUILDID_H */
