// SPDX-License-Identifier: GPL-2.0
/* Unit tests: read back a gzipped pprof profile (pbload.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pbload.h"
#include "output/pprof.h"
#include "testlib.h"
#include "lib/util.h"

PbProfile *load_profile(const char *path)
{
	uint8_t *gz, *raw = NULL;
	size_t gzlen, rawlen;
	PbProfile *p = NULL;

	gz = read_whole(path, &gzlen);
	if (!gz)
		return NULL;
	if (!pprof__gunzip(gz, gzlen, &raw, &rawlen))
		p = perftools__profiles__profile__unpack(NULL, rawlen, raw);
	free(gz);
	free(raw);
	return p;
}

const Perftools__Profiles__Label *
pb_label(const PbProfile *p, const Perftools__Profiles__Sample *s,
	 const char *key)
{
	size_t i;

	for (i = 0; i < s->n_label; i++) {
		int64_t k = s->label[i]->key;

		if (k >= 0 && (size_t)k < p->n_string_table &&
		    !strcmp(p->string_table[k], key))
			return s->label[i];
	}
	return NULL;
}
