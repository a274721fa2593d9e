// SPDX-License-Identifier: GPL-2.0
/* Unit tests: record decoding (valid, truncated, garbage), maps, profile. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model/maps.h"
#include "lib/parse.h"
#include "analyze/unwind.h"
#include "model/profile.h"
#include "output/write.h"
#include "stream/records.h"
#include "pbload.h"
#include "testlib.h"

static void build_stream(struct sbuf *b)
{
	uint64_t u[3] = { 0x401000, 0x401100, 0x401200 };
	uint64_t k[2] = { 0xffffffff81000000ULL, 0xffffffff81000100ULL };

	sb_session(b, 100, 1000000, 1700000000000000000ULL, 10);
	sb_maps(b, 100, 11, "00400000-00402000 r-xp 00000000 08:01 1 /bin/x\n");
	sb_thread(b, 100, 100, "main", 12);
	sb_thread(b, 100, 101, "worker", 13);
	sb_sample(b, 100, 100, 1000000, 1000000, 20, 0, NULL, 3, u);
	sb_sample(b, 100, 101, 1000000, 3000000, 21, 2, k, 1, u);
	sb_lost(b, 2, 2000000, 1, 22);
	sb_exec(b, 100, "newname", 23);
	sb_stat(b, TPROF_REC_THREAD_EXIT, 100, 101, 4100000, 3, 5000000, 1,
		1000000, 1000000, "worker", 24);
	sb_proc_exit(b, 100, 0, 25);
}

static void test_decode_valid(void)
{
	struct sbuf b = { 0 };
	struct tprof_record r;
	unsigned int types[16], n = 0, i;
	size_t off = 0;
	long len;

	build_stream(&b);
	while ((len = tprof_record_decode(b.p + off, b.len - off, &r)) > 0) {
		CHECK(n < 16);
		if (n < 16)
			types[n++] = r.hdr.type;
		if (r.hdr.type == TPROF_REC_SAMPLE && r.u.sample.tid == 101) {
			CHECK_EQ(r.u.sample.nr_kernel, 2);
			CHECK_EQ(tprof_record_ip(&r, 0), 0xffffffff81000000ULL);
			CHECK_EQ(tprof_record_ip(&r, 2), 0x401000);
			CHECK_EQ(r.u.sample.weight_ns, 3000000);
		}
		if (r.hdr.type == TPROF_UREC_MAPS) {
			CHECK_EQ(r.u.maps.len, strlen("00400000-00402000 r-xp 00000000 08:01 1 /bin/x\n"));
			CHECK(!memcmp(r.text, "00400000", 8));
		}
		off += len;
	}
	CHECK_EQ(len, 0);
	CHECK_EQ(off, b.len);
	CHECK_EQ(n, 10);
	i = 0;
	CHECK_EQ(types[i++], TPROF_UREC_SESSION);
	CHECK_EQ(types[i++], TPROF_UREC_MAPS);
	CHECK_EQ(types[i++], TPROF_REC_THREAD);
	sb_free(&b);
}

static void test_decode_truncated(void)
{
	struct sbuf b = { 0 };
	struct tprof_record r;
	size_t cut;

	build_stream(&b);
	/* every prefix that ends inside a record is "need more", never OK */
	for (cut = 0; cut < b.len; cut++) {
		size_t off = 0;
		long len;

		while ((len = tprof_record_decode(b.p + off, cut - off, &r)) > 0)
			off += len;
		CHECK(len == 0 || len == -ENODATA);
		CHECK(off <= cut);
		if (len == 0)
			CHECK_EQ(off, cut);
	}
	sb_free(&b);
}

static void test_decode_garbage(void)
{
	struct tprof_rec_sample s = { 0 };
	struct tprof_rec_hdr h = { .type = TPROF_REC_SAMPLE };
	struct tprof_urec_maps m = { 0 };
	unsigned char buf[256] = { 0 };
	struct tprof_record r;

	/* sizes that lose the framing (-EBADMSG): nothing after them can
	 * be found */
	h.size = 0;		/* zero size */
	memcpy(buf, &h, sizeof(h));
	CHECK_EQ(tprof_record_decode(buf, sizeof(buf), &r), -EBADMSG);
	h.size = 12;		/* not a multiple of 8, below the header */
	memcpy(buf, &h, sizeof(h));
	CHECK_EQ(tprof_record_decode(buf, sizeof(buf), &r), -EBADMSG);
	h.size = 60;		/* not a multiple of 8 */
	memcpy(buf, &h, sizeof(h));
	CHECK_EQ(tprof_record_decode(buf, sizeof(buf), &r), -EBADMSG);
	h.size = 0xfffffff8;	/* absurd */
	memcpy(buf, &h, sizeof(h));
	CHECK_EQ(tprof_record_decode(buf, sizeof(buf), &r), -EBADMSG);
	h.type = 0;		/* type 0 does not exist */
	h.size = 16;
	memcpy(buf, &h, sizeof(h));
	CHECK_EQ(tprof_record_decode(buf, sizeof(buf), &r), -EBADMSG);
	/* malformed records of a size that holds (-EINVAL): skippable */
	h.type = TPROF_REC_SAMPLE;
	h.size = 24;		/* smaller than a SAMPLE */
	memcpy(buf, &h, sizeof(h));
	CHECK_EQ(tprof_record_decode(buf, sizeof(buf), &r), -EINVAL);

	/* ips that do not fit the record */
	s.hdr.type = TPROF_REC_SAMPLE;
	s.hdr.size = sizeof(s) + 8;
	s.nr_user = 2;
	memcpy(buf, &s, sizeof(s));
	CHECK_EQ(tprof_record_decode(buf, sizeof(buf), &r), -EINVAL);
	/* more frames than the ABI allows */
	s.nr_user = TPROF_MAX_USER_FRAMES + 1;
	s.hdr.size = sizeof(s) + 8 * s.nr_user;
	memcpy(buf, &s, sizeof(s));
	CHECK_EQ(tprof_record_decode(buf, s.hdr.size, &r), -EINVAL);

	/* maps text longer than the record */
	m.hdr.type = TPROF_UREC_MAPS;
	m.hdr.size = sizeof(m) + 8;
	m.len = 9;
	memcpy(buf, &m, sizeof(m));
	CHECK_EQ(tprof_record_decode(buf, sizeof(buf), &r), -EINVAL);

	/* a walk's tail: at most TPROF_UWALK_MAX_TAIL, after a head frame */
	{
		struct tprof_rec_uwalk u = {
			.hdr.type = TPROF_REC_UWALK,
			.hdr.size = sizeof(u) + 8 * 2,
			.words_per_frame = 1, .nr_frames = 2, .nr_tail = 1,
			.status = TPROF_UWALK_TRUNCATED,
		};

		memcpy(buf, &u, sizeof(u));
		CHECK(tprof_record_decode(buf, u.hdr.size, &r) > 0);
		u.nr_tail = 2;	/* no head */
		memcpy(buf, &u, sizeof(u));
		CHECK_EQ(tprof_record_decode(buf, u.hdr.size, &r), -EINVAL);
		u.nr_tail = TPROF_UWALK_MAX_TAIL + 1;
		u.nr_frames = TPROF_UWALK_MAX_TAIL + 2;
		u.hdr.size = sizeof(u) + 8 * u.nr_frames;
		memcpy(buf, &u, sizeof(u));
		CHECK_EQ(tprof_record_decode(buf, u.hdr.size, &r), -EINVAL);
	}
	/* a session record without the magic */
	{
		struct tprof_urec_session ss = { 0 };

		ss.hdr.type = TPROF_UREC_SESSION;
		ss.hdr.size = sizeof(ss);
		memcpy(buf, &ss, sizeof(ss));
		CHECK_EQ(tprof_record_decode(buf, sizeof(buf), &r), -EINVAL);
	}
	/* header cut short */
	CHECK_EQ(tprof_record_decode(buf, 7, &r), -ENODATA);
}

