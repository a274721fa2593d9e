// SPDX-License-Identifier: GPL-2.0
/* tprof-read: CPython's facts from its ELF, glibc's TSD slot from libc's. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "object/pyelf.h"

/* ---- names ---- */

/* "3.X" then abiflags, at s: X's value, or -1 */
static int parse_minor(const char *s, const char **end)
{
	char *e;
	long v;

	*end = s;
	if (s[0] != '3' || s[1] != '.' || !isdigit((unsigned char)s[2]))
		return -1;
	v = strtol(s + 2, &e, 10);
	if (v < 0 || v > 99)
		return -1;
	*end = e;
	return (int)v;
}

enum py_elf_kind py_elf__name(const char *path, unsigned int *minor,
			      char abiflags[4])
{
	const char *base = strrchr(path, '/'), *end;
	size_t n;
	int v;

	base = base ? base + 1 : path;
	memset(abiflags, 0, 4);
	if (!strncmp(base, "python", 6)) {
		/* end is set only where a version was parsed: python,
		 * python3 and python2.7 have none to look past */
		v = parse_minor(base + 6, &end);
		if (v < 0)
			return PY_ELF_NONE;
		n = strlen(end);
		/* python3.11, python3.11d, python3.13t (no suffix past those;
		 * " (deleted)" is how maps shows a replaced file) */
		if (n > 3 || strspn(end, "dmt") != n)
			return PY_ELF_NONE;
		memcpy(abiflags, end, n);
		*minor = v;
		return PY_ELF_EXE;
	}
	if (!strncmp(base, "libpython", 9)) {
		v = parse_minor(base + 9, &end);
		if (v < 0)
			return PY_ELF_NONE;
		n = strspn(end, "dmt");
		if (n > 3 || strncmp(end + n, ".so", 3))
			return PY_ELF_NONE;
		memcpy(abiflags, end, n);
		*minor = v;
		return PY_ELF_LIB;
	}
	return PY_ELF_NONE;
}

/* ---- symbols and bytes ---- */

/*
 * The entries of an ELF's sections of one type (SHT_DYNSYM, SHT_SYMTAB,
 * SHT_DYNAMIC), one at a time: entry i of d, in the section sh. Starts
 * from { .elf = elf }.
 */
struct elf_table {
	Elf *elf;
	Elf_Scn *scn;
	GElf_Shdr sh;
	Elf_Data *d;
	size_t i, n;
};

/* The next entry of t's sections of type type; false when none is left. */
static bool table_next(struct elf_table *t, Elf64_Word type)
{
	if (t->scn && t->i + 1 < t->n) {
		t->i++;
		return true;
	}
	while ((t->scn = elf_nextscn(t->elf, t->scn))) {
		if (!gelf_getshdr(t->scn, &t->sh) || t->sh.sh_type != type ||
		    !t->sh.sh_entsize)
			continue;
		t->d = elf_getdata(t->scn, NULL);
		t->n = t->sh.sh_size / t->sh.sh_entsize;
		t->i = 0;
		if (t->d && t->n)
			return true;
	}
	return false;
}

/* The next defined symbol of t's tables of type, and its name (or NULL). */
static bool sym_next(struct elf_table *t, Elf64_Word type, GElf_Sym *s,
		     const char **name)
{
	while (table_next(t, type))
		if (gelf_getsym(t->d, t->i, s) && s->st_shndx != SHN_UNDEF) {
			*name = elf_strptr(t->elf, t->sh.sh_link, s->st_name);
			return true;
		}
	return false;
}

/* A symbol named name defined in o (.dynsym, then .symtab). */
static bool find_sym(Elf *elf, const char *name, GElf_Sym *out)
{
	static const Elf64_Word types[] = { SHT_DYNSYM, SHT_SYMTAB };
	size_t t;

	for (t = 0; t < 2; t++) {
		struct elf_table tab = { .elf = elf };
		const char *nm;
		GElf_Sym s;

		while (sym_next(&tab, types[t], &s, &nm))
			if (nm && !strcmp(nm, name)) {
				*out = s;
				return true;
			}
	}
	return false;
}

