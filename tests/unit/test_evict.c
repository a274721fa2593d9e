// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests: a live agent's eviction (agent/evict.h, profile__forget(),
 * maps__forget(), python__forget(), perfmap__forget(), objects__trim()).
 * A stream of thousands of short processes (PROC, CGROUP, EXEC, MAPS,
 * BUILDID, THREAD, PYPROC, PYCODE, samples, THREAD_EXIT, PROC_EXIT) beside a steady
 * target goes through the agent's own windows (agent/windows.c: the sink)
 * and its tick's eviction (evict__tick()) while scrapes' windows are open:
 * every window holds exactly the samples stamped in it and encodes with
 * its processes' names, and what the model holds stays bounded and comes
 * back to the target's own once the others ended. ASan/LSan: no leak, no
 * use of what was freed.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent/evict.h"
#include "agent/windows.h"
#include "lib/buildid.h"
#include "lib/gzip.h"
#include "model/profile.h"
#include "object/object.h"
#include "object/symbols.h"
#include "output/write.h"
#include "pbload.h"
#include "stream/records.h"
#include "testlib.h"

#define TARGET		100
#define NPROC		3000
#define T0		1000000000ULL
#define STEP		10000000ULL	/* a new process every 10 ms */
#define PERIOD		1000000ULL
#define PID(k)		(10000 + 2 * (k))	/* its second thread: +1 */
#define MAX_OBJECTS	16

static void urec(struct sbuf *b, unsigned int type, uint64_t t,
		 const void *fixed, size_t fsize, const void *tail, size_t tlen)
{
	unsigned char *buf;
	size_t n = tprof_urec_build(&buf, type, t, fixed, fsize, tail, tlen);

	sb_raw(b, buf, n);
	free(buf);
}

/* A Python code object of pid's, "f<i>" in "app.py". */
static void pycode(struct sbuf *b, uint32_t pid, int i, uint64_t t)
{
	uint8_t lt[] = { 0x80 | 13 << 3 | 7, 2 };
	struct tprof_urec_pycode c = {
		.pid = pid, .first_line = 10 * i + 1,
		.addr = 0x7f0000100000ULL + i * 0x1000,
		.check = 0x7f0000900000ULL + i * 0x40,
		.qualname_len = 2, .filename_len = 6,
		.linetable_len = sizeof(lt),
	};
	char tail[16];

	snprintf(tail, sizeof(tail), "f%dapp.py", i % 10);
	memcpy(tail + 8, lt, sizeof(lt));
	urec(b, TPROF_UREC_PYCODE, t, &c, sizeof(c), tail, 8 + sizeof(lt));
}

static void pyproc(struct sbuf *b, uint32_t pid, uint64_t t)
{
	struct tprof_urec_pyproc y = {
		.pid = pid, .version = 0x030b02f0, .code_adaptive = 184,
		.w_code = 0, .w_instr = 1, .w_entry = 2, .w_check = 3,
		.entry_kind = TPROF_PY_ENTRY_FLAG, .nr_ranges = 1,
	};
	uint64_t r[2] = { 0x555555554000ULL, 0x555555555000ULL };

	urec(b, TPROF_UREC_PYPROC, t, &y, sizeof(y), r, sizeof(r));
}

/* The times of every sample, to count what a window must hold. */
struct truth {
	uint64_t *t;
	size_t n, cap;
};

static void sample(struct sbuf *b, struct truth *tr, uint32_t pid,
		   uint32_t tid, uint64_t t, uint64_t lib)
{
	uint64_t u[2] = { lib + 0x100, 0x555555554100ULL };

	sb_sample(b, pid, tid, PERIOD, PERIOD, t, 0, NULL, 2, u);
	if (tr->n == tr->cap) {
		tr->cap = tr->cap ? 2 * tr->cap : 4096;
		tr->t = realloc(tr->t, tr->cap * sizeof(*tr->t));
	}
	tr->t[tr->n++] = t;
}

