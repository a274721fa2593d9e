// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests: each sample is named from the code of its own time and place
 * (issue 13 items 1-3), through `tprof-read --input`: an exec that maps
 * another binary at the same addresses, a stream replayed after the file at
 * its path was replaced, a target whose mount namespace shows another file
 * at the host's path; and the BUILDID records a live session writes.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lib/buildid.h"
#include "output/pprof.h"
#include "pbload.h"
#include "object/symbols.h"
#include "testlib.h"
#include "lib/util.h"

#define PID 6161
#define PIE_BASE 0x555555554000ULL

#define S(p, i) ((p)->string_table[(i)])

static void dump(const PbProfile *p)
{
	size_t i;

	for (i = 0; p && i < p->n_sample; i++)
		fprintf(stderr, "    sample: %s comm=%s n=%lld\n",
			pb_leaf_name(p, p->sample[i]),
			pb_label_str(p, p->sample[i], "thread_comm"),
			(long long)p->sample[i]->value[1]);
}

/* The physical function at ELF vaddr of bin, by libdw. */
static const char *name_at(struct symbolizer *s, const char *bin,
			   uint64_t vaddr)
{
	struct sym_frame fr[SYM_MAX_INLINE];
	int n = symbolizer__lookup_vaddr(s, bin, vaddr, fr, SYM_MAX_INLINE);

	return n > 0 ? fr[n - 1].name : NULL;
}

static int file_buildid(const char *path, unsigned char bits[BUILDID_MAX])
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), n;

	if (fd < 0)
		return -1;
	n = buildid__from_fd(fd, bits);
	close(fd);
	return n;
}

static int copy_file(const char *from, const char *to)
{
	char *out = NULL;
	int st = run_fmt(&out, "rm -f '%s' && cp '%s' '%s'", to, from, to);

	free(out);
	return st;
}

/* progs/inlines and progs/cxxprog are built; else the test is skipped */
static bool need_progs(void)
{
	return need_files("test programs not built",
			  build_path("progs/inlines"),
			  build_path("progs/cxxprog"), NULL);
}

/*
 * (a) An exec maps another binary at the same addresses (both PIEs at one
 * base, as with ASLR off): the same sampled address is hot_outer before the
 * exec and a cxxprog function after. The snapshot after the exec comes late
 * (attach mode reads maps when it sees the EXEC record): 6 samples arrive
 * before it.
 */
static void test_exec_same_addresses(void)
{
	const char *a = build_path("progs/inlines");
	const char *c = build_path("progs/cxxprog");
	const char *raw = build_path("unit/resolve-exec.raw");
	const char *pb = build_path("unit/resolve-exec.pb.gz");
	char *m1, *m2, *out = NULL;
	const char *old_fn, *new_fn;
	struct symbolizer *sym;
	struct sbuf b = { 0 };
	uint64_t v = 0, sz = 0, addr;
	PbProfile *p;
	int i;

	if (!need_progs())
		return;
	CHECK_EQ(elf_symbol(a, "hot_outer", &v, &sz), 0);
	addr = v + 0x10;
	sym = symbolizer__new();
	old_fn = name_at(sym, a, addr);
	new_fn = name_at(sym, c, addr);
	CHECK(old_fn && new_fn && strcmp(old_fn, new_fn));
	m1 = fake_maps(a, PIE_BASE);
	m2 = fake_maps(c, PIE_BASE);
	CHECK(m1 && m2);
	if (!old_fn || !new_fn || !m1 || !m2)
		goto out;

	sb_session(&b, PID, 1000000, 1700000000000000000ULL, 1000);
	sb_maps(&b, PID, 1001, m1);
	sb_thread(&b, PID, PID, "inlines", 1002);
	for (i = 0; i < 10; i++) {
		uint64_t st1[1] = { PIE_BASE + addr };

		sb_sample(&b, PID, PID, 1000000, 1000000, 2000 + i, 0, NULL,
			  1, st1);
	}
	sb_exec(&b, PID, "cxxprog", 3000);
	for (i = 0; i < 13; i++) {
		uint64_t st1[1] = { PIE_BASE + addr };

		if (i == 6)
			sb_maps(&b, PID, 3500, m2);
		sb_sample(&b, PID, PID, 1000000, 1000000,
			  3100 + (i < 6 ? i : 1000 + i), 0, NULL, 1, st1);
	}
	p = replay_profile(&b, raw, pb, "", &out);
	if (p) {
		CHECK_EQ(pb_samples_of(p, old_fn, "inlines"), 10);
		CHECK_EQ(pb_samples_of(p, new_fn, "cxxprog"), 13);
		if (t_checks_failed) {
			fprintf(stderr, "    expected %s (inlines) x10, %s (cxxprog) x13\n",
				old_fn, new_fn);
			dump(p);
		}
		pb_free(p);
	}
out:
	out_done(out);
	free(m1);
	free(m2);
	sb_free(&b);
	symbolizer__free(sym);
}

