// SPDX-License-Identifier: GPL-2.0
/* tprof-read: names, files, lines and inline chains with elfutils libdw. */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <gelf.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/demangle.h"
#include "lib/util.h"
#include "object/scopes.h"
#include "object/symbols.h"
#include "object/symtab.h"

struct cu_range {
	Dwarf_Addr lo, hi;
	Dwarf_Off off;
};

struct symbolizer {
	struct objects *objs;
	bool own;		/* objs made here, freed here */
	char **strs;		/* strings made here (absolute paths) */
	size_t nstrs, capstrs;
	struct hindex str_idx;
};

struct symbolizer *symbolizer__new_on(struct objects *objs)
{
	struct symbolizer *s = xcalloc(1, sizeof(*s));

	s->objs = objs;
	return s;
}

struct symbolizer *symbolizer__new(void)
{
	struct symbolizer *s = symbolizer__new_on(objects__new());

	s->own = true;
	return s;
}

void symbolizer__free(struct symbolizer *s)
{
	size_t i;

	if (!s)
		return;
	if (s->own)
		objects__free(s->objs);
	for (i = 0; i < s->nstrs; i++)
		free(s->strs[i]);
	free(s->strs);
	hindex_free(&s->str_idx);
	free(s);
}

struct objects *symbolizer__objects(struct symbolizer *s)
{
	return s->objs;
}

static const char *intern(struct symbolizer *s, const char *str)
{
	uint64_t h = hash_bytes(str, strlen(str), 0);
	struct hiter it = { 0 };
	uint32_t item;

	while (hindex_next(&s->str_idx, h, &it, &item))
		if (!strcmp(s->strs[item - 1], str))
			return s->strs[item - 1];
	GROW(s->strs, s->capstrs, s->nstrs + 1);
	s->strs[s->nstrs++] = xstrdup(str);
	hindex_put(&s->str_idx, h, s->nstrs);
	return s->strs[s->nstrs - 1];
}

/* Relative source paths are relative to the CU's DW_AT_comp_dir. */
static const char *abs_src(struct symbolizer *s, Dwarf_Die *cu,
			   const char *src)
{
	Dwarf_Attribute a;
	const char *dir;
	char buf[4096];

	if (!src)
		return "";
	if (src[0] == '/' || !src[0])
		return src;
	dir = dwarf_formstring(dwarf_attr(cu, DW_AT_comp_dir, &a));
	if (!dir || !*dir)
		return src;
	snprintf(buf, sizeof(buf), "%s/%s", dir, src);
	return intern(s, buf);
}

