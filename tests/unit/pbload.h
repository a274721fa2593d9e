/* SPDX-License-Identifier: GPL-2.0 */
/* Unit tests: replay through tprof-read and read back what it wrote: the
 * gzipped pprof profile, the records of a stream. */
#ifndef TPROF_TEST_PBLOAD_H
#define TPROF_TEST_PBLOAD_H

#include "profile.pb-c.h"
#include "testlib.h"

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

/* load_profile(), CHECKed to find a profile. */
PbProfile *load_checked(const char *path);

/* Free p (NULL: nothing). */
void pb_free(PbProfile *p);

/* Sample s's string label of key, or "". */
const char *pb_label_str(const PbProfile *p,
			 const Perftools__Profiles__Sample *s,
			 const char *key);

/* Sample s's leaf location, or NULL (no locations). */
const Perftools__Profiles__Location *
pb_leaf(const PbProfile *p, const Perftools__Profiles__Sample *s);

/* The leaf's outermost (physical) function name, or "". */
const char *pb_leaf_name(const PbProfile *p,
			 const Perftools__Profiles__Sample *s);

/* Samples (count) whose leaf is fn and, unless comm is NULL, whose
 * thread_comm is comm. */
long long pb_samples_of(const PbProfile *p, const char *fn, const char *comm);

/* The records of a stream in memory or in a file, decoded one by one. */
struct rec_iter {
	const unsigned char *p;
	unsigned char *owned;
	size_t len, off;
};

/* Iterate the stream p[0..len). */
void rec_iter_mem(struct rec_iter *it, const void *p, size_t len);
/* Iterate the stream file path (CHECKed readable). */
void rec_iter_file(struct rec_iter *it, const char *path);
/* The next record in *r; false at the end or at one that does not decode. */
bool rec_next(struct rec_iter *it, struct tprof_record *r);
/* Free what rec_iter_file() read. */
void rec_iter_free(struct rec_iter *it);

struct profile;
/*
 * Add the records of b to p (profile__add(), each CHECKed to be taken
 * where check_add). Returns the bytes decoded: b->len where all were.
 */
size_t profile_feed(struct profile *p, const struct sbuf *b, bool check_add);

/*
 * The replay every profile test does: `tprof-read --input raw ARGS -o pb`
 * (pb removed first, stdout and stderr in *out), CHECKed to exit 0 and to
 * leave a profile, which it returns (NULL where it did not).
 */
PbProfile *input_profile(const char *raw, const char *pb, const char *args,
			 char **out);

/* input_profile() of b, written to raw first (CHECKed). */
PbProfile *replay_profile(const struct sbuf *b, const char *raw,
			  const char *pb, const char *args, char **out);

#endif