/* The executable line of fake maps text: its start, end and offset. */
static int exec_line(const char *maps, uint64_t *start, uint64_t *end,
		     uint64_t *off)
{
	const char *l;
	unsigned long long a, b, o;

	for (l = maps; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
		if (sscanf(l, "%llx-%llx r-xp %llx", &a, &b, &o) == 3) {
			*start = a;
			*end = b;
			*off = o;
			return 0;
		}
	return -1;
}

/*
 * dlclose + dlopen of another library at the same base: cxxprog where
 * libhot.so was; the same sampled address is lib_spin before (8 samples)
 * and a cxxprog function after (12). What tells the reader: a snapshot
 * between the two (snapshot_between), or only the MMAP record of the new
 * library's code (another inode), with the snapshot that shows it read
 * after every sample. An MMAP record of the same file and offset (an
 * mprotect) changes nothing.
 */
static void dlopen_case(bool snapshot_between, uint64_t mark_inode,
			int want_old, int want_new)
{
	const char *a = build_path("progs/inlines");
	const char *lib = build_path("progs/libhot.so");
	const char *c = build_path("progs/cxxprog");
	const char *raw = build_path("unit/resolve-dlopen.raw");
	const char *pb = build_path("unit/resolve-dlopen.pb.gz");
	const uint64_t lib_base = 0x7f0000000000ULL;
	char *exe = NULL, *l1 = NULL, *l2 = NULL, *m1 = NULL, *m2 = NULL;
	uint64_t spin = 0, sz = 0, mainv = 0, xs = 0, xe = 0, xo = 0;
	const char *old_fn, *new_fn;
	struct symbolizer *sym;
	struct sbuf b = { 0 };
	char *out = NULL;
	PbProfile *p;
	int i;

	if (!need_progs() || !need_file(lib, "test programs not built"))
		return;
	CHECK_EQ(elf_symbol(lib, "lib_spin", &spin, &sz), 0);
	CHECK_EQ(elf_symbol(a, "main", &mainv, &sz), 0);
	spin += 0x10;
	sym = symbolizer__new();
	old_fn = name_at(sym, lib, spin);
	new_fn = name_at(sym, c, spin);
	CHECK(old_fn && new_fn && strcmp(old_fn, new_fn));
	exe = fake_maps(a, PIE_BASE);
	l1 = fake_maps(lib, lib_base);
	l2 = fake_maps(c, lib_base);
	if (!exe || !l1 || !l2 || !old_fn || !new_fn)
		goto out;
	CHECK_EQ(exec_line(l2, &xs, &xe, &xo), 0);
	CHECK(xs <= lib_base + spin && lib_base + spin < xe);
	m1 = xmalloc(strlen(exe) + strlen(l1) + 1);
	m2 = xmalloc(strlen(exe) + strlen(l2) + 1);
	strcat(strcpy(m1, exe), l1);
	strcat(strcpy(m2, exe), l2);
	sb_session(&b, PID, 1000000, 1700000000000000000ULL, 1000);
	sb_maps(&b, PID, 1001, m1);
	sb_thread(&b, PID, PID, "host", 1002);
	for (i = 0; i < 20; i++) {
		uint64_t st2[2] = { lib_base + spin, PIE_BASE + mainv + 4 };

		if (i == 8 && snapshot_between)
			sb_maps(&b, PID, 2500, m2);
		else if (i == 8)	/* fake_maps() files are all inode 1234 */
			sb_mmap(&b, PID, xs, xe, xo, mark_inode, 2600);
		sb_sample(&b, PID, PID, 1000000, 1000000,
			  i < 8 ? 2000 + i : 3000 + i, 0, NULL, 2, st2);
	}
	if (!snapshot_between)
		sb_maps(&b, PID, 4000, m2);
	p = replay_profile(&b, raw, pb, "", &out);
	if (p) {
		CHECK_EQ(pb_samples_of(p, old_fn, "host"), want_old);
		CHECK_EQ(pb_samples_of(p, new_fn, "host"), want_new);
		if (t_checks_failed) {
			fprintf(stderr, "    expected %s x%d, %s x%d\n", old_fn,
				want_old, new_fn, want_new);
			dump(p);
		}
		pb_free(p);
	}
out:
	out_done(out);
	free(exe);
	free(l1);
	free(l2);
	free(m1);
	free(m2);
	sb_free(&b);
	symbolizer__free(sym);
}

static void test_dlopen_same_base(void)
{
	dlopen_case(true, 0, 8, 12);
}

static void test_dlopen_mmap_record(void)
{
	dlopen_case(false, 5678, 8, 12);
}

static void test_mprotect_mmap_record(void)
{
	dlopen_case(false, 1234, 20, 0);
}

/*
 * A stream whose BUILDID record says the file at path had build-id bid,
 * sampled at hot_outer's address of inlines.
 */
static int replaced_stream(const char *raw, const char *path, int pid,
			   const unsigned char *bid, int bidlen)
{
	const char *a = build_path("progs/inlines");
	uint64_t v = 0, sz = 0;
	struct sbuf b = { 0 };
	char *m;
	int i, ret;

	if (elf_symbol(a, "hot_outer", &v, &sz))
		return -1;
	m = fake_maps(a, PIE_BASE);	/* 08:01 inode 1234, path a */
	if (!m)
		return -1;
	/* the same mapping, at path */
	{
		char *t = strstr(m, a), *n;
		struct sbuf mm = { 0 };

		while (t) {
			char *line = t;

			while (line > m && line[-1] != '\n')
				line--;
			sb_raw(&mm, line, t - line);
			sb_raw(&mm, path, strlen(path));
			n = strchr(t, '\n');
			sb_raw(&mm, "\n", 1);
			t = n ? strstr(n, a) : NULL;
		}
		sb_raw(&mm, "", 1);
		free(m);
		m = (char *)mm.p;
	}
	sb_session(&b, pid, 1000000, 1700000000000000000ULL, 1000);
	sb_maps(&b, pid, 1001, m);
	sb_buildid(&b, pid, 8, 1, 1234, path, bid, bidlen, 1001);
	sb_thread(&b, pid, pid, "prog", 1002);
	for (i = 0; i < 10; i++) {
		uint64_t st1[1] = { PIE_BASE + v + 0x10 };

		sb_sample(&b, pid, pid, 1000000, 1000000, 2000 + i, 0, NULL,
			  1, st1);
	}
	ret = sb_write(&b, raw);
	free(m);
	sb_free(&b);
	return ret;
}

/* Functions named in the profile, other than pseudo frames. */
static int named_functions(const PbProfile *p)
{
	size_t i;
	int n = 0;

	for (i = 0; i < p->n_function; i++)
		n += S(p, p->function[i]->name)[0] != '[';
	return n;
}

static const char *mapping_buildid(const PbProfile *p, const char *path)
{
	size_t i;

	for (i = 0; i < p->n_mapping; i++)
		if (!strcmp(S(p, p->mapping[i]->filename), path))
			return S(p, p->mapping[i]->build_id);
	return NULL;
}

/*
 * (b) A saved stream replayed after the binary at its path was rebuilt
 * (here: replaced by another program): no function of the new file is
 * named, the mapping keeps the recorded build-id, one line says why. The
 * same stream with the file as it was is named.
 */
static void test_replaced_binary(void)
{
	const char *a = build_path("progs/inlines");
	const char *c = build_path("progs/cxxprog");
	const char *path = build_path("unit/resolve-replaced-prog");
	const char *raw = build_path("unit/resolve-replaced.raw");
	const char *pb = build_path("unit/resolve-replaced.pb.gz");
	unsigned char bid[BUILDID_MAX], cbid[BUILDID_MAX];
	char hex[BUILDID_HEX_LEN], chex[BUILDID_HEX_LEN];
	char *out = NULL;
	int n, cn, st;
	PbProfile *p;

	if (!need_progs())
		return;
	n = file_buildid(a, bid);
	cn = file_buildid(c, cbid);
	CHECK(n > 0 && cn > 0);
	if (n <= 0 || cn <= 0)
		return;
	buildid__hex(bid, n, hex);
	buildid__hex(cbid, cn, chex);
	CHECK_EQ(replaced_stream(raw, path, PID, bid, n), 0);

	/* the file as profiled: named, and no warning */
	CHECK_EQ(copy_file(a, path), 0);
	unlink(pb);
	st = run_read(&out, "--input '%s' -o '%s' 2>&1", raw, pb);
	CHECK_EQ(st, 0);
	CHECK(out && !strstr(out, "build-id"));
	free(out);
	out = NULL;
	p = load_checked(pb);
	if (p) {
		CHECK_EQ(pb_samples_of(p, "hot_outer", "prog"), 10);
		pb_free(p);
	}

	/* rebuilt since: nothing of the new file is named */
	CHECK_EQ(copy_file(c, path), 0);
	unlink(pb);
	st = run_read(&out, "--input '%s' -o '%s' 2>&1", raw, pb);
	CHECK_EQ(st, 0);
	/* one line: the path, both build-ids */
	CHECK(out && strstr(out, "tprof-read: warning: ") &&
	      strstr(out, path) && strstr(out, hex) && strstr(out, chex));
	CHECK(out && strchr(out, '\n') == out + strlen(out) - 1);
	p = load_checked(pb);
	if (p) {
		CHECK_EQ(named_functions(p), 0);
		CHECK_STR(mapping_buildid(p, path), hex);
		CHECK_EQ(p->n_sample, 1);
		if (t_checks_failed)
			dump(p);
		pb_free(p);
	}
	out_done(out);
	unlink(path);
}

/* A target in its own mount namespace (unshare -rm), src bound over dst. */
struct ns_target {
	FILE *fp;
	int pid;
};

/*
 * Start t: it prints its pid, then sleeps. False, with the running test
 * skipped, where unprivileged user namespaces or the mount are refused.
 */
static bool ns_target_start(struct ns_target *t, const char *src,
			    const char *dst)
{
	char cmd[8192], line[64];

	snprintf(cmd, sizeof(cmd),
		 "exec unshare -rm sh -c 'mount --bind \"%s\" \"%s\" && echo $$ && exec sleep 60' 2>/dev/null",
		 src, dst);
	t->pid = 0;
	t->fp = popen(cmd, "r");
	if (t->fp && fgets(line, sizeof(line), t->fp))
		t->pid = atoi(line);
	if (t->pid > 0)
		return true;
	SKIP("unshare -rm with a bind mount not permitted here");
	return false;
}

/* End what ns_target_start() started (or tried to). */
static void ns_target_stop(struct ns_target *t)
{
	if (t->pid > 0)
		kill(t->pid, SIGKILL);
	if (t->fp)
		pclose(t->fp);
}

/*
 * (c) A target in its own mount namespace, where the host's path holds
 * another file (a bind mount, as a container's image would): the target's
 * file names the samples, found through /proc/PID/root. Needs unprivileged
 * user namespaces (unshare -rm), else skipped.
 */
static void test_target_root(void)
{
	const char *a = build_path("progs/inlines");
	const char *c = build_path("progs/cxxprog");
	const char *path = build_path("unit/resolve-root-prog");
	const char *raw = build_path("unit/resolve-root.raw");
	const char *pb = build_path("unit/resolve-root.pb.gz");
	unsigned char cbid[BUILDID_MAX];
	struct ns_target t;
	char *out = NULL;
	const char *new_fn;
	struct symbolizer *sym;
	uint64_t v = 0, sz = 0;
	PbProfile *p;
	int cn;

	if (!need_progs())
		return;
	if (!need_cmd("unshare", "no unshare"))
		return;
	CHECK_EQ(elf_symbol(a, "hot_outer", &v, &sz), 0);
	sym = symbolizer__new();
	new_fn = name_at(sym, c, v + 0x10);
	CHECK(new_fn && strcmp(new_fn, "hot_outer"));
	CHECK_EQ(copy_file(a, path), 0);
	/* the target sees cxxprog at path */
	if (!ns_target_start(&t, c, path))
		goto out;
	cn = file_buildid(c, cbid);
	CHECK(cn > 0);
	/* as the writer records it: the target's file's build-id */
	CHECK_EQ(replaced_stream(raw, path, t.pid, cbid, cn > 0 ? cn : 0), 0);
	p = input_profile(raw, pb, "", &out);
	if (p && new_fn) {
		CHECK_EQ(pb_samples_of(p, new_fn, "prog"), 10);
		CHECK_EQ(pb_samples_of(p, "hot_outer", "prog"), 0);
		if (t_checks_failed) {
			fprintf(stderr, "    expected %s\n", new_fn);
			dump(p);
		}
	}
	pb_free(p);
out:
	ns_target_stop(&t);
	out_done(out);
	unlink(path);
	symbolizer__free(sym);
}

/*
 * A recorded vDSO image names [vdso] frames, not the replaying kernel's own
 * vDSO: here the "image" is libhot.so, so the frame must read lib_spin.
 */
static void test_recorded_vdso(void)
{
	const char *lib = build_path("progs/libhot.so");
	const char *raw = build_path("unit/resolve-vdso.raw");
	const char *pb = build_path("unit/resolve-vdso.pb.gz");
	const uint64_t base = 0x7ffd00000000ULL;
	unsigned char *img = NULL;
	uint64_t spin = 0, sz = 0;
	struct sbuf b = { 0 };
	size_t len = 0;
	char *out = NULL;
	PbProfile *p;
	int i;

	if (!need_file(lib, "test programs not built"))
		return;
	CHECK_EQ(elf_symbol(lib, "lib_spin", &spin, &sz), 0);
	img = read_whole(lib, &len);
	CHECK(len > 0x2000);
	sb_session(&b, PID, 1000000, 1700000000000000000ULL, 1000);
	sb_maps(&b, PID, 1001,
		"7ffd00000000-7ffd00004000 r-xp 00000000 00:00 0                          [vdso]\n");
	sb_vdso(&b, PID, base, img, len, 1001);
	sb_thread(&b, PID, PID, "vdsouser", 1002);
	for (i = 0; i < 5; i++) {
		uint64_t st1[1] = { base + spin + 0x10 };

		sb_sample(&b, PID, PID, 1000000, 1000000, 2000 + i, 0, NULL,
			  1, st1);
	}
	p = replay_profile(&b, raw, pb, "", &out);
	if (p) {
		CHECK_EQ(pb_samples_of(p, "lib_spin", "vdsouser"), 5);
		if (t_checks_failed)
			dump(p);
		pb_free(p);
	}
	out_done(out);
	free(img);
	sb_free(&b);
}

/*
 * A replay whose session pid is now a process that cannot see the file (a
 * mount namespace with an empty directory over its folder): with the
 * recorded build-id the host's file, checked, names the samples; without
 * one, nothing does (the host's file may not be the target's).
 */
static void test_replay_pid_reused(void)
{
	const char *a = build_path("progs/inlines");
	const char *dir = build_path("unit/resolve-hidden");
	const char *empty = build_path("unit/resolve-empty");
	const char *raw = build_path("unit/resolve-hidden.raw");
	const char *pb = build_path("unit/resolve-hidden.pb.gz");
	unsigned char bid[BUILDID_MAX];
	char path[4200], *out = NULL;
	struct ns_target t;
	PbProfile *p;
	int st, n;

	if (!need_progs() || !need_cmd("unshare", "no unshare"))
		return;
	snprintf(path, sizeof(path), "%s/prog", dir);
	st = run_fmt(&out, "mkdir -p '%s' '%s' && cp '%s' '%s'", dir, empty, a,
		     path);
	free(out);
	out = NULL;
	CHECK_EQ(st, 0);
	if (!ns_target_start(&t, empty, dir))
		goto out;
	n = file_buildid(a, bid);
	CHECK(n > 0);
	CHECK_EQ(replaced_stream(raw, path, t.pid, bid, n > 0 ? n : 0), 0);
	p = input_profile(raw, pb, "", &out);
	if (p) {
		CHECK_EQ(pb_samples_of(p, "hot_outer", "prog"), 10);
		if (t_checks_failed)
			dump(p);
		pb_free(p);
	}
out:
	ns_target_stop(&t);
	out_done(out);
	unlink(path);
}

/*
 * A live session (fake device, attached to a sleep) writes a BUILDID record
 * for the target's program with its file's build-id, and its vDSO image,
 * into --save-raw.
 */
static void test_live_records_buildids(void)
{
	const char *dev = build_path("unit/tprof-fakedev");
	const char *raw = build_path("unit/resolve-live.raw");
	char exe[4096], *out = NULL, hex[BUILDID_HEX_LEN], got[BUILDID_HEX_LEN];
	unsigned char bits[BUILDID_MAX];
	bool found = false, vdso = false;
	struct tprof_record r;
	struct rec_iter it;
	pid_t pid;
	ssize_t n;
	int st, bn;

	if (!need_fakedev(dev))
		return;
	pid = fork();
	if (pid == 0) {
		execlp("sleep", "sleep", "30", (char *)NULL);
		_exit(127);
	}
	CHECK(pid > 0);
	if (pid <= 0)
		return;
	usleep(100000);
	snprintf(hex, sizeof(hex), "/proc/%d/exe", pid);
	n = readlink(hex, exe, sizeof(exe) - 1);
	CHECK(n > 0);
	exe[n > 0 ? n : 0] = 0;
	bn = file_buildid(exe, bits);
	buildid__hex(bits, bn > 0 ? bn : 0, hex);
	unlink(raw);
	st = run_fake_read(&out, NULL, NULL, dev,
			   "-p %d --save-raw '%s' -o /dev/null 2>&1", (int)pid,
			   raw);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	CHECK_EQ(st, 0);
	rec_iter_file(&it, raw);
	while (rec_next(&it, &r)) {
		if (r.hdr.type == TPROF_UREC_BUILDID &&
		    r.u.buildid.path_len == strlen(exe) &&
		    !memcmp(r.text, exe, r.u.buildid.path_len)) {
			buildid__hex(r.bid, r.u.buildid.bid_len, got);
			CHECK_STR(got, hex);
			found = true;
		}
		if (r.hdr.type == TPROF_UREC_VDSO && r.u.vdso.len >= 4 &&
		    !memcmp(r.image, "\177ELF", 4))
			vdso = true;
	}
	CHECK(found);
	CHECK(vdso);
	out_done(out);
	rec_iter_free(&it);
}

static const char ksyms_text[] =
	"0000000000000000 A fixed_percpu_data\n"
	"ffffffff81000000 T _stext\n"
	"ffffffff81000100 T recorded_fn\n"
	"ffffffff81000200 T _etext\n";

/* A KALLSYMS record of ksyms_text and an empty modules file. */
static void sb_kallsyms(struct sbuf *b, uint64_t time_ns)
{
	struct tprof_urec_kallsyms k = { .len = strlen(ksyms_text) };

	sb_text_rec(b, &k, sizeof(k), TPROF_UREC_KALLSYMS, ksyms_text, k.len,
		    time_ns);
}

/* The leaf function of the first sample with a kernel frame. */
static const char *kernel_leaf(const PbProfile *p)
{
	size_t i;

	for (i = 0; i < p->n_sample; i++) {
		const Perftools__Profiles__Location *l =
			pb_leaf(p, p->sample[i]);

		if (l && l->address >= 0xffff800000000000ULL)
			return pb_leaf_name(p, p->sample[i]);
	}
	return NULL;
}

/*
 * Kernel frames of a replay are named from the session's kallsyms (a
 * KALLSYMS record), not the replaying host's, whose kernel may be another
 * boot's; --kallsyms still overrides.
 */
static void test_recorded_kallsyms(void)
{
	const char *raw = build_path("unit/resolve-ksyms.raw");
	const char *pb = build_path("unit/resolve-ksyms.pb.gz");
	const char *other = build_path("unit/resolve-ksyms-other");
	uint64_t k = 0xffffffff81000150ULL, u = 0x401000;
	struct sbuf b = { 0 };
	char *out = NULL;
	PbProfile *p;
	int st;

	sb_session(&b, PID, 1000000, 1700000000000000000ULL, 1000);
	sb_kallsyms(&b, 1000);
	sb_maps(&b, PID, 1001,
		"00400000-00402000 r-xp 00000000 08:01 1 /nonexistent/prog\n");
	sb_sample(&b, PID, PID, 1000000, 1000000, 2000, 1, &k, 1, &u);
	p = replay_profile(&b, raw, pb, "", &out);
	if (p) {
		CHECK_STR(kernel_leaf(p), "recorded_fn");
		pb_free(p);
	}
	free(out);
	out = NULL;
	write_text(other, "ffffffff81000000 T _stext\nffffffff81000140 T other_fn\n"
		   "ffffffff81000200 T _etext\n");
	st = run_read(&out, "--input '%s' --kallsyms '%s' -o '%s' 2>&1",
		      raw, other, pb);
	CHECK_EQ(st, 0);
	p = load_checked(pb);
	if (p) {
		CHECK_STR(kernel_leaf(p), "other_fn");
		pb_free(p);
	}
	out_done(out);
	sb_free(&b);
}

/* A live session with --kernel-stacks writes the KALLSYMS record. */
static void test_live_records_kallsyms(void)
{
	const char *dev = build_path("unit/tprof-fakedev");
	const char *raw = build_path("unit/resolve-live-ksyms.raw");
	const char *ks = build_path("unit/resolve-live-kallsyms");
	struct tprof_record r;
	struct rec_iter it;
	bool found = false;
	char *out = NULL;
	int st;

	if (!need_fakedev(dev))
		return;
	write_text(ks, ksyms_text);
	unlink(raw);
	st = run_fake_read(&out, NULL, NULL, dev,
			   "--kernel-stacks --kallsyms '%s' -p %d --save-raw '%s' -o /dev/null 2>&1",
			   ks, (int)getpid(), raw);
	CHECK_EQ(st, 0);
	rec_iter_file(&it, raw);
	while (rec_next(&it, &r))
		if (r.hdr.type == TPROF_UREC_KALLSYMS) {
			CHECK_EQ(r.u.kallsyms.len, strlen(ksyms_text));
			CHECK(!memcmp(r.text, ksyms_text, strlen(ksyms_text)));
			found = true;
		}
	CHECK(found);
	out_done(out);
	rec_iter_free(&it);
}

/*
 * A live target for the fake device: a sleeping child (its pid, or 0 after
 * a failed check), and n samples of it in unmapped code at 0x1000..0x13f0.
 */
static pid_t fake_live_target(struct sbuf *b, int n)
{
	pid_t pid;
	int i;

	if (!need_file(build_path("unit/fakedev.so"), "fakedev.so not built"))
		return 0;
	pid = fork();
	if (pid == 0) {
		execlp("sleep", "sleep", "60", (char *)NULL);
		_exit(127);
	}
	CHECK(pid > 0);
	if (pid <= 0)
		return 0;
	for (i = 0; i < n; i++) {
		uint64_t u[1] = { 0x1000 + (uint64_t)(i % 64) * 16 };

		sb_sample(b, pid, pid, 1000000, 1000000, 1000 + i, 0, NULL,
			  1, u);
	}
	return pid;
}

/*
 * tprof-read -p @pid on the fake device, which replays @b in @nreads
 * reads 1 ms apart and counts the opens of /proc/PID/maps; then @pid is
 * killed. *out gets tprof-read's output (exit status checked 0).
 * Return: the maps reads the device counted, -1 if it said none.
 */
static int fake_maps_run(const struct sbuf *b, const char *dev, pid_t pid,
			 size_t nreads, char **out)
{
	const char *l;
	char env[128];
	int st;

	CHECK_EQ(sb_write(b, dev), 0);
	snprintf(env, sizeof(env),
		 "FAKEDEV_READ_BYTES=%zu FAKEDEV_READ_DELAY_US=1000 FAKEDEV_COUNT_MAPS=1",
		 b->len / nreads);
	st = run_fake_read(out, env, NULL, dev, "-p %d -o /dev/null 2>&1",
			   (int)pid);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	CHECK_EQ(st, 0);
	l = *out ? strstr(*out, "fakedev: maps reads ") : NULL;
	return l ? atoi(l + strlen("fakedev: maps reads ")) : -1;
}

/*
 * Live: 40,000 samples over half a second whose frame no snapshot maps (a
 * frame-pointer walk through code without frame pointers) re-read
 * /proc/PID/maps a few times under the throttle, not once per sample
 * (578f2fd: once per sample after the first 20 ms, its stamp moved only on
 * a change).
 */
static void test_live_maps_rereads(void)
{
	const char *dev = build_path("unit/tprof-fakedev-unmapped");
	struct sbuf b = { 0 };
	char *out = NULL;
	pid_t pid = fake_live_target(&b, 40000);
	int reads;

	if (!pid)
		return;
	/* one read() must hold it all: the live loop wants whole records */
	CHECK(b.len < (4U << 20));
	/* 400 reads of 100 samples, 1 ms apart: half a second of stream */
	reads = fake_maps_run(&b, dev, pid, 400, &out);
	/* the first snapshot, then at most one per 20 ms, backing off */
	CHECK(reads >= 1 && reads <= 50);
	if (t_checks_failed || getenv("TPROF_TEST_VERBOSE"))
		fprintf(stderr, "    maps reads %d\n%s", reads, out ? out : "");
	free(out);
	sb_free(&b);
	unlink(dev);
}

/*
 * Live: a chain in the USTACK record (TPROF_RF_USTACK_CHAIN) whose return
 * addresses no snapshot maps re-reads the maps after the group, not
 * between the SAMPLE and its USTACK: a MAPS record there split the pair
 * (CI, 60-python's wall mode: "17 samples came without their USTACK
 * record", sleeper()'s Python frames gone).
 */
static void test_live_chain_maps(void)
{
	const char *dev = build_path("unit/tprof-fakedev-chain");
	uint64_t stack[2] = { 0 }, pc = 0;
	struct sbuf b = { 0 };
	char *out = NULL, path[64], line[512];
	int i, reads;
	pid_t pid;
	FILE *f;

	if (!need_file(build_path("unit/fakedev.so"), "fakedev.so not built"))
		return;
	/* a target whose maps change all the time: each re-read finds news */
	pid = fork();
	if (pid == 0) {
		for (;;) {
			mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS,
			     -1, 0);
			usleep(2000);
		}
	}
	CHECK(pid > 0);
	if (pid <= 0)
		return;
	/* a pc in the target's code: the SAMPLE alone never asks for maps */
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	for (i = 0; i < 100 && !pc; i++) {
		f = fopen(path, "r");
		while (f && !pc && fgets(line, sizeof(line), f)) {
			unsigned long lo;

			if (strstr(line, " r-xp ") && sscanf(line, "%lx-", &lo) == 1)
				pc = lo + 16;
		}
		if (f)
			fclose(f);
		if (!pc)
			usleep(10000);
	}
	CHECK(pc != 0);
	for (i = 0; i < 2000; i++) {
		uint64_t outer[1] = { 0x1000 + (uint64_t)(i % 64) * 16 };

		sb_sample_uchain(&b, pid, pid, TPROF_ABI_X86_64, 1000 + i, pc,
				 stack, sizeof(stack), 0x7ffd0000, 0, 0,
				 outer, 1);
	}
	reads = fake_maps_run(&b, dev, pid, 200, &out);
	/* the first snapshot, then re-reads the chains asked for */
	CHECK(reads >= 2 && reads <= 50);
	CHECK(out && !strstr(out, "without their USTACK record"));
	if (t_checks_failed || getenv("TPROF_TEST_VERBOSE"))
		fprintf(stderr, "    maps reads %d\n%s", reads, out ? out : "");
	free(out);
	sb_free(&b);
	unlink(dev);
}

