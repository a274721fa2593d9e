// SPDX-License-Identifier: GPL-2.0
/*
 * tprof-read: one object per (file, build-id), opened once, descriptors
 * bounded (object/object.h).
 *
 * libdwfl keeps the descriptor it was given (and the separate debug
 * file's) for the module's life, and closes it when the module's ELF is
 * ended for the last time. An object lets a descriptor go by making
 * libelf read everything it needs (ELF_C_FDREAD: the file is mapped) and
 * holding one more reference to that ELF: libdwfl's elf_end() then is not
 * the last, so it never closes the number we closed and the kernel may
 * have given to another file.
 */
#include <elfutils/libdwelf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "lib/util.h"
#include "object/debuginfod.h"
#include "object/object.h"
#include "object/scopes.h"
#include "object/symtab.h"

/* descriptors held at most, whatever the limit (a quarter of it) */
#define BOUND_MAX 1024
#define BOUND_MIN 8

struct objects {
	struct object **all;	/* pointers: objects handed out stay put */
	size_t n, cap;
	struct hindex idx;	/* by (key, build-id, checked) */
	uint32_t *free_ids;	/* slots of all[] freed by objects__trim() */
	size_t nfree, capfree;
	uint64_t trims;		/* objects__trim() calls: its mark */
	struct object **holders;	/* objects holding a descriptor */
	size_t nholders, capholders;
	unsigned int extra;	/* descriptors libdwfl keeps (dwz files) */
	uint64_t clock;
	struct objects_stats st;
	char *debuginfo_path;
	Dwfl_Callbacks cb;
};

static int find_debuginfo(Dwfl_Module *mod, void **userdata,
			  const char *modname, Dwarf_Addr base,
			  const char *file_name, const char *debuglink_file,
			  GElf_Word debuglink_crc, char **debuginfo_file_name);

/*
 * Raise the soft RLIMIT_NOFILE to the hard one, and bound the cache's
 * descriptors to a quarter of it: the rest is for the stream, the output
 * and libdwfl's debug files.
 */
static struct rlimit nofile_orig;	/* as the process started */
static bool nofile_raised;

static unsigned int raise_nofile(void)
{
	struct rlimit rl;
	rlim_t b;

	if (getrlimit(RLIMIT_NOFILE, &rl))
		return BOUND_MIN;
	if (rl.rlim_cur < rl.rlim_max) {
		if (!nofile_raised)
			nofile_orig = rl;
		nofile_raised = true;
		rlim_t old = rl.rlim_cur;

		rl.rlim_cur = rl.rlim_max;
		if (setrlimit(RLIMIT_NOFILE, &rl)) {
			pr_debug("RLIMIT_NOFILE: %s", strerror(errno));
			rl.rlim_cur = old;
		}
	}
	b = rl.rlim_cur == RLIM_INFINITY ? BOUND_MAX : rl.rlim_cur / 4;
	if (b > BOUND_MAX)
		b = BOUND_MAX;
	return b < BOUND_MIN ? BOUND_MIN : (unsigned int)b;
}

void objects__restore_nofile(void)
{
	if (nofile_raised)
		setrlimit(RLIMIT_NOFILE, &nofile_orig);
}

struct objects *objects__new(void)
{
	struct objects *objs = xcalloc(1, sizeof(*objs));

	elf_version(EV_CURRENT);
	objs->st.bound = raise_nofile();
	objs->cb.find_elf = dwfl_build_id_find_elf;
	/* .gnu_debuglink next to the file, .debug/, /usr/lib/debug (+ build-id),
	 * then with --debuginfod a server */
	objs->cb.find_debuginfo = find_debuginfo;
	objs->cb.section_address = dwfl_offline_section_address;
	objs->cb.debuginfo_path = &objs->debuginfo_path;
	return objs;
}

const struct objects_stats *objects__stats(const struct objects *objs)
{
	return &objs->st;
}

static void object_free(struct object *o)
{
	int i;

	/* what uses an ELF before the ELF */
	if (o->eh)
		dwarf_cfi_end(o->eh);
	if (o->cfi_dw)
		dwarf_end(o->cfi_dw);
	symtab__free(o->syms);
	scopes__free(o->scopes);	/* its DIEs point into the Dwarf */
	if (o->dwfl)
		dwfl_end(o->dwfl);	/* closes o->fd if still held */
	for (i = 0; i < o->nrefs; i++)
		elf_end(o->refs[i]);
	free(o->cus);
	free(o->loads);
	free(o->image);
	while (o->nseen)
		free(o->seen[--o->nseen]);
	free(o->open_path);
	free(o->key);
	free(o->want);
	free(o);
}

