/* SPDX-License-Identifier: GPL-2.0 */
/* Unit tests: read back a gzipped pprof profile that tprof-read wrote. */
#ifndef TPROF_TEST_PBLOAD_H
#define TPROF_TEST_PBLOAD_H

#include "profile.pb-c.h"

typedef Perftools__Profiles__Profile PbProfile;

/*
 * The profile in the gzipped file at @path, or NULL (unreadable, not gzip,
 * not a profile). Free with perftools__profiles__profile__free_unpacked().
 * Kept out of testlib.c, which bench's gen-stream links without pprof.c.
 */
PbProfile *load_profile(const char *path);

/* Sample s's label of key, or NULL. */
const Perftools__Profiles__Label *
pb_label(const PbProfile *p, const Perftools__Profiles__Sample *s,
	 const char *key);

#endif
