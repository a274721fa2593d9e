// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests: the cgroup, systemd_unit and container_id labels (issue 34):
 * a /proc/PID/cgroup text's v2 path and the names in it (lib/cgroup_names.h)
 * over real-world paths; the CGROUP record; a replayed stream's labels (a
 * process moved mid-way is two samples, a v1-only or malformed text none);
 * and the record a live session (fake device) writes for its target.
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/cgroup_ids.h"
#include "lib/cgroup_names.h"
#include "lib/util.h"
#include "pbload.h"
#include "stream/records.h"
#include "testlib.h"

#define ID1 "4a5e0b3c9f1d2e7a8b6c5d4e3f2a1b0c9d8e7f6a5b4c3d2e1f0a9b8c7d6e5f4a"
#define ID2 "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
#define UID "8d1d3f4a-6b2c-4e8f-9a0b-1c2d3e4f5a6b"
#define UID_ "8d1d3f4a_6b2c_4e8f_9a0b_1c2d3e4f5a6b"

static void check_names(const char *path, const char *unit, const char *id)
{
	struct cgroup_names n;
	char u[CGROUP_PATH_MAX + 1], i[CGROUP_ID_LEN + 1];

	cgroup_names(path, strlen(path), &n);
	memcpy(u, path + n.unit_off, n.unit_len);
	u[n.unit_len] = 0;
	memcpy(i, path + n.id_off, n.id_len);
	i[n.id_len] = 0;
	CHECK_STR(u, unit);
	CHECK_STR(i, id);
	if (strcmp(u, unit) || strcmp(i, id))
		fprintf(stderr, "    path %s\n", path);
}

static void test_names(void)
{
	static const struct { const char *path, *unit, *id; } rows[] = {
		/* the root, slices, a cgroup of one's own: no unit */
		{ "/", "", "" },
		{ "/system.slice", "", "" },
		{ "/tprof67/sub", "", "" },
		/* systemd services, scopes, the user manager's units */
		{ "/init.scope", "init.scope", "" },
		{ "/system.slice/nginx.service", "nginx.service", "" },
		{ "/system.slice/system-getty.slice/getty@tty1.service",
		  "getty@tty1.service", "" },
		{ "/user.slice/user-1000.slice/session-3.scope",
		  "session-3.scope", "" },
		{ "/user.slice/user-1000.slice/user@1000.service/app.slice/foo.service",
		  "foo.service", "" },
		{ "/user.slice/user-1000.slice/user@1000.service/init.scope",
		  "init.scope", "" },
		{ "/user.slice/user-1000.slice/user@1000.service/app.slice/app-gnome-firefox-4242.scope",
		  "app-gnome-firefox-4242.scope", "" },
		/* a service's delegated subtree: still the service */
		{ "/system.slice/foo.service/payload", "foo.service", "" },
		{ "/system.slice/.service", "", "" },
		{ "/a.service/b.scope.d", "a.service", "" },
		/* docker: systemd and cgroupfs drivers; a scope is an id, not
		 * a unit */
		{ "/system.slice/docker-" ID1 ".scope", "", ID1 },
		{ "/docker/" ID1, "", ID1 },
		{ "/docker/" ID1 "/docker/" ID2, "", ID2 },
		/* systemd inside the container: its unit, the container's id */
		{ "/system.slice/docker-" ID1 ".scope/system.slice/nginx.service",
		  "nginx.service", ID1 },
		/* the host's units above a container are not the process's */
		{ "/system.slice/containerd.service/docker/" ID1, "", ID1 },
		/* kubernetes: cgroupfs (QoS levels, guaranteed without) and
		 * systemd drivers, containerd and CRI-O */
		{ "/kubepods/burstable/pod" UID "/" ID1, "", ID1 },
		{ "/kubepods/pod" UID "/" ID1, "", ID1 },
		{ "/kubepods/besteffort/pod" UID "/crio-" ID1, "", ID1 },
		{ "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" UID_ ".slice/cri-containerd-" ID1 ".scope",
		  "", ID1 },
		{ "/kubepods.slice/kubepods-pod" UID_ ".slice/cri-containerd-" ID2 ".scope",
		  "", ID2 },
		{ "/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod" UID_ ".slice/crio-" ID1 ".scope",
		  "", ID1 },
		/* CRI-O's and podman's monitors: units, no container's id */
		{ "/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod" UID_ ".slice/crio-conmon-" ID1 ".scope",
		  "crio-conmon-" ID1 ".scope", "" },
		{ "/machine.slice/libpod-conmon-" ID1 ".scope",
		  "libpod-conmon-" ID1 ".scope", "" },
		/* podman: root, rootless (under the user's manager), and its
		 * "container" sub-cgroup */
		{ "/machine.slice/libpod-" ID1 ".scope", "", ID1 },
		{ "/user.slice/user-1000.slice/user@1000.service/user.slice/libpod-" ID1 ".scope",
		  "", ID1 },
		{ "/machine.slice/libpod-" ID1 ".scope/container", "", ID1 },
		/* not ids: 63 digits, upper case, an unknown prefix */
		{ "/system.slice/docker-" "123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef.scope",
		  "docker-123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef.scope", "" },
		{ "/docker/4A5E0B3C9F1D2E7A8B6C5D4E3F2A1B0C9D8E7F6A5B4C3D2E1F0A9B8C7D6E5F4A",
		  "", "" },
		{ "/system.slice/rkt-" ID1 ".scope", "rkt-" ID1 ".scope", "" },
	};
	size_t i;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		check_names(rows[i].path, rows[i].unit, rows[i].id);
}