/*
 * The folded profile of stream b, replayed (--input) from build/NAME;
 * malloc'd, NULL if tprof-read did not run. b is freed.
 */
static char *replay_folded(struct sbuf *b, const char *name)
{
	const char *raw = build_path(name);
	char *out = NULL;

	CHECK_EQ(sb_write(b, raw), 0);
	CHECK_EQ(run_fmt(&out, "%s --input %s --format folded -o - 2>&1",
			 tprof_read_bin(), raw), 0);
	sb_free(b);
	unlink(raw);
	return out;
}

/* Is line (without its newline) a whole line of out? */
static bool has_line(const char *out, const char *line)
{
	size_t n = strlen(line);
	const char *q;

	for (q = out; q && (q = strstr(q, line)); q++)
		if ((q == out || q[-1] == '\n') && q[n] == '\n')
			return true;
	return false;
}

/* After a test's checks: its output, when one failed or asked; freed. */
static void show_and_free(char *out)
{
	if (t_checks_failed || getenv("TPROF_TEST_VERBOSE"))
		fprintf(stderr, "%s", out ? out : "");
	free(out);
}

/*
 * A snapshot sample whose pc no mapping holds (a forked child read before
 * its PROC record told the maps whose copy it is) and whose chain is the
 * pc alone: nothing is known of its callers, so its stack ends in
 * [truncated], not a one-frame stack that looks whole ("_Fork" alone in
 * 2-3% of case 53's 2,000-fork tree).
 */
