/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tprof-read: names, files, lines and inline chains of an object's code
 * (elfutils libdw; own PC->CU table for Go), and kallsyms (object/ksyms.h).
 */
#ifndef _TPROF_OBJECT_SYMBOLS_H
#define _TPROF_OBJECT_SYMBOLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "object/ksyms.h"
#include "object/object.h"

/* One frame of an inline chain. Strings live as long as the symbolizer
 * and its objects. */
struct sym_frame {
	const char *name;		/* C++ demangled, else DW_AT_name or symtab name */
	const char *system_name;	/* DW_AT_linkage_name, else name */
	const char *file;		/* "" if unknown */
	int line;			/* 0 if unknown */
	int start_line;			/* DW_AT_decl_line, 0 if unknown */
};

#define SYM_MAX_INLINE 64

struct symbolizer;

/* A symbolizer with objects of its own (tests, one-off lookups). */
struct symbolizer *symbolizer__new(void);
/* A symbolizer of the objects objs, which outlive it (the CLI's, shared
 * with the unwinder). */
struct symbolizer *symbolizer__new_on(struct objects *objs);
void symbolizer__free(struct symbolizer *s);
struct objects *symbolizer__objects(struct symbolizer *s);

/*
 * The function around vaddr of o (an ELF virtual address), as its sized
 * ELF symbol spans it: [*lo, *hi). Loads o's symbols. false: no sized
 * symbol holds vaddr (a stripped local function, no symbols at all).
 */
bool object__func_range(struct objects *objs, struct object *o,
			uint64_t vaddr, uint64_t *lo, uint64_t *hi);

/* Facts about o, its symbols loaded (object__symbols()). */
const struct sym_file_info *symbolizer__object(struct symbolizer *s,
					       struct object *o);

/*
 * Symbolize addr of a process mapping at start with file offset offset
 * of o's file. Fills frames innermost first; returns the number of frames
 * (0: nothing known about addr).
 */
int symbolizer__lookup_object(struct symbolizer *s, struct object *o,
			      uint64_t start, uint64_t offset, uint64_t addr,
			      struct sym_frame *frames, int max);

/*
 * Facts about the ELF file at path, unchecked (objects__file()). root, if
 * not NULL, is tried as a prefix when path itself cannot be opened (the
 * target's /proc/PID/root).
 */
const struct sym_file_info *symbolizer__file(struct symbolizer *s,
					     const char *path,
					     const char *root);

/* symbolizer__lookup_object() of the file at path (objects__file()). */
int symbolizer__lookup(struct symbolizer *s, const char *path,
		       const char *root, uint64_t start, uint64_t offset,
		       uint64_t addr, struct sym_frame *frames, int max);

/* Same, for an ELF virtual address (as addr2line takes). */
int symbolizer__lookup_vaddr(struct symbolizer *s, const char *path,
			     uint64_t vaddr, struct sym_frame *frames, int max);

#endif /* _TPROF_OBJECT_SYMBOLS_H */