static void test_decode_unknown_type(void)
{
	unsigned char buf[48] = { 0 };
	struct tprof_rec_hdr h = { .type = 0x77, .size = 40, .time_ns = 5 };
	struct tprof_record r;

	memcpy(buf, &h, sizeof(h));
	CHECK_EQ(tprof_record_decode(buf, sizeof(buf), &r), 40);
	CHECK_EQ(r.hdr.type, 0x77);
	CHECK(r.raw == buf);
}

/* DENIED: a known type with its own size; shorter is malformed. */
static void test_decode_denied(void)
{
	struct sbuf b = { 0 };
	struct tprof_rec_denied d = { 0 };
	unsigned char buf[64] = { 0 };
	struct tprof_record r;

	CHECK_STR(tprof_record_type_name(TPROF_REC_DENIED), "DENIED");
	sb_denied(&b, 77, TPROF_DENIED_DUMPABLE, 123);
	CHECK_EQ(b.len, TPROF_SIZEOF_REC_DENIED);
	CHECK_EQ(tprof_record_decode(b.p, b.len, &r), TPROF_SIZEOF_REC_DENIED);
	CHECK_EQ(r.hdr.type, TPROF_REC_DENIED);
	CHECK_EQ(r.u.denied.pid, 77);
	CHECK_EQ(r.u.denied.reason, TPROF_DENIED_DUMPABLE);
	/* a header-only DENIED is not a DENIED record */
	d.hdr.type = TPROF_REC_DENIED;
	d.hdr.size = sizeof(d.hdr);
	memcpy(buf, &d, sizeof(d));
	CHECK_EQ(tprof_record_decode(buf, sizeof(buf), &r), -EINVAL);
	CHECK(strstr(tprof_denied_reason(TPROF_DENIED_CREDS), "user or group ids"));
	CHECK(strstr(tprof_denied_reason(TPROF_DENIED_DUMPABLE), "no longer dumpable"));
	CHECK(strstr(tprof_denied_reason(TPROF_DENIED_LABEL), "security label changed"));
	CHECK(tprof_denied_reason(99) != NULL);
	sb_free(&b);
}

/* Samples before a DENIED record count; the first DENIED is kept. */
static void test_profile_denied(void)
{
	uint64_t u[1] = { 0x401000 };
	struct sbuf b = { 0 };
	struct tprof_record r;
	struct profile p;
	size_t off = 0;
	long n;

	sb_sample(&b, 10, 10, 1000, 1000, 100, 0, NULL, 1, u);
	sb_sample(&b, 10, 10, 1000, 1000, 200, 0, NULL, 1, u);
	sb_unknown(&b, TEST_REC_UNKNOWN, 12, 250);
	sb_denied(&b, 10, TPROF_DENIED_CREDS, 1100);
	sb_denied(&b, 10, TPROF_DENIED_DUMPABLE, 1200);
	sb_stat(&b, TPROF_REC_THREAD_EXIT, 10, 10, 2100, 2, 2000, 0, 0, 1000,
		"a", 1300);
	profile__init(&p);
	while ((n = tprof_record_decode(b.p + off, b.len - off, &r)) > 0) {
		CHECK_EQ(profile__add(&p, &r), 0);
		off += n;
	}
	CHECK_EQ(off, b.len);
	CHECK(p.denied);
	CHECK_EQ(p.denied_rec.pid, 10);
	CHECK_EQ(p.denied_rec.reason, TPROF_DENIED_CREDS);
	CHECK_EQ(profile__denied_after_ns(&p), 1000);
	CHECK_EQ(p.sample_records, 2);
	CHECK_EQ(p.nunknown, 1);
	CHECK(profile__thread(&p, 10)->have_stat);
	profile__free(&p);
	sb_free(&b);
}

static void test_decode_unaligned(void)
{
	struct sbuf b = { 0 };
	unsigned char *shifted;
	struct tprof_record r;
	size_t off = 0;
	long len;
	int n = 0;

	build_stream(&b);
	shifted = malloc(b.len + 1);
	memcpy(shifted + 1, b.p, b.len);	/* UBSan: no misaligned loads */
	while ((len = tprof_record_decode(shifted + 1 + off, b.len - off, &r)) > 0) {
		if (r.hdr.type == TPROF_REC_SAMPLE)
			CHECK(tprof_record_ip(&r, r.u.sample.nr_kernel) == 0x401000);
		off += len;
		n++;
	}
	CHECK_EQ(n, 10);
	free(shifted);
	sb_free(&b);
}