/*
 * Process k: forked by the target, exec'd, its maps (the program, shared
 * by all, and a library of its own with a build-id of its own), a second
 * thread, a Python interpreter with 3 code objects, a sample on each
 * thread, both threads' exits and its own, all within 9 ms. The target
 * takes a sample every 10 ms, between them.
 */
static void build(struct sbuf *b, struct truth *tr)
{
	char maps[512], path[64];
	unsigned char bid[20];
	uint64_t t;
	int k, i;

	sb_session(b, TARGET, PERIOD, 1700000000000000000ULL, T0 - 1000);
	sb_thread(b, TARGET, TARGET, "target", T0 - 900);
	sb_maps(b, TARGET, T0 - 800,
		"555555554000-555555556000 r-xp 00001000 08:01 1234 /usr/bin/target\n");
	for (k = 0; k < NPROC; k++) {
		uint32_t pid = PID(k);
		uint64_t lib = 0x7f0000000000ULL + (uint64_t)(k % 64) * 0x10000;

		t = T0 + k * STEP;
		sample(b, tr, TARGET, TARGET, t, 0x555555554000ULL);
		sb_proc(b, pid, TARGET, "target", 0, t + 1000);
		sb_cgroup(b, pid, t + 1500, "0::/system.slice/short.service\n");
		sb_exec(b, pid, "short", t + 2000);
		snprintf(path, sizeof(path), "/opt/lib%d.so", k);
		snprintf(maps, sizeof(maps),
			 "555555554000-555555556000 r-xp 00001000 08:01 77 /usr/bin/short\n"
			 "%llx-%llx r-xp 00000000 08:01 %d %s\n",
			 (unsigned long long)lib,
			 (unsigned long long)lib + 0x1000, 100000 + k, path);
		sb_maps(b, pid, t + 3000, maps);
		for (i = 0; i < 20; i++)
			bid[i] = (unsigned char)(k >> (8 * (i % 4)));
		sb_buildid(b, pid, 8, 1, 100000 + k, path, bid, 20, t + 3000);
		sb_thread(b, pid, pid + 1, "worker", t + 4000);
		pyproc(b, pid, t + 4500);
		for (i = 0; i < 3; i++)
			pycode(b, pid, i, t + 4600 + i);
		sample(b, tr, pid, pid, t + 5000, lib);
		sample(b, tr, pid, pid + 1, t + 6000, lib);
		sb_stat(b, TPROF_REC_THREAD_EXIT, pid, pid + 1, PERIOD, 1,
			PERIOD, 0, 0, PERIOD, "worker", t + 7000);
		sb_stat(b, TPROF_REC_THREAD_EXIT, pid, pid, PERIOD, 1,
			PERIOD, 0, 0, PERIOD, "short", t + 8000);
		sb_proc_exit(b, pid, 0, t + 9000);
	}
}

static size_t in_window(const struct truth *tr, uint64_t t0, uint64_t t1)
{
	size_t i, n = 0;

	for (i = 0; i < tr->n; i++)
		n += tr->t[i] >= t0 && tr->t[i] < t1;
	return n;
}

struct run {
	struct profile p;
	struct windows ws;
	struct objects *objs;
	struct symbolizer *sym;
	struct evict ev;
	struct truth tr;
	size_t windows_checked, peak_procs, peak_snaps, peak_objs;
	size_t peak_codes;
	bool named;		/* a window's pprof named a short process */
};

static void sink_sample(void *ctx, const struct profile *p,
			const struct agg_sample *s, uint64_t time_ns)
{
	struct run *r = ctx;

	(void)p;
	windows__sample(&r->ws, s, time_ns);
}

/* Samples (the count column) whose string label key is value. */
static int64_t label_samples(const PbProfile *pb, const char *key,
			     const char *value)
{
	int64_t n = 0;
	size_t i, j;

	for (i = 0; i < pb->n_sample; i++)
		for (j = 0; j < pb->sample[i]->n_label; j++) {
			const Perftools__Profiles__Label *l =
				pb->sample[i]->label[j];

			if (!strcmp(pb->string_table[l->key], key) &&
			    !strcmp(pb->string_table[l->str], value))
				n += pb->sample[i]->value[1];
		}
	return n;
}

