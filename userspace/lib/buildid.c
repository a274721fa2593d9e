// SPDX-License-Identifier: GPL-2.0
/* tprof-read: an ELF file's GNU build-id (elfutils), as lowercase hex. */
#include <elfutils/libdwelf.h>
#include <errno.h>
#include <libelf.h>
#include <stdio.h>
#include <string.h>

#include "lib/buildid.h"

int buildid__from_fd(int fd, unsigned char bits[BUILDID_MAX])
{
	const void *p = NULL;
	ssize_t n;
	Elf *elf;

	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf)
		return -EINVAL;
	if (elf_kind(elf) != ELF_K_ELF) {
		elf_end(elf);
		return -EINVAL;
	}
	n = dwelf_elf_gnu_build_id(elf, &p);
	if (n > BUILDID_MAX)
		n = BUILDID_MAX;
	if (n > 0)
		memcpy(bits, p, n);
	elf_end(elf);
	return n > 0 ? (int)n : 0;
}

void buildid__hex(const unsigned char *bits, size_t n, char *hex)
{
	size_t i;

	hex[0] = 0;
	for (i = 0; i < n && i < BUILDID_MAX; i++)
		snprintf(hex + 2 * i, 3, "%02x", bits[i]);
}

int buildid__hex_of_fd(int fd, char hex[BUILDID_HEX_LEN])
{
	unsigned char bits[BUILDID_MAX];
	int n = buildid__from_fd(fd, bits);

	buildid__hex(bits, n > 0 ? n : 0, hex);
	return n;
}
