// SPDX-License-Identifier: GPL-2.0
/* tprof-read: turn tprof records into a symbolized, gzipped pprof profile. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analyze/unwind.h"
#include "lib/outfile.h"
#include "lib/util.h"
#include "live/loop.h"
#include "live/recorder.h"
#include "object/debuginfod.h"
#include "object/object.h"
#include "options.h"
#include "output/report.h"
#include "output/write.h"
#include "stream/reader.h"

static struct options opts;

/* Everything one run accumulates. */
struct run {
	struct profile prof;
	struct unwinder *unwind;	/* the profile's snapshots' unwinder */
	struct objects *objects;	/* files: the unwinder's, the names' */
	struct recorder rc;		/* every record: --save-raw, profile */
	struct outfile raw_out;		/* --save-raw's temp file */
	struct live live;		/* -p, -- CMD */
};

/* where a profile for stdout goes (launch mode moves it off fd 1) */
static int profile_fd = STDOUT_FILENO;

/* ---- replay ---- */

struct replay {
	struct run *r;
	int fd;
};

static ssize_t read_input(void *ctx, void *buf, size_t cap)
{
	struct replay *rp = ctx;
	ssize_t n;

	do
		n = read(rp->fd, buf, cap);
	while (n < 0 && errno == EINTR);
	if (n < 0) {
		n = -errno;
		pr_err("%s: %s", opts.input, strerror(errno));
	}
	return n;
}

static int replay_record(void *ctx, const struct tprof_record *rec)
{
	struct replay *rp = ctx;

	recorder__add(&rp->r->rc, rec);
	return 0;
}

/*
 * A regular file is mapped, not read: read() copied every byte, and a
 * replay of snapshot samples (8 KiB each with dwarf) spent a third of its
 * time there. NULL for a pipe or an empty file, which are read.
 */
static void *map_input(int fd, size_t *len)
{
	struct stat st;
	void *map;

	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size <= 0 ||
	    (uint64_t)st.st_size > SIZE_MAX)
		return NULL;
	map = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (map == MAP_FAILED)
		return NULL;
	*len = st.st_size;
	return map;
}

/* --input: the saved stream through the reader, as a live run read it. */
static int replay(struct run *r)
{
	struct replay rp = { .r = r };
	struct stream_source src = {
		.read = read_input, .record = replay_record, .ctx = &rp,
	};
	struct stream_reader sr;
	size_t len = 0;
	void *map;
	int ret;

	rp.fd = open(opts.input, O_RDONLY | O_CLOEXEC);
	if (rp.fd < 0) {
		ret = -errno;
		pr_err("%s: %s", opts.input, strerror(errno));
		return ret;
	}
	map = map_input(rp.fd, &len);
	if (map)
		stream__init_mapped(&sr, opts.input, map, len, &src);
	else
		stream__init(&sr, opts.input, 1 << 20, &src);
	sr.check_start = true;
	ret = stream__pump(&sr);
	stream__end(&sr);
	/* the input's end is the stream's */
	profile__finish(&r->prof);
	if (map)
		munmap(map, len);
	close(rp.fd);
	if (!ret && !r->prof.have_session && r->prof.nrecords == 0) {
		pr_err("%s: no records", opts.input);
		ret = -ENODATA;
	}
	return ret;
}

/* ---- output ---- */

/* The profile, through the passes of output/write.c. */
static int write_profile(struct run *r)
{
	struct output_opts o = {
		.no_symbolize = opts.no_symbolize, .kallsyms = opts.kallsyms,
		.kallsyms_given = opts.kallsyms_given, .live = r->live.enabled,
		.path = opts.output, .fd = profile_fd, .format = opts.format,
		.objects = r->objects,
		.report_wakers = opts.report && r->prof.join_wakes,
	};
	char root[64];

	/* files as the target sees them (chroot, container), through the
	 * root held since the last maps read, which outlives the target */
	if (r->rc.root_fd >= 0) {
		snprintf(root, sizeof(root), "/proc/self/fd/%d", r->rc.root_fd);
		o.root = root;
	} else if (r->prof.have_session && r->prof.session.pid) {
		snprintf(root, sizeof(root), "/proc/%u/root",
			 r->prof.session.pid);
		o.root = root;
	}
	return output__write(&r->prof, &o);
}

/* Fail before profiling anything if the output cannot be written. */
static int check_output(void)
{
	char *dir, *slash;
	int ret = 0;

	if (!opts.output || !strcmp(opts.output, "-")) {
		if (isatty(STDOUT_FILENO)) {
			pr_err("stdout: refusing to write a binary profile to a terminal: use -o FILE or redirect");
			return -EINVAL;
		}
		return 0;
	}
	if (outfile_dangling(opts.output)) {
		pr_err("%s: output is a symlink to a missing file: refusing to create its target; remove the link or name the target",
		       opts.output);
		return -ENOENT;
	}
	dir = xstrdup(opts.output);
	slash = strrchr(dir, '/');
	if (slash)
		slash[slash == dir] = 0;
	if (access(slash ? dir : ".", W_OK | X_OK)) {
		ret = -errno;
		pr_err("%s: output not writable: %s", opts.output, strerror(errno));
	} else {
		struct stat stb;

		if (!stat(opts.output, &stb) && S_ISDIR(stb.st_mode)) {
			ret = -EISDIR;
			pr_err("%s: output not writable: %s", opts.output,
			       strerror(EISDIR));
		}
	}
	free(dir);
	return ret;
}

