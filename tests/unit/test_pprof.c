// SPDX-License-Identifier: GPL-2.0
/* Unit tests: pprof encoding, checked by decoding it back. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/gzip.h"
#include "lib/outfile.h"
#include "output/pprof.h"
#include "pbload.h"
#include "profile.pb-c.h"
#include "testlib.h"
#include "lib/utf8.h"

static const char *S(const PbProfile *p, int64_t i)
{
	return i >= 0 && (size_t)i < p->n_string_table ? p->string_table[i] :
							  "<bad index>";
}

static void feed(struct profile *p, const struct sbuf *b)
{
	profile_feed(p, b, false);
}

/* Structural validity, as pprof's CheckValid and postDecode demand. */
void check_valid_profile(const PbProfile *p);
void check_valid_profile(const PbProfile *p)
{
	size_t i, j;

	CHECK(p->n_string_table > 0 && !strcmp(p->string_table[0], ""));
	for (i = 0; i < p->n_mapping; i++)
		CHECK_EQ(p->mapping[i]->id, i + 1);
	for (i = 0; i < p->n_function; i++)
		CHECK_EQ(p->function[i]->id, i + 1);
	for (i = 0; i < p->n_location; i++) {
		const Perftools__Profiles__Location *l = p->location[i];

		CHECK_EQ(l->id, i + 1);
		CHECK(l->mapping_id <= p->n_mapping);
		for (j = 0; j < l->n_line; j++)
			CHECK(l->line[j]->function_id >= 1 &&
			      l->line[j]->function_id <= p->n_function);
	}
	for (i = 0; i < p->n_sample; i++) {
		const Perftools__Profiles__Sample *s = p->sample[i];

		CHECK_EQ(s->n_value, p->n_sample_type);
		CHECK(s->n_location_id > 0);
		for (j = 0; j < s->n_location_id; j++)
			CHECK(s->location_id[j] >= 1 &&
			      s->location_id[j] <= p->n_location);
		for (j = 0; j < s->n_label; j++) {
			const Perftools__Profiles__Label *l = s->label[j];

			CHECK(!(l->str && l->num));
			CHECK((size_t)l->key < p->n_string_table);
		}
	}
}

/* The resolve pass, no names, the encoder. */
static int encode(struct profile *prof, const struct pprof_opts *o,
		  uint8_t **raw, size_t *rawlen)
{
	struct agg_sample *samples;
	struct resolved r;
	size_t n;
	int ret;

	profile__finish(prof);
	samples = profile__take_samples(prof, &n);
	resolve__run(&r, prof, samples, n, NULL);
	ret = pprof__encode(prof, &r, o, raw, rawlen);
	resolve__free(&r);
	return ret;
}

static PbProfile *encode_decode(struct profile *prof, uint8_t **raw,
				size_t *rawlen)
{
	struct pprof_opts o = { .default_period_ns = 1000000 };
	uint8_t *gz, *back;
	size_t gzlen, backlen;
	PbProfile *p;

	CHECK_EQ(encode(prof, &o, raw, rawlen), 0);
	CHECK_EQ(gzip__compress(*raw, *rawlen, &gz, &gzlen), 0);
	CHECK(gzlen > 10 && gz[0] == 0x1f && gz[1] == 0x8b);
	CHECK_EQ(gzip__decompress(gz, gzlen, &back, &backlen), 0);
	CHECK_EQ(backlen, *rawlen);
	CHECK(!memcmp(back, *raw, backlen));
	/* a truncated gzip stream is an error */
	free(back);
	CHECK(gzip__decompress(gz, gzlen / 2, &back, &backlen) < 0);
	free(gz);
	p = perftools__profiles__profile__unpack(NULL, *rawlen, *raw);
	CHECK(p != NULL);
	return p;
}

