// SPDX-License-Identifier: GPL-2.0
/*
 * tprof-read: a cgroup v2 id to the path /proc/PID/cgroup would have shown.
 * The kernel's cgroup id is its directory's kernfs node id, which cgroup2fs
 * gives as the directory's inode number (64-bit inodes), so an fstatat()
 * tells a directory's id: /proc/PID/cgroup is checked by one, and a process
 * gone since is found by a walk of the mount. What is seen is kept: the
 * next process of the same cgroup costs no read at all.
 */
#include <dirent.h>
#include <stdbool.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/cgroup_ids.h"
#include "lib/cgroup_names.h"
#include "lib/util.h"

/*
 * Bounds: a walk stops past this many directories (a host with containers
 * has hundreds to thousands), and this deep; past CGROUP_IDS_MAX ids kept,
 * the table starts over (memory stays bounded on a host that makes and
 * removes cgroups for months).
 */
#define WALK_MAX_DIRS 100000
#define WALK_MAX_DEPTH 64
#define CGROUP_IDS_MAX 65536

struct cgroup_id_slot {
	uint64_t id;
	char *path;		/* NULL: looked for and not found */
};

void cgroup_ids__init(struct cgroup_ids *c, const char *root)
{
	memset(c, 0, sizeof(*c));
	hindex_init(&c->idx);
	if (root) {
		snprintf(c->root, sizeof(c->root), "%s", root);
		c->root_state = 1;
	}
}

/* every id forgotten, the memory kept */
static void forget_all(struct cgroup_ids *c)
{
	while (c->n)
		free(c->slots[--c->n].path);
	hindex_clear(&c->idx);
}

void cgroup_ids__free(struct cgroup_ids *c)
{
	forget_all(c);
	free(c->slots);
	c->slots = NULL;
	c->cap = 0;
	hindex_free(&c->idx);
}

static struct cgroup_id_slot *find(struct cgroup_ids *c, uint64_t id)
{
	struct hiter it = { 0 };
	uint32_t item;

	while (hindex_next(&c->idx, hash_u64(id), &it, &item))
		if (c->slots[item - 1].id == id)
			return &c->slots[item - 1];
	return NULL;
}

/* id's path from now on (path NULL: not found; replaces one kept) */
static void keep(struct cgroup_ids *c, uint64_t id, const char *path,
		 size_t len)
{
	struct cgroup_id_slot *s = find(c, id);

	if (!s) {
		if (c->n >= CGROUP_IDS_MAX)
			forget_all(c);
		GROW(c->slots, c->cap, c->n + 1);
		s = &c->slots[c->n++];
		s->id = id;
		s->path = NULL;
		hindex_put(&c->idx, hash_u64(id), (uint32_t)c->n);
	}
	free(s->path);
	s->path = path ? xstrndup(path, len) : NULL;
}

/* the cgroup v2 mount: found once (-1: none, and nothing to walk) */
static bool have_root(struct cgroup_ids *c)
{
	if (!c->root_state)
		c->root_state = cgroup2_root(c->root, sizeof(c->root)) ? -1 : 1;
	return c->root_state > 0;
}

/* a /proc/PID/cgroup text of path */
static int text_of(const char *path, char **text, size_t *len)
{
	size_t n = strlen(path);

	*text = xmalloc(n + 5);
	memcpy(*text, "0::", 3);
	memcpy(*text + 3, path, n);
	memcpy(*text + 3 + n, "\n", 2);
	*len = n + 4;
	return 0;
}

struct walk {
	struct cgroup_ids *c;
	char path[CGROUP_PATH_MAX + 1];	/* from the mount's root */
	unsigned int dirs;
};

/* Every directory below dfd (w->path, len bytes) kept by its inode. */
static void walk_dir(struct walk *w, int dfd, size_t len, int depth)
{
	struct dirent *de;
	DIR *d = fdopendir(dfd);

	if (!d) {
		close(dfd);
		return;
	}
	while ((de = readdir(d)) && w->dirs < WALK_MAX_DIRS) {
		/* where its name goes: after "/" at the root, else "/" */
		size_t n = strlen(de->d_name), at = len == 1 ? 1 : len + 1;
		struct stat st;
		int sub;

		if (de->d_type != DT_DIR || !strcmp(de->d_name, ".") ||
		    !strcmp(de->d_name, "..") || at + n > CGROUP_PATH_MAX)
			continue;
		sub = openat(dirfd(d), de->d_name,
			     O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (sub < 0)
			continue;
		if (fstat(sub, &st)) {
			close(sub);
			continue;
		}
		w->dirs++;
		if (len > 1)
			w->path[len] = '/';
		memcpy(w->path + at, de->d_name, n + 1);
		keep(w->c, st.st_ino, w->path, at + n);
		if (depth < WALK_MAX_DEPTH)
			walk_dir(w, sub, at + n, depth + 1);
		else
			close(sub);
		w->path[len] = 0;
	}
	closedir(d);
}

/* The mount walked, every directory's id kept: is id among them? */
static struct cgroup_id_slot *walk_for(struct cgroup_ids *c, uint64_t id)
{
	struct walk *w;
	struct stat st;
	int fd;

	if (!have_root(c))
		return NULL;
	fd = open(c->root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	c->walks++;
	w = xcalloc(1, sizeof(*w));
	w->c = c;
	w->path[0] = '/';
	if (!fstat(fd, &st))
		keep(c, st.st_ino, "/", 1);
	walk_dir(w, fd, 1, 0);
	free(w);
	/* not there (removed since): not walked for again */
	if (!find(c, id))
		keep(c, id, NULL, 0);
	return find(c, id);
}

/* Is the directory of text's cgroup v2 path id? (kept if it is) */
static bool proc_text_is(struct cgroup_ids *c, const char *text, size_t len,
			 uint64_t id)
{
	char file[PATH_MAX];
	const char *path;
	size_t plen;
	struct stat st;

	if (!have_root(c) || cgroup_v2_path(text, len, &path, &plen) ||
	    (size_t)snprintf(file, sizeof(file), "%s%.*s", c->root,
			     (int)plen, path) >= sizeof(file) ||
	    stat(file, &st) || st.st_ino != id)
		return false;
	keep(c, id, path, plen);
	return true;
}

int cgroup_ids__text(struct cgroup_ids *c, int pid, uint64_t id, char **text,
		     size_t *len)
{
	struct cgroup_id_slot *s;
	bool walked;
	int err;

	if (!id)
		return proc_cgroup_read(pid, text, len);
	s = find(c, id);
	if (s && s->path)
		return text_of(s->path, text, len);
	/* a walk did not find it: not walked for again */
	walked = s;
	err = proc_cgroup_read(pid, text, len);
	if (!err && proc_text_is(c, *text, *len, id))
		return 0;
	/* gone, or moved since its record: the directory that is id */
	s = walked ? NULL : walk_for(c, id);
	if (s && s->path) {
		if (!err)
			free(*text);
		return text_of(s->path, text, len);
	}
	/* no such directory visible here: what /proc said, if anything */
	return err;
}