/* Random mutations of a valid stream through decode + aggregation. */
static void test_garbage_stress(void)
{
	struct sbuf b = { 0 };
	unsigned char *m;
	uint64_t x = 0x1234567;
	int iter;

	build_stream(&b);
	m = malloc(b.len);
	for (iter = 0; iter < 20000; iter++) {
		struct profile p;
		struct tprof_record r;
		size_t off = 0, len = b.len, k;
		long n;

		memcpy(m, b.p, b.len);
		for (k = 0; k < 1 + (size_t)iter % 8; k++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			m[x % b.len] = (unsigned char)(x >> 32);
		}
		if (iter % 3 == 0)
			len = x % (b.len + 1);
		profile__init(&p);
		/* as the reader does: a malformed record skipped by its size,
		 * which the decoder vouches for */
		while ((n = tprof_record_decode(m + off, len - off, &r)) > 0 ||
		       n == -EINVAL) {
			CHECK(n > 0 || (r.fault && r.hdr.size <= len - off));
			if (n > 0)
				profile__add(&p, &r);
			off += r.hdr.size;
		}
		CHECK(n == 0 || n == -ENODATA || n == -EBADMSG);
		CHECK(n != -EBADMSG || r.fault);
		profile__free(&p);
	}
	free(m);
	sb_free(&b);
}

static void test_profile_aggregation(void)
{
	uint64_t s1[2] = { 0x401000, 0x401100 }, s2[2] = { 0x401010, 0x401100 };
	struct sbuf b = { 0 };
	struct profile p;
	struct tprof_record r;
	const struct agg_thread *at;
	struct thread_info *t;
	size_t off = 0;
	long n;

	sb_thread(&b, 10, 10, "a", 1);
	sb_thread(&b, 10, 11, "b", 1);
	sb_sample(&b, 10, 10, 1000, 1000, 2, 0, NULL, 2, s1);
	sb_sample(&b, 10, 10, 1000, 1500, 3, 0, NULL, 2, s1);	/* same key */
	sb_sample(&b, 10, 10, 2000, 2000, 4, 0, NULL, 2, s1);	/* new period */
	sb_sample(&b, 10, 11, 1000, 1000, 5, 0, NULL, 2, s1);	/* new tid */
	sb_sample(&b, 10, 10, 1000, 1000, 6, 0, NULL, 2, s2);	/* new stack */
	sb_thread(&b, 10, 11, "renamed", 7);
	profile__init(&p);
	while ((n = tprof_record_decode(b.p + off, b.len - off, &r)) > 0) {
		CHECK_EQ(profile__add(&p, &r), 0);
		off += n;
	}
	CHECK_EQ(p.whole.nsamples, 4);
	CHECK_EQ(p.whole.samples[0].count, 2);
	CHECK_EQ(p.whole.samples[0].weight_ns, 2500);
	CHECK_EQ(p.whole.samples[1].period_ns, 2000);
	CHECK_EQ(p.whole.samples[2].tid, 11);
	CHECK_EQ(p.sample_records, 5);
	CHECK_EQ(p.sample_weight_ns, 6500);
	at = agg__find_thread(&p.whole, 10);
	CHECK(at != NULL);
	if (at) {
		CHECK_EQ(at->samples, 4);
		CHECK_EQ(at->weight_ns, 5500);
	}
	t = profile__thread(&p, 11);
	CHECK_STR(thread__comm_at(t, 5), "b");
	CHECK_STR(thread__comm_at(t, 8), "renamed");
	CHECK_STR(thread__comm_at(t, 0), "b");
	profile__free(&p);
	sb_free(&b);
}

static void test_duration(void)
{
	uint64_t ns;

	CHECK(!parse_duration_ns("250us", &ns));
	CHECK_EQ(ns, 250000);
	CHECK(!parse_duration_ns("1ms", &ns));
	CHECK_EQ(ns, 1000000);
	CHECK(!parse_duration_ns("1.5s", &ns));
	CHECK_EQ(ns, 1500000000);
	CHECK(!parse_duration_ns("20000", &ns));
	CHECK_EQ(ns, 20000);
	CHECK(parse_duration_ns("1 ms", &ns));
	CHECK(parse_duration_ns("ms", &ns));
	CHECK(parse_duration_ns("-1ms", &ns));
	CHECK(parse_duration_ns("1hours", &ns));
}

static void test_stream_check(void)
{
	struct sbuf b = { 0 };
	struct tprof_urec_session ss;
	char why[256];

	sb_session(&b, 1, 1000000, 1, 1);
	CHECK_EQ(tprof_stream_check(b.p, b.len, why, sizeof(why)), 0);
	CHECK_EQ(tprof_stream_check(b.p, b.len - 1, why, sizeof(why)), -ENODATA);
	CHECK_EQ(tprof_stream_check(b.p, 0, NULL, 0), -ENODATA);
	memcpy(&ss, b.p, sizeof(ss));
	ss.abi_version = 99;
	CHECK_EQ(tprof_stream_check(&ss, sizeof(ss), why, sizeof(why)), -EPROTO);
	CHECK(strstr(why, "ABI version 99"));
	ss.abi_version = TPROF_ABI_VERSION;
	ss.record_version = 99;
	CHECK_EQ(tprof_stream_check(&ss, sizeof(ss), why, sizeof(why)), -EPROTO);
	CHECK(strstr(why, "record format version 99"));
	ss.record_version = TPROF_RECORD_VERSION;
	ss.magic ^= 1;
	CHECK_EQ(tprof_stream_check(&ss, sizeof(ss), why, sizeof(why)), -EINVAL);
	CHECK(!strncmp(why, "not a tprof stream", 18));
	ss.magic ^= 1;
	ss.hdr.type = TPROF_REC_SAMPLE;
	CHECK_EQ(tprof_stream_check(&ss, sizeof(ss), why, sizeof(why)), -EINVAL);
	sb_free(&b);
}

/*
 * BUILDID: the build-id and path decode; a build-id past 64 bytes, lengths
 * past the record and an empty path are malformed. A build-id recorded for
 * a file reaches its mappings, present and later, and only those of that
 * inode.
 */