static void test_encode_roundtrip(void)
{
	uint64_t u1[2] = { 0x401000, 0x401100 }, u2[1] = { 0x401010 };
	uint64_t k[1] = { 0xffffffff81000000ULL };
	struct sbuf b = { 0 };
	struct profile prof;
	PbProfile *p;
	uint8_t *raw;
	size_t rawlen, i;
	int64_t total_cpu = 0, total_n = 0, lost_cpu = 0;
	int seen_tid11 = 0;

	sb_session(&b, 10, 1000000, 1700000000123456789ULL, 1000);
	sb_maps(&b, 10, 1001, "00400000-00402000 r-xp 00000000 08:01 1 /nonexistent/prog\n");
	sb_thread(&b, 10, 10, "main", 1002);
	sb_thread(&b, 10, 11, "worker-b", 1002);
	sb_sample(&b, 10, 10, 1000000, 1000000, 2000, 0, NULL, 2, u1);
	sb_sample(&b, 10, 10, 1000000, 1000000, 2001, 0, NULL, 2, u1);
	sb_sample(&b, 10, 11, 250000, 250000, 2002, 1, k, 1, u2);
	sb_sample(&b, 10, 11, 250000, 750000, 2003, 1, k, 1, u2);	/* late */
	sb_stat(&b, TPROF_REC_THREAD_STAT, 10, 10, 2100000, 2, 2000000, 0, 0,
		1000000, "main", 5000);
	sb_stat(&b, TPROF_REC_THREAD_EXIT, 10, 11, 1300000, 5, 1500000, 3,
		500000, 250000, "worker-b", 5001);
	sb_lost(&b, 4, 1500000, 0, 5002);	/* 1 sample not attributed */
	sb_proc_exit(&b, 10, 0, 7000);

	profile__init(&prof);
	feed(&prof, &b);
	p = encode_decode(&prof, &raw, &rawlen);
	if (!p)
		goto out;
	check_valid_profile(p);
	CHECK_EQ(p->n_sample_type, 2);
	CHECK_STR(S(p, p->sample_type[0]->type), "cpu");
	CHECK_STR(S(p, p->sample_type[0]->unit), "nanoseconds");
	CHECK_STR(S(p, p->sample_type[1]->type), "samples");
	CHECK_STR(S(p, p->sample_type[1]->unit), "count");
	CHECK_STR(S(p, p->default_sample_type), "cpu");
	CHECK(p->period_type != NULL);
	if (p->period_type)
		CHECK_STR(S(p, p->period_type->type), "cpu");
	CHECK_EQ(p->period, 1000000);
	CHECK_EQ(p->time_nanos, 1700000000123456789LL);
	CHECK_EQ(p->duration_nanos, 7000 - 1000);
	/* 2 stacks (tid 10 + tid 11) + [lost] tid 11 + [lost] unattributed */
	CHECK_EQ(p->n_sample, 4);
	for (i = 0; i < p->n_sample; i++) {
		const Perftools__Profiles__Sample *s = p->sample[i];
		const Perftools__Profiles__Label *tid = pb_label(p, s, "tid");
		const Perftools__Profiles__Label *per = pb_label(p, s, "period");
		const Perftools__Profiles__Location *leaf =
			p->location[s->location_id[0] - 1];
		const char *fn = leaf->n_line ?
			S(p, p->function[leaf->line[0]->function_id - 1]->name) : "";

		total_cpu += s->value[0];
		total_n += s->value[1];
		CHECK(pb_label(p, s, "pid") && pb_label(p, s, "pid")->num == 10);
		if (!strcmp(fn, "[lost]")) {
			lost_cpu += s->value[0];
			continue;
		}
		CHECK(tid != NULL);
		CHECK(per != NULL);
		if (!tid || !per)
			continue;
		CHECK_STR(S(p, per->num_unit), "nanoseconds");
		if (tid->num == 11) {
			seen_tid11++;
			CHECK_EQ(s->value[0], 1000000);
			CHECK_EQ(s->value[1], 2);
			CHECK_EQ(per->num, 250000);
			CHECK_STR(S(p, pb_label(p, s, "thread_comm")->str), "worker-b");
			/* kernel leaf first, then the user pc, both unadjusted */
			CHECK_EQ(s->n_location_id, 2);
			CHECK_EQ(p->location[s->location_id[0] - 1]->address,
				 0xffffffff81000000ULL);
			CHECK_EQ(p->location[s->location_id[1] - 1]->address, 0x401010);
		} else {
			CHECK_EQ(tid->num, 10);
			CHECK_EQ(s->value[0], 2000000);
			/* caller looked up at return address - 1 */
			CHECK_EQ(p->location[s->location_id[1] - 1]->address, 0x4010ff);
			CHECK_EQ(p->location[s->location_id[0] - 1]->address, 0x401000);
		}
	}
	CHECK_EQ(seen_tid11, 1);
	CHECK_EQ(lost_cpu, 1500000);
	CHECK_EQ(total_cpu, 3000000 + 1500000);
	CHECK_EQ(total_n, 4 + 4);
	/* user mapping kept unsymbolized (file missing) for pprof to retry */
	CHECK(p->n_mapping >= 1);
	if (p->n_mapping >= 1) {
		CHECK_STR(S(p, p->mapping[0]->filename), "/nonexistent/prog");
		CHECK_EQ(p->mapping[0]->memory_start, 0x400000);
		CHECK(!p->mapping[0]->has_functions);
	}
	/* a header line + one per thread */
	CHECK_EQ(p->n_comment, 3);
	CHECK(p->n_comment == 3 && strstr(S(p, p->comment[2]), "tid 11 worker-b period=250.000us samples=2"));
	pb_free(p);
out:
	free(raw);
	profile__free(&prof);
	sb_free(&b);
}

