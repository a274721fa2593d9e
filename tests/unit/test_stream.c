// SPDX-License-Identifier: GPL-2.0
/* Unit tests: the stream layer: the record table, the read loop, bad records skipped. */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "stream/reader.h"
#include "stream/records.h"
#include "testlib.h"

/* ---- the reader over a buffer, served a few bytes per read ---- */

struct mem_src {
	const unsigned char *p;
	size_t len, off, step;	/* step: bytes per read (0: all) */
	unsigned int types[64];	/* the records handed on */
	size_t n;
};

static ssize_t mem_read(void *ctx, void *buf, size_t cap)
{
	struct mem_src *m = ctx;
	size_t n = m->len - m->off;

	if (m->step && n > m->step)
		n = m->step;
	if (n > cap)
		n = cap;
	memcpy(buf, m->p + m->off, n);
	m->off += n;
	return n;
}

static int mem_record(void *ctx, const struct tprof_record *rec)
{
	struct mem_src *m = ctx;

	if (m->n < 64)
		m->types[m->n] = rec->hdr.type;
	m->n++;
	return 0;
}

/* pump b through a reader that reads step bytes at a time */
static int pump(const struct sbuf *b, size_t step, struct mem_src *m,
		struct stream_reader *sr)
{
	struct stream_source src = {
		.read = mem_read, .record = mem_record, .ctx = m,
	};
	int ret;

	memset(m, 0, sizeof(*m));
	m->p = b->p;
	m->len = b->len;
	m->step = step;
	stream__init(sr, "test", 64, &src);
	sr->check_start = true;
	ret = stream__pump(sr);
	stream__end(sr);
	return ret;
}

static const uint64_t uips[2] = { 0x401010, 0x401100 };

/* a small stream: records of each kind the profile counts */
static void good_stream(struct sbuf *b, unsigned int nsamples)
{
	unsigned int i;

	sb_session(b, 100, 1000000, 1700000000000000000ULL, 10);
	sb_maps(b, 100, 11, "00400000-00402000 r-xp 00000000 08:01 1 /bin/x\n");
	sb_thread(b, 100, 100, "main", 12);
	for (i = 0; i < nsamples; i++)
		sb_sample(b, 100, 100, 1000000, 1000000, 20 + i, 0, NULL, 2,
			  uips);
}

/*
 * A SAMPLE whose size is sound but whose user frame count is past the ABI's
 * limit: a record to skip, not a stream to drop. Returns its offset.
 */
static size_t bad_sample(struct sbuf *b)
{
	size_t at = b->len;
	uint16_t nu = TPROF_MAX_USER_FRAMES + 1;

	sb_sample(b, 100, 100, 1000000, 5000000, 30, 0, NULL, 2, uips);
	memcpy(b->p + at + offsetof(struct tprof_rec_sample, nr_user), &nu,
	       sizeof(nu));
	return at;
}

static void test_table(void)
{
	static const struct { unsigned int type; const char *name; size_t sz; }
	rows[] = {
		{ TPROF_REC_SAMPLE, "SAMPLE", sizeof(struct tprof_rec_sample) },
		{ TPROF_REC_THREAD_EXIT, "THREAD_EXIT",
		  sizeof(struct tprof_rec_thread_stat) },
		{ TPROF_REC_THROTTLE, "THROTTLE",
		  sizeof(struct tprof_rec_throttle) },
		{ TPROF_UREC_SESSION, "SESSION",
		  sizeof(struct tprof_urec_session) },
		{ TPROF_UREC_PERFMAP, "PERFMAP",
		  sizeof(struct tprof_urec_perfmap) },
		{ TPROF_UREC_CGROUP, "CGROUP",
		  sizeof(struct tprof_urec_cgroup) },
		{ TPROF_REC_UWALK, "UWALK", sizeof(struct tprof_rec_uwalk) },
		{ TPROF_UREC_PYPROC, "PYPROC",
		  sizeof(struct tprof_urec_pyproc) },
		{ TPROF_UREC_PYCODE, "PYCODE",
		  sizeof(struct tprof_urec_pycode) },
		/* V1 STATS records (128-byte reply) are read too */
		{ TPROF_UREC_STATS, "STATS",
		  sizeof(struct tprof_rec_hdr) + TPROF_SIZEOF_IOC_STATS_V1 },
		{ TPROF_UREC_BASE + 9, "unknown", 0 },
		{ 0x77, "unknown", 0 },
	};
	unsigned char *buf;
	struct tprof_urec_vdso v = { .pid = 7, .len = 3, .start = 0x1000 };
	struct tprof_record r;
	size_t i, size;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		CHECK_STR(tprof_record_type_name(rows[i].type), rows[i].name);
		CHECK_EQ(tprof_record_min_size(rows[i].type), rows[i].sz);
	}
	/* one builder for pseudo-records: header filled, tail, padding */
	size = tprof_urec_build(&buf, TPROF_UREC_VDSO, 42, &v, sizeof(v),
				"ELF", 3);
	CHECK_EQ(size, sizeof(v) + 8);
	CHECK_EQ(tprof_record_decode(buf, size, &r), (long)size);
	CHECK_EQ(r.hdr.type, TPROF_UREC_VDSO);
	CHECK_EQ(r.hdr.time_ns, 42);
	CHECK_EQ(r.u.vdso.start, 0x1000);
	CHECK(r.image && !memcmp(r.image, "ELF", 3));
	free(buf);
}