static void test_buildid_record(void)
{
	static const unsigned char bid[20] = { 0xab, 0xcd, 1, 2, 3 };
	struct tprof_urec_buildid *h;
	struct sbuf b = { 0 };
	struct tprof_record r;
	struct maps m;
	struct mapping *e;

	sb_buildid(&b, 7, 8, 1, 42, "/bin/x", bid, sizeof(bid), 5);
	CHECK_EQ(tprof_record_decode(b.p, b.len, &r), (long)b.len);
	CHECK_EQ(r.u.buildid.bid_len, 20);
	CHECK_EQ(r.u.buildid.inode, 42);
	CHECK(r.bid && r.bid[0] == 0xab && r.bid[1] == 0xcd);
	CHECK(r.text && !memcmp(r.text, "/bin/x", 6));
	h = (struct tprof_urec_buildid *)b.p;
	h->bid_len = 65;
	CHECK_EQ(tprof_record_decode(b.p, b.len, &r), -EINVAL);
	h->bid_len = 20;
	h->path_len = 1000;
	CHECK_EQ(tprof_record_decode(b.p, b.len, &r), -EINVAL);
	h->path_len = 0;
	CHECK_EQ(tprof_record_decode(b.p, b.len, &r), -EINVAL);
	sb_free(&b);

	maps__init(&m);
	maps__add_snapshot(&m, 7, 10,
		"00400000-00402000 r-xp 00000000 08:01 42 /bin/x\n", 48);
	maps__add_buildid(&m, 8, 1, 42, "/bin/x", 6, "abcd");
	maps__add_snapshot(&m, 7, 20,
		"00400000-00402000 r-xp 00000000 08:01 42 /bin/x\n"
		"00500000-00502000 r-xp 00000000 08:01 42 /bin/x\n"
		"00600000-00602000 r-xp 00000000 08:01 43 /bin/x\n", 144);
	e = maps__find(&m, 7, 0x400100, 10);
	CHECK(e && e->build_id && !strcmp(e->build_id, "abcd"));
	e = maps__find(&m, 7, 0x500100, 20);
	CHECK(e && e->build_id && !strcmp(e->build_id, "abcd"));
	/* same path, another inode: another file, no build-id known */
	e = maps__find(&m, 7, 0x600100, 20);
	CHECK(e && !e->build_id);
	CHECK(!maps__covered(&m, 0x700000));
	CHECK(maps__covered(&m, 0x601000));
	CHECK(!maps__find(&m, 7, 0x3fffff, 20));
	maps__free(&m);
}

/* VDSO: the image decodes; a length past the record is malformed. */
static void test_vdso_record(void)
{
	struct tprof_urec_vdso v = { .pid = 7, .len = 4, .start = 0x1000 };
	struct sbuf b = { 0 };
	struct tprof_record r;

	v.hdr.type = TPROF_UREC_VDSO;
	v.hdr.size = sizeof(v) + 8;
	sb_raw(&b, &v, sizeof(v));
	sb_raw(&b, "\177ELF\0\0\0\0", 8);
	CHECK_EQ(tprof_record_decode(b.p, b.len, &r), (long)b.len);
	CHECK(r.image && !memcmp(r.image, "\177ELF", 4));
	((struct tprof_urec_vdso *)b.p)->len = 9;
	CHECK_EQ(tprof_record_decode(b.p, b.len, &r), -EINVAL);
	sb_free(&b);
}

/*
 * Aggregation splits a stack only at a snapshot that dropped or replaced a
 * mapping (an address may mean other code after it), not at one that only
 * added (dlopen, JIT growth): memory stays flat in the snapshots.
 */
static void test_epochs(void)
{
	static const char a[] = "00400000-00402000 r-xp 00000000 08:01 1 /bin/x\n";
	static const char ab[] = "00400000-00402000 r-xp 00000000 08:01 1 /bin/x\n"
				 "00500000-00502000 r-xp 00000000 08:01 2 /lib/y\n";
	static const char ac[] = "00400000-00402000 r-xp 00000000 08:01 1 /bin/x\n"
				 "00500000-00502000 r-xp 00000000 08:01 3 /lib/z\n";
	uint64_t u[1] = { 0x400100 };
	struct sbuf b = { 0 };
	struct tprof_record r;
	struct profile p;
	size_t off = 0;
	long n;

	sb_maps(&b, 9, 10, a);
	sb_sample(&b, 9, 9, 1000000, 1000000, 20, 0, NULL, 1, u);
	sb_maps(&b, 9, 30, ab);		/* dlopen: adds */
	sb_sample(&b, 9, 9, 1000000, 1000000, 40, 0, NULL, 1, u);
	sb_maps(&b, 9, 50, ab);		/* the same again */
	sb_sample(&b, 9, 9, 1000000, 1000000, 60, 0, NULL, 1, u);
	sb_maps(&b, 9, 70, ac);		/* dlclose y, dlopen z: replaces */
	sb_sample(&b, 9, 9, 1000000, 1000000, 80, 0, NULL, 1, u);
	profile__init(&p);
	while ((n = tprof_record_decode(b.p + off, b.len - off, &r)) > 0) {
		CHECK_EQ(profile__add(&p, &r), 0);
		off += n;
	}
	CHECK_EQ(p.maps.nsnaps, 4);
	CHECK_EQ(p.maps.snaps[0].epoch, 0);
	CHECK_EQ(p.maps.snaps[1].epoch, 0);
	CHECK_EQ(p.maps.snaps[2].epoch, 0);
	CHECK_EQ(p.maps.snaps[3].epoch, 1);
	CHECK_EQ(p.whole.nsamples, 2);
	CHECK_EQ(p.whole.samples[0].count, 3);
	CHECK_EQ(p.whole.samples[1].count, 1);
	profile__free(&p);
	sb_free(&b);
}