static void test_encode_empty(void)
{
	struct profile prof;
	PbProfile *p;
	uint8_t *raw;
	size_t rawlen;

	profile__init(&prof);
	p = encode_decode(&prof, &raw, &rawlen);
	if (p) {
		check_valid_profile(p);
		CHECK_EQ(p->n_sample, 0);
		CHECK_EQ(p->n_sample_type, 2);
		pb_free(p);
	}
	free(raw);
	profile__free(&prof);
}

static void test_protoc_decode(void)
{
	uint64_t u1[2] = { 0x401000, 0x401100 };
	struct pprof_opts o = { .default_period_ns = 1000000 };
	struct sbuf b = { 0 };
	struct profile prof;
	char path[4096], cmd[8192], *out = NULL;
	uint8_t *raw;
	size_t rawlen;
	FILE *fp;
	int st;

	if (!need_cmd("protoc", "protoc not installed (apt-get install protobuf-compiler)"))
		return;
	sb_thread(&b, 10, 10, "main", 1);
	sb_sample(&b, 10, 10, 1000000, 1000000, 2, 0, NULL, 2, u1);
	profile__init(&prof);
	feed(&prof, &b);
	CHECK_EQ(encode(&prof, &o, &raw, &rawlen), 0);
	snprintf(path, sizeof(path), "%s", build_path("unit/protoc.pb"));
	fp = fopen(path, "we");
	CHECK(fp != NULL);
	if (fp) {
		fwrite(raw, rawlen, 1, fp);
		fclose(fp);
	}
	snprintf(cmd, sizeof(cmd),
		 "protoc -I%s --decode=perftools.profiles.Profile profile.proto < %s",
		 getenv("PPROF_PROTO_DIR") ? getenv("PPROF_PROTO_DIR") :
		 "/usr/share/gocode/src/github.com/google/pprof/proto", path);
	st = run_capture(cmd, &out);
	CHECK_EQ(st, 0);
	CHECK_HAS(out, "string_table: \"thread_comm\"");
	CHECK_HAS(out, "default_sample_type: ");
	CHECK_HAS(out, "value: 1000000");
	free(out);
	free(raw);
	profile__free(&prof);
	sb_free(&b);
}

static void test_write_atomic(void)
{
	char dir[4096], path[4200], cmd[8400], *out = NULL;
	const char data[] = "hello";
	FILE *fp;
	char buf[16] = "";

	snprintf(dir, sizeof(dir), "%s", build_path("unit/atomic"));
	snprintf(cmd, sizeof(cmd), "rm -rf '%s' && mkdir -p '%s'", dir, dir);
	CHECK_EQ(system(cmd), 0);
	snprintf(path, sizeof(path), "%s/out.pb.gz", dir);
	CHECK_EQ(write_file_atomic(path, data, 5), 0);
	fp = fopen(path, "re");
	CHECK(fp != NULL);
	if (fp) {
		CHECK_EQ(fread(buf, 1, sizeof(buf), fp), 5);
		fclose(fp);
	}
	/* through a symlink: the target is replaced, the link stays */
	{
		char link[4300], tgt[4300];
		struct stat st;

		snprintf(tgt, sizeof(tgt), "%s/target.pb.gz", dir);
		snprintf(link, sizeof(link), "%s/link.pb.gz", dir);
		CHECK_EQ(write_file_atomic(tgt, "x", 1), 0);
		CHECK_EQ(symlink("target.pb.gz", link), 0);
		CHECK_EQ(write_file_atomic(link, data, 5), 0);
		CHECK(lstat(link, &st) == 0 && S_ISLNK(st.st_mode));
		CHECK(stat(tgt, &st) == 0 && st.st_size == 5);
		unlink(link);
		unlink(tgt);
	}
	/* a device is written in place, never renamed over */
	{
		struct stat st;

		CHECK_EQ(write_file_atomic("/dev/null", data, 5), 0);
		CHECK(stat("/dev/null", &st) == 0 && S_ISCHR(st.st_mode));
	}
	/* failure leaves nothing behind */
	snprintf(path, sizeof(path), "%s/missing-dir/out.pb.gz", dir);
	CHECK_EQ(write_file_atomic(path, data, 5), -ENOENT);
	snprintf(cmd, sizeof(cmd), "ls '%s' | wc -l", dir);
	CHECK_EQ(run_capture(cmd, &out), 0);
	CHECK(out && atoi(out) == 1);
	free(out);
}