static int64_t comm_samples(const PbProfile *pb, const char *comm)
{
	return label_samples(pb, "thread_comm", comm);
}

/* The short processes' worker samples (t + 6000) in [t0, t1). */
static int64_t workers_in(uint64_t t0, uint64_t t1)
{
	int64_t n = 0;
	int k;

	for (k = 0; k < NPROC; k++) {
		uint64_t t = T0 + k * STEP + 6000;

		n += t >= t0 && t < t1;
	}
	return n;
}

/* The unwinder's part: every mapping held has its object looked up. */
static void use_objects(struct run *r)
{
	struct file_view view = { 0 };
	size_t i;

	for (i = 0; i < r->p.maps.nall; i++)
		objects__get(r->objs, &r->p.maps.all[i], &view);
}

/*
 * Answer the windows the reader has passed (as windows__close_due() does,
 * without HTTP): each holds the samples stamped in it, and encodes
 * against the model as it is now.
 */
static void close_passed(struct run *r, uint64_t consumed_to)
{
	struct window **pw = &r->ws.open, *w;

	while ((w = *pw)) {
		struct output_env env = { .objects = r->objs, .sym = r->sym };
		uint8_t *gz = NULL, *raw = NULL;
		size_t gzlen = 0, rawlen = 0;
		PbProfile *pb = NULL;

		if (consumed_to < w->w.t1_ns + WINDOW_SLACK_NS) {
			pw = &w->next;
			continue;
		}
		*pw = w->next;
		r->ws.nopen--;
		CHECK_EQ(w->agg.sample_records,
			 in_window(&r->tr, w->w.t0_ns, w->w.t1_ns));
		profile__index(&r->p);
		CHECK_EQ(output__encode(&r->p, &w->agg, &w->w, &env, &gz,
					&gzlen), 0);
		if (gz && !gzip__decompress(gz, gzlen, &raw, &rawlen))
			pb = perftools__profiles__profile__unpack(NULL, rawlen,
								  raw);
		CHECK(pb != NULL);
		/* every short process of the window still known by name
		 * (their comms went with them, had they been forgotten) */
		if (pb) {
			CHECK_EQ(comm_samples(pb, "worker"),
				 workers_in(w->w.t0_ns, w->w.t1_ns));
			CHECK_EQ(comm_samples(pb, "short"),
				 workers_in(w->w.t0_ns, w->w.t1_ns));
			/* and by their cgroup (forgotten with them too) */
			CHECK_EQ(label_samples(pb, "systemd_unit",
					       "short.service"),
				 2 * workers_in(w->w.t0_ns, w->w.t1_ns));
			r->named |= comm_samples(pb, "worker") > 0;
		}
		if (pb)
			perftools__profiles__profile__free_unpacked(pb, NULL);
		free(gz);
		free(raw);
		agg__free(&w->agg);
		free(w);
		r->windows_checked++;
	}
}

static void note_peaks(struct run *r)
{
	size_t o = objects__stats(r->objs)->cached;

	if (r->p.nprocs > r->peak_procs)
		r->peak_procs = r->p.nprocs;
	if (r->p.maps.nsnaps > r->peak_snaps)
		r->peak_snaps = r->p.maps.nsnaps;
	if (r->p.py.ncodes > r->peak_codes)
		r->peak_codes = r->p.py.ncodes;
	if (o > r->peak_objs)
		r->peak_objs = o;
}