/* text's v2 path: want NULL for an error (err) */
static void check_path(const char *text, size_t len, const char *want,
		       int err)
{
	const char *path = NULL;
	size_t plen = 0;
	int ret = cgroup_v2_path(text, len, &path, &plen);

	CHECK_EQ(ret, want ? 0 : err);
	if (want && !ret)
		CHECK(plen == strlen(want) && !memcmp(path, want, plen));
}

static void test_v2_path(void)
{
	static const char hybrid[] =
		"12:pids:/system.slice/cron.service\n"
		"11:memory:/system.slice/cron.service\n"
		"1:name=systemd:/system.slice/cron.service\n"
		"0::/system.slice/cron.service\n";
	static const char v1only[] =
		"12:pids:/\n11:memory:/user.slice\n"
		"1:name=systemd:/user.slice/user-1000.slice/session-3.scope\n";
	char big[CGROUP_PATH_MAX + 16];
	size_t n;

	check_path("0::/system.slice/nginx.service\n", 31,
		   "/system.slice/nginx.service", 0);
	check_path(hybrid, strlen(hybrid), "/system.slice/cron.service", 0);
	check_path("0::/\n", 5, "/", 0);
	check_path("0::/a", 5, "/a", 0);	/* no newline at the end */
	/* a cgroup removed since (the kernel says so) */
	check_path("0::/gone (deleted)\n", 19, "/gone", 0);
	/* v1 alone, nothing, a hierarchy 10 */
	check_path(v1only, strlen(v1only), NULL, -ENOENT);
	check_path("", 0, NULL, -ENOENT);
	check_path("10::/x\n", 7, NULL, -ENOENT);
	/* malformed */
	check_path("0::\n", 4, NULL, -EINVAL);
	check_path("0::relative\n", 12, NULL, -EINVAL);
	check_path("0::/a\0b\n", 8, NULL, -EINVAL);
	/* the longest the kernel prints, and one past it */
	memcpy(big, "0::/", 4);
	memset(big + 4, 'a', sizeof(big) - 4);
	n = 3 + CGROUP_PATH_MAX;
	check_path(big, n, NULL, 0);
	check_path(big, n + 1, NULL, -EINVAL);
}

/* A CGROUP record decodes; one whose text runs past its end does not. */
static void test_record(void)
{
	struct sbuf b = { 0 };
	struct tprof_record r;

	sb_cgroup(&b, 42, 1234, "0::/a.service\n");
	CHECK_EQ(tprof_record_decode(b.p, b.len, &r), (long)b.len);
	CHECK_EQ(r.hdr.type, TPROF_UREC_CGROUP);
	CHECK_EQ(r.u.cgroup.pid, 42);
	CHECK_EQ(r.u.cgroup.len, 14);
	CHECK(r.text && !memcmp(r.text, "0::/a.service\n", 14));
	CHECK_STR(tprof_record_type_name(TPROF_UREC_CGROUP), "CGROUP");
	/* len past the record */
	memcpy(b.p + offsetof(struct tprof_urec_cgroup, len),
	       &(uint32_t){ 1000 }, 4);
	CHECK_EQ(tprof_record_decode(b.p, b.len, &r), -EINVAL);
	CHECK_STR(r.fault, "its text runs past the record's end");
	sb_free(&b);
}

