// SPDX-License-Identifier: GPL-2.0
/* tprof-read: every record to --save-raw and the profile; the live
 * session's pseudo-records. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "live/recorder.h"
#include "live/target_files.h"
#include "object/symbols.h"

void recorder__init(struct recorder *rc, struct profile *prof)
{
	memset(rc, 0, sizeof(*rc));
	rc->prof = prof;
	rc->root_fd = -1;
	rc->kallsyms = "/proc/kallsyms";
	hindex_init(&rc->last_idx);
	cgroup_ids__init(&rc->cgroups, NULL);
}

void recorder__start(struct recorder *rc, int target)
{
	rc->target = target;
	perfmap_follow__init(&rc->jit, target);
}

void recorder__free(struct recorder *rc)
{
	while (rc->nlast--) {
		free(rc->last[rc->nlast].text);
		free(rc->last[rc->nlast].cgroup);
	}
	free(rc->last);
	rc->last = NULL;
	hindex_free(&rc->last_idx);
	cgroup_ids__free(&rc->cgroups);
	if (rc->root_fd >= 0)
		close(rc->root_fd);
	rc->root_fd = -1;
}

void recorder__end_line(struct recorder *rc)
{
	if (rc->line_shown)
		fputs("\r\033[K", stderr);
}

/*
 * The module ended the session (a DENIED record): say why, once. The samples
 * before it still make the profile; the exit status does not change.
 */
static void note_denied(struct recorder *rc, const struct tprof_rec_denied *rd)
{
	const struct tprof_rec_denied *d = &rc->prof->denied_rec;

	/* a cgroup session's process moved out: -v says so */
	if (rd->reason == TPROF_DENIED_CGROUP) {
		pr_debug("pid %u left the cgroup; nothing more of it is recorded",
			 rd->pid);
		return;
	}
	/* a descendant's: the rest of the tree goes on */
	if ((int)rd->pid != profile__target(rc->prof)) {
		/* its name may come later: records of two CPUs interleave */
		const char *name = profile__proc_name(rc->prof, (int)rd->pid,
						      UINT64_MAX);

		recorder__end_line(rc);
		pr_err("pid %u%s%s%s became non-profilable: %s; nothing more of it is recorded",
		       rd->pid, *name ? " (" : "", name, *name ? ")" : "",
		       tprof_denied_reason(rd->reason));
		return;
	}
	if (!rc->prof->denied || rc->denied_noted)
		return;
	rc->denied_noted = true;
	recorder__end_line(rc);
	pr_err("pid %u became non-profilable: %s; the session ended", d->pid,
	       tprof_denied_reason(d->reason));
}

void recorder__add(struct recorder *rc, const struct tprof_record *rec)
{
	if (rc->raw && !rc->raw_err &&
	    fwrite(rec->raw, rec->hdr.size, 1, rc->raw) != 1)
		rc->raw_err = errno ? errno : EIO;
	if (profile__add(rc->prof, rec))
		pr_debug("inconsistent %s record ignored",
			 tprof_record_type_name(rec->hdr.type));
	if (rc->tap)
		rc->tap(rc->tap_ctx, rec);
	if (rec->hdr.type == TPROF_REC_DENIED)
		note_denied(rc, &rec->u.denied);
}

/* recorder__urec() stamped time_ns (0: now). */
static void urec_at(struct recorder *rc, unsigned int type, uint64_t time_ns,
		    const void *fixed, size_t fixed_size, const void *tail,
		    size_t tail_len)
{
	struct tprof_record rec;
	unsigned char *buf;
	size_t size = tprof_urec_build(&buf, type, time_ns ? time_ns :
				       now_ns(CLOCK_MONOTONIC), fixed,
				       fixed_size, tail, tail_len);

	if (tprof_record_decode(buf, size, &rec) > 0)
		recorder__add(rc, &rec);
	free(buf);
}

void recorder__urec(struct recorder *rc, unsigned int type, const void *fixed,
		    size_t fixed_size, const void *tail, size_t tail_len)
{
	urec_at(rc, type, 0, fixed, fixed_size, tail, tail_len);
}

/*
 * A VDSO record with the target's vDSO image, so that a replay on another
 * kernel (or after a reboot) does not name it from its own. Without ptrace
 * access there is none, and a replay falls back to its own kernel's image.
 */