static int cmp_cu(const void *a, const void *b)
{
	const struct cu_range *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* Go writes no .debug_aranges, so libdw cannot map a PC to its CU. */
static void build_cu_table(struct object *f)
{
	Dwarf_Off off = 0, next;
	size_t hsize, cap = 0;

	f->cus_built = true;
	while (dwarf_nextcu(f->dwarf, off, &next, &hsize, NULL, NULL,
			    NULL) == 0) {
		Dwarf_Addr base, lo, hi;
		Dwarf_Die die;
		ptrdiff_t it = 0;

		if (dwarf_offdie(f->dwarf, off + hsize, &die)) {
			while ((it = dwarf_ranges(&die, it, &base, &lo, &hi)) >
			       0) {
				if (hi <= lo)
					continue;
				GROW(f->cus, cap, f->ncus + 1);
				f->cus[f->ncus++] = (struct cu_range){
					lo, hi, off + hsize };
			}
		}
		off = next;
	}
	qsort(f->cus, f->ncus, sizeof(*f->cus), cmp_cu);
}

static bool find_cu(struct object *f, Dwarf_Addr pc, Dwarf_Die *cu)
{
	size_t lo, i, tries;

	if (!f->cus_built)
		build_cu_table(f);
	if (!f->ncus || f->cus[0].lo > pc)
		return false;
	lo = last_at_most(f->cus, f->ncus, sizeof(*f->cus),
			  offsetof(struct cu_range, lo), pc);
	/* ranges may nest or overlap; look back a little */
	for (i = lo + 1, tries = 0; i-- > 0 && tries < 64; tries++)
		if (f->cus[i].lo <= pc && pc < f->cus[i].hi)
			return dwarf_offdie(f->dwarf, f->cus[i].off, cu) != NULL;
	return false;
}

static const char *die_str(Dwarf_Die *die, unsigned int at)
{
	Dwarf_Attribute a;

	return dwarf_formstring(dwarf_attr_integrate(die, at, &a));
}

static int die_udata(Dwarf_Die *die, unsigned int at, bool integrate)
{
	Dwarf_Attribute a, *ap;
	Dwarf_Word w;

	ap = integrate ? dwarf_attr_integrate(die, at, &a) :
			 dwarf_attr(die, at, &a);
	if (!ap || dwarf_formudata(ap, &w) || w > INT32_MAX)
		return 0;
	return (int)w;
}

/*
 * A symbol's name as people read it: C++ demangled and qualified
 * ("geo::Circle::area() const", where DW_AT_name says only "area" and merges
 * it with every other area), else as it is. Interned: lives as long as s.
 */
static const char *readable(struct symbolizer *s, const char *name)
{
	char *d = demangle(name);
	const char *r;

	if (!d)
		return name;
	r = intern(s, d);
	free(d);
	return r;
}

static void fill_func(struct symbolizer *s, struct sym_frame *fr,
		      Dwarf_Die *die)
{
	const char *ln = die_str(die, DW_AT_linkage_name);

	if (!ln)
		ln = die_str(die, DW_AT_MIPS_linkage_name);
	fr->name = ln ? readable(s, ln) : NULL;
	if (!fr->name || fr->name == ln)
		fr->name = die_str(die, DW_AT_name);
	if (!fr->name)
		fr->name = ln;
	fr->system_name = ln ? ln : fr->name;
	fr->start_line = die_udata(die, DW_AT_decl_line, true);
}

/*
 * Go marks its compiler-made wrappers (method value "-fm" wrappers, a
 * defer's "deferwrapN", a go statement's "gowrapN") with DW_AT_trampoline;
 * its traceback elides them, so runtime/pprof never shows one above a
 * real frame. Neither does tprof, or an inlined os.(*File).Close would
 * gain a caller "os.ReadFile.deferwrap1" that Go's own profile lacks.
 */
static bool is_wrapper(Dwarf_Die *die)
{
	Dwarf_Attribute a;
	bool flag = false;

	/* Go writes DW_FORM_flag; dwarf_formflag() also takes flag_present */
	return dwarf_attr_integrate(die, DW_AT_trampoline, &a) &&
	       !dwarf_formflag(&a, &flag) && flag;
}

/* Drop wrapper frames when a real one is left (is_wrapper). */
static int elide_wrappers(struct sym_frame *frames, const bool *wrap, int n)
{
	int i, k = 0;

	for (i = 0; i < n; i++)
		if (!wrap[i])
			k++;
	if (!k || k == n)
		return n;
	for (i = 0, k = 0; i < n; i++)
		if (!wrap[i])
			frames[k++] = frames[i];
	return k;
}

static int lookup_dwarf(struct symbolizer *s, struct object *f,
			Dwarf_Addr vaddr,
			struct sym_frame *frames, int max)
{
	Dwarf_Addr pc = vaddr - f->dwbias, bias;
	Dwarf_Die cu, *cup, funcs[SYM_MAX_INLINE];
	struct sym_frame at_line;	/* the file and line alone */
	Dwarf_Files *files = NULL;
	size_t nfiles = 0;
	Dwarf_Line *line;
	bool wrap[SYM_MAX_INLINE];
	int n, i;

	if (max > SYM_MAX_INLINE)
		max = SYM_MAX_INLINE;
	cup = dwfl_module_addrdie(f->mod, vaddr, &bias);
	if (cup) {
		cu = *cup;
		pc = vaddr - bias;
	} else if (!find_cu(f, pc, &cu)) {
		return 0;
	}
	memset(&frames[0], 0, sizeof(frames[0]));
	frames[0].file = "";
	line = dwarf_getsrc_die(&cu, pc);
	if (line) {
		const char *src = dwarf_linesrc(line, NULL, NULL);
		int l = 0;

		dwarf_lineno(line, &l);
		frames[0].file = abs_src(s, &cu, src);
		frames[0].line = l;
	}
	at_line = frames[0];
	if (!f->scopes)
		f->scopes = scopes__new();
	n = scopes__funcs(f->scopes, &cu, pc, funcs, max);
	if (!n)
		return line ? 1 : 0;	/* caller fills the symtab name */
	fill_func(s, &frames[0], &funcs[0]);
	wrap[0] = is_wrapper(&funcs[0]);
	dwarf_getsrcfiles(&cu, &files, &nfiles);
	/* each inlined instance's caller, at the call's file and line
	 * (eu-addr2line) */
	for (i = 1; i < n; i++) {
		int call_file = die_udata(&funcs[i - 1], DW_AT_call_file, false);
		const char *src = NULL;

		memset(&frames[i], 0, sizeof(frames[i]));
		fill_func(s, &frames[i], &funcs[i]);
		if (files && (size_t)call_file < nfiles)
			src = dwarf_filesrc(files, call_file, NULL, NULL);
		frames[i].file = abs_src(s, &cu, src);
		frames[i].line = die_udata(&funcs[i - 1], DW_AT_call_line, false);
		wrap[i] = is_wrapper(&funcs[i]);
		/* a caller whose name cannot be read (an abstract origin in
		 * a dwz file that is missing): the symtab's name alone, as
		 * when libdw's dwarf_getscopes() gave up there */
		if (!frames[i].name) {
			frames[0] = at_line;
			return line ? 1 : 0;
		}
	}
	return elide_wrappers(frames, wrap, n);
}

static bool in_plt(struct object *f, Dwarf_Addr vaddr)
{
	Elf_Scn *scn = NULL;
	GElf_Addr bias;
	size_t shstrndx;
	Elf *elf = dwfl_module_getelf(f->mod, &bias);

	if (!elf || elf_getshdrstrndx(elf, &shstrndx))
		return false;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *name;

		if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_ALLOC) ||
		    vaddr < sh.sh_addr || vaddr >= sh.sh_addr + sh.sh_size)
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		return name && !strncmp(name, ".plt", 4);
	}
	return false;
}