/*
 * A PROC record decodes with its cgroup_id; one of an older module
 * (TPROF_SIZEOF_REC_PROC_V1 bytes, no cgroup_id) with 0 there.
 */
static void test_proc_versions(void)
{
	struct tprof_rec_proc p = {
		.hdr = { .type = TPROF_REC_PROC, .size = sizeof(p),
			 .time_ns = 5 },
		.pid = 7, .ppid = 1, .comm = "short", .cgroup_id = 0x1234,
	};
	unsigned char buf[sizeof(p)];
	struct tprof_record r;

	memcpy(buf, &p, sizeof(p));
	CHECK_EQ(tprof_record_decode(buf, sizeof(buf), &r), (long)sizeof(p));
	CHECK_EQ(r.u.proc.pid, 7);
	CHECK_EQ(r.u.proc.cgroup_id, 0x1234);
	p.hdr.size = TPROF_SIZEOF_REC_PROC_V1;
	memcpy(buf, &p, sizeof(p));
	CHECK_EQ(tprof_record_decode(buf, sizeof(buf), &r),
		 TPROF_SIZEOF_REC_PROC_V1);
	CHECK_EQ(r.u.proc.pid, 7);
	CHECK_STR((const char *)r.u.proc.comm, "short");
	CHECK_EQ(r.u.proc.cgroup_id, 0);
	/* smaller than the first version: a fault */
	p.hdr.size = TPROF_SIZEOF_REC_PROC_V1 - 8;
	memcpy(buf, &p, sizeof(p));
	CHECK_EQ(tprof_record_decode(buf, sizeof(buf), &r), -EINVAL);
}

/* st_ino of dir/rel (made, with its parents), 0 if it cannot be */
static uint64_t mkdir_ino(const char *dir, const char *rel)
{
	char path[PATH_MAX], *p;
	struct stat st;

	snprintf(path, sizeof(path), "%s%s", dir, rel);
	for (p = path + strlen(dir) + 1; (p = strchr(p, '/')); p++) {
		*p = 0;
		mkdir(path, 0755);
		*p = '/';
	}
	mkdir(path, 0755);
	return stat(path, &st) ? 0 : st.st_ino;
}

/*
 * lib/cgroup_ids.h over a directory tree standing in for the cgroup2
 * mount: a reaped process (no /proc/PID left) is found by a walk, which
 * keeps every directory's id (the next id costs none); an id no directory
 * has is walked for once; a live process whose /proc/PID/cgroup names the
 * directory that is id costs one stat and no walk; id 0 is /proc's text.
 */
