// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests: the object layer: one object per (file, build-id), opened
 * once for both the unwinder and the symbolizer; descriptors bounded, so
 * that a profile of more files than RLIMIT_NOFILE allows is still written.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/buildid.h"
#include "lib/util.h"
#include "object/object.h"
#include "pbload.h"
#include "testlib.h"

#define PID 4242
#define PIE_BASE 0x555555554000ULL
#define LIB_BASE 0x7f0000000000ULL
#define LIB_STRIDE 0x200000ULL
#define PERIOD 1000000
#define NFILES 1100

static bool copy_file(const char *from, const char *to)
{
	unsigned char *buf;
	size_t len;
	bool ok;
	FILE *fp;

	buf = read_whole(from, &len);
	if (!buf)
		return false;
	fp = fopen(to, "we");
	ok = fp && fwrite(buf, 1, len, fp) == len;
	if (fp && fclose(fp))
		ok = false;
	chmod(to, 0755);
	free(buf);
	return ok;
}

static bool is_exec(const char *path)
{
	GElf_Ehdr eh;
	bool ret = false;
	Elf *e;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return false;
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (e && gelf_getehdr(e, &eh))
		ret = eh.e_type == ET_EXEC;
	elf_end(e);
	close(fd);
	return ret;
}

/* The SESSION of a hybrid (snapshot) session, as the module writes it. */
static void session(struct sbuf *b)
{
	struct tprof_urec_session *ss;

	sb_session(b, PID, PERIOD, 1700000000000000000ULL, 1000);
	ss = (struct tprof_urec_session *)b->p;
	ss->flags = TPROF_F_USER_SNAPSHOT;
}

/* A BUILDID record for path (fake_maps() writes dev 08:01, inode 1234). */
static bool buildid_of(struct sbuf *b, const char *path, uint64_t t)
{
	unsigned char bid[BUILDID_MAX];
	int fd = open(path, O_RDONLY | O_CLOEXEC), n;

	if (fd < 0)
		return false;
	n = buildid__from_fd(fd, bid);
	close(fd);
	if (n <= 0)
		return false;
	sb_buildid(b, PID, 8, 1, 1234, path, bid, n, t);
	return true;
}

/*
 * A SAMPLE at pc with its USTACK snapshot: 64 bytes of zeros, enough for
 * the unwinder to look up pc's CFI (and so open pc's file).
 */
static void sample_at(struct sbuf *b, uint64_t pc, uint64_t t)
{
	uint64_t regs[TPROF_UREG_NR] = { 0 };
	unsigned char stack[64] = { 0 };

	regs[TPROF_UREG_IP] = pc;
	regs[TPROF_UREG_SP] = 0x7ffc00001000ULL;
	sb_sample_ustack(b, PID, PID, TPROF_ABI_X86_64, PERIOD, t, 1, &pc, 0,
			 regs, sizeof(stack), stack, sizeof(stack));
}

/* Locations of the profile at path with a frame of function name. */
static int count_named(const char *path, const char *name, size_t *nmaps)
{
	PbProfile *p = load_profile(path);
	int n = 0;
	size_t i;

	*nmaps = 0;
	if (!p)
		return -1;
	for (i = 0; i < p->n_location; i++) {
		const Perftools__Profiles__Location *l = p->location[i];
		size_t j;

		for (j = 0; j < l->n_line; j++) {
			uint64_t fid = l->line[j]->function_id;

			if (fid && fid <= p->n_function &&
			    !strcmp(p->string_table[p->function[fid - 1]->name],
				    name)) {
				n++;
				break;
			}
		}
	}
	for (i = 0; i < p->n_mapping; i++)
		if (p->mapping[i]->has_functions)
			(*nmaps)++;
	pb_free(p);
	return n;
}

/* Successful open()s and openat()s of path in an strace -f log. */
static int opens_of(const char *log, const char *path)
{
	char *line = NULL, quoted[4200];
	size_t cap = 0;
	int n = 0;
	FILE *fp = fopen(log, "re");

	if (!fp)
		return -1;
	/* "/proc/PID/root/path" too: any view of the file */
	snprintf(quoted, sizeof(quoted), "%s\"", path);
	while (getline(&line, &cap, fp) > 0)
		if (strstr(line, "open") && strstr(line, quoted) &&
		    !strstr(line, "= -1 "))
			n++;
	free(line);
	fclose(fp);
	return n;
}

/*
 * A replay that both unwinds (a snapshot at main) and names (main): the
 * binary is found, build-id checked and opened once, not by the unwinder
 * and again by the symbolize pass.
 */