/* A dynamic entry tag in elf (with a string that want accepts, if given)? */
static bool has_dyn(Elf *elf, Elf64_Sxword tag, bool (*want)(const char *))
{
	struct elf_table t = { .elf = elf };

	while (table_next(&t, SHT_DYNAMIC)) {
		GElf_Dyn dyn;
		const char *nm;

		if (!gelf_getdyn(t.d, t.i, &dyn) || dyn.d_tag != tag)
			continue;
		if (!want)
			return true;
		nm = elf_strptr(elf, t.sh.sh_link, dyn.d_un.d_val);
		if (nm && want(nm))
			return true;
	}
	return false;
}

static bool is_libpython(const char *name)
{
	unsigned int minor;
	char flags[4];

	return py_elf__name(name, &minor, flags) == PY_ELF_LIB;
}

bool py_elf__needs_libpython(Elf *elf)
{
	return has_dyn(elf, DT_NEEDED, is_libpython);
}

/* len bytes of o's file image at vaddr (within a PT_LOAD's file part) */
static const unsigned char *file_bytes(const struct object *o,
				       uint64_t vaddr, size_t len)
{
	size_t size, i;
	char *raw = elf_rawfile(o->elf, &size);

	if (!raw)
		return NULL;
	for (i = 0; i < o->nloads; i++) {
		const GElf_Phdr *ph = &o->loads[i];
		uint64_t off;

		if (vaddr < ph->p_vaddr || vaddr - ph->p_vaddr >= ph->p_filesz ||
		    len > ph->p_filesz - (vaddr - ph->p_vaddr))
			continue;
		off = ph->p_offset + (vaddr - ph->p_vaddr);
		if (off > size || len > size - off)
			return NULL;
		return (const unsigned char *)raw + off;
	}
	return NULL;
}

/* _PyRuntime's section, for a binary without the symbol (py-spy's way) */
static bool runtime_section(Elf *elf, uint64_t *addr, uint64_t *size)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return false;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *nm;

		if (!gelf_getshdr(scn, &sh))
			continue;
		nm = elf_strptr(elf, shstrndx, sh.sh_name);
		if (nm && !strcmp(nm, ".PyRuntime")) {
			*addr = sh.sh_addr;
			*size = sh.sh_size;
			return true;
		}
	}
	return false;
}

/* ---- what the contents say ---- */

/* A DT_SONAME: a shared library rather than a program. */
static bool has_soname(Elf *elf)
{
	return has_dyn(elf, DT_SONAME, NULL);
}

enum py_probe py_elf__probe(Elf *elf, enum py_elf_kind *kind)
{
	uint64_t a, sz;
	GElf_Sym s;

	*kind = PY_ELF_NONE;
	if (!elf || elf_kind(elf) != ELF_K_ELF)
		return PY_PROBE_NONE;
	if (find_sym(elf, "_PyRuntime", &s) || runtime_section(elf, &a, &sz)) {
		/* a launcher maps the libpython that is the interpreter */
		if (py_elf__needs_libpython(elf))
			return PY_PROBE_LAUNCHER;
		*kind = has_soname(elf) ? PY_ELF_LIB : PY_ELF_EXE;
		return PY_PROBE_RUNTIME;
	}
	if (py_elf__needs_libpython(elf))
		return PY_PROBE_LAUNCHER;
	/* CPython 2 and 3 before 3.7 had no _PyRuntime */
	if (find_sym(elf, "Py_Initialize", &s))
		return PY_PROBE_OLD;
	return PY_PROBE_NONE;
}

int py_elf__probe_path(const char *path, enum py_elf_kind *kind)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), ret = PY_PROBE_NONE;
	struct stat st;
	Elf *elf;

	*kind = PY_ELF_NONE;
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return ret;
	}
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (elf) {
		ret = py_elf__probe(elf, kind);
		elf_end(elf);
	}
	close(fd);
	return ret;
}

bool py_elf__debug_build(Elf *elf)
{
	GElf_Sym s;

	/* defined with Py_REF_DEBUG, which Py_DEBUG implies */
	return find_sym(elf, "_Py_NegativeRefcount", &s);
}

/* ---- the eval loop's split-off parts ---- */

/* The text (executable PT_LOAD) holding vaddr? */
static bool in_text(const struct object *o, uint64_t vaddr)
{
	size_t i;

	for (i = 0; i < o->nloads; i++)
		if ((o->loads[i].p_flags & PF_X) &&
		    vaddr >= o->loads[i].p_vaddr &&
		    vaddr - o->loads[i].p_vaddr < o->loads[i].p_filesz)
			return true;
	return false;
}