static void test_ids(void)
{
	char root[PATH_MAX], cmd[PATH_MAX + 16], *text = NULL, *self = NULL;
	uint64_t ab, c, mine;
	const char *path, *got;
	struct cgroup_ids ids;
	size_t len, slen, plen, glen;
	pid_t gone = fork();

	if (gone == 0)
		_exit(0);
	waitpid(gone, NULL, 0);
	snprintf(root, sizeof(root), "%s", build_path("unit/cgroup-ids.XXXXXX"));
	if (!mkdtemp(root)) {
		CHECK(!"mkdtemp");
		return;
	}
	ab = mkdir_ino(root, "/a/b");
	c = mkdir_ino(root, "/c");
	cgroup_ids__init(&ids, root);
	CHECK_EQ(cgroup_ids__text(&ids, gone, ab, &text, &len), 0);
	CHECK(text && len == 8 && !memcmp(text, "0::/a/b\n", 9));
	free(text);
	text = NULL;
	CHECK_EQ(ids.walks, 1);
	CHECK_EQ(cgroup_ids__text(&ids, gone, c, &text, &len), 0);
	CHECK(text && !strcmp(text, "0::/c\n"));
	free(text);
	text = NULL;
	CHECK_EQ(ids.walks, 1);
	/* the root is "/" */
	CHECK_EQ(cgroup_ids__text(&ids, gone, mkdir_ino(root, ""), &text,
				  &len), 0);
	CHECK(text && !strcmp(text, "0::/\n"));
	free(text);
	text = NULL;
	/* no such directory (removed since): -ENOENT, one walk */
	CHECK_EQ(cgroup_ids__text(&ids, gone, 0x7fffffff12345ULL, &text,
				  &len), -ENOENT);
	CHECK_EQ(cgroup_ids__text(&ids, gone, 0x7fffffff12345ULL, &text,
				  &len), -ENOENT);
	CHECK_EQ(ids.walks, 2);
	/* id 0 (an older module): /proc/PID/cgroup, gone: none */
	CHECK_EQ(cgroup_ids__text(&ids, gone, 0, &text, &len), -ENOENT);
	/* a live process: its /proc/PID/cgroup checked by one stat */
	if (!proc_cgroup_read(getpid(), &self, &slen) &&
	    !cgroup_v2_path(self, slen, &path, &plen)) {
		char rel[PATH_MAX];

		snprintf(rel, sizeof(rel), "%.*s", (int)plen, path);
		mine = mkdir_ino(root, plen == 1 ? "" : rel);
		CHECK_EQ(cgroup_ids__text(&ids, getpid(), mine, &text, &len),
			 0);
		/* (its text, or the walk's "/" if it is the root) */
		CHECK(text && !cgroup_v2_path(text, len, &got, &glen) &&
		      glen == plen && !memcmp(got, path, plen));
		free(text);
		CHECK_EQ(ids.walks, 2);
	}
	free(self);
	cgroup_ids__free(&ids);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	CHECK_EQ(system(cmd), 0);
}

/* Samples (the count column) whose string label key is value (NULL:
 * without the label). */
static int64_t label_samples(const PbProfile *p, const char *key,
			     const char *value)
{
	int64_t n = 0;
	size_t i;

	for (i = 0; i < p->n_sample; i++) {
		const Perftools__Profiles__Label *l =
			pb_label(p, p->sample[i], key);

		if (value ? l && !strcmp(p->string_table[l->str], value) : !l)
			n += p->sample[i]->value[1];
	}
	return n;
}

/*
 * A replayed stream (tprof-read --input): pid 10 in a service, then moved
 * into a container's scope mid-way (the same stack: two samples, each
 * with its labels; a record that repeats the path changes nothing); pid
 * 20 on a v1-only system and pid 30 with a malformed text: no labels; pid
 * 40 read before its first record (its first path from the start); the
 * [lost] samples of a thread carry its process's last cgroup.
 */
