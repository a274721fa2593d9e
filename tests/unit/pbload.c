// SPDX-License-Identifier: GPL-2.0
/* Unit tests: read back a gzipped pprof profile (pbload.h). */
#include <stdio.h>
#include <stdlib.h>

#include "pbload.h"
#include "pprof.h"
#include "util.h"

PbProfile *load_profile(const char *path)
{
	uint8_t *gz = NULL, *raw = NULL;
	size_t gzlen = 0, cap = 0, rawlen;
	PbProfile *p = NULL;
	FILE *fp = fopen(path, "re");

	if (!fp)
		return NULL;
	for (;;) {
		size_t n;

		GROW(gz, cap, gzlen + 65536);
		n = fread(gz + gzlen, 1, cap - gzlen, fp);
		if (!n)
			break;
		gzlen += n;
	}
	fclose(fp);
	if (!pprof__gunzip(gz, gzlen, &raw, &rawlen))
		p = perftools__profiles__profile__unpack(NULL, rawlen, raw);
	free(gz);
	free(raw);
	return p;
}
