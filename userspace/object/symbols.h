/* SPDX-License-Identifier: GPL-2.0 */
/* tprof-read: ELF/DWARF symbolization with elfutils libdw, and kallsyms. */
#ifndef _TPROF_OBJECT_SYMBOLS_H
#define _TPROF_OBJECT_SYMBOLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One frame of an inline chain. Strings live as long as the symbolizer. */
struct sym_frame {
	const char *name;		/* C++ demangled, else DW_AT_name or symtab name */
	const char *system_name;	/* DW_AT_linkage_name, else name */
	const char *file;		/* "" if unknown */
	int line;			/* 0 if unknown */
	int start_line;			/* DW_AT_decl_line, 0 if unknown */
};

#define SYM_MAX_INLINE 64

struct sym_file_info {
	bool loaded;		/* the ELF could be opened */
	bool has_symtab;	/* function names available */
	bool has_dwarf;		/* file/line/inline available */
	const char *build_id;	/* lowercase hex GNU build-id, or "" */
	/* checked opens that found no file: the build-id of the last one
	 * refused for another build-id, else "" */
	const char *mismatch;
};

struct symbolizer;

struct symbolizer *symbolizer__new(void);
void symbolizer__free(struct symbolizer *s);

/*
 * Facts about the ELF file at path (opened once and cached). root, if not
 * NULL, is tried as a prefix when path itself cannot be opened (the
 * target's /proc/PID/root).
 */
const struct sym_file_info *symbolizer__file(struct symbolizer *s,
					     const char *path,
					     const char *root);

/*
 * Symbolize addr of a process mapping [start, limit) at file offset offset
 * of path. Fills frames innermost first; returns the number of frames
 * (0: nothing known about addr).
 */
int symbolizer__lookup(struct symbolizer *s, const char *path,
		       const char *root, uint64_t start, uint64_t offset,
		       uint64_t addr, struct sym_frame *frames, int max);

/*
 * A mapped file as the target saw it: the first of cands[0..n) (in order,
 * e.g. under /proc/PID/root, /proc/PID/map_files, ...) that opens as ELF
 * with GNU build-id want_bid (lowercase hex; "" for a file with none;
 * NULL when nothing was recorded: the first that opens). Never a file with
 * another build-id: info->loaded stays false and info->mismatch says what
 * was found. Cached by (path, want_bid).
 */
const struct sym_file_info *
symbolizer__file_checked(struct symbolizer *s, const char *path,
			 const char *want_bid, const char *const *cands,
			 size_t n);

/* symbolizer__lookup() in a file opened by symbolizer__file_checked(). */
int symbolizer__lookup_checked(struct symbolizer *s, const char *path,
			       const char *want_bid, uint64_t start,
			       uint64_t offset, uint64_t addr,
			       struct sym_frame *frames, int max);

/* Same, for an ELF virtual address (as addr2line takes). */
int symbolizer__lookup_vaddr(struct symbolizer *s, const char *path,
			     uint64_t vaddr, struct sym_frame *frames, int max);

/* /proc/kallsyms */
struct ksyms;
struct ksyms *ksyms__load(const char *path);
/* The same from the texts of a KALLSYMS record (modules may be empty). */
struct ksyms *ksyms__load_text(const char *kallsyms, size_t len,
			       const char *modules, size_t mlen);
/*
 * Read the kallsyms file at path and the modules file next to it into
 * malloc'd buffers, for a KALLSYMS record. 0, or -errno; -EPERM when the
 * addresses read 0 (no CAP_SYSLOG, kptr_restrict).
 */
int ksyms__read(const char *path, char **kallsyms, size_t *len,
		char **modules, size_t *mlen);
void ksyms__free(struct ksyms *k);
/*
 * Name of the symbol containing addr (NULL if none); *module = "" or the
 * module name. A symbol ends at the next one, at _etext or _einittext, or at
 * its module's end (from the "modules" file next to the kallsyms file, as
 * /proc/modules is to /proc/kallsyms); the last symbol, with no module
 * extent to bound it, covers only its own address.
 */
const char *ksyms__lookup(const struct ksyms *k, uint64_t addr,
			  const char **module);

#endif /* _TPROF_OBJECT_SYMBOLS_H */