void objects__free(struct objects *objs)
{
	size_t i;

	if (!objs)
		return;
	for (i = 0; i < objs->n; i++)
		if (objs->all[i])
			object_free(objs->all[i]);
	free(objs->all);
	free(objs->free_ids);
	free(objs->holders);
	hindex_free(&objs->idx);
	free(objs);
}

static uint64_t key_hash(const char *key, const char *want, bool checked)
{
	uint64_t h = hash_bytes(key, strlen(key), checked);

	return want ? hash_bytes(want, strlen(want), h) : hash_u64(h);
}

/* The object of (key, want, checked), or NULL. */
static struct object *lookup(const struct objects *objs, const char *key,
			     const char *want, bool checked)
{
	uint64_t h = key_hash(key, want, checked);
	struct hiter it = { 0 };
	struct object *o;
	uint32_t item;

	while (hindex_next(&objs->idx, h, &it, &item)) {
		o = objs->all[item - 1];
		if (o->checked == checked && !strcmp(o->key, key) &&
		    (want ? o->want && !strcmp(o->want, want) : !o->want))
			return o;
	}
	return NULL;
}

static struct object *find(struct objects *objs, const char *key,
			   const char *want, bool checked)
{
	struct object *o = lookup(objs, key, want, checked);
	uint32_t slot;

	if (o)
		goto found;
	o = xcalloc(1, sizeof(*o));
	if (objs->nfree) {
		/* a slot objects__trim() freed: ids stay small */
		slot = objs->free_ids[--objs->nfree];
	} else {
		GROW(objs->all, objs->cap, objs->n + 1);
		slot = objs->n++;
	}
	objs->all[slot] = o;
	hindex_put(&objs->idx, key_hash(key, want, checked), slot + 1);
	o->id = slot + 1;
	o->owner = objs;
	o->key = xstrdup(key);
	o->want = want ? xstrdup(want) : NULL;
	o->checked = checked;
	o->fd = -1;
	o->dbg_fd = -1;
	o->info.build_id = o->build_id;
	o->info.mismatch = o->mismatch;
	objs->st.cached = objs->n - objs->nfree;
found:
	o->used = ++objs->clock;
	return o;
}

/* ---- descriptors ---- */

/*
 * Make elf independent of its descriptor (all of it read or mapped) and
 * hold a reference of our own: the descriptor may then be closed, and
 * libdwfl's elf_end() is no longer the one that closes it.
 */
static bool keep_elf(struct object *o, Elf *elf)
{
	Elf *ref;

	if (o->nrefs == (int)ARRAY_SIZE(o->refs) ||
	    elf_cntl(elf, ELF_C_FDREAD))
		return false;
	ref = elf_begin(-1, ELF_C_READ_MMAP_PRIVATE, elf);
	if (ref != elf) {
		elf_end(ref);
		return false;
	}
	o->refs[o->nrefs++] = elf;
	return true;
}

static void holder_del(struct objects *objs, struct object *o)
{
	size_t i;

	for (i = 0; i < objs->nholders; i++)
		if (objs->holders[i] == o) {
			objs->holders[i] = objs->holders[--objs->nholders];
			return;
		}
}

/*
 * Let o's main descriptor go. Before its symbols were loaded the module
 * goes too (libdwfl would look for the debug file through that
 * descriptor): object__symbols() opens the file again.
 */
static void let_go(struct objects *objs, struct object *o)
{
	GElf_Addr bias;
	Elf *elf;

	if (o->fd < 0 || !o->mod)
		return;
	elf = dwfl_module_getelf(o->mod, &bias);
	if (!elf || !keep_elf(o, elf))
		return;		/* not a file libelf could map: keep it */
	close(o->fd);
	o->fd = -1;
	holder_del(objs, o);
	objs->st.held--;
	if (!o->syms_loaded) {
		dwfl_end(o->dwfl);
		o->dwfl = NULL;
		o->mod = NULL;
	}
}

/* o now holds a descriptor: past the bound, the least recently used
 * other holders let theirs go */
