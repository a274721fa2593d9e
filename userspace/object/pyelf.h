/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tprof-read: what an ELF object says about CPython (python-frames.md
 * sections 0, 1, 4, 5): is it a python3.X executable or a libpython3.X
 * library; where its _PyRuntime, Py_Version and PyCode_Type are; its eval
 * loop's code (_PyEval_EvalFrameDefault and the separate part of it that
 * compilers split off: Debian's 3.11 has one FDE of jump targets outside
 * the symbol). And of glibc: where pthread_getspecific finds a key's slot
 * from the thread pointer. Addresses are the ELF's own (no load bias).
 */
#ifndef _TPROF_OBJECT_PYELF_H
#define _TPROF_OBJECT_PYELF_H

#include <stdbool.h>
#include <stdint.h>

#include "object/object.h"

enum py_elf_kind {
	PY_ELF_NONE,
	PY_ELF_EXE,		/* python3.X: the interpreter linked in */
	PY_ELF_LIB,		/* libpython3.X.so* */
};

#define PY_EVAL_MAX_RANGES 4

struct py_range {
	uint64_t start, end;
};

struct py_elf {
	enum py_elf_kind kind;
	unsigned int name_minor;	/* X of the name's 3.X */
	char abiflags[4];		/* the name's after 3.X: "d", "t" */
	uint64_t runtime, runtime_size;	/* _PyRuntime */
	uint64_t py_version;		/* Py_Version, 0: none (before 3.11) */
	uint32_t file_version;		/* its value in the file, 0: unread */
	uint64_t code_type;		/* PyCode_Type */
	uint64_t str_type;		/* PyUnicode_Type */
	uint64_t code_basicsize;	/* its tp_basicsize in the file */
	bool debug;			/* a Py_DEBUG build */
	/* the eval loop: the symbol first, then its split-off parts */
	struct py_range eval[PY_EVAL_MAX_RANGES];
	unsigned int neval;
	unsigned int cold_targets;	/* jump targets found in eval[1..] */
};

/*
 * What path's name says: a python3.X executable, a libpython3.X library,
 * or neither (PY_ELF_NONE: python, python3, python2.7, pythonloader.so).
 * *minor gets X; abiflags (4 bytes) what follows it in the name ("d",
 * "t", ""). A hint only: py_elf__probe() reads what the file is.
 */
enum py_elf_kind py_elf__name(const char *path, unsigned int *minor,
			      char abiflags[4]);

/*
 * Read o's CPython facts into pe. 0; -ENOENT when o is no interpreter (no
 * _PyRuntime defined, or an executable that runs a libpython it needs:
 * a launcher, whose libpython mapping is the interpreter); -ENOEXEC when
 * o has no ELF.
 */
int py_elf__inspect(struct object *o, enum py_elf_kind kind,
		    struct py_elf *pe);

/*
 * glibc's pthread_getspecific() in libc object o, decoded: a key k < 32's
 * value is at thread pointer + *slot0 + 16 * k (glibc 2.36: 0x318).
 * 0, or -ENOENT (no such function, or code of another shape).
 */
int py_elf__tsd_slot0(struct object *o, int64_t *slot0);

/* What an ELF's contents say, whatever the file is called. */
enum py_probe {
	PY_PROBE_NONE,		/* no CPython */
	PY_PROBE_RUNTIME,	/* defines _PyRuntime: an interpreter */
	PY_PROBE_LAUNCHER,	/* needs a libpython3.X: that is the one */
	PY_PROBE_OLD,		/* Py_Initialize, no _PyRuntime: before 3.7 */
};

/*
 * elf's CPython by its contents: _PyRuntime (the symbol, else the
 * .PyRuntime section), a DT_NEEDED libpython3.X, Py_Initialize. With
 * PY_PROBE_RUNTIME, *kind is PY_ELF_LIB for a library (DT_SONAME), else
 * PY_ELF_EXE; PY_ELF_NONE otherwise.
 */
enum py_probe py_elf__probe(Elf *elf, enum py_elf_kind *kind);
/* The same of the file at path: a py_probe, or -errno of its open. */
int py_elf__probe_path(const char *path, enum py_elf_kind *kind);

/* A debug build (Py_DEBUG): its objects are not the tables' layouts. */
bool py_elf__debug_build(Elf *elf);

/* A launcher: does elf's DT_NEEDED name a libpython3.X? */
bool py_elf__needs_libpython(Elf *elf);

/* glibc 2.36's (x86-64): the value to try when libc cannot be decoded */
#define PY_TSD_SLOT0_DEFAULT 0x318

#endif /* _TPROF_OBJECT_PYELF_H */