static void test_unmapped_pc_marked(void)
{
	uint64_t stack[2] = { 0 };
	struct tprof_urec_session *ss;
	struct sbuf b = { 0 };
	char *out;
	int i;

	sb_session(&b, 77, 1000000, 1, 1);
	ss = (struct tprof_urec_session *)b.p;
	ss->flags = TPROF_F_USER_SNAPSHOT;
	for (i = 0; i < 10; i++)
		sb_sample_uchain(&b, 77, 77, TPROF_ABI_X86_64, 10 + i,
				 0x1000 + (uint64_t)i * 16, stack,
				 sizeof(stack), 0x7ffd0000, 0, 0, NULL, 0);
	out = replay_folded(&b, "unit/unmapped-pc.raw");
	CHECK_HAS(out, ";[truncated];");
	show_and_free(out);
}

/*
 * A forked child's first samples, read before its PROC record: its CPU's
 * ring came before its parent's in the read. They wait for that record,
 * which says whose copy the child's address space is, and are unwound
 * with the parent's maps: the chain in the parent's code, not [truncated]
 * (case 53's fork tree: 2-4% of the samples were cut so, unwound before
 * the record). A grandchild's samples wait for its parent's record too.
 * Half the samples before the records, half after: the same stacks. A
 * child whose PROC record never comes (lost) keeps its samples, added at
 * the stream's end.
 */
