/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tprof-read: a running CPython's memory, read from outside
 * (/proc/PID/mem): its code objects (qualified name, file, first line,
 * line table) and strings, each checked for what it claims to be, so that
 * a freed and reused code object is never named as another.
 */
#ifndef _TPROF_LIVE_PYCODE_H
#define _TPROF_LIVE_PYCODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "object/pylayout.h"

/* bounds (py-spy's): longer strings and line tables are not read */
#define PY_STR_MAX_CHARS	4096
#define PY_LINETABLE_MAX	65536

/* A process's memory: /proc/PID/mem, opened once (again after an exec:
 * the descriptor stays with the old memory). */
struct py_mem {
	int pid;
	int fd;
};

/* 0, or -errno of opening /proc/PID/mem (ptrace-attach access). */
int py_mem__open(struct py_mem *m, int pid);
void py_mem__close(struct py_mem *m);
/* len bytes at addr, whole: 0, or -EFAULT. */
int py_mem__read(const struct py_mem *m, uint64_t addr, void *buf,
		 size_t len);
int py_mem__u64(const struct py_mem *m, uint64_t addr, uint64_t *v);

struct pyc_read {
	bool stale;		/* not the code object the walk saw */
	bool names_only;	/* its strings, the code object gone */
	char *qualname;		/* UTF-8, malloc'd; NULL when stale */
	char *filename;
	uint32_t first_line;
	unsigned char *linetable;
	size_t linetable_len;
};

/* What the walk copied of a code object at the sample: its co_filename
 * and co_qualname pointers. */
struct pyc_want {
	uint64_t filename, qualname;
};

/*
 * The code object at addr, as the walk recorded it: its ob_type must be
 * code_type (the target's PyCode_Type), its co_filename and co_qualname
 * pointers those of w, before and after the strings and the line table
 * are read. 0 with c filled (c->stale when any does not hold, or a
 * string or the line table is unreadable, not a compact string, or past
 * the bounds); pyc__free() it.
 */
int pyc__read(const struct py_mem *m, const struct py_layout *L,
	      uint64_t code_type, uint64_t addr, const struct pyc_want *w,
	      struct pyc_read *c);

/*
 * A code object freed before it was read (a module or class body runs
 * once, and is gone before the reader sees its sample): its name from
 * the two strings the walk's words point at, where both are still str
 * objects (ob_type str_type, the target's PyUnicode_Type). A module
 * body's "<module>" is interned and its filename is its loader's path,
 * which the module keeps: both outlive the code. c->names_only, no line
 * table; c->stale when either is not a str.
 */
int pyc__read_names(const struct py_mem *m, const struct py_layout *L,
		    uint64_t str_type, const struct pyc_want *w,
		    struct pyc_read *c);
void pyc__free(struct pyc_read *c);

/*
 * The str at addr as UTF-8 (malloc'd into *out): compact ASCII, or
 * compact latin-1, UCS-2 or UCS-4 (lone surrogates become U+FFFD). 0, or
 * -EFAULT (unreadable), -EINVAL (not a compact str, too long).
 */
int py_str__read(const struct py_mem *m, const struct py_layout *L,
		 uint64_t addr, char **out);

#endif /* _TPROF_LIVE_PYCODE_H */