/* The ELF symbol holding vaddr: dwfl_module_addrinfo()'s answer, from an
 * index built once per file (symtab.h). */
static const char *symbol_at(struct object *f, Dwarf_Addr vaddr)
{
	if (!f->syms_built) {
		f->syms = symtab__new(f->mod);
		f->syms_built = true;
	}
	return symtab__lookup(f->syms, vaddr);
}

/*
 * GCC gives a lambda's operator() no DW_AT_linkage_name, so DWARF names it
 * "operator()" alone. The ELF symbol of the function around vaddr has the
 * mangled name; a GCC clone's suffix (".constprop.0", ".isra.0") is not
 * part of it (no Itanium name has a '.'). Use it when it names the same
 * function.
 */
static void qualify_from_symtab(struct symbolizer *s, struct object *f,
				Dwarf_Addr vaddr, struct sym_frame *fr)
{
	const char *sym = symbol_at(f, vaddr), *dot;
	char base[1024], *d;

	if (!sym || strncmp(sym, "_Z", 2))
		return;
	dot = strchr(sym, '.');
	snprintf(base, sizeof(base), "%.*s",
		 dot ? (int)(dot - sym) : (int)strlen(sym), sym);
	d = demangle(base);
	if (d && strstr(d, fr->name)) {
		fr->name = intern(s, d);
		fr->system_name = intern(s, base);
	}
	free(d);
}

static int lookup_vaddr(struct symbolizer *s, struct object *f,
			uint64_t vaddr, struct sym_frame *frames, int max)
{
	const char *symname = NULL;
	int n = 0, i;

	if (!f->mod || max <= 0)
		return 0;
	if (f->dwarf)
		n = lookup_dwarf(s, f, vaddr, frames, max);
	/* the function itself (outermost frame) had no linkage name */
	if (n > 0 && frames[n - 1].name &&
	    frames[n - 1].system_name == frames[n - 1].name)
		qualify_from_symtab(s, f, vaddr, &frames[n - 1]);
	if (n == 0 || !frames[0].name) {
		symname = symbol_at(f, vaddr);
		if (!symname && n == 0 && in_plt(f, vaddr))
			symname = "[plt]";	/* stubs have no symbols */
		if (!symname)
			return 0;	/* a line but no function: not useful */
		if (n == 0) {
			memset(&frames[0], 0, sizeof(frames[0]));
			frames[0].file = "";
			n = 1;
		}
		frames[0].name = readable(s, symname);
		frames[0].system_name = symname;
	}
	for (i = 0; i < n; i++) {
		if (!frames[i].name)
			frames[i].name = "";
		if (!frames[i].system_name)
			frames[i].system_name = frames[i].name;
	}
	return n;
}

int symbolizer__lookup_vaddr(struct symbolizer *s, const char *path,
			     uint64_t vaddr, struct sym_frame *frames, int max)
{
	struct object *o = objects__file(s->objs, path, NULL);

	if (!object__symbols(s->objs, o))
		return 0;
	return lookup_vaddr(s, o, vaddr, frames, max);
}

bool object__func_range(struct objects *objs, struct object *o,
			uint64_t vaddr, uint64_t *lo, uint64_t *hi)
{
	if (!o || !object__symbols(objs, o) || !o->mod)
		return false;
	if (!o->syms_built) {
		o->syms = symtab__new(o->mod);
		o->syms_built = true;
	}
	return symtab__range(o->syms, vaddr, lo, hi);
}

const struct sym_file_info *symbolizer__object(struct symbolizer *s,
					       struct object *o)
{
	object__symbols(s->objs, o);
	return &o->info;
}

int symbolizer__lookup_object(struct symbolizer *s, struct object *o,
			      uint64_t start, uint64_t offset, uint64_t addr,
			      struct sym_frame *frames, int max)
{
	uint64_t vaddr;

	if (!o || !object__symbols(s->objs, o) ||
	    !object__vaddr(o, start, offset, addr, &vaddr))
		return 0;
	return lookup_vaddr(s, o, vaddr, frames, max);
}

const struct sym_file_info *symbolizer__file(struct symbolizer *s,
					     const char *path,
					     const char *root)
{
	return symbolizer__object(s, objects__file(s->objs, path, root));
}

int symbolizer__lookup(struct symbolizer *s, const char *path,
		       const char *root, uint64_t start, uint64_t offset,
		       uint64_t addr, struct sym_frame *frames, int max)
{
	return symbolizer__lookup_object(s, objects__file(s->objs, path, root),
					 start, offset, addr, frames, max);
}
