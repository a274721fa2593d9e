/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tprof-read: a mapped file as one object, as perf's dso is: one per
 * (file, build-id), found through the target's view (object/locate.h),
 * build-id checked and opened once, and shared by the unwinder (its CFI)
 * and the symbolizer (its symbols and DWARF, object/symbols.h).
 *
 * Descriptors are bounded. Once opened, an object's ELF is mapped whole
 * (libelf's ELF_C_READ_MMAP_PRIVATE) and needs no descriptor; libdwfl keeps
 * one only to look for the separate debug file when symbols are first
 * asked for. So an object holds its descriptor until its symbols are
 * loaded, the cache holds at most a bound of them, and past the bound the
 * least recently used object lets its go (its CFI stays usable). Should
 * its symbols be asked for later, the file is opened again and must be the
 * same file (device, inode, size, mtime) with the same build-id.
 */
#ifndef _TPROF_OBJECT_OBJECT_H
#define _TPROF_OBJECT_OBJECT_H

#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <gelf.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>

#include "lib/buildid.h"
#include "model/maps.h"
#include "object/locate.h"

/* What the symbolize pass says of an object's file. */
struct sym_file_info {
	bool loaded;		/* the ELF could be opened */
	bool has_symtab;	/* function names available */
	bool has_dwarf;		/* file/line/inline available */
	const char *build_id;	/* lowercase hex GNU build-id, or "" */
	/* checked opens that found no file: the build-id of the last one
	 * refused for another build-id, else "" */
	const char *mismatch;
};

struct cu_range;
struct symtab;
struct scopes;
struct objects;

struct object {
	uint32_t id;		/* index in its cache, from 1 */
	struct objects *owner;
	char *key;		/* the mapping's path; a vDSO image's own key */
	char *want;		/* the recorded build-id; NULL: none recorded */
	bool checked;		/* found for a mapping (objects__get()) */
	uint64_t tried;		/* not loaded: the candidates last tried */
	/* the file found, as first opened: a reopen must find it again */
	char *open_path;
	struct stat st;
	/* let go before its symbols: where the last view saw it (the
	 * target may have exited since open_path was found) */
	char *seen[LOCATE_MAX_CANDS];
	size_t nseen;
	unsigned char *image;	/* a recorded vDSO image (a copy) */
	size_t image_len;
	int fd;			/* open_path while libdwfl may want it, else -1 */
	uint64_t used;		/* the cache's clock at the last use */
	uint64_t trim_mark;	/* objects__trim(): a mapping holds it */
	Elf *elf;		/* the main ELF, mapped */
	uint16_t machine;	/* its e_machine, 0 if unknown */
	Elf *refs[4];		/* ELFs whose descriptors were let go */
	int nrefs;
	Dwfl *dwfl;		/* NULL once let go before symbols were loaded */
	Dwfl_Module *mod;
	GElf_Phdr *loads;	/* PT_LOAD segments: offsets to addresses */
	size_t nloads;
	struct sym_file_info info;
	char build_id[BUILDID_HEX_LEN];
	char mismatch[BUILDID_HEX_LEN];
	/* CFI, for the unwinder: .eh_frame, else .debug_frame (Go) */
	bool cfi_loaded;
	Dwarf *cfi_dw;
	Dwarf_CFI *eh, *dbg;
	/* symbols, for the symbolizer (object/symbols.c) */
	bool syms_loaded;
	int dbg_fd;		/* the separate debug file libdwfl opened */
	struct stat dbg_st;
	Dwarf *dwarf;
	Dwarf_Addr dwbias;
	struct cu_range *cus;	/* own PC->CU table (Go: no .debug_aranges) */
	size_t ncus;
	bool cus_built;
	struct symtab *syms;	/* built at the first name asked of it */
	bool syms_built;
	struct scopes *scopes;	/* CU scope trees (object/scopes.h) */
};

/* What the cache did: opens of files (reopens included) and the bound. */
struct objects_stats {
	uint64_t opens;		/* files opened as candidates, reopens too */
	uint64_t reopens;	/* of files let go before their symbols */
	uint64_t evictions;	/* descriptors let go for the bound */
	unsigned int held, max_held;	/* descriptors held now, at most */
	unsigned int bound;
	uint64_t trimmed;	/* objects freed by objects__trim() */
	size_t cached;		/* objects held, at the last trim */
};

/*
 * A cache of objects. Raises RLIMIT_NOFILE's soft limit to the hard limit
 * and sets the bound on held descriptors from it (a quarter of the soft
 * limit, at most 1024): the profile's own output file must always open.
 */
struct objects *objects__new(void);
void objects__free(struct objects *objs);
const struct objects_stats *objects__stats(const struct objects *objs);

/*
 * The object of mapping m, found through view v with m's recorded build-id
 * (never a file of another build: then info.loaded is false and
 * info.mismatch says what was found), or the recorded vDSO image (none
 * recorded: this kernel's, if the same size). NULL for a mapping that has
 * no file (anonymous, a "[vdso]" of another size without an image).
 * Cached by (path, build-id); a lookup that found nothing is tried again
 * only through another view.
 */
struct object *objects__get(struct objects *objs, const struct mapping *m,
			    const struct file_view *v);

/*
 * The ELF file at path, unchecked: root (if not NULL) is tried as a prefix
 * when path does not open; "[vdso]" is this kernel's own vDSO. Never NULL.
 */
struct object *objects__file(struct objects *objs, const char *path,
			     const char *root);

/*
 * addr, in a mapping of o's file at start with file offset offset, as
 * an ELF virtual address of o (a PT_LOAD segment holds it): the one
 * translation the unwinder and the symbolizer share.
 */
bool object__vaddr(const struct object *o, uint64_t start, uint64_t offset,
		   uint64_t addr, uint64_t *vaddr);

/*
 * A live agent's LRU bound, never called by tprof-read: while more than
 * max objects are cached, free the least recently used one that no
 * mapping of m (the model's, after maps__forget()) names by (path,
 * build-id) or vDSO image, and that was found for a mapping
 * (objects__file()'s stay). A binary redeployed at the same path is
 * another build-id, so another object; an evicted one is found again by
 * its build-id when a mapping names it. Freed ids are reused: caches by
 * id (the unwinder's CFI rows) must be reset (unwinder__forget()).
 * Returns the objects freed.
 */
size_t objects__trim(struct objects *objs, const struct maps *m, size_t max);

/* o's CFI, loaded at the first call: false when it has none. */
bool object__cfi(struct object *o);

/*
 * o's libdwfl module with its symbol table and DWARF looked up (the
 * separate debug file too, debuginfod with --debuginfod), loaded at the
 * first call: fills info.has_symtab and info.has_dwarf. false: no module.
 */
bool object__symbols(struct objects *objs, struct object *o);

/*
 * Put RLIMIT_NOFILE's soft limit back as it was before objects__new()
 * raised it: for a launched command, between fork and exec (programs that
 * use select() or close every descriptor up to the limit). Only a
 * setrlimit(): async-signal-safe.
 */
void objects__restore_nofile(void);

#endif /* _TPROF_OBJECT_OBJECT_H */