/* KALLSYMS: both texts decode; lengths past the record are malformed. */
static void test_kallsyms_record(void)
{
	struct tprof_urec_kallsyms k = { .len = 5, .modules_len = 3 };
	struct sbuf b = { 0 };
	struct tprof_record r;

	k.hdr.type = TPROF_UREC_KALLSYMS;
	k.hdr.size = sizeof(k) + 8;
	sb_raw(&b, &k, sizeof(k));
	sb_raw(&b, "abcdemod", 8);
	CHECK_EQ(tprof_record_decode(b.p, b.len, &r), (long)b.len);
	CHECK(r.text && !memcmp(r.text, "abcde", 5) &&
	      !memcmp(r.text + 5, "mod", 3));
	((struct tprof_urec_kallsyms *)b.p)->modules_len = 4;
	CHECK_EQ(tprof_record_decode(b.p, b.len, &r), -EINVAL);
	((struct tprof_urec_kallsyms *)b.p)->modules_len = 0xffffffffU;
	CHECK_EQ(tprof_record_decode(b.p, b.len, &r), -EINVAL);
	sb_free(&b);
}


/* A USTACK record: fields, stack bytes; every cut is "need more"; bad sizes */
static void test_decode_ustack(void)
{
	uint64_t regs[TPROF_UREG_NR] = { 0 }, u[2] = { 0x401000, 0x401200 };
	unsigned char stack[24];
	struct sbuf b = { 0 };
	struct tprof_record r;
	struct tprof_rec_ustack *us;
	size_t off, cut;
	long n;

	for (off = 0; off < sizeof(stack); off++)
		stack[off] = off;
	regs[TPROF_UREG_SP] = 0x7ffd0000;
	regs[TPROF_UREG_IP] = 0x401000;
	sb_sample_ustack(&b, 5, 6, TPROF_ABI_X86_64, 1000, 77, 2, u, 0, regs,
			 64, stack, sizeof(stack));
	n = tprof_record_decode(b.p, b.len, &r);
	CHECK(n > 0);
	CHECK_EQ(r.hdr.type, TPROF_REC_SAMPLE);
	CHECK(r.hdr.flags & TPROF_RF_GROUP);
	off = n;
	n = tprof_record_decode(b.p + off, b.len - off, &r);
	CHECK_EQ(n, (long)(b.len - off));
	CHECK_EQ(r.hdr.type, TPROF_REC_USTACK);
	CHECK_STR(tprof_record_type_name(r.hdr.type), "USTACK");
	CHECK(r.hdr.flags & TPROF_RF_USTACK_PARTIAL);
	CHECK_EQ(r.hdr.time_ns, 77);
	CHECK_EQ(r.u.ustack.tid, 6);
	CHECK_EQ(r.u.ustack.regs[TPROF_UREG_SP], 0x7ffd0000);
	CHECK_EQ(r.u.ustack.stack_req, 64);
	CHECK_EQ(r.u.ustack.stack_bytes, sizeof(stack));
	CHECK(r.stack && !memcmp(r.stack, stack, sizeof(stack)));
	for (cut = 0; cut < b.len - off; cut++)
		CHECK_EQ(tprof_record_decode(b.p + off, cut, &r),
			 cut ? -ENODATA : 0);
	/* more bytes than the record holds, than asked for, than allowed */
	us = (struct tprof_rec_ustack *)(b.p + off);
	us->stack_bytes = us->hdr.size;
	CHECK_EQ(tprof_record_decode(b.p + off, b.len - off, &r), -EINVAL);
	us->stack_bytes = 8;
	us->stack_req = 4;
	CHECK_EQ(tprof_record_decode(b.p + off, b.len - off, &r), -EINVAL);
	us->stack_req = TPROF_MAX_SNAPSHOT_BYTES + 8;
	CHECK_EQ(tprof_record_decode(b.p + off, b.len - off, &r), -EINVAL);
	sb_free(&b);
}

/*
 * TPROF_RF_USTACK_CHAIN: the SAMPLE joined with its chain is the one a
 * module without TPROF_F_USTACK_CHAIN writes (the inner records read in
 * stack[], arm64's PAC cleared, then the outer ips); a chain whose inner
 * records leave stack[], or whose ips run past the record, is malformed;
 * a join never holds more user frames than the ABI allows.
 */