static void test_child_before_proc(void)
{
	uint64_t stack[2] = { 0 }, outer[2] = { 0x401100, 0x401200 };
	struct tprof_urec_session *ss;
	struct sbuf b = { 0 };
	char *out;
	int i;

	sb_session(&b, 100, 1000000, 1, 1);
	ss = (struct tprof_urec_session *)b.p;
	ss->flags = TPROF_F_USER_SNAPSHOT | TPROF_F_CHILDREN;
	sb_thread(&b, 100, 100, "w", 2);
	sb_maps(&b, 100, 3,
		"00400000-00402000 r-xp 00000000 08:01 1 /nonexistent/w\n");
	/*
	 * 200 and its child 300: 300's record is read before 200's (each in
	 * its parent's CPU's ring); 300 goes on waiting for 200's, its line
	 * to the maps it copied
	 */
	for (i = 0; i < 20; i++) {
		if (i == 5)
			sb_proc(&b, 300, 200, "w", 0, 1001);
		if (i == 10)
			sb_proc(&b, 200, 100, "w", 0, 1000);
		sb_sample_uchain(&b, 200, 200, TPROF_ABI_X86_64, 2000 + i,
				 0x401010, stack, sizeof(stack), 0x7ffd0000,
				 0, 0, outer, 2);
		sb_sample_uchain(&b, 300, 300, TPROF_ABI_X86_64, 2100 + i,
				 0x401010, stack, sizeof(stack), 0x7ffd0000,
				 0, 0, outer, 2);
	}
	/* pid 400: its PROC record lost */
	for (i = 0; i < 5; i++)
		sb_sample_uchain(&b, 400, 400, TPROF_ABI_X86_64, 3000 + i,
				 0x401010, stack, sizeof(stack), 0x7ffd0000,
				 0, 0, outer, 2);
	out = replay_folded(&b, "unit/child-before-proc.raw");
	/* folded, root first: 20 samples of 1 ms each of the child and
	 * the grandchild, all whole */
	CHECK(out && has_line(out, "w;[w];[w];[w] 40000000"));
	CHECK(out && !strstr(out, "[truncated]"));
	/* no maps ever: named by nothing, but kept */
	CHECK_HAS(out, ":400;[unknown];[unknown] 5000000\n");
	show_and_free(out);
}