static void test_opened_once(void)
{
	const char *dir = build_path("unit/obj-once");
	char bin[4096], raw[4096], pb[4096], log[4096], *maps, *out = NULL;
	uint64_t v = 0, sz = 0, base;
	struct sbuf b = { 0 };
	size_t nmaps;
	int rc, i;

	if (!need_cmd("strace", "strace is not installed"))
		return;
	mkdir(dir, 0755);
	snprintf(bin, sizeof(bin), "%s/unwind-copy", dir);
	snprintf(raw, sizeof(raw), "%s/once.raw", dir);
	snprintf(pb, sizeof(pb), "%s/once.pb.gz", dir);
	snprintf(log, sizeof(log), "%s/once.strace", dir);
	CHECK(copy_file(build_path("progs/unwind"), bin));
	CHECK_EQ(elf_symbol(bin, "main", &v, &sz), 0);
	base = is_exec(bin) ? 0 : PIE_BASE;
	maps = fake_maps(bin, PIE_BASE);
	CHECK(maps != NULL);
	if (!maps || !sz)
		return;
	session(&b);
	sb_maps(&b, PID, 1001, maps);
	CHECK(buildid_of(&b, bin, 1002));
	sb_thread(&b, PID, PID, "unwind", 1003);
	for (i = 0; i < 10; i++)
		sample_at(&b, base + v + sz / 2, 2000 + i);
	CHECK_EQ(sb_write(&b, raw), 0);
	sb_free(&b);
	free(maps);

	/* LeakSanitizer cannot run under ptrace */
	rc = run_fmt(&out, "ASAN_OPTIONS=\"$ASAN_OPTIONS:detect_leaks=0\" strace -f -qq -e trace=open,openat -o %s %s --input %s -o %s 2>&1",
		     log, tprof_read_bin(), raw, pb);
	CHECK_EQ(rc, 0);
	if (rc)
		fprintf(stderr, "    %s", out ? out : "");
	free(out);
	/* it was unwound and named */
	CHECK(count_named(pb, "main", &nmaps) >= 1);
	rc = opens_of(log, bin);
	printf("    %s opened %d time(s)\n", bin, rc);
	CHECK_EQ(rc, 1);
}

/*
 * NFILES copies of a small library, each with a build-id of its own, all
 * mapped by one process and each sampled (with a snapshot), as a stream
 * written to raw.
 */
static int many_files_stream(const char *dir, const char *raw)
{
	const char *lib = build_path("progs/libhot.so");
	unsigned char bid[BUILDID_MAX], *img;
	struct sbuf b = { 0 }, maps = { 0 };
	uint64_t v = 0, sz = 0;
	size_t len, at;
	int fd, n, i, ret = -1;

	fd = open(lib, O_RDONLY | O_CLOEXEC);
	n = fd >= 0 ? buildid__from_fd(fd, bid) : -1;
	if (fd >= 0)
		close(fd);
	img = read_whole(lib, &len);
	if (n < 4 || !img || elf_symbol(lib, "lib_spin", &v, &sz) || !sz)
		goto out;
	/* where the build-id note's bytes are: each copy gets its own */
	for (at = 0; at + n <= len && memcmp(img + at, bid, n); at++)
		;
	if (at + n > len)
		goto out;
	session(&b);
	for (i = 0; i < NFILES; i++) {
		char path[4096], *text;
		FILE *fp;

		snprintf(path, sizeof(path), "%s/lib%04d.so", dir, i);
		memcpy(img + at, &i, sizeof(i));
		fp = fopen(path, "we");
		if (!fp || fwrite(img, 1, len, fp) != len || fclose(fp))
			goto out;
		text = fake_maps(path, LIB_BASE + i * LIB_STRIDE);
		if (!text)
			goto out;
		sb_raw(&maps, text, strlen(text));
		free(text);
	}
	sb_raw(&maps, "", 1);
	sb_maps(&b, PID, 1001, (const char *)maps.p);
	for (i = 0; i < NFILES; i++) {
		char path[4096];

		snprintf(path, sizeof(path), "%s/lib%04d.so", dir, i);
		if (!buildid_of(&b, path, 1002))
			goto out;
	}
	sb_thread(&b, PID, PID, "many", 1003);
	for (i = 0; i < NFILES; i++)
		sample_at(&b, LIB_BASE + i * LIB_STRIDE + v + sz / 2, 2000 + i);
	ret = sb_write(&b, raw);
out:
	free(img);
	sb_free(&maps);
	sb_free(&b);
	return ret;
}

/* The replay of raw with args under a limit of 1024 descriptors, soft and
 * hard (raising the soft limit cannot help): a whole, named profile. */
static void replay_limited(const char *raw, const char *pb, const char *args)
{
	char *out = NULL;
	size_t nmaps;
	int rc, named;

	unlink(pb);
	rc = run_fmt(&out, "ulimit -n 1024 && %s --input %s %s -o %s 2>&1",
		     tprof_read_bin(), raw, args, pb);
	printf("    %s: exit %d%s%s", *args ? args : "hybrid", rc,
	       out && *out ? ": " : "\n", out ? out : "");
	CHECK_EQ(rc, 0);
	CHECK(!out || !strstr(out, "Too many open files"));
	free(out);
	named = count_named(pb, "lib_spin", &nmaps);
	printf("    %d of %d files' samples named lib_spin, %zu mappings with functions\n",
	       named, NFILES, nmaps);
	CHECK_EQ(named, NFILES);
	CHECK_EQ(nmaps, NFILES);
}