/*
 * --save-raw or -o naming the --input stream itself (any path to the same
 * inode) would replace what is being read.
 */
static int check_not_input(const char *opt, const char *path)
{
	struct stat in, out;

	if (!opts.input || !path || !strcmp(path, "-") ||
	    stat(opts.input, &in) || stat(path, &out))
		return 0;
	if (in.st_dev == out.st_dev && in.st_ino == out.st_ino &&
	    S_ISREG(in.st_mode)) {
		pr_err("%s: %s would overwrite the --input stream", path, opt);
		return -EINVAL;
	}
	return 0;
}

/* --save-raw: a temp file, renamed over FILE only when the stream is whole. */
static int open_raw(struct run *r)
{
	int ret = outfile__open(&r->raw_out, opts.save_raw), fd;

	if (ret) {
		pr_err("%s: %s", opts.save_raw, ret == -ENOENT &&
		       outfile_dangling(opts.save_raw) ?
		       "a symlink to a missing file: refusing to create its target" :
		       strerror(-ret));
		return ret;
	}
	fd = fcntl(r->raw_out.fd, F_DUPFD_CLOEXEC, 3);
	r->rc.raw = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!r->rc.raw) {
		ret = -errno;
		pr_err("%s: %s", opts.save_raw, strerror(errno));
		if (fd >= 0)
			close(fd);
		outfile__abort(&r->raw_out);
	}
	return ret;
}

/*
 * End --save-raw: keep the stream if a session ran (even one that failed
 * later: its records are worth keeping) and every byte was written.
 * Returns -errno of a write that failed (then no file is left).
 */
static int close_raw(struct run *r, bool keep)
{
	int ret;

	if (fclose(r->rc.raw) && !r->rc.raw_err)
		r->rc.raw_err = errno ? errno : EIO;
	r->rc.raw = NULL;
	if (r->rc.raw_err || !keep) {
		outfile__abort(&r->raw_out);
		if (r->rc.raw_err)
			pr_err("%s: write: %s", opts.save_raw,
			       strerror(r->rc.raw_err));
		return -r->rc.raw_err;
	}
	ret = outfile__commit(&r->raw_out);
	if (ret)
		pr_err("%s: write: %s", opts.save_raw, strerror(-ret));
	return ret;
}

int main(int argc, char **argv)
{
	struct run r = { 0 };
	bool raw_failed = false;
	int err = 1, ret;

	r.raw_out.fd = -1;
	profile__init(&r.prof);
	recorder__init(&r.rc, &r.prof);
	live__init(&r.live, &opts.live, &r.rc);
	if (options__parse(&opts, argc, argv) ||
	    check_not_input("--save-raw", opts.save_raw) ||
	    check_not_input("-o", opts.output) ||
	    debuginfod__setup(opts.debuginfod && !opts.no_symbolize))
		return 2;
	r.rc.kallsyms = opts.kallsyms;
	/* an output of the waits by waker: the waker stacks joined */
	r.prof.join_wakes = opts.live.mode == LIVE_WAKERS;
	if (check_output())
		goto cleanup;
	if (opts.save_raw && open_raw(&r))
		goto cleanup;
	if (opts.live.argv && (!opts.output || !strcmp(opts.output, "-"))) {
		/* the command's stdout must not end up inside the profile */
		profile_fd = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
		if (profile_fd < 0 || dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
			pr_err("stdout: %s", strerror(errno));
			goto cleanup;
		}
	}
	r.objects = objects__new();
	r.live.objs = r.objects;	/* one open per file, Python's too */
	r.unwind = unwinder__new(r.objects, !opts.input);
	unwinder__attach(r.unwind, &r.prof, opts.live.call_graph_given ?
			 (int)opts.live.call_graph : -1);
	if (opts.input)
		ret = replay(&r);
	else
		ret = live__collect(&r.live);
	report__unwind(&r.prof, r.unwind);
	/* no session ran (refused, no device, not a stream): leave no file */
	if (r.rc.raw)
		raw_failed = close_raw(&r, !ret || r.live.enabled ||
				       (opts.input && r.prof.nrecords)) != 0;
	if (r.live.exec_failed) {
		err = 127;	/* as a shell says "command not found" */
		goto cleanup;
	}
	if (ret)
		goto cleanup;
	if (opts.report)
		report__write(&r.prof);
	if (write_profile(&r))
		goto cleanup;
	/* launch mode: exit with the command's status */
	err = opts.live.argv ? launch__exit_code(&r.live.launch) : 0;
	/* the profile is good, but the stream asked for is not there */
	if (raw_failed && !err)
		err = 1;

cleanup:
	if (r.rc.raw) {
		fclose(r.rc.raw);
		outfile__abort(&r.raw_out);
	}
	recorder__free(&r.rc);
	unwinder__free(r.unwind);
	objects__free(r.objects);
	profile__free(&r.prof);
	debuginfod__end();
	return err;
}