/*
 * A snapshot sample with no CFI at its pc (a vDSO's, here a file that is
 * not there) keeps the FP chain as the kernel walked it. Where that chain
 * stops in a function whose CFI names a caller, it stopped at a frame
 * pointer that was none (libc's __libc_start_call_main keeps _start's zero
 * rbp): cut there, [truncated], not a stack that looks whole (0.4% of case
 * 53's fork tree). A chain that stops at _start (its CFI has no return
 * address) is whole.
 */
static void test_fp_chain_stops_short(void)
{
	const char *prog = build_path("progs/unwind");
	uint64_t stack[2] = { 0 }, outer[1], vmain, vstart, sz;
	const uint64_t base = 0x555555554000ULL;
	struct tprof_urec_session *ss;
	struct sbuf b = { 0 };
	char maps[2 * PATH_MAX], *out;
	struct stat st;
	int i, pid;

	if (stat(prog, &st) || elf_symbol(prog, "main", &vmain, &sz) ||
	    elf_symbol(prog, "_start", &vstart, &sz)) {
		CHECK(!"build/progs/unwind with main and _start");
		return;
	}
	snprintf(maps, sizeof(maps),
		 "00400000-00402000 r-xp 00000000 08:01 1 /nonexistent/w\n"
		 "%llx-%llx r-xp 00000000 %02x:%02x %llu %s\n",
		 (unsigned long long)base, (unsigned long long)base + 0x3000,
		 major(st.st_dev), minor(st.st_dev),
		 (unsigned long long)st.st_ino, prog);
	sb_session(&b, 100, 1000000, 1, 1);
	ss = (struct tprof_urec_session *)b.p;
	ss->flags = TPROF_F_USER_SNAPSHOT | TPROF_F_CHILDREN;
	for (pid = 100; pid <= 200; pid += 100) {
		sb_maps(&b, pid, 2 + pid, maps);
		if (pid == 200)
			sb_proc(&b, 200, 100, "w", 0, 3);
		/* main's caller (100), _start's (200): a return address
		 * past the call, inside the function */
		outer[0] = base + (pid == 100 ? vmain + 8 : vstart + 8);
		for (i = 0; i < 10; i++)
			sb_sample_uchain(&b, pid, pid, TPROF_ABI_X86_64,
					 1000 * pid + i, 0x401010, stack,
					 sizeof(stack), 0x7ffd0000, 0, 0,
					 outer, 1);
	}
	out = replay_folded(&b, "unit/fp-short.raw");
	CHECK_HAS(out, ";[truncated];main;[w] 10000000\n");
	CHECK_HAS(out, ";_start;[w] 10000000\n");
	CHECK(out && !strstr(out, "[truncated];_start"));
	show_and_free(out);
}

/*
 * Live: -d 1 ends the session although the device never runs dry (a target
 * that outpaces its reader: a read never says -EAGAIN). Before, the loop
 * read until the rings were empty and checked its deadline and signals
 * only then: 41-tprof-read-go on arm64 once ran past -d 1 until killed.
 * The device replays 2,000 samples over and over until DISABLE.
 */