static void test_evict_churn(void)
{
	static struct run r;
	const struct profile_sink sink = { .ctx = &r, .sample = sink_sample };
	struct sbuf b = { 0 };
	struct tprof_record rec;
	struct rec_iter it;
	uint64_t next_tick = T0, next_open = T0 + 500000000ULL, last = 0;
	struct profile_sizes z;

	memset(&r, 0, sizeof(r));
	build(&b, &r.tr);
	profile__init(&r.p);
	profile__set_sink(&r.p, &sink);
	r.objs = objects__new();
	r.sym = symbolizer__new_on(r.objs);
	r.ev = (struct evict){ .p = &r.p, .objs = r.objs,
			       .max_objects = MAX_OBJECTS };
	rec_iter_mem(&it, b.p, b.len);
	while (rec_next(&it, &rec)) {
		bool timed = rec.hdr.type < TPROF_UREC_BASE &&
			     rec.hdr.time_ns;

		/* a scrape: a 1 s window every 2 s of the stream, opened
		 * before what comes at its start */
		if (timed && rec.hdr.time_ns >= next_open) {
			windows__open(&r.ws, NULL, rec.hdr.time_ns, 1, true);
			next_open += 2000000000ULL;
		}
		CHECK_EQ(profile__add(&r.p, &rec), 0);
		if (!timed)
			continue;
		last = rec.hdr.time_ns;
		/* the agent's tick, every 100 ms: what the reader passed
		 * is answered, then forgotten past the horizon */
		if (last >= next_tick) {
			use_objects(&r);
			note_peaks(&r);
			close_passed(&r, last);
			evict__tick(&r.ev, &r.ws, last, last);
			next_tick += 100000000ULL;
		}
	}
	CHECK_EQ(it.off, it.len);
	rec_iter_free(&it);
	close_passed(&r, UINT64_MAX - WINDOW_SLACK_NS);
	CHECK_EQ(r.ws.nopen, 0);
	CHECK(r.windows_checked >= 14);
	CHECK(r.named);
	CHECK(r.ev.runs >= 5);
	/* at most the processes of the eviction's period, its lag and an
	 * open window's second: (5 + 2 + 1) s at 100 a second, not 3000 */
	CHECK(r.peak_procs <= 900);
	CHECK(r.peak_snaps <= 900);
	CHECK(r.peak_codes <= 3 * 900);
	/* objects: the bound past those a held mapping names */
	CHECK(r.peak_objs <= 900 + MAX_OBJECTS);
	/* the stream's end: every short process ended; once the horizon
	 * passes them the model holds the target's alone */
	evict__run(&r.ev, last + 1);
	profile__sizes(&r.p, &z);
	CHECK_EQ(z.procs, 1);
	CHECK_EQ(z.threads, 1);
	CHECK_EQ(z.snapshots, 1);
	CHECK_EQ(z.mappings, 1);
	CHECK_EQ(z.pycodes, 0);
	CHECK_EQ(z.procs_forgotten, NPROC);
	CHECK_EQ(z.threads_forgotten, 2 * NPROC);
	CHECK(objects__stats(r.objs)->cached <= MAX_OBJECTS + 1);
	CHECK_EQ(r.p.maps.npids, 1);
	CHECK_EQ(r.p.maps.nfiles, 1);
	CHECK_EQ(r.p.py.nprocs, 0);
	/* the target is still found by name and address */
	CHECK_STR(profile__proc_name(&r.p, TARGET, last), "target");
	CHECK(maps__find(&r.p.maps, TARGET, 0x555555554100ULL, last) != NULL);
	symbolizer__free(r.sym);
	objects__free(r.objs);
	profile__free(&r.p);
	free(r.tr.t);
	sb_free(&b);
}

/*
 * The object cache's key holds the build-id: a binary evicted is found
 * again by its build-id; a redeployed one at the same path (another
 * build-id) is another object, and the file now there is not taken for
 * the old one.
 */