/* A malformed record whose size holds is skippable; a bad size is not. */
static void test_decode_faults(void)
{
	struct sbuf b = { 0 };
	struct tprof_record r;
	struct tprof_rec_hdr h = { .type = TPROF_REC_SAMPLE, .size = 60 };

	bad_sample(&b);
	CHECK_EQ(tprof_record_decode(b.p, b.len, &r), -EINVAL);
	CHECK_EQ(r.hdr.size, b.len);
	CHECK(r.fault && strstr(r.fault, "user frames"));
	/* short of its type's fixed part, but whole: skippable too */
	h.size = 24;
	CHECK_EQ(tprof_record_decode(&h, 24, &r), -EINVAL);
	/* the framing: sizes that say nothing of where the next record is */
	h.size = 60;
	CHECK_EQ(tprof_record_decode(&h, sizeof(h), &r), -EBADMSG);
	CHECK(r.fault && strstr(r.fault, "multiple of 8"));
	h.size = 0;
	CHECK_EQ(tprof_record_decode(&h, sizeof(h), &r), -EBADMSG);
	h.size = 0xfffffff8;
	CHECK_EQ(tprof_record_decode(&h, sizeof(h), &r), -EBADMSG);
	sb_free(&b);
}

/* The loop: records split over reads of any size come out whole, once. */
static void test_reader_reads(void)
{
	struct sbuf b = { 0 };
	struct stream_reader sr;
	struct mem_src m;
	size_t step;

	good_stream(&b, 5);
	for (step = 1; step <= b.len; step += step < 16 ? 1 : 37) {
		CHECK_EQ(pump(&b, step, &m, &sr), 0);
		CHECK_EQ(m.n, 8);
		CHECK_EQ(sr.nrecords, 8);
		CHECK_EQ(m.types[0], TPROF_UREC_SESSION);
		CHECK_EQ(m.types[7], TPROF_REC_SAMPLE);
		CHECK(sr.eof);
	}
	sb_free(&b);
}

/* The loop: a malformed record is skipped, the rest handed on. */
static void test_reader_skips(void)
{
	struct sbuf b = { 0 };
	struct stream_reader sr;
	struct mem_src m;
	size_t at;

	good_stream(&b, 2);
	bad_sample(&b);
	sb_sample(&b, 100, 100, 1000000, 1000000, 40, 0, NULL, 2, uips);
	CHECK_EQ(pump(&b, 7, &m, &sr), 0);
	CHECK_EQ(m.n, 6);
	CHECK_EQ(sr.nbad, 1);
	/* a size that is not a multiple of 8: nothing after it is read */
	at = b.len;
	sb_unknown(&b, TEST_REC_UNKNOWN, 8, 50);
	b.p[at + offsetof(struct tprof_rec_hdr, size)] |= 3;
	good_stream(&b, 1);
	CHECK_EQ(pump(&b, 0, &m, &sr), -EBADMSG);
	CHECK_EQ(m.n, 6);
	sb_free(&b);
}

/* The device's reads end at a record's end: a part of one is an error. */
static void test_reader_whole_reads(void)
{
	struct stream_source src = { .read = mem_read, .record = mem_record };
	struct sbuf b = { 0 };
	struct stream_reader sr;
	struct mem_src m = { 0 };

	good_stream(&b, 1);
	m.p = b.p;
	m.len = b.len;
	m.step = b.len - 4;
	src.ctx = &m;
	stream__init(&sr, "dev", 1 << 16, &src);
	sr.whole_reads = true;
	CHECK_EQ(stream__pump(&sr), -EPROTO);
	stream__end(&sr);
	sb_free(&b);
}