static void test_live_duration_endless(void)
{
	const char *dev = build_path("unit/tprof-fakedev-endless");
	struct sbuf b = { 0 };
	char *out = NULL;
	pid_t pid = fake_live_target(&b, 2000);
	int st;

	if (!pid)
		return;
	CHECK_EQ(sb_write(&b, dev), 0);
	/* the old loop never ends: timeout's SIGKILL, status 137, then */
	st = run_fmt(&out, "FAKEDEV_ENDLESS=1 ASAN_OPTIONS=verify_asan_link_order=0:detect_leaks=1 LD_PRELOAD='%s' timeout -s KILL 60 '%s' --device '%s' -p %d -d 1 -o /dev/null 2>&1",
		     build_path("unit/fakedev.so"), tprof_read_bin(), dev,
		     (int)pid);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	CHECK_EQ(st, 0);
	if (t_checks_failed || getenv("TPROF_TEST_VERBOSE"))
		fprintf(stderr, "    -d 1 with an endless device: status %d\n%s",
			st, out ? out : "");
	free(out);
	sb_free(&b);
	unlink(dev);
}

/*
 * Live: a target whose root is a directory of its own (progs/newroot: its
 * own mount namespace, that directory's mount moved over the root, as a
 * container runtime does), where the host's path holds another file, and
 * that exits before the profile is written, as a launched one always does:
 * its /proc/PID/root is gone by then, so the names come through the root
 * tprof-read held open at its last maps read. Before, its frames stayed
 * unsymbolized (the host's file has another build-id);
 * tests/cases/47-target-root.sh found it.
 */