static void hold(struct objects *objs, struct object *o)
{
	GROW(objs->holders, objs->capholders, objs->nholders + 1);
	objs->holders[objs->nholders++] = o;
	objs->st.held++;
	if (objs->st.held > objs->st.max_held)
		objs->st.max_held = objs->st.held;
	while (objs->st.held + objs->extra > objs->st.bound &&
	       objs->nholders > 1) {
		struct object *lru = NULL;
		size_t i;

		for (i = 0; i < objs->nholders; i++)
			if (objs->holders[i] != o &&
			    (!lru || objs->holders[i]->used < lru->used))
				lru = objs->holders[i];
		if (!lru)
			break;
		let_go(objs, lru);
		objs->st.evictions++;
		if (lru->fd >= 0) {
			/* could not: do not try it again and again */
			holder_del(objs, lru);
			objs->extra++;
			objs->st.held--;
		}
	}
}

/*
 * libdwfl's find_debuginfo: the standard lookup, then with --debuginfod a
 * server. The debug file's descriptor is noted, to let it go once the
 * DWARF is loaded; a dwz file's (.gnu_debugaltlink) libdwfl closes itself
 * at the end, so it stays counted against the bound.
 */
static int find_debuginfo(Dwfl_Module *mod, void **userdata,
			  const char *modname, Dwarf_Addr base,
			  const char *file_name, const char *debuglink_file,
			  GElf_Word debuglink_crc, char **debuginfo_file_name)
{
	struct object *o = *userdata;
	GElf_Addr bias;
	GElf_Word crc;
	Elf *main_elf;
	int fd;

	fd = debuginfod__find_debuginfo(mod, userdata, modname, base,
					file_name, debuglink_file,
					debuglink_crc, debuginfo_file_name);
	if (fd < 0 || !o)
		return fd;
	main_elf = dwfl_module_getelf(mod, &bias);
	/* the debug file's lookup passes the main file's own debuglink */
	if (!debuglink_file ||
	    (main_elf &&
	     debuglink_file == dwelf_elf_gnu_debuglink(main_elf, &crc))) {
		o->dbg_fd = fd;
		if (fstat(fd, &o->dbg_st))
			o->dbg_fd = -1;
	} else
		o->owner->extra++;
	return fd;
}

/* ---- opening ---- */

/*
 * A libdwfl module of o for fd, open on open_path: libdwfl takes fd (closed
 * here on failure). Module addresses are the ELF's own vaddrs (base 0,
 * add_p_vaddr).
 */
static bool report(struct objects *objs, struct object *o,
		   const char *open_path, int fd)
{
	void **ud;

	o->dwfl = dwfl_begin(&objs->cb);
	if (!o->dwfl) {
		close(fd);
		return false;
	}
	dwfl_report_begin(o->dwfl);
	o->mod = dwfl_report_elf(o->dwfl, o->key, open_path, fd, 0, true);
	if (!o->mod)
		close(fd);
	dwfl_report_end(o->dwfl, NULL, NULL);
	if (!o->mod) {
		pr_debug("%s: %s", o->key, dwfl_errmsg(-1));
		dwfl_end(o->dwfl);
		o->dwfl = NULL;
		return false;
	}
	/* find_debuginfo() learns which object it looks for */
	dwfl_module_info(o->mod, &ud, NULL, NULL, NULL, NULL, NULL, NULL);
	*ud = o;
	o->fd = fd;
	hold(objs, o);
	return true;
}

/* The module just reported is the object's: its segments and build-id. */
static bool first_load(struct object *o)
{
	const unsigned char *bits;
	GElf_Addr bid_vaddr, bias;
	GElf_Ehdr eh;
	size_t i, nph;
	Elf *elf;
	int n;

	elf = dwfl_module_getelf(o->mod, &bias);
	if (!elf || elf_getphdrnum(elf, &nph))
		return false;
	if (gelf_getehdr(elf, &eh))
		o->machine = eh.e_machine;
	o->loads = xcalloc(nph ? nph : 1, sizeof(*o->loads));
	for (i = 0; i < nph; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(elf, i, &ph) && ph.p_type == PT_LOAD)
			o->loads[o->nloads++] = ph;
	}
	o->elf = elf;
	o->info.loaded = true;
	n = dwfl_module_build_id(o->mod, &bits, &bid_vaddr);
	if (n > 0)
		buildid__hex(bits, n, o->build_id);
	return true;
}

/* Undo a report() whose file turned out not to be an object. */
static void unreport(struct objects *objs, struct object *o)
{
	if (o->fd >= 0) {
		holder_del(objs, o);
		objs->st.held--;
	}
	dwfl_end(o->dwfl);	/* closes o->fd */
	o->dwfl = NULL;
	o->mod = NULL;
	o->fd = -1;
}