static void test_decode_chain(void)
{
	const uint64_t sp = 0x7ffd0000;
	uint64_t stack[8] = { 0 }, outer[2] = { 0x403333, 0x404444 };
	uint64_t ips[TPROF_MAX_KERNEL_FRAMES + TPROF_MAX_USER_FRAMES];
	static const uint64_t want[] = { 0x401000, 0x401111, 0x402222,
					 0x403333, 0x404444 };
	struct tprof_record s, u, j;
	const struct tprof_record *out;
	struct sbuf b = { 0 };
	size_t at;
	unsigned int i;

	/* records at sp + 16 and sp + 48; the second's next is past stack[] */
	stack[2] = sp + 48;
	stack[3] = 0x401111;
	stack[6] = sp + 0x1000;
	stack[7] = 0x402222;
	at = sb_sample_uchain(&b, 5, 6, TPROF_ABI_X86_64, 77, 0x401000, stack,
			      sizeof(stack), sp, sp + 16, 2, outer, 2);
	CHECK(tprof_record_decode(b.p, b.len, &s) > 0);
	CHECK_EQ(tprof_record_decode(b.p + at, b.len - at, &u),
		 (long)(b.len - at));
	CHECK(!u.fault);
	CHECK_EQ(u.chain.nr_inner, 2);
	CHECK_EQ(u.chain.nr_outer, 2);
	out = tprof_record_join_chain(&s, &u, 0, &j, ips);
	CHECK(out == &j);
	CHECK_EQ(out->u.sample.nr_user, 5);
	for (i = 0; i < 5; i++)
		CHECK_EQ(tprof_record_ip(out, i), want[i]);
	CHECK(tprof_record_join_chain(&s, NULL, 0, &j, ips) == &s);
	/* a third inner record would be at sp + 0x1000: not in stack[] */
	((struct tprof_ustack_chain *)(b.p + at + sizeof(struct tprof_rec_ustack) +
				       sizeof(stack)))->nr_inner = 3;
	CHECK_EQ(tprof_record_decode(b.p + at, b.len - at, &u), -EINVAL);
	CHECK_STR(u.fault, "a frame-pointer chain that leaves its snapshot");
	/* more outer ips than the record holds */
	sb_free(&b);
	at = sb_sample_uchain(&b, 5, 6, TPROF_ABI_X86_64, 77, 0x401000, stack,
			      sizeof(stack), sp, sp + 16, 2, outer, 2);
	((struct tprof_ustack_chain *)(b.p + at + sizeof(struct tprof_rec_ustack) +
				       sizeof(stack)))->nr_outer = 3;
	CHECK_EQ(tprof_record_decode(b.p + at, b.len - at, &u), -EINVAL);
	/* a misaligned frame pointer: no record to walk */
	sb_free(&b);
	at = sb_sample_uchain(&b, 5, 6, TPROF_ABI_X86_64, 77, 0x401000, stack,
			      sizeof(stack), sp, sp + 20, 1, outer, 0);
	CHECK_EQ(tprof_record_decode(b.p + at, b.len - at, &u), -EINVAL);
	/* arm64: the PAC of a return address read in stack[] is cleared */
	sb_free(&b);
	stack[3] = 0x0012000000401111ULL;
	at = sb_sample_uchain(&b, 5, 6, TPROF_ABI_ARM64, 77, 0x401000, stack,
			      sizeof(stack), sp, sp + 16, 2, outer, 1);
	CHECK(tprof_record_decode(b.p, b.len, &s) > 0);
	CHECK(tprof_record_decode(b.p + at, b.len - at, &u) > 0);
	out = tprof_record_join_chain(&s, &u, ~((1ULL << 48) - 1), &j, ips);
	CHECK_EQ(out->u.sample.nr_user, 4);
	CHECK_EQ(tprof_record_ip(out, 1), 0x401111);
	CHECK_EQ(tprof_record_ip(out, 3), 0x403333);
	/* a chain the module never writes: its pc and 512 ips, 513 user
	 * frames: the join stops at the ABI's 512 */
	sb_free(&b);
	{
		static uint64_t many[TPROF_MAX_USER_FRAMES];

		for (i = 0; i < TPROF_MAX_USER_FRAMES; i++)
			many[i] = 0x500000 + i;
		at = sb_sample_uchain(&b, 5, 6, TPROF_ABI_X86_64, 77, 0x401000,
				      stack, sizeof(stack), sp, 0, 0, many,
				      TPROF_MAX_USER_FRAMES);
		CHECK(tprof_record_decode(b.p, b.len, &s) > 0);
		CHECK(tprof_record_decode(b.p + at, b.len - at, &u) > 0);
		out = tprof_record_join_chain(&s, &u, 0, &j, ips);
		CHECK_EQ(out->u.sample.nr_user, TPROF_MAX_USER_FRAMES);
		CHECK_EQ(tprof_record_ip(out, TPROF_MAX_USER_FRAMES - 1),
			 0x500000 + TPROF_MAX_USER_FRAMES - 2);
	}
	/* no chain in a 32-bit task's USTACK */
	sb_free(&b);
	at = sb_sample_uchain(&b, 5, 6, TPROF_ABI_IA32, 77, 0x401000, stack,
			      sizeof(stack), sp, sp + 16, 0, outer, 0);
	CHECK_EQ(tprof_record_decode(b.p + at, b.len - at, &u), -EINVAL);
	sb_free(&b);
}

static void add_all(struct profile *p, const struct sbuf *b)
{
	CHECK_EQ(profile_feed(p, b, true), b->len);
}

/*
 * SAMPLE + USTACK pairing: a partner of another tid or time, another
 * record in between, a USTACK alone, a SAMPLE last in the stream: every
 * sample is counted once (with its FP chain), nothing is lost or crashes.
 */
static void test_profile_ustack_pairing(void)
{
	uint64_t regs[TPROF_UREG_NR] = { 0 }, u[1] = { 0x401000 };
	unsigned char stack[16] = { 0 };
	struct sbuf b = { 0 }, one = { 0 };
	struct tprof_record r;
	struct profile p;
	struct unwinder *uw;

	regs[TPROF_UREG_IP] = u[0];
	profile__init(&p);
	uw = unwinder__new(NULL, false);
	unwinder__attach(uw, &p, -1);
	/* 1: paired (no maps: the unwinder keeps the FP chain, marked) */
	sb_sample_ustack(&b, 5, 5, TPROF_ABI_X86_64, 1000, 10, 1, u, 0, regs,
			 16, stack, 16);
	/* 2: USTACK of another tid */
	sb_sample_ustack(&one, 5, 5, TPROF_ABI_X86_64, 1000, 20, 1, u, 0, regs,
			 16, stack, 16);
	tprof_record_decode(one.p, one.len, &r);
	((struct tprof_rec_ustack *)(one.p + r.hdr.size))->tid = 6;
	sb_raw(&b, one.p, one.len);
	sb_free(&one);
	/* 3: USTACK of another time */
	sb_sample_ustack(&one, 5, 5, TPROF_ABI_X86_64, 1000, 30, 1, u, 0, regs,
			 16, stack, 16);
	tprof_record_decode(one.p, one.len, &r);
	((struct tprof_rec_ustack *)(one.p + r.hdr.size))->hdr.time_ns = 31;
	sb_raw(&b, one.p, one.len);
	sb_free(&one);
	/* 4: a THREAD record between the pair */
	sb_sample_ustack(&one, 5, 5, TPROF_ABI_X86_64, 1000, 40, 1, u, 0, regs,
			 16, stack, 16);
	tprof_record_decode(one.p, one.len, &r);
	sb_raw(&b, one.p, r.hdr.size);
	sb_thread(&b, 5, 5, "t", 40);
	sb_raw(&b, one.p + r.hdr.size, one.len - r.hdr.size);
	sb_free(&one);
	/* 5: a SAMPLE with TPROF_RF_GROUP last in the stream */
	sb_sample_ustack(&one, 5, 5, TPROF_ABI_X86_64, 1000, 50, 1, u, 0, regs,
			 16, stack, 16);
	tprof_record_decode(one.p, one.len, &r);
	sb_raw(&b, one.p, r.hdr.size);
	sb_free(&one);

	add_all(&p, &b);
	CHECK_EQ(p.sample_records, 4);	/* the last one still waits */
	profile__finish(&p);
	profile__finish(&p);
	CHECK_EQ(p.sample_records, 5);
	CHECK_EQ(p.ustack_paired, 1);
	CHECK_EQ(p.ustack_missing, 4);
	CHECK_EQ(p.ustack_orphans, 3);
	/*
	 * The paired one's pc no mapping holds and its chain is the pc
	 * alone: it ends in [truncated] (nothing is known of its callers);
	 * the others keep the chain as it came, and the THREAD record at 40
	 * starts a comm generation: three stacks
	 */
	CHECK_EQ(p.whole.nsamples, 3);
	CHECK_EQ(unwinder__stats(uw)->samples, 1);
	unwinder__free(uw);
	profile__free(&p);
	sb_free(&b);
}