static void test_replay_labels(void)
{
	const char *raw = build_path("unit/cgroup-labels.raw");
	const char *pb = build_path("unit/cgroup-labels.pb.gz");
	uint64_t u[1] = { 0x401000 };
	struct sbuf b = { 0 };
	char *out = NULL;
	PbProfile *p;
	int i;

	sb_session(&b, 10, 1000000, 1700000000000000000ULL, 1000);
	sb_thread(&b, 10, 10, "main", 1001);
	sb_cgroup(&b, 10, 1500, "0::/system.slice/app.service\n");
	for (i = 0; i < 5; i++)
		sb_sample(&b, 10, 10, 1000000, 1000000, 2000 + i, 0, NULL,
			  1, u);
	sb_cgroup(&b, 10, 2500, "0::/system.slice/app.service\n");
	for (i = 0; i < 2; i++)
		sb_sample(&b, 10, 10, 1000000, 1000000, 2600 + i, 0, NULL,
			  1, u);
	sb_cgroup(&b, 10, 3000, "0::/system.slice/docker-" ID1 ".scope\n");
	for (i = 0; i < 3; i++)
		sb_sample(&b, 10, 10, 1000000, 1000000, 3100 + i, 0, NULL,
			  1, u);
	sb_thread(&b, 20, 20, "v1", 1002);
	sb_cgroup(&b, 20, 1600, "1:name=systemd:/user.slice\n");
	sb_sample(&b, 20, 20, 1000000, 1000000, 2100, 0, NULL, 1, u);
	sb_thread(&b, 30, 30, "bad", 1003);
	sb_cgroup(&b, 30, 1700, "0::no-slash\n");
	sb_sample(&b, 30, 30, 1000000, 1000000, 2200, 0, NULL, 1, u);
	sb_thread(&b, 40, 40, "early", 1004);
	sb_sample(&b, 40, 40, 1000000, 1000000, 1100, 0, NULL, 1, u);
	sb_cgroup(&b, 40, 1800, "0::/user.slice/user-1000.slice/session-3.scope\n");
	/* one sample delivered, one lost */
	sb_stat(&b, TPROF_REC_THREAD_EXIT, 40, 40, 2000000, 1, 1000000, 1,
		1000000, 1000000, "early", 4000);
	p = replay_profile(&b, raw, pb, "", &out);
	if (p) {
		CHECK_EQ(label_samples(p, "cgroup",
				       "/system.slice/app.service"), 7);
		CHECK_EQ(label_samples(p, "systemd_unit", "app.service"), 7);
		CHECK_EQ(label_samples(p, "cgroup",
				       "/system.slice/docker-" ID1 ".scope"), 3);
		CHECK_EQ(label_samples(p, "container_id", ID1), 3);
		/* the container's scope is no unit */
		CHECK_EQ(label_samples(p, "systemd_unit", NULL),
			 label_samples(p, "cgroup", NULL) + 3);
		CHECK_EQ(label_samples(p, "container_id", NULL),
			 label_samples(p, "cgroup", NULL) + 7 + 2);
		/* v1-only, malformed: none */
		CHECK_EQ(label_samples(p, "cgroup", NULL), 2);
		/* read after its first sample: the first path still names
		 * it, [lost] (its THREAD_EXIT's lost sample) too */
		CHECK_EQ(label_samples(p, "systemd_unit", "session-3.scope"),
			 2);
		if (t_checks_failed)
			fprintf(stderr, "%s", out ? out : "");
		pb_free(p);
	}
	out_done(out);
	sb_free(&b);
}

/*
 * A live session (fake device, attached to a sleep) writes a CGROUP record
 * of the target with its /proc/PID/cgroup into --save-raw.
 */
static void test_live_record(void)
{
	const char *dev = build_path("unit/tprof-fakedev");
	const char *raw = build_path("unit/cgroup-live.raw");
	char *out = NULL, *want = NULL;
	struct tprof_record r;
	struct rec_iter it;
	size_t wlen = 0;
	int st, found = 0;
	pid_t pid;

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
	CHECK_EQ(proc_cgroup_read(pid, &want, &wlen), 0);
	unlink(raw);
	st = run_fake_read(&out, NULL, NULL, dev,
			   "-p %d --save-raw '%s' -o /dev/null 2>&1", (int)pid,
			   raw);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	CHECK_EQ(st, 0);
	rec_iter_file(&it, raw);
	while (rec_next(&it, &r))
		if (r.hdr.type == TPROF_UREC_CGROUP &&
		    r.u.cgroup.pid == (uint32_t)pid) {
			found++;
			CHECK(want && r.u.cgroup.len == wlen &&
			      !memcmp(r.text, want, wlen));
		}
	/* once: read again, the same text is not written again */
	CHECK_EQ(found, 1);
	out_done(out);
	rec_iter_free(&it);
	free(want);
}

const struct unit_test cgroup_tests[] = {
	{ "cgroup: systemd units and container ids of real-world cgroup paths", test_names },
	{ "cgroup: the v2 path of /proc/PID/cgroup (v1 alone, malformed, too long: none)", test_v2_path },
	{ "cgroup: the CGROUP record decodes; its text past its end is a fault", test_record },
	{ "cgroup: a PROC record's cgroup_id; an older module's PROC record has none (0)", test_proc_versions },
	{ "cgroup: a cgroup id's path: a reaped process's by a walk, a live one's by /proc checked, one walk per unknown id", test_ids },
	{ "cgroup: a replay's cgroup, systemd_unit and container_id labels (a move splits samples)", test_replay_labels },
	{ "cgroup: a live session records its target's /proc/PID/cgroup in --save-raw", test_live_record },
	{ NULL, NULL },
};