/* fd open on open_path as o's file, for good (fd taken). */
static bool load_fd(struct objects *objs, struct object *o,
		    const char *open_path, int fd)
{
	if (fstat(fd, &o->st)) {
		close(fd);
		return false;
	}
	if (!report(objs, o, open_path, fd))
		return false;
	if (!first_load(o)) {
		unreport(objs, o);
		return false;
	}
	free(o->open_path);
	o->open_path = xstrdup(open_path);
	return true;
}

/*
 * The first candidate that opens as an ELF file with o's build-id (any,
 * when none was recorded). A file with another build-id is not the one
 * the target mapped: its names would be another build's.
 */
static void load_checked(struct objects *objs, struct object *o,
			 const char *const *cands, size_t n)
{
	char hex[BUILDID_HEX_LEN];
	size_t i;

	for (i = 0; i < n && !o->info.loaded; i++) {
		int fd = open_regular(cands[i]), len;

		objs->st.opens++;
		if (fd < 0) {
			pr_debug("%s: %s", cands[i], strerror(errno));
			continue;
		}
		if (o->want) {
			len = buildid__hex_of_fd(fd, hex);
			if (len < 0 || strcmp(hex, o->want)) {
				pr_debug("%s: build-id %s, not %s", cands[i],
					 hex, o->want);
				snprintf(o->mismatch, sizeof(o->mismatch), "%s",
					 len < 0 ? "(not ELF)" :
					 *hex ? hex : "(none)");
				close(fd);
				continue;
			}
		}
		load_fd(objs, o, cands[i], fd);
	}
}