/* tprof-read --input STREAM -o PB ARGS; stderr in *out; exit status */
static int replay(const char *raw, const char *pb, const char *args,
		  char **out)
{
	unlink(pb);
	return run_read(out, "--input '%s' -o '%s' %s 2>&1 >/dev/null",
		        raw, pb, args);
}

/*
 * One malformed record in the middle: the profile of all the others, and
 * one warning line naming its type, its offset and the fault. (Before: exit
 * 1, no profile, the type as a bare number.)
 */
static void test_cli_skips_bad_record(void)
{
	const char *raw = build_path("unit/stream-bad.raw");
	const char *ref = build_path("unit/stream-good.raw");
	const char *pb = build_path("unit/stream-bad.pb.gz");
	const char *pbref = build_path("unit/stream-good.pb.gz");
	struct sbuf b = { 0 }, g = { 0 };
	char *out = NULL, *cmp = NULL, want[128];
	size_t at;
	int st;

	good_stream(&b, 3);
	good_stream(&g, 3);
	at = bad_sample(&b);
	sb_sample(&b, 100, 100, 1000000, 2000000, 40, 0, NULL, 2, uips);
	sb_sample(&g, 100, 100, 1000000, 2000000, 40, 0, NULL, 2, uips);
	sb_proc_exit(&b, 100, 0, 50);
	sb_proc_exit(&g, 100, 0, 50);
	CHECK_EQ(sb_write(&b, raw), 0);
	CHECK_EQ(sb_write(&g, ref), 0);

	st = replay(raw, pb, "--report", &out);
	CHECK_EQ(st, 0);
	snprintf(want, sizeof(want),
		 "tprof-read: warning: %s: SAMPLE record at offset %zu skipped",
		 raw, at);
	CHECK_HAS(out, want);
	CHECK_HAS(out, "more user frames than the ABI allows");
	/* one line of it */
	CHECK(out && strstr(out, want) &&
	      !strstr(strstr(out, want) + strlen(want), "skipped"));
	if (out && !strstr(out, want))
		fprintf(stderr, "    stderr: %s\n", out);
	free(out);
	CHECK_EQ(replay(ref, pbref, "", &out), 0);
	free(out);
	/* the same profile as the stream without the bad record */
	st = run_fmt(&cmp, "zcat '%s' > '%s.pb' && zcat '%s' > '%s.pb' && cmp '%s.pb' '%s.pb' 2>&1",
		     pb, pb, pbref, pbref, pb, pbref);
	CHECK_EQ(st, 0);
	free(cmp);
	sb_free(&b);
	sb_free(&g);
}

/* A size that cannot be trusted: a clear error, exit 1, no profile. */
static void test_cli_framing_lost(void)
{
	const char *raw = build_path("unit/stream-frame.raw");
	const char *pb = build_path("unit/stream-frame.pb.gz");
	struct sbuf b = { 0 };
	char *out = NULL, want[200];
	uint32_t garbage = 0x7ffffff3;
	size_t at;
	int st;

	good_stream(&b, 3);
	at = b.len;
	sb_sample(&b, 100, 100, 1000000, 2000000, 40, 0, NULL, 2, uips);
	memcpy(b.p + at + offsetof(struct tprof_rec_hdr, size), &garbage,
	       sizeof(garbage));
	sb_sample(&b, 100, 100, 1000000, 2000000, 41, 0, NULL, 2, uips);
	CHECK_EQ(sb_write(&b, raw), 0);
	st = replay(raw, pb, "", &out);
	CHECK_EQ(st, 1);
	snprintf(want, sizeof(want),
		 "tprof-read: %s: framing lost at offset %zu: a record header (SAMPLE, size %u) with a size that is not a multiple of 8",
		 raw, at, garbage);
	CHECK_HAS(out, want);
	if (out && !strstr(out, want))
		fprintf(stderr, "    stderr: %s\n", out);
	CHECK(access(pb, F_OK) != 0);
	free(out);
	sb_free(&b);
}

/*
 * The fuzzer's seed of the naming pass (make fuzz): kernel frames named
 * from a KALLSYMS record, vDSO frames from a VDSO record's image (libhot.so
 * as the image, through libdwfl), JIT frames from PERFMAP records; each
 * named so by a replay.
 */