/* Add the one record at the start of b; profile__add()'s answer. */
static int add_first(struct profile *p, const struct sbuf *b)
{
	struct tprof_record r;

	CHECK(tprof_record_decode(b->p, b->len, &r) > 0);
	return profile__add(p, &r);
}

/*
 * profile__finish() ends the samples: a SAMPLE, USTACK or UWALK after it is
 * refused and counted nowhere, other records still count (a launch's exit
 * stop reads the maps after it); output__write() takes a finished profile,
 * once.
 */
static void test_profile_finish_refuses(void)
{
	uint64_t regs[TPROF_UREG_NR] = { 0 }, u[1] = { 0x401000 };
	struct output_opts o = { .no_symbolize = true, .path = "/dev/null" };
	unsigned char stack[16] = { 0 };
	struct sbuf b = { 0 }, s = { 0 }, us = { 0 }, m = { 0 };
	struct tprof_record r;
	struct profile p;
	uint64_t nrec;

	profile__init(&p);
	sb_session(&b, 5, 1000000, 1, 1);
	sb_sample(&b, 5, 5, 1000000, 1000000, 10, 0, NULL, 1, u);
	add_all(&p, &b);
	/* unfinished: nothing is written, and one line says why */
	CHECK_EQ(output__write(&p, &o), -EINVAL);
	profile__finish(&p);
	nrec = p.nrecords;
	sb_sample(&s, 5, 5, 1000000, 1000000, 20, 0, NULL, 1, u);
	CHECK_EQ(add_first(&p, &s), -EINVAL);
	sb_sample_ustack(&us, 5, 5, TPROF_ABI_X86_64, 1000000, 30, 1, u, 0,
			 regs, 16, stack, 16);
	CHECK_EQ(add_first(&p, &us), -EINVAL);	/* its SAMPLE */
	tprof_record_decode(us.p, us.len, &r);
	CHECK(tprof_record_decode(us.p + r.hdr.size, us.len - r.hdr.size,
				  &r) > 0);
	CHECK_EQ(r.hdr.type, TPROF_REC_USTACK);
	CHECK_EQ(profile__add(&p, &r), -EINVAL);
	r.hdr.type = TPROF_REC_UWALK;	/* refused by type, before decoding */
	CHECK_EQ(profile__add(&p, &r), -EINVAL);
	CHECK_EQ(p.nrecords, nrec);
	CHECK_EQ(p.sample_records, 1);
	CHECK_EQ(p.last_time_ns, 10);
	sb_maps(&m, 5, 40, "00400000-00401000 r-xp 00000000 08:01 7 /x\n");
	CHECK_EQ(add_first(&p, &m), 0);
	CHECK_EQ(p.nrecords, nrec + 1);
	CHECK_EQ(output__write(&p, &o), 0);
	/* the samples went to the first write: a second would be empty */
	CHECK_EQ(output__write(&p, &o), -EINVAL);
	profile__free(&p);
	sb_free(&b);
	sb_free(&s);
	sb_free(&us);
	sb_free(&m);
}

const struct unit_test records_tests[] = {
	{ "records: after profile__finish() no part of a sample is taken, other records are; output__write() takes a finished profile, once", test_profile_finish_refuses },
	{ "records: a stream starts with a SESSION of the versions this reader reads", test_stream_check },
	{ "records: decode a valid stream", test_decode_valid },
	{ "records: every truncation is 'need more', never a record", test_decode_truncated },
	{ "records: malformed sizes, counts and magic are rejected", test_decode_garbage },
	{ "records: unknown types are skipped by size", test_decode_unknown_type },
	{ "records: DENIED decodes with its pid and reason; a short one is malformed", test_decode_denied },
	{ "profile: a DENIED record ends nothing already sampled; the first one is kept", test_profile_denied },
	{ "records: unaligned input decodes (no misaligned loads)", test_decode_unaligned },
	{ "records: USTACK decodes with its registers and stack; bad sizes are malformed", test_decode_ustack },
	{ "records: a USTACK's frame-pointer chain joins its SAMPLE as the module would have walked it", test_decode_chain },
	{ "profile: a SAMPLE pairs only with the USTACK right after it (tid, time); the rest keep their FP chain", test_profile_ustack_pairing },
	{ "records: 20000 random mutations decode+aggregate without crashing", test_garbage_stress },
	{ "profile: one sample per (stack, tid, period); comm by time", test_profile_aggregation },
	{ "util: duration parsing", test_duration },
	{ "records: BUILDID decodes and checks its lengths; its build-id reaches that file's mappings only", test_buildid_record },
	{ "records: VDSO decodes and checks its length", test_vdso_record },
	{ "records: KALLSYMS decodes and checks its lengths", test_kallsyms_record },
	{ "profile: a stack splits at a snapshot that drops or replaces a mapping, not at one that adds", test_epochs },
	{ NULL, NULL },
};

/* ---- maps ---- */

static const char maps1[] =
	"55d0c0a00000-55d0c0a01000 r--p 00000000 08:01 100 /usr/bin/prog\n"
	"55d0c0a01000-55d0c0a05000 r-xp 00001000 08:01 100 /usr/bin/prog\n"
	"7f0000000000-7f0000020000 r-xp 00000000 08:01 200 /lib/x86_64-linux-gnu/libc.so.6\n"
	"7f0000100000-7f0000101000 rw-p 00000000 00:00 0 \n"
	"7ffd00000000-7ffd00002000 r-xp 00000000 00:00 0                          [vdso]\n"
	"7f0000200000-7f0000201000 r-xp 00000000 08:01 300 /tmp/with space (deleted)\n";