static void test_live_target_root_gone(void)
{
	const char *host = build_path("progs/rootfile-host");
	const char *jail = build_path("progs/rootfile-jail");
	const char *path = build_path("unit/rootgone");
	const char *dir = build_path("unit/rootgone-jail");
	const char *dev = build_path("unit/tprof-fakedev-rootgone");
	const char *pb = build_path("unit/rootgone.pb.gz");
	char cmd[16384], line[4200], comm[64], *out = NULL;
	uint64_t v = 0, sz = 0, t;
	struct sbuf b = { 0 };
	struct timespec ts;
	FILE *fp = NULL, *mf;
	PbProfile *p;
	int pid = 0, st, i, ok = 0;

	if (access(host, R_OK) || access(jail, R_OK) ||
	    access(build_path("progs/newroot"), X_OK) || !have_cmd("unshare") ||
	    access(build_path("unit/fakedev.so"), R_OK)) {
		SKIP("progs/rootfile-*, progs/newroot, fakedev.so or unshare missing");
		return;
	}
	/* non-PIE, static: hot_jail is at hot_host's address */
	CHECK_EQ(elf_symbol(jail, "hot_jail", &v, &sz), 0);
	st = run_fmt(&out, "rm -rf '%s' && mkdir -p '%s%s' && rmdir '%s%s' && cp '%s' '%s%s' && cp '%s' '%s'",
		     dir, dir, path, dir, path, jail, dir, path, host, path);
	free(out);
	out = NULL;
	CHECK_EQ(st, 0);
	/* 1 s of CPU in hot_jail, then it exits; it prints its pid first */
	snprintf(cmd, sizeof(cmd),
		 "exec unshare -rm sh -c 'echo $$ && exec \"%s\" \"%s\" \"%s\" 1' 2>/dev/null",
		 build_path("progs/newroot"), dir, path);
	fp = popen(cmd, "r");
	if (fp && fgets(line, sizeof(line), fp))
		pid = atoi(line);
	for (i = 0; pid > 0 && i < 500 && !ok; i++) {
		snprintf(cmd, sizeof(cmd), "/proc/%d/comm", pid);
		mf = fopen(cmd, "re");
		comm[0] = 0;
		if (mf && fgets(comm, sizeof(comm), mf))
			comm[strcspn(comm, "\n")] = 0;
		if (mf)
			fclose(mf);
		ok = !strcmp(comm, "rootgone");
		if (!ok)
			usleep(2000);
	}
	if (!ok) {
		SKIP("unshare -rm with newroot not permitted here");
		goto out;
	}
	/* samples in hot_jail, after tprof-read's maps reads */
	clock_gettime(CLOCK_MONOTONIC, &ts);
	t = (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec + 3000000000ULL;
	sb_thread(&b, pid, pid, "rootgone", t);
	for (i = 0; i < 10; i++) {
		uint64_t u[1] = { v + 0x10 };

		sb_sample(&b, pid, pid, 1000000, 1000000, t + 1 + i, 0, NULL,
			  1, u);
	}
	CHECK_EQ(sb_write(&b, dev), 0);
	unlink(pb);
	/* each read 2 s late: the stream outlasts the target */
	st = run_fake_read(&out, "FAKEDEV_READ_DELAY_US=2000000", NULL, dev,
			   "-p %d -o '%s' 2>&1", pid, pb);
	CHECK_EQ(st, 0);
	/* it is gone: nothing of its root left but what tprof-read held */
	snprintf(cmd, sizeof(cmd), "/proc/%d/root", pid);
	CHECK(access(cmd, F_OK) != 0);
	p = load_checked(pb);
	if (p) {
		CHECK_EQ(pb_samples_of(p, "hot_jail", "rootgone"), 10);
		CHECK_EQ(pb_samples_of(p, "hot_host", "rootgone"), 0);
		if (t_checks_failed)
			dump(p);
		pb_free(p);
	}
	if (t_checks_failed && out)
		fprintf(stderr, "%s", out);
out:
	if (pid > 0)
		kill(pid, SIGKILL);
	if (fp)
		pclose(fp);
	free(out);
	out = NULL;
	run_fmt(&out, "rm -rf '%s'", dir);
	free(out);
	sb_free(&b);
	unlink(dev);
	unlink(path);
}

/* A SAMPLE as sb_sample() writes it, with TPROF_RF_EXITING and XFLAGS. */
static void exiting_sample(struct sbuf *b, int tid, uint64_t weight_ns,
			   uint64_t time_ns, unsigned int nk,
			   const uint64_t *kips, uint16_t xflags)
{
	size_t off = b->len;
	struct tprof_rec_sample s;

	sb_sample(b, 4300, tid, 1000000, weight_ns, time_ns, nk, kips, 0,
		  NULL);
	memcpy(&s, b->p + off, sizeof(s));
	s.hdr.flags |= TPROF_RF_EXITING | xflags;
	memcpy(b->p + off, &s, sizeof(s));
}

/*
 * Samples in do_exit() (TPROF_RF_EXITING), after the mm and with it the
 * user stack are gone, are "[process exit]" (under the kernel's frames
 * when it has them), not "[no stack]": that stays for samples without
 * frames that say nothing of why. A thread that left while its process
 * lived on (TPROF_RF_THREAD_EXIT) is "[thread exit]": a server's worker
 * threads' ends are no process exit (issue 33, 851 ms of a live
 * http.server's profile were).
 */
static void test_process_exit(void)
{
	const char *raw = build_path("unit/exit.raw");
	const char *ks = build_path("unit/exit-kallsyms");
	uint64_t k[2] = { 0xffffffff81000110ULL, 0xffffffff81000210ULL };
	struct sbuf b = { 0 };
	char *out = NULL;
	int st;

	write_text(ks, "ffffffff81000100 T do_exit\n"
		   "ffffffff81000200 T do_group_exit\n"
		   "ffffffff81000300 T _etext\n");
	sb_session(&b, 4300, 1000000, 1, 1000);
	sb_thread(&b, 4300, 4301, "exiter", 1000);
	sb_thread(&b, 4300, 4302, "worker", 1000);
	exiting_sample(&b, 4302, 5000000, 1500, 0, NULL, TPROF_RF_THREAD_EXIT);
	exiting_sample(&b, 4302, 4000000, 1600, 2, k, TPROF_RF_THREAD_EXIT);
	exiting_sample(&b, 4301, 3000000, 2000, 0, NULL, 0);
	exiting_sample(&b, 4301, 2000000, 3000, 2, k, 0);
	sb_sample(&b, 4300, 4301, 1000000, 1000000, 4000, 0, NULL, 0, NULL);
	CHECK_EQ(sb_write(&b, raw), 0);
	sb_free(&b);
	st = run_read(&out, "--input '%s' --kallsyms '%s' --format folded -o - 2>&1",
		      raw, ks);
	CHECK_EQ(st, 0);
	CHECK_HAS(out, "exiter;[process exit] 3000000\n");
	CHECK_HAS(out, "exiter;[process exit];do_group_exit;do_exit 2000000\n");
	CHECK_HAS(out, "exiter;[no stack] 1000000\n");
	CHECK_HAS(out, "worker;[thread exit] 5000000\n");
	CHECK_HAS(out, "worker;[thread exit];do_group_exit;do_exit 4000000\n");
	CHECK(out && !strstr(out, "worker;[process exit]"));
	out_done(out);
}

/*
 * arm64's interrupted kernel link register (TPROF_RF_KERNEL_LR, ips[1]):
 * the caller of a frameless kernel leaf (__arch_clear_user under
 * read_zero), kept; stale where it points into the function at the pc (a
 * call it made returned there) or repeats the frame records' first return
 * address, and no kernel text: dropped.
 */
static void test_kernel_lr(void)
{
	const char *raw = build_path("unit/klr.raw");
	const char *ks = build_path("unit/klr-kallsyms");
	/* pc in __arch_clear_user; lr into read_zero; the records' vfs_read */
	uint64_t leaf[3] = { 0xffff800080000110ULL, 0xffff800080000224ULL,
			     0xffff800080000318ULL };
	uint64_t stale[3] = { 0xffff800080000110ULL, 0xffff800080000130ULL,
			      0xffff800080000318ULL };
	uint64_t dup[3] = { 0xffff800080000110ULL, 0xffff800080000318ULL,
			    0xffff800080000318ULL };
	uint64_t junk[3] = { 0xffff800080000110ULL, 0x1234ULL,
			     0xffff800080000318ULL };
	const uint64_t *all[4] = { leaf, stale, dup, junk };
	struct sbuf b = { 0 };
	char *out = NULL;
	unsigned int i;
	int st;

	write_text(ks, "ffff800080000100 T __arch_clear_user\n"
		   "ffff800080000200 t read_zero\n"
		   "ffff800080000300 T vfs_read\n"
		   "ffff800080000400 T _etext\n");
	sb_session(&b, 4400, 1000000, 1, 1000);
	sb_thread(&b, 4400, 4400, "reader", 1000);
	for (i = 0; i < 4; i++) {
		size_t off = b.len;
		struct tprof_rec_sample smp;

		sb_sample(&b, 4400, 4400, 1000000, (i + 1) * 1000000ULL,
			  2000 + i, 3, all[i], 0, NULL);
		memcpy(&smp, b.p + off, sizeof(smp));
		smp.hdr.flags |= TPROF_RF_KERNEL_LR;
		memcpy(b.p + off, &smp, sizeof(smp));
	}
	CHECK_EQ(sb_write(&b, raw), 0);
	sb_free(&b);
	st = run_read(&out, "--input '%s' --kallsyms '%s' --format folded -o - 2>&1",
		      raw, ks);
	CHECK_EQ(st, 0);
	CHECK_HAS(out, "reader;vfs_read;read_zero;__arch_clear_user 1000000\n");
	/* the other three: the records alone, 2 + 3 + 4 ms */
	CHECK_HAS(out, "reader;vfs_read;__arch_clear_user 9000000\n");
	out_done(out);
}

const struct unit_test resolve_tests[] = {
	{ "resolve: after an exec at the same addresses, samples are named from the new binary, with its comm", test_exec_same_addresses },
	{ "resolve: dlclose + dlopen of another library at the same base: named from the new one", test_dlopen_same_base },
	{ "resolve: dlclose + dlopen at the same base seen only by an MMAP record (no snapshot between): named from the new library after it", test_dlopen_mmap_record },
	{ "resolve: an MMAP record of the same file and offset (mprotect) changes no name", test_mprotect_mmap_record },
	{ "resolve: a replay after the binary was replaced names nothing of the new file, keeps the recorded build-id, one warning", test_replaced_binary },
	{ "resolve: a target whose mount namespace has another file at the path gets its own file (/proc/PID/root)", test_target_root },
	{ "resolve: a replay whose pid now names a process that cannot see the file: the host's file, build-id checked", test_replay_pid_reused },
	{ "resolve: a recorded vDSO image names [vdso] frames, not the replaying kernel's", test_recorded_vdso },
	{ "resolve: a live session records the target's build-ids and vDSO image in --save-raw", test_live_records_buildids },
	{ "resolve: kernel frames of a replay named from the recorded kallsyms; --kallsyms overrides", test_recorded_kallsyms },
	{ "resolve: a live session with --kernel-stacks records kallsyms in --save-raw", test_live_records_kallsyms },
	{ "resolve: live, samples in unmapped code re-read the maps under a throttle, not per sample", test_live_maps_rereads },
	{ "resolve: live, a USTACK chain in unmapped code re-reads the maps after its group, never inside it", test_live_chain_maps },
	{ "resolve: a snapshot sample at an unmapped pc with no chain ends in [truncated]", test_unmapped_pc_marked },
	{ "resolve: a forked child's samples before its PROC record wait for it", test_child_before_proc },
	{ "resolve: an FP chain that stops short of a root is marked", test_fp_chain_stops_short },
	{ "resolve: live, -d 1 ends the session while the device never runs dry", test_live_duration_endless },
	{ "resolve: live, a target with a root of its own (a container's) that exited before the write is named from its own file", test_live_target_root_gone },
	{ "resolve: arm64's kernel link register: a frameless leaf's caller kept; stale, repeated or no text dropped", test_kernel_lr },
	{ "resolve: samples in do_exit() are [process exit], or [thread exit] when the process lived on, under their kernel frames; [no stack] stays for the rest", test_process_exit },
	{ NULL, NULL },
};