static void test_trim_by_build_id(void)
{
	const char *path = build_path("progs/tree-a");
	struct mapping m = { .start = 0x400000, .limit = 0x401000 };
	struct file_view view = { 0 };
	char hex[BUILDID_HEX_LEN];
	struct objects *objs;
	struct maps none, held;
	struct object *o;
	char text[4200];
	int fd;

	if (!need_file(path, "no progs/tree-a"))
		return;
	fd = open(path, O_RDONLY);
	CHECK(fd >= 0 && buildid__hex_of_fd(fd, hex) > 0);
	if (fd >= 0)
		close(fd);
	m.path = (char *)path;
	m.build_id = hex;
	objs = objects__new();
	maps__init(&none);
	maps__init(&held);
	o = objects__get(objs, &m, &view);
	CHECK(o && o->info.loaded);
	/* held by a mapping: stays, whatever the bound */
	snprintf(text, sizeof(text), "400000-401000 r-xp 00000000 08:01 5 %s\n",
		 path);
	maps__add_snapshot(&held, 1, 1, text, strlen(text));
	maps__add_buildid(&held, 8, 1, 5, path, strlen(path), hex);
	CHECK_EQ(objects__trim(objs, &held, 1), 0);
	/* held by none, past the bound: freed, and found again */
	m.build_id = "00112233445566778899aabbccddeeff00112233";
	o = objects__get(objs, &m, &view);
	CHECK(o && !o->info.loaded);	/* not the file now at the path */
	CHECK_EQ(objects__stats(objs)->cached, 2);
	CHECK_EQ(objects__trim(objs, &none, 1), 1);
	CHECK_EQ(objects__stats(objs)->cached, 1);
	CHECK_EQ(objects__trim(objs, &none, 0), 1);
	CHECK_EQ(objects__stats(objs)->cached, 0);
	CHECK_EQ(objects__stats(objs)->trimmed, 2);
	m.build_id = hex;
	o = objects__get(objs, &m, &view);
	CHECK(o && o->info.loaded);
	CHECK_STR(o->info.build_id, hex);
	CHECK_EQ(o->id, 2);	/* a freed slot, reused */
	maps__free(&none);
	maps__free(&held);
	objects__free(objs);
}

static bool gone_odd(void *ctx, int pid)
{
	(void)ctx;
	return pid & 1;
}

/* Python frames keep their indexes (stacks of open windows hold them);
 * a forgotten process's are reused; perf map entries go by pid, and a
 * later entry still wins over an older one. */
static void test_forget_frames_perfmap(void)
{
	struct python py;
	struct perfmap pm;
	uint64_t a, b2, c, d;

	python__init(&py);
	a = python__frame(&py, 2, 0x1000, 7, 4);
	b2 = python__frame(&py, 3, 0x1000, 7, 4);
	c = python__frame(&py, 2, 0x2000, 7, 4);
	CHECK(a != b2 && a != c);
	CHECK_EQ(python__forget(&py, gone_odd, NULL), 0);
	CHECK_EQ(python__frame(&py, 2, 0x1000, 7, 4), a);
	CHECK_EQ(python__frame(&py, 2, 0x2000, 7, 4), c);
	CHECK_EQ(python__frame_of(&py, c)->code, 0x2000);
	d = python__frame(&py, 4, 0x3000, 7, 4);
	CHECK_EQ(d, b2);	/* the slot of pid 3's frame */
	CHECK_EQ(py.nframes, 3);
	python__free(&py);

	perfmap__init(&pm);
	perfmap__add_text(&pm, 2, "1000 100 old\n", 13);
	perfmap__add_text(&pm, 3, "1000 100 three\n", 15);
	perfmap__index(&pm);
	CHECK_EQ(perfmap__forget(&pm, gone_odd, NULL), 1);
	CHECK(!perfmap__lookup(&pm, 3, 0x1010));
	perfmap__add_text(&pm, 2, "1000 100 new\n", 13);
	perfmap__index(&pm);
	CHECK(perfmap__lookup(&pm, 2, 0x1010) &&
	      !strcmp(perfmap__lookup(&pm, 2, 0x1010)->name, "new"));
	perfmap__free(&pm);
}

const struct unit_test evict_tests[] = {
	{ "evict: 3000 short processes under open windows: each window exact and named, the model bounded, back to the target's alone", test_evict_churn },
	{ "evict: objects past the bound freed unless mapped, found again by build-id, a redeploy another object", test_trim_by_build_id },
	{ "evict: Python frames keep their indexes, freed slots reused; perf map entries by pid, newest still wins", test_forget_frames_perfmap },
	{ NULL, NULL },
};