/*
 * comm cut inside a character and a mapping path with invalid bytes: every
 * string of the profile is valid UTF-8, with U+FFFD for what was not, and
 * protoc (a strict decoder) reads it.
 */
static void test_strings_utf8(void)
{
	uint64_t u1[1] = { 0x401000 };
	struct sbuf b = { 0 };
	struct profile prof;
	PbProfile *p;
	uint8_t *raw;
	size_t rawlen, i;
	int found = 0;

	sb_session(&b, 10, 1000000, 1700000000123456789ULL, 1000);
	sb_maps(&b, 10, 1001, "00400000-00402000 r-xp 00000000 08:01 1 /tmp/\xff\xfeprog\xc3\n");
	sb_thread(&b, 10, 10, "abcdefghijklm\xe2\x82", 1002);
	sb_sample(&b, 10, 10, 1000000, 1000000, 2000, 0, NULL, 1, u1);
	profile__init(&prof);
	feed(&prof, &b);
	p = encode_decode(&prof, &raw, &rawlen);
	if (p) {
		check_valid_profile(p);
		for (i = 0; i < p->n_string_table; i++) {
			const char *s = p->string_table[i];

			CHECK(utf8_valid(s, strlen(s)));
			found += !strcmp(s, "abcdefghijklm\xef\xbf\xbd");
			found += !strcmp(s, "/tmp/\xef\xbf\xbd\xef\xbf\xbdprog\xef\xbf\xbd");
		}
		CHECK_EQ(found, 2);
		pb_free(p);
	}
	if (have_cmd("protoc")) {
		char path[4096], cmd[8192], *out = NULL;
		FILE *fp;

		snprintf(path, sizeof(path), "%s", build_path("unit/utf8.pb"));
		fp = fopen(path, "we");
		CHECK(fp != NULL);
		if (fp) {
			fwrite(raw, rawlen, 1, fp);
			fclose(fp);
		}
		snprintf(cmd, sizeof(cmd),
			 "protoc -I%s --decode=perftools.profiles.Profile profile.proto < %s 2>&1",
			 getenv("PPROF_PROTO_DIR") ? getenv("PPROF_PROTO_DIR") :
			 "/usr/share/gocode/src/github.com/google/pprof/proto", path);
		CHECK_EQ(run_capture(cmd, &out), 0);
		free(out);
	}
	free(raw);
	profile__free(&prof);
	sb_free(&b);
}

/* 250 threads: 100 comment lines (the most CPU), then one saying the rest. */
static void test_comment_cap(void)
{
	uint64_t u1[1] = { 0x401000 };
	struct sbuf b = { 0 };
	struct profile prof;
	PbProfile *p;
	uint8_t *raw;
	size_t rawlen, i;
	int tid, j, lines = 0, top = 0, least = 0;

	sb_session(&b, 10, 1000000, 1700000000123456789ULL, 1000);
	for (tid = 1000; tid < 1250; tid++) {
		char comm[16];

		snprintf(comm, sizeof(comm), "w%d", tid);
		sb_thread(&b, 10, tid, comm, 1001);
		/* thread 1000 + k: k + 1 samples */
		for (j = 0; j <= tid - 1000; j++)
			sb_sample(&b, 10, tid, 1000000, 1000000, 2000, 0, NULL,
				  1, u1);
	}
	profile__init(&prof);
	feed(&prof, &b);
	p = encode_decode(&prof, &raw, &rawlen);
	if (p) {
		check_valid_profile(p);
		for (i = 0; i < p->n_comment; i++) {
			const char *c = S(p, p->comment[i]);

			lines += !strncmp(c, "tid ", 4);
			top += !strncmp(c, "tid 1249 w1249 ", 15);
			least += !strncmp(c, "tid 1149 ", 9) ||
				 !strncmp(c, "tid 1000 ", 9);
		}
		CHECK_EQ(lines, 100);
		CHECK_EQ(top, 1);
		CHECK_EQ(least, 0);
		CHECK_EQ(p->n_comment, 1 + 100 + 1);
		CHECK(p->n_comment == 102 &&
		      !strcmp(S(p, p->comment[101]), "tprof: 150 more threads with less sampled CPU; tprof-read --report lists all 250"));
		/* every thread's samples are still there */
		CHECK_EQ(p->n_sample, 250);
		pb_free(p);
	}
	free(raw);
	profile__free(&prof);
	sb_free(&b);
}