static void test_seed_names(void)
{
	static const char ksyms[] = "ffffffff81000000 T _stext\n"
		"ffffffff81000100 T seed_kernel_fn\n"
		"ffffffff81000200 T _etext\n";
	static const char jit[] = "7f0000001000 100 seed_jit_fn\n";
	const char *lib = build_path("progs/libhot.so");
	const char *raw = build_path("unit/seed-names.raw");
	const char *pb = build_path("unit/seed-names.pb.gz");
	const uint64_t vdso = 0x7ffd00000000ULL;
	struct tprof_urec_kallsyms k = { .len = sizeof(ksyms) - 1 };
	struct tprof_urec_vdso v = { .pid = 100, .start = vdso };
	struct tprof_urec_perfmap pm = { .pid = 100, .len = sizeof(jit) - 1 };
	uint64_t spin = 0, sz = 0, kip = 0xffffffff81000150ULL, u[2];
	unsigned char *img, *rec;
	struct sbuf b = { 0 };
	char *out = NULL;
	size_t len = 0, n;
	int i;

	if (access(lib, R_OK) || elf_symbol(lib, "lib_spin", &spin, &sz)) {
		SKIP("test programs not built");
		return;
	}
	img = read_whole(lib, &len);
	sb_session(&b, 100, 1000000, 1700000000000000000ULL, 10);
	n = tprof_urec_build(&rec, TPROF_UREC_KALLSYMS, 10, &k, sizeof(k),
			     ksyms, k.len);
	sb_raw(&b, rec, n);
	free(rec);
	sb_maps(&b, 100, 11,
		"7f0000000000-7f0000010000 r-xp 00000000 00:00 0 \n"
		"7ffd00000000-7ffd00008000 r-xp 00000000 00:00 0                          [vdso]\n");
	v.len = len;
	n = tprof_urec_build(&rec, TPROF_UREC_VDSO, 11, &v, sizeof(v), img,
			     len);
	sb_raw(&b, rec, n);
	free(rec);
	n = tprof_urec_build(&rec, TPROF_UREC_PERFMAP, 12, &pm, sizeof(pm),
			     jit, pm.len);
	sb_raw(&b, rec, n);
	free(rec);
	sb_thread(&b, 100, 100, "seed", 13);
	/* the JIT code's pc (no CFI: its chain is taken on trust), called
	 * from the vDSO stand-in: a leaf there keeps no frame pointer, and
	 * the chain would be cut right above it (unwind.c fp_checked()) */
	u[0] = 0x7f0000001010ULL;
	u[1] = vdso + spin + 0x5;
	for (i = 0; i < 3; i++)
		sb_sample(&b, 100, 100, 1000000, 1000000, 20 + i, 1, &kip, 2,
			  u);
	CHECK_EQ(sb_write(&b, raw), 0);
	CHECK(b.len < 65536);	/* make fuzz's -max_len */
	unlink(pb);
	CHECK_EQ(run_read(&out, "--input '%s' -o '%s' 2>&1",
			  raw, pb), 0);
	free(out);
	/* each of the three names is in the profile's strings */
	CHECK_EQ(run_fmt(&out, "zcat '%s' | grep -a -o -e seed_kernel_fn -e lib_spin -e seed_jit_fn | sort -u | wc -l",
			 pb), 0);
	CHECK(out && atoi(out) == 3);
	if (out && atoi(out) != 3)
		fprintf(stderr, "    names found: %s", out);
	free(out);
	free(img);
	sb_free(&b);
}

const struct unit_test stream_tests[] = {
	{ "stream: one table names each type and its fixed size; one builder makes pseudo-records", test_table },
	{ "stream: a malformed record is skippable, a bad size loses the framing", test_decode_faults },
	{ "stream: the read loop hands on whole records whatever the read sizes", test_reader_reads },
	{ "stream: the read loop skips a malformed record, stops where the framing is lost", test_reader_skips },
	{ "stream: the device's read with part of a record is an error", test_reader_whole_reads },
	{ "stream: one malformed record in the middle: the profile of all the others and one warning (type, offset, fault)", test_cli_skips_bad_record },
	{ "stream: a garbage record size: framing lost, a clear error, exit 1, no profile", test_cli_framing_lost },
	{ "stream: seed stream of the naming pass for make fuzz (KALLSYMS, VDSO, PERFMAP)", test_seed_names },
	{ NULL, NULL },
};