static void test_maps_parse(void)
{
	struct maps m;
	struct mapping *e;

	maps__init(&m);
	CHECK_EQ(maps__add_snapshot(&m, 5, 100, maps1, strlen(maps1)), 4);
	e = maps__find(&m, 5, 0x55d0c0a01234, 200);
	CHECK(e != NULL);
	if (e) {
		CHECK_STR(e->path, "/usr/bin/prog");
		CHECK_EQ(e->offset, 0x1000);
		CHECK_EQ(e->start, 0x55d0c0a01000);
	}
	e = maps__find(&m, 5, 0x7ffd00000010, 200);
	CHECK(e && !strcmp(e->path, "[vdso]"));
	e = maps__find(&m, 5, 0x7f0000200010, 200);
	CHECK(e && !strcmp(e->path, "/tmp/with space (deleted)"));
	CHECK(maps__find(&m, 5, 0x55d0c0a00010, 200) == NULL);	/* not x */
	CHECK(maps__find(&m, 5, 0x1000, 200) == NULL);
	maps__free(&m);
	maps__free(NULL);
}

static void test_maps_history(void)
{
	static const char after_exec[] =
		"00400000-00410000 r-xp 00000000 08:01 9 /usr/bin/other\n"
		"7f0000000000-7f0000020000 r-xp 00000000 08:01 201 /lib/libnew.so\n";
	static const char dlopen[] =
		"00400000-00410000 r-xp 00000000 08:01 9 /usr/bin/other\n"
		"7f0000000000-7f0000020000 r-xp 00000000 08:01 201 /lib/libnew.so\n"
		"7f1000000000-7f1000001000 r-xp 00000000 08:01 202 /lib/late.so\n";
	struct maps m;
	struct mapping *e;

	maps__init(&m);
	maps__add_snapshot(&m, 5, 100, maps1, strlen(maps1));
	maps__add_snapshot(&m, 5, 300, after_exec, strlen(after_exec));
	maps__add_snapshot(&m, 5, 500, dlopen, strlen(dlopen));
	/* same address, different code before and after exec */
	e = maps__find(&m, 5, 0x7f0000000100, 200);
	CHECK(e && !strcmp(e->path, "/lib/x86_64-linux-gnu/libc.so.6"));
	e = maps__find(&m, 5, 0x7f0000000100, 400);
	CHECK(e && !strcmp(e->path, "/lib/libnew.so"));
	/* a sample taken before the snapshot that first saw the library */
	e = maps__find(&m, 5, 0x7f1000000010, 350);
	CHECK(e && !strcmp(e->path, "/lib/late.so"));
	/* code gone after exec still resolves for late-read samples */
	e = maps__find(&m, 5, 0x55d0c0a01234, 600);
	CHECK(e && !strcmp(e->path, "/usr/bin/prog"));
	/* identical mappings are shared between snapshots */
	CHECK_EQ(m.nall, 4 + 2 + 1);
	maps__free(&m);
}

/*
 * A process tree: two programs at the same non-PIE address are two
 * processes' code, each named from its own snapshots, whichever was read
 * last. A forked child with no snapshot of its own is its parent's copy,
 * until it execs.
 */
static void test_maps_per_process(void)
{
	static const char a[] =
		"00400000-00410000 r-xp 00000000 08:01 11 /usr/bin/a\n";
	static const char b[] =
		"00400000-00410000 r-xp 00000000 08:01 12 /usr/bin/b\n";
	struct maps m;
	struct mapping *e;

	maps__init(&m);
	maps__add_snapshot(&m, 10, 100, a, strlen(a));
	maps__add_snapshot(&m, 20, 200, b, strlen(b));
	e = maps__find(&m, 10, 0x400100, 300);
	CHECK(e && !strcmp(e->path, "/usr/bin/a"));
	e = maps__find(&m, 20, 0x400100, 150);
	CHECK(e && !strcmp(e->path, "/usr/bin/b"));
	/* 30 and its child 40, forked without exec: a's code */
	CHECK(!maps__find(&m, 30, 0x400100, 300));
	maps__set_parent(&m, 30, 10);
	maps__set_parent(&m, 40, 30);
	e = maps__find(&m, 40, 0x400100, 300);
	CHECK(e && !strcmp(e->path, "/usr/bin/a"));
	/* after its own exec (since), never the parent's */
	CHECK(!maps__find_since(&m, 40, 0x400100, 300, 250));
	maps__free(&m);
}

static void test_maps_malformed(void)
{
	static const char bad[] =
		"00400000-00410000 r-xp 00000000 08:01 9 /a\n"
		"zzzz\n"
		"00500000-00510000 r-xp 00000000 08:01 9 /b\n";
	static const char inverted[] = "00500000-00400000 r-xp 0 0:0 0 /x\n";
	struct maps m;

	maps__init(&m);
	/* a line that does not parse is skipped, the rest kept (model/maps.h) */
	CHECK_EQ(maps__add_snapshot(&m, 1, 1, bad, strlen(bad)), 2);
	CHECK(maps__find(&m, 1, 0x400010, 1) != NULL);
	CHECK(maps__find(&m, 1, 0x500010, 1) != NULL);
	CHECK_EQ(maps__add_snapshot(&m, 1, 2, inverted, strlen(inverted)),
		 0);
	CHECK_EQ(maps__add_snapshot(&m, 1, 1, "", 0), 0);
	maps__free(&m);
}

static void test_maps_proc_self(void)
{
	struct maps m;
	char *text;
	size_t len;

	CHECK_EQ(proc_maps_read(getpid(), &text, &len), 0);
	CHECK_EQ(text[len], 0);
	maps__init(&m);
	CHECK(maps__add_snapshot(&m, getpid(), 1, text, len) > 0);
	CHECK(maps__find(&m, getpid(), (uint64_t)(uintptr_t)&test_maps_proc_self, 1));
	CHECK_EQ(proc_maps_read(-5, &text, &len), -ENOENT);
	free(text);
	maps__free(&m);
}

const struct unit_test maps_tests[] = {
	{ "maps: parse executable mappings, paths with spaces, [vdso]", test_maps_parse },
	{ "maps: snapshots by time (exec, late dlopen, gone code)", test_maps_history },
	{ "maps: per process; a fork without exec is its parent's copy", test_maps_per_process },
	{ "maps: malformed lines are an error, not a crash", test_maps_malformed },
	{ "maps: /proc/self/maps covers our own code", test_maps_proc_self },
	{ NULL, NULL },
};