static void record_vdso(struct recorder *rc, const struct mapping *m)
{
	struct tprof_urec_vdso v = { .pid = m->pid, .start = m->start };
	unsigned char *img;
	size_t len;

	if (target_files__vdso(m->pid, m, &img, &len))
		return;
	v.len = len;
	recorder__urec(rc, TPROF_UREC_VDSO, &v, sizeof(v), img, len);
	free(img);
}

/* A BUILDID record of m's file, read from the target's view of it. */
static void record_buildid(struct recorder *rc, struct mapping *m)
{
	struct tprof_urec_buildid b = { .pid = m->pid };
	unsigned char bits[BUILDID_MAX], tail[BUILDID_MAX + 4096];
	size_t plen = strlen(m->path);
	int n;

	if (m->path[0] != '/' || plen > 4096)
		return;
	m->bid_tried = true;
	n = target_files__buildid(m->pid, m, bits);
	if (n < 0)
		return;
	b.dev_major = m->dev_major;
	b.dev_minor = m->dev_minor;
	b.inode = m->inode;
	b.bid_len = n;
	b.path_len = plen;
	memcpy(tail, bits, n);
	memcpy(tail + n, m->path, plen);
	recorder__urec(rc, TPROF_UREC_BUILDID, &b, sizeof(b), tail, n + plen);
}

/*
 * A BUILDID record for each file the newest snapshot is the first to show,
 * so that a replay symbolizes from that build only; a VDSO record for a new
 * [vdso] mapping.
 */
static void record_buildids(struct recorder *rc)
{
	struct maps *mp = &rc->prof->maps;
	const struct maps_snapshot *sn;
	size_t i;

	if (!mp->nsnaps)
		return;
	sn = &mp->snaps[mp->nsnaps - 1];
	for (i = 0; i < sn->n; i++) {
		struct mapping *m = &mp->all[sn->idx[i]];

		if (m->bid_tried || m->build_id || m->image)
			continue;
		if (!strcmp(m->path, "[vdso]")) {
			m->bid_tried = true;
			record_vdso(rc, m);
			continue;
		}
		record_buildid(rc, m);
	}
}

/*
 * The target's root as of this read, held open: the symbolize pass reads the
 * target's files through it even after the target exited (a launched
 * chroot or container, whose /proc/PID/root is gone by then).
 */
static void keep_root(struct recorder *rc)
{
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/root", rc->target);
	fd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return;
	if (rc->root_fd >= 0)
		close(rc->root_fd);
	rc->root_fd = fd;
}

/* pid's last maps text, found through the index (a tree of thousands of
 * processes re-reads maps at each exec and new process) */
struct last_maps *recorder__last_maps(struct recorder *rc, int pid)
{
	uint64_t h = hash_u64((uint32_t)pid);
	struct hiter it = { 0 };
	uint32_t item;

	while (hindex_next(&rc->last_idx, h, &it, &item))
		if (rc->last[item - 1].pid == pid)
			return &rc->last[item - 1];
	GROW(rc->last, rc->caplast, rc->nlast + 1);
	memset(&rc->last[rc->nlast], 0, sizeof(rc->last[0]));
	rc->last[rc->nlast].pid = pid;
	hindex_put(&rc->last_idx, h, rc->nlast + 1);
	return &rc->last[rc->nlast++];
}

void recorder__forget(struct recorder *rc, const int *pids, size_t n)
{
	size_t i, k, kept = 0;

	for (i = 0; i < rc->nlast; i++) {
		for (k = 0; k < n && pids[k] != rc->last[i].pid; k++)
			;
		if (k < n) {
			free(rc->last[i].text);
			free(rc->last[i].cgroup);
		} else {
			rc->last[kept++] = rc->last[i];
		}
	}
	if (kept == rc->nlast)
		return;
	rc->nlast = kept;
	hindex_free(&rc->last_idx);
	for (i = 0; i < kept; i++)
		hindex_put(&rc->last_idx, hash_u64((uint32_t)rc->last[i].pid),
			   i + 1);
}