struct fde_hits {
	uint64_t start, end;
	unsigned int hits;
};

/*
 * Parts of the function [start, end) that the compiler put elsewhere
 * (.text.unlikely's "_PyEval_EvalFrameDefault.cold"): without a symbol
 * (stripped), the FDEs that the function's own jumps land inside of,
 * away from their starts. A call or tail call goes to a function's first
 * byte; only a part of the same function is jumped into at many places
 * (Debian 3.11: 314 targets in one FDE). The bytes are scanned for jmp
 * rel32 (e9) and jcc rel32 (0f 8x) without decoding instructions, so a
 * few chance matches land anywhere: an FDE needs MIN_COLD_TARGETS distinct
 * targets.
 */
#define MIN_COLD_TARGETS 8

static void add_hit(struct fde_hits *h, size_t *nh, size_t cap,
		    uint64_t s, uint64_t e)
{
	size_t i;

	for (i = 0; i < *nh; i++)
		if (h[i].start == s && h[i].end == e) {
			h[i].hits++;
			return;
		}
	if (*nh < cap)
		h[(*nh)++] = (struct fde_hits){ s, e, 1 };
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void cold_parts(struct object *o, struct py_elf *pe)
{
	uint64_t start = pe->eval[0].start, end = pe->eval[0].end, *tg;
	const unsigned char *b = file_bytes(o, start, end - start);
	struct fde_hits hits[32];
	size_t nt = 0, nh = 0, i;

	if (!b || !object__cfi(o) || !o->eh)
		return;
	tg = malloc((end - start) * sizeof(*tg));
	if (!tg)
		return;
	for (i = 0; i + 6 <= end - start; i++) {
		int32_t rel;
		uint64_t t;

		if (b[i] == 0xe9) {
			memcpy(&rel, b + i + 1, 4);
			t = start + i + 5 + (int64_t)rel;
		} else if (b[i] == 0x0f && (b[i + 1] & 0xf0) == 0x80) {
			memcpy(&rel, b + i + 2, 4);
			t = start + i + 6 + (int64_t)rel;
		} else {
			continue;
		}
		if ((t < start || t >= end) && in_text(o, t))
			tg[nt++] = t;
	}
	qsort(tg, nt, sizeof(*tg), cmp_u64);
	for (i = 0; i < nt; i++) {
		Dwarf_Frame *fr;
		Dwarf_Addr s, e;

		if (i && tg[i] == tg[i - 1])
			continue;
		if (dwarf_cfi_addrframe(o->eh, tg[i], &fr))
			continue;
		if (dwarf_frame_info(fr, &s, &e, NULL) >= 0 && s != tg[i])
			add_hit(hits, &nh, 32, s, e);
		free(fr);
	}
	free(tg);
	for (i = 0; i < nh && pe->neval < PY_EVAL_MAX_RANGES; i++) {
		if (hits[i].hits < MIN_COLD_TARGETS ||
		    (hits[i].start < end && hits[i].end > start))
			continue;
		pe->eval[pe->neval++] = (struct py_range){ hits[i].start,
							    hits[i].end };
		pe->cold_targets += hits[i].hits;
	}
}

/* "_PyEval_EvalFrameDefault.cold" and the like in a .symtab */
static void cold_symbols(Elf *elf, struct py_elf *pe)
{
	static const char prefix[] = "_PyEval_EvalFrameDefault.";
	struct elf_table t = { .elf = elf };
	const char *nm;
	GElf_Sym s;

	while (sym_next(&t, SHT_SYMTAB, &s, &nm)) {
		if (!s.st_size || !nm ||
		    strncmp(nm, prefix, sizeof(prefix) - 1) ||
		    pe->neval >= PY_EVAL_MAX_RANGES)
			continue;
		pe->eval[pe->neval++] = (struct py_range){
			s.st_value, s.st_value + s.st_size };
	}
}

int py_elf__inspect(struct object *o, enum py_elf_kind kind,
		    struct py_elf *pe)
{
	const unsigned char *p;
	GElf_Sym s;

	GElf_Ehdr eh;

	memset(pe, 0, sizeof(*pe));
	if (!o || !o->elf || elf_kind(o->elf) != ELF_K_ELF)
		return -ENOEXEC;
	/*
	 * The frame layouts (object/pylayout.c) and the thread-state lookup
	 * (py_elf__tsd_slot0() decodes x86-64 code) are x86-64's: another
	 * machine's interpreter (arm64) keeps its native frames.
	 */
	if (!gelf_getehdr(o->elf, &eh) || eh.e_machine != EM_X86_64)
		return -EPROTONOSUPPORT;
	pe->kind = kind;
	if (find_sym(o->elf, "_PyRuntime", &s)) {
		pe->runtime = s.st_value;
		pe->runtime_size = s.st_size;
	} else if (!runtime_section(o->elf, &pe->runtime,
				    &pe->runtime_size)) {
		return -ENOENT;
	}
	/* a launcher: the interpreter is the libpython it maps */
	if (kind == PY_ELF_EXE && py_elf__needs_libpython(o->elf))
		return -ENOENT;
	if (find_sym(o->elf, "Py_Version", &s)) {
		pe->py_version = s.st_value;
		p = file_bytes(o, s.st_value, 4);
		if (p)
			memcpy(&pe->file_version, p, 4);
	}
	if (find_sym(o->elf, "PyCode_Type", &s)) {
		pe->code_type = s.st_value;
		/* PyVarObject head (24 bytes), tp_name: tp_basicsize at 32 */
		p = file_bytes(o, s.st_value + 32, 8);
		if (p)
			memcpy(&pe->code_basicsize, p, 8);
	}
	if (find_sym(o->elf, "PyUnicode_Type", &s))
		pe->str_type = s.st_value;
	pe->debug = py_elf__debug_build(o->elf);
	if (find_sym(o->elf, "_PyEval_EvalFrameDefault", &s) && s.st_size) {
		pe->eval[0] = (struct py_range){ s.st_value,
						 s.st_value + s.st_size };
		pe->neval = 1;
		cold_symbols(o->elf, pe);
		if (pe->neval == 1)
			cold_parts(o, pe);
	}
	return 0;
}

/*
 * glibc 2.36's pthread_getspecific, for key < 32 (PTHREAD_KEY_2NDLEVEL_SIZE):
 *	cmp $0x1f,%edi; ja ...; mov %edi,%eax
 *	add $0x31,%rax; shl $0x4,%rax	(48 83 c0 31, 48 c1 e0 04)
 *	add %fs:0x10,%rax		(64 48 03 04 25 10 00 00 00)
 *	mov 0x8(%rax),%rdx		(48 8b 50 08: the slot's data)
 * so the value is at TP + (0x31 << 4) + 16 * key + 8. Another shape is
 * not guessed at: the caller validates its default against live threads.
 */
int py_elf__tsd_slot0(struct object *o, int64_t *slot0)
{
	static const unsigned char shl_fs[] = {
		0x48, 0xc1, 0xe0, 0x04,
		0x64, 0x48, 0x03, 0x04, 0x25, 0x10, 0x00, 0x00, 0x00,
	};
	const unsigned char *b;
	GElf_Sym s;
	size_t i, n;

	if (!o || !o->elf || !find_sym(o->elf, "pthread_getspecific", &s))
		return -ENOENT;
	n = s.st_size && s.st_size < 64 ? s.st_size : 64;
	b = file_bytes(o, s.st_value, n);
	if (!b)
		return -ENOENT;
	for (i = 0; i + 4 + sizeof(shl_fs) + 4 <= n; i++) {
		const unsigned char *m = b + i + 4 + sizeof(shl_fs);

		if (b[i] != 0x48 || b[i + 1] != 0x83 || b[i + 2] != 0xc0 ||
		    memcmp(b + i + 4, shl_fs, sizeof(shl_fs)))
			continue;
		/* mov disp8(%rax),%reg: the data word's offset in the slot */
		if (m[0] != 0x48 || m[1] != 0x8b || (m[2] & 0xc7) != 0x40)
			return -ENOENT;
		*slot0 = ((int64_t)(int8_t)b[i + 3] * 16) + (int8_t)m[3];
		return 0;
	}
	return -ENOENT;
}
