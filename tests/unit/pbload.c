// SPDX-License-Identifier: GPL-2.0
/* Unit tests: replay through tprof-read, read back what it wrote (pbload.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pbload.h"
#include "lib/gzip.h"
#include "model/profile.h"
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
	if (!gzip__decompress(gz, gzlen, &raw, &rawlen))
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

PbProfile *load_checked(const char *path)
{
	PbProfile *p = load_profile(path);

	CHECK(p != NULL);
	return p;
}

void pb_free(PbProfile *p)
{
	if (p)
		perftools__profiles__profile__free_unpacked(p, NULL);
}

const char *pb_label_str(const PbProfile *p,
			 const Perftools__Profiles__Sample *s,
			 const char *key)
{
	const Perftools__Profiles__Label *l = pb_label(p, s, key);

	return l && l->str >= 0 && (size_t)l->str < p->n_string_table ?
	       p->string_table[l->str] : "";
}

const Perftools__Profiles__Location *
pb_leaf(const PbProfile *p, const Perftools__Profiles__Sample *s)
{
	return s->n_location_id ? p->location[s->location_id[0] - 1] : NULL;
}

const char *pb_leaf_name(const PbProfile *p,
			 const Perftools__Profiles__Sample *s)
{
	const Perftools__Profiles__Location *l = pb_leaf(p, s);
	const Perftools__Profiles__Line *ln;

	if (!l || !l->n_line)
		return "";
	ln = l->line[l->n_line - 1];
	return p->string_table[p->function[ln->function_id - 1]->name];
}

long long pb_samples_of(const PbProfile *p, const char *fn, const char *comm)
{
	long long n = 0;
	size_t i;

	for (i = 0; i < p->n_sample; i++)
		if (!strcmp(pb_leaf_name(p, p->sample[i]), fn) &&
		    (!comm ||
		     !strcmp(pb_label_str(p, p->sample[i], "thread_comm"), comm)))
			n += p->sample[i]->value[1];
	return n;
}

void rec_iter_mem(struct rec_iter *it, const void *p, size_t len)
{
	it->p = p;
	it->owned = NULL;
	it->len = len;
	it->off = 0;
}

void rec_iter_file(struct rec_iter *it, const char *path)
{
	size_t len;
	unsigned char *buf = read_whole(path, &len);

	CHECK(buf != NULL);
	rec_iter_mem(it, buf, len);
	it->owned = buf;
}

bool rec_next(struct rec_iter *it, struct tprof_record *r)
{
	long n;

	if (it->off >= it->len)
		return false;
	n = tprof_record_decode(it->p + it->off, it->len - it->off, r);
	if (n <= 0)
		return false;
	it->off += (size_t)n;
	return true;
}

void rec_iter_free(struct rec_iter *it)
{
	free(it->owned);
	it->owned = NULL;
}

size_t profile_feed(struct profile *p, const struct sbuf *b, bool check_add)
{
	struct tprof_record r;
	struct rec_iter it;

	rec_iter_mem(&it, b->p, b->len);
	while (rec_next(&it, &r)) {
		int err = profile__add(p, &r);

		if (check_add)
			CHECK_EQ(err, 0);
	}
	return it.off;
}

PbProfile *input_profile(const char *raw, const char *pb, const char *args,
			 char **out)
{
	unlink(pb);
	CHECK_EQ(run_read(out, "--input '%s' %s -o '%s' 2>&1", raw, args, pb),
		 0);
	return load_checked(pb);
}

PbProfile *replay_profile(const struct sbuf *b, const char *raw,
			  const char *pb, const char *args, char **out)
{
	CHECK_EQ(sb_write(b, raw), 0);
	return input_profile(raw, pb, args, out);
}