bool recorder__maps(struct recorder *rc, int pid, bool force)
{
	char *text;
	size_t len;

	/* every read counts for the throttle, not only one that found a
	 * change: frames in code without frame pointers are unmapped for
	 * good, and re-reading for each cost an open per sample */
	rc->last_snap_ns = now_ns(CLOCK_MONOTONIC);
	if (proc_maps_read(pid, &text, &len))
		return false;
	return recorder__maps_text(rc, pid, text, len, force, 0);
}

bool recorder__maps_text(struct recorder *rc, int pid, char *text,
			 size_t len, bool force, uint64_t time_ns)
{
	struct tprof_urec_maps m = { .pid = pid };
	struct last_maps *lm;

	if (pid == rc->target)
		keep_root(rc);
	lm = recorder__last_maps(rc, pid);
	if (!force && lm->text && len == lm->len &&
	    !memcmp(text, lm->text, len)) {
		free(text);
		return false;
	}
	m.len = len;
	urec_at(rc, TPROF_UREC_MAPS, time_ns, &m, sizeof(m), text, len);
	record_buildids(rc);
	if (rc->maps_hook && rc->prof->maps.nsnaps)
		rc->maps_hook(rc->maps_ctx, pid,
			      &rc->prof->maps.snaps[rc->prof->maps.nsnaps - 1]);
	free(lm->text);
	lm->text = text;
	lm->len = len;
	return true;
}

void recorder__cgroup(struct recorder *rc, int pid, uint64_t id,
		      uint64_t time_ns)
{
	char *text;
	size_t len;

	if (!cgroup_ids__text(&rc->cgroups, pid, id, &text, &len))
		recorder__cgroup_text(rc, pid, text, len, time_ns);
}

void recorder__cgroup_text(struct recorder *rc, int pid, char *text,
			   size_t len, uint64_t time_ns)
{
	struct tprof_urec_cgroup c = { .pid = pid, .len = len };
	struct last_maps *lm = recorder__last_maps(rc, pid);

	if (lm->cgroup && len == lm->cgroup_len &&
	    !memcmp(text, lm->cgroup, len)) {
		free(text);
		return;
	}
	urec_at(rc, TPROF_UREC_CGROUP, time_ns, &c, sizeof(c), text, len);
	free(lm->cgroup);
	lm->cgroup = text;
	lm->cgroup_len = len;
}

/*
 * With kernel stacks, a KALLSYMS record: a replay after a reboot (KASLR) or
 * elsewhere names kernel frames from the session's kernel. Read before
 * ENABLE: megabytes of /proc/kallsyms, while nothing fills the rings.
 */
void recorder__kallsyms(struct recorder *rc)
{
	struct tprof_urec_kallsyms k = { 0 };
	char *text, *mods, *both;
	size_t len, mlen;
	int ret = ksyms__read(rc->kallsyms, &text, &len, &mods, &mlen);

	if (ret) {
		pr_debug("%s: not recorded: %s", rc->kallsyms, strerror(-ret));
		return;
	}
	if (len + mlen + sizeof(k) > TPROF_REC_MAX_SIZE) {
		pr_debug("%s: %zu bytes: not recorded", rc->kallsyms, len);
		free(text);
		free(mods);
		return;
	}
	k.len = len;
	k.modules_len = mlen;
	both = xmalloc(len + mlen + 1);
	memcpy(both, text, len);
	if (mlen)
		memcpy(both + len, mods, mlen);
	recorder__urec(rc, TPROF_UREC_KALLSYMS, &k, sizeof(k), both,
		       len + mlen);
	free(both);
	free(text);
	free(mods);
}

/*
 * PERFMAP records: what the target's JIT symbol map gained since the last
 * read, so that a replay names JIT code without the file (gone with a
 * container, rewritten, or on another machine).
 */
void recorder__perfmap(struct recorder *rc)
{
	struct tprof_urec_perfmap pm = { .pid = rc->target };
	uint64_t off;
	char *text;
	size_t len;

	rc->last_jit_ns = now_ns(CLOCK_MONOTONIC);
	while (perfmap_follow__read(&rc->jit, &text, &len, &off) > 0) {
		pm.offset = off;
		pm.len = len;
		recorder__urec(rc, TPROF_UREC_PERFMAP, &pm, sizeof(pm), text,
			       len);
		free(text);
	}
}