/* o's vDSO image through a temp file libdwfl can open (unlinked at once). */
static bool load_image(struct objects *objs, struct object *o)
{
	char path[4096];
	bool ok;
	int fd;

	snprintf(path, sizeof(path), "%s/tprof-vdso.XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	fd = mkostemp(path, O_CLOEXEC);
	if (fd < 0)
		return false;
	if (write(fd, o->image, o->image_len) != (ssize_t)o->image_len) {
		close(fd);
		unlink(path);
		return false;
	}
	objs->st.opens++;
	ok = o->info.loaded ? report(objs, o, path, fd) : load_fd(objs, o, path, fd);
	unlink(path);	/* libelf has it mapped */
	return ok;
}

/* Our own vDSO (same kernel, same image as the target's), copied. */
static bool own_vdso(struct object *o)
{
	unsigned long long a, b;
	char *line = NULL;
	bool found = false;
	size_t cap = 0;
	FILE *fp;

	fp = fopen("/proc/self/maps", "re");
	if (!fp)
		return false;
	while (!found && getline(&line, &cap, fp) > 0)
		found = strstr(line, "[vdso]") &&
			sscanf(line, "%llx-%llx", &a, &b) == 2 && a && b > a;
	free(line);
	fclose(fp);
	if (!found)
		return false;
	o->image_len = b - a;
	o->image = xmalloc(o->image_len);
	memcpy(o->image, (const void *)(uintptr_t)a, o->image_len);
	return true;
}

/*
 * A recorded vDSO image's key: one object per image content (two kernels'
 * images are two files; the processes of a tree share one).
 */
static const char *image_key(const struct mapping *m, char *buf, size_t len)
{
	snprintf(buf, len, "[vdso]@%zx:%016llx", m->image_len,
		 (unsigned long long)hash_bytes(m->image, m->image_len, 0));
	return buf;
}

static uint64_t cands_hash(const char *const *cands, size_t n)
{
	uint64_t h = n;
	size_t i;

	for (i = 0; i < n; i++)
		h = hash_bytes(cands[i], strlen(cands[i]), h);
	return h | 1;	/* 0: never tried */
}

/*
 * A [vdso] mapping with no recorded image (the process gone before the
 * reader's loop got to its maps, an older stream): this kernel's own
 * image, which every process of its ABI maps. Not when the mapping is
 * another size (a compat process's vDSO). Without it the unwinder had no
 * CFI at a vDSO pc and fell back to the frame-pointer chain, which skips
 * the vDSO's caller: a tree of three programs on a 6.12 debug guest lost
 * 85% of each hot function's samples (they called clock_gettime()).
 */
static struct object *kernel_vdso(struct objects *objs,
				  const struct mapping *m)
{
	struct object *o = objects__file(objs, "[vdso]", NULL);

	return o->image_len == m->limit - m->start ? o : NULL;
}

struct object *objects__get(struct objects *objs, const struct mapping *m,
			    const struct file_view *v)
{
	char bufs[LOCATE_MAX_CANDS][4096], key[64];
	const char *cands[LOCATE_MAX_CANDS];
	struct object *o;
	uint64_t h;
	size_t n;

	if (m->image) {
		o = find(objs, image_key(m, key, sizeof(key)), NULL, true);
		if (!o->tried) {
			o->tried = 1;
			o->image = xmalloc(m->image_len);
			memcpy(o->image, m->image, m->image_len);
			o->image_len = m->image_len;
			load_image(objs, o);
		}
		return o;
	}
	if (!strcmp(m->path, "[vdso]"))
		return kernel_vdso(objs, m);
	if (m->path[0] != '/')
		return NULL;
	o = find(objs, m->path, m->build_id, true);
	if (o->info.loaded && (o->dwfl || o->syms_loaded))
		return o;
	n = locate__candidates(v, m, bufs, cands);
	if (o->info.loaded) {
		/* let go: where to open it again, should open_path be gone */
		while (o->nseen)
			free(o->seen[--o->nseen]);
		while (o->nseen < n) {
			o->seen[o->nseen] = xstrdup(cands[o->nseen]);
			o->nseen++;
		}
		return o;
	}
	h = cands_hash(cands, n);
	if (o->tried != h) {
		o->tried = h;
		load_checked(objs, o, cands, n);
	}
	return o;
}

struct object *objects__file(struct objects *objs, const char *path,
			     const char *root)
{
	struct object *o = find(objs, path, NULL, false);
	const char *open_path = path;
	char buf[4096];
	int fd;

	if (o->tried)
		return o;
	o->tried = 1;
	if (!strcmp(path, "[vdso]")) {
		/* every process of this kernel maps the same vDSO image */
		if (own_vdso(o))
			load_image(objs, o);
		return o;
	}
	if (path[0] != '/')
		return o;
	fd = open_regular(path);
	objs->st.opens++;
	if (fd < 0 && root) {
		snprintf(buf, sizeof(buf), "%s%s", root, path);
		fd = open_regular(buf);
		objs->st.opens++;
		open_path = buf;
	}
	if (fd < 0) {
		pr_debug("%s: %s", path, strerror(errno));
		return o;
	}
	load_fd(objs, o, open_path, fd);
	return o;
}

bool object__vaddr(const struct object *o, uint64_t start, uint64_t offset,
		   uint64_t addr, uint64_t *vaddr)
{
	uint64_t fileoff = addr - start + offset;
	size_t i;

	for (i = 0; i < o->nloads; i++) {
		const GElf_Phdr *ph = &o->loads[i];

		if (fileoff >= ph->p_offset &&
		    fileoff < ph->p_offset + ph->p_memsz) {
			*vaddr = fileoff - ph->p_offset + ph->p_vaddr;
			return true;
		}
	}
	return false;
}

bool object__cfi(struct object *o)
{
	if (!o->cfi_loaded) {
		o->cfi_loaded = true;
		if (o->elf && elf_kind(o->elf) == ELF_K_ELF) {
			o->eh = dwarf_getcfi_elf(o->elf);
			/* Go writes .debug_frame only; libdw decompresses it */
			o->cfi_dw = dwarf_begin_elf(o->elf, DWARF_C_READ, NULL);
			if (o->cfi_dw)
				o->dbg = dwarf_getcfi(o->cfi_dw);
		}
	}
	return o->eh || o->dbg;
}

/* fd open on o's file as first opened: same inode, size, mtime, build-id */
static bool same_file(const struct object *o, int fd)
{
	char hex[BUILDID_HEX_LEN];
	struct stat st;

	return !fstat(fd, &st) && st.st_dev == o->st.st_dev &&
	       st.st_ino == o->st.st_ino && st.st_size == o->st.st_size &&
	       st.st_mtim.tv_sec == o->st.st_mtim.tv_sec &&
	       st.st_mtim.tv_nsec == o->st.st_mtim.tv_nsec &&
	       (!o->want || (buildid__hex_of_fd(fd, hex) >= 0 &&
			     !strcmp(hex, o->want)));
}

/*
 * o's file again, for a module to load symbols from: the file first
 * opened, at open_path or where the last view saw it, or nothing; a
 * recorded image is written out again.
 */
static bool reopen(struct objects *objs, struct object *o)
{
	size_t i;
	int fd;

	objs->st.reopens++;
	if (o->image)
		return load_image(objs, o);
	for (i = 0; i <= o->nseen; i++) {
		const char *path = i ? o->seen[i - 1] : o->open_path;

		if (i && !strcmp(path, o->open_path))
			continue;
		fd = open_regular(path);
		objs->st.opens++;
		if (fd < 0) {
			pr_debug("%s: %s: %s", o->key, path, strerror(errno));
			continue;
		}
		if (same_file(o, fd))
			return report(objs, o, path, fd);
		pr_debug("%s: %s: another file now", o->key, path);
		close(fd);
	}
	return false;
}

/* The separate debug file's descriptor, once its DWARF is loaded. */
static void let_debug_go(struct objects *objs, struct object *o)
{
	GElf_Addr bias;
	struct stat st;
	Elf *delf;

	if (o->dbg_fd < 0)
		return;
	delf = o->dwarf ? dwarf_getelf(o->dwarf) : NULL;
	if (delf && delf != dwfl_module_getelf(o->mod, &bias) &&
	    !fstat(o->dbg_fd, &st) && st.st_dev == o->dbg_st.st_dev &&
	    st.st_ino == o->dbg_st.st_ino && keep_elf(o, delf))
		close(o->dbg_fd);
	else
		objs->extra++;	/* libdwfl keeps it (or closed it) */
	o->dbg_fd = -1;
}

bool object__symbols(struct objects *objs, struct object *o)
{
	o->used = ++objs->clock;
	if (o->syms_loaded)
		return o->mod != NULL;
	o->syms_loaded = true;
	if (!o->info.loaded)
		return false;
	if (!o->dwfl && !reopen(objs, o)) {
		/* not the file the unwinder read: no names from it */
		pr_err("warning: %s: replaced while the profile was read: its frames are left unsymbolized",
		       o->key);
		o->info.loaded = false;
		return false;
	}
	o->info.has_symtab = dwfl_module_getsymtab(o->mod) > 0;
	o->dwarf = dwfl_module_getdwarf(o->mod, &o->dwbias);
	o->info.has_dwarf = o->dwarf != NULL;
	pr_debug("%s: %s: build-id %s symtab %d dwarf %d", o->key,
		 o->open_path, o->build_id, o->info.has_symtab,
		 o->info.has_dwarf);
	/* nothing needs the descriptors now */
	let_debug_go(objs, o);
	let_go(objs, o);
	return true;
}

/* ---- trimming (a live agent's LRU bound) ---- */

static int cmp_used(const void *a, const void *b)
{
	const struct object *x = *(struct object *const *)a;
	const struct object *y = *(struct object *const *)b;

	return x->used < y->used ? -1 : x->used > y->used;
}

size_t objects__trim(struct objects *objs, const struct maps *m, size_t max)
{
	uint64_t gen = ++objs->trims;
	struct object **cand, *o;
	size_t i, ncand = 0, nmapped = 0, freed = 0;
	char key[64];

	/* what a mapping still held maps: found again as objects__get()
	 * finds it, by (path, build-id) or the vDSO image */
	for (i = 0; i < m->nall; i++) {
		const struct mapping *e = &m->all[i];

		if (e->image)
			o = lookup(objs, image_key(e, key, sizeof(key)), NULL,
				   true);
		else if (e->path[0] == '/')
			o = lookup(objs, e->path, e->build_id, true);
		else
			continue;
		if (o && o->trim_mark != gen) {
			o->trim_mark = gen;
			nmapped++;
		}
	}
	cand = xmalloc((objs->n + 1) * sizeof(*cand));
	for (i = 0; i < objs->n; i++) {
		o = objs->all[i];
		/* objects__file()'s (unchecked) are their callers' to keep */
		if (o && o->checked && o->trim_mark != gen)
			cand[ncand++] = o;
	}
	qsort(cand, ncand, sizeof(*cand), cmp_used);
	for (i = 0; i < ncand && nmapped + ncand - i > max; i++) {
		o = cand[i];
		if (o->fd >= 0) {
			holder_del(objs, o);
			objs->st.held--;
		}
		objs->all[o->id - 1] = NULL;
		GROW(objs->free_ids, objs->capfree, objs->nfree + 1);
		objs->free_ids[objs->nfree++] = o->id - 1;
		object_free(o);
		freed++;
	}
	free(cand);
	if (freed) {
		hindex_free(&objs->idx);
		for (i = 0; i < objs->n; i++) {
			o = objs->all[i];
			if (o)
				hindex_put(&objs->idx,
					   key_hash(o->key, o->want, o->checked),
					   i + 1);
		}
	}
	objs->st.trimmed += freed;
	objs->st.cached = objs->n - objs->nfree;
	return freed;
}