static void test_many_files(void)
{
	const char *dir = build_path("unit/obj-many");
	char raw[4096], pb[4096];

	mkdir(dir, 0755);
	snprintf(raw, sizeof(raw), "%s/many.raw", dir);
	snprintf(pb, sizeof(pb), "%s/many.pb.gz", dir);
	CHECK_EQ(many_files_stream(dir, raw), 0);
	/* the FP chain only: the symbolize pass opens every file */
	replay_limited(raw, pb, "--call-graph fp");
	/* snapshots: the unwinder opens them all first */
	replay_limited(raw, pb, "");
}

#define NEVICT 24

/* Descriptors this process has open. */
static int open_fds(void)
{
	char path[64];
	int fd, n = 0;

	for (fd = 0; fd < 1024; fd++) {
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		n += !access(path, F_OK);
	}
	return n;
}

/* Move path to root/path (rename: the same inode); view's root is root. */
static bool moved_under_root(const char *dir, const char *path,
			     struct file_view *view)
{
	static char root[4096];
	char to[8192], *out = NULL;
	int rc;

	snprintf(root, sizeof(root), "%s/root", dir);
	snprintf(to, sizeof(to), "%s%s", root, path);
	rc = run_fmt(&out, "mkdir -p \"$(dirname '%s')\"", to);
	free(out);
	view->root = root;
	return !rc && !rename(path, to);
}

/*
 * In a child whose limit is 64 descriptors (bound: 16 held): NEVICT
 * objects opened for their CFI; the oldest let their descriptors go and
 * keep their CFI; symbols asked of them later open the file again, and
 * only the same file: one replaced since is not named from.
 */
static void evict_child(const char *dir)
{
	struct rlimit rl = { 64, 64 };
	struct file_view view = { 0 };
	struct object *o[NEVICT];
	char paths[NEVICT][4096], tmp[4096];
	const struct objects_stats *st;
	struct objects *objs;
	int i, base;

	CHECK_EQ(setrlimit(RLIMIT_NOFILE, &rl), 0);
	base = open_fds();
	objs = objects__new();
	st = objects__stats(objs);
	CHECK_EQ(st->bound, 16);
	for (i = 0; i < NEVICT; i++) {
		struct mapping m = { .start = LIB_BASE, .limit = LIB_BASE + 0x1000,
				     .pid = PID, .path = paths[i] };

		snprintf(paths[i], sizeof(paths[i]), "%s/evict%02d.so", dir, i);
		CHECK(copy_file(build_path("progs/libhot.so"), paths[i]));
		o[i] = objects__get(objs, &m, &view);
		CHECK(o[i] && o[i]->info.loaded && object__cfi(o[i]));
		CHECK(open_fds() <= base + 16);
	}
	CHECK_EQ(st->held, 16);
	CHECK_EQ(st->evictions, NEVICT - 16);
	/* evict00.so replaced by another file: not the one read */
	snprintf(tmp, sizeof(tmp), "%s/evict-new.so", dir);
	CHECK(copy_file(build_path("progs/inlines"), tmp));
	CHECK_EQ(rename(tmp, paths[0]), 0);
	CHECK(!object__symbols(objs, o[0]));
	CHECK(!o[0]->info.loaded);
	/* evict01.so as it was: opened again for its symbols */
	CHECK(object__symbols(objs, o[1]) && o[1]->info.has_symtab);
	/* evict02.so gone from its path, seen again through another view
	 * (the target's root): the same inode there */
	CHECK(moved_under_root(dir, paths[2], &view));
	{
		struct mapping m = { .start = LIB_BASE,
				     .limit = LIB_BASE + 0x1000, .pid = PID,
				     .path = paths[2] };

		CHECK(objects__get(objs, &m, &view) == o[2]);
	}
	CHECK(object__symbols(objs, o[2]) && o[2]->info.has_symtab);
	/* and one that kept its descriptor: no open */
	CHECK(object__symbols(objs, o[NEVICT - 1]));
	CHECK_EQ(st->reopens, 3);
	/* evict02.so: its old path, then the root's */
	CHECK_EQ(st->opens, NEVICT + 4);
	CHECK(open_fds() <= base + 16);
	/* their CFI outlived the descriptors */
	for (i = 0; i < NEVICT; i++)
		CHECK(o[i]->eh != NULL);
	objects__free(objs);
	CHECK_EQ(open_fds(), base);
}

static void test_evict(void)
{
	char dir[4096];
	int st = -1;
	pid_t pid;

	/* build_path()'s buffers are a ring: keep our own */
	snprintf(dir, sizeof(dir), "%s", build_path("unit/obj-evict"));
	mkdir(dir, 0755);
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		evict_child(dir);
		_exit(t_checks_failed ? 1 : 0);
	}
	CHECK(pid > 0 && waitpid(pid, &st, 0) == pid);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

const struct unit_test object_tests[] = {
	{ "object: each ELF file is opened once by a replay that unwinds and names", test_opened_once },
	{ "object: past the bound the oldest let their descriptors go; symbols open the same file again, never a replaced one", test_evict },
	{ "object: 1,100 sampled ELF files under a limit of 1024 descriptors: a whole, named profile (fp and snapshots)", test_many_files },
	{ NULL, NULL },
};