/* A thread no THREAD/EXEC/STAT record named: no empty thread_comm label. */
static void test_unknown_comm(void)
{
	uint64_t u1[1] = { 0x401000 };
	struct sbuf b = { 0 };
	struct profile prof;
	PbProfile *p;
	uint8_t *raw;
	size_t rawlen, i;

	sb_session(&b, 10, 1000000, 1700000000123456789ULL, 1000);
	sb_sample(&b, 10, 12, 1000000, 1000000, 2000, 0, NULL, 1, u1);
	profile__init(&prof);
	feed(&prof, &b);
	p = encode_decode(&prof, &raw, &rawlen);
	if (p) {
		check_valid_profile(p);
		CHECK_EQ(p->n_sample, 1);
		CHECK(p->n_sample == 1 && pb_label(p, p->sample[0], "tid") &&
		      !pb_label(p, p->sample[0], "thread_comm"));
		for (i = 0; i < p->n_comment; i++)
			if (!strncmp(S(p, p->comment[i]), "tid 12 ", 7))
				CHECK(!strncmp(S(p, p->comment[i]), "tid 12 - period=", 16));
		pb_free(p);
	}
	free(raw);
	profile__free(&prof);
	sb_free(&b);
}

/* Weights of 2^63 twice (2^64 wraps to 0), a time near 2^64: no negatives. */
static void test_weights_saturate(void)
{
	uint64_t u1[1] = { 0x401000 }, u2[1] = { 0x401100 };
	struct sbuf b = { 0 };
	struct profile prof;
	PbProfile *p;
	uint8_t *raw;
	size_t rawlen, i;
	int big = 0;

	sb_session(&b, 10, 1000000, 1700000000123456789ULL, 1000);
	sb_thread(&b, 10, 10, "main", 1001);
	sb_sample(&b, 10, 10, 1000000, 1ULL << 63, 2000, 0, NULL, 1, u1);
	sb_sample(&b, 10, 10, 1000000, 1ULL << 63, 2001, 0, NULL, 1, u1);
	sb_sample(&b, 10, 10, 1000000, 1000000, UINT64_MAX - 5, 0, NULL, 1, u2);
	sb_lost(&b, 1, UINT64_MAX, 0, 3000);
	sb_lost(&b, 1, UINT64_MAX, 0, 3001);
	profile__init(&prof);
	feed(&prof, &b);
	p = encode_decode(&prof, &raw, &rawlen);
	if (p) {
		check_valid_profile(p);
		for (i = 0; i < p->n_sample; i++) {
			CHECK(p->sample[i]->value[0] >= 0);
			CHECK(p->sample[i]->value[1] >= 0);
			big += p->sample[i]->value[0] == INT64_MAX;
		}
		CHECK_EQ(big, 2);	/* the 2^64 stack and [lost] */
		CHECK(p->duration_nanos >= 0);
		CHECK_EQ(p->duration_nanos, INT64_MAX);
		pb_free(p);
	}
	free(raw);
	profile__free(&prof);
	sb_free(&b);
}

const struct unit_test pprof_tests[] = {
	{ "pprof: encode, gzip, gunzip, unpack: types, labels, values, [lost], comments", test_encode_roundtrip },
	{ "pprof: an empty profile is still valid", test_encode_empty },
	{ "pprof: protoc --decode with Debian's profile.proto agrees", test_protoc_decode },
	{ "pprof: atomic write (temp + rename), nothing left on failure", test_write_atomic },
	{ "pprof: at most 100 thread comment lines (most CPU first), then how many more", test_comment_cap },
	{ "pprof: an unknown comm gives no thread_comm label, '-' in comments", test_unknown_comm },
	{ "pprof: weights and times past INT64_MAX saturate, never negative", test_weights_saturate },
	{ "pprof: every string valid UTF-8 (comm cut mid-character, a path's bad bytes), protoc reads it", test_strings_utf8 },
	{ NULL, NULL },
};
