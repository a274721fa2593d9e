// SPDX-License-Identifier: GPL-2.0
/* tprof-read: ELF/DWARF symbolization with elfutils libdw, and kallsyms. */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/buildid.h"
#include "object/debuginfod.h"
#include "lib/demangle.h"
#include "object/symbols.h"
#include "object/symtab.h"
#include "lib/util.h"

struct cu_range {
	Dwarf_Addr lo, hi;
	Dwarf_Off off;
};

struct sym_file {
	char *key;		/* path as given */
	char *want;		/* checked opens: the build-id required, or NULL */
	bool checked;		/* opened by symbolizer__file_checked() */
	Dwfl *dwfl;
	Dwfl_Module *mod;
	Dwarf *dwarf;
	Dwarf_Addr dwbias;
	GElf_Phdr *loads;
	size_t nloads;
	struct cu_range *cus;	/* own PC->CU table (Go: no .debug_aranges) */
	size_t ncus;
	bool cus_built;
	struct symtab *syms;	/* built at the first name asked of it */
	bool syms_built;
	struct sym_file_info info;
	char build_id[BUILDID_HEX_LEN];
	char mismatch[BUILDID_HEX_LEN];
};

struct symbolizer {
	char **strs;		/* strings made here (absolute paths) */
	size_t nstrs, capstrs;
	struct hindex str_idx;
	struct sym_file **files;	/* pointers: infos handed out stay put */
	size_t nfiles, capfiles;
	char *debuginfo_path;
	Dwfl_Callbacks cb;
};

struct symbolizer *symbolizer__new(void)
{
	struct symbolizer *s = xcalloc(1, sizeof(*s));

	s->cb.find_elf = dwfl_build_id_find_elf;
	/* .gnu_debuglink next to the file, .debug/, /usr/lib/debug (+ build-id),
	 * then with --debuginfod a server */
	s->cb.find_debuginfo = debuginfod__find_debuginfo;
	s->cb.section_address = dwfl_offline_section_address;
	s->debuginfo_path = NULL;
	s->cb.debuginfo_path = &s->debuginfo_path;
	return s;
}

void symbolizer__free(struct symbolizer *s)
{
	size_t i;

	if (!s)
		return;
	for (i = 0; i < s->nfiles; i++) {
		struct sym_file *f = s->files[i];

		symtab__free(f->syms);
		if (f->dwfl)
			dwfl_end(f->dwfl);
		free(f->key);
		free(f->want);
		free(f->loads);
		free(f->cus);
		free(f);
	}
	for (i = 0; i < s->nstrs; i++)
		free(s->strs[i]);
	free(s->strs);
	hindex_free(&s->str_idx);
	free(s->files);
	free(s);
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

/*
 * Copy our own vDSO (same kernel, same image as the target's) to a temp
 * file libdw can open. Returns an fd (the caller closes it) or -1.
 */
static int vdso_file(char *path, size_t len)
{
	uint64_t start = 0, end = 0;
	unsigned long long a, b;
	char line[512];
	FILE *fp;
	int fd;

	fp = fopen("/proc/self/maps", "re");
	if (!fp)
		return -1;
	while (fgets(line, sizeof(line), fp))
		if (strstr(line, "[vdso]") &&
		    sscanf(line, "%llx-%llx", &a, &b) == 2) {
			start = a;
			end = b;
			break;
		}
	fclose(fp);
	if (!start || end <= start)
		return -1;
	snprintf(path, len, "%s/tprof-vdso.XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	fd = mkostemp(path, O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (write(fd, (const void *)(uintptr_t)start, end - start) !=
	    (ssize_t)(end - start)) {
		close(fd);
		unlink(path);
		return -1;
	}
	return fd;
}

/*
 * Hand fd (open on open_path, the file of mapping path) to libdwfl, which
 * owns it on success; closed here on failure. unlink: open_path is a temp
 * copy (the vDSO) to remove once libelf has it open.
 */
static void load_fd(struct symbolizer *s, struct sym_file *f,
		    const char *path, const char *open_path, int fd,
		    bool unlink_after)
{
	const unsigned char *bits;
	GElf_Addr bid_vaddr, bias;
	Elf *elf;
	size_t i, nph;
	int n;

	f->dwfl = dwfl_begin(&s->cb);
	if (!f->dwfl) {
		close(fd);
		if (unlink_after)
			unlink(open_path);
		return;
	}
	dwfl_report_begin(f->dwfl);
	/*
	 * base 0 + add_p_vaddr: module addresses are the ELF's own vaddrs.
	 * The fd checked above, not the path again: libdwfl takes it on
	 * success.
	 */
	f->mod = dwfl_report_elf(f->dwfl, path, open_path, fd, 0, true);
	if (!f->mod)
		close(fd);
	dwfl_report_end(f->dwfl, NULL, NULL);
	if (unlink_after)
		unlink(open_path);	/* libelf has it open */
	if (!f->mod) {
		pr_debug("%s: %s", path, dwfl_errmsg(-1));
		return;
	}
	elf = dwfl_module_getelf(f->mod, &bias);
	if (!elf || elf_getphdrnum(elf, &nph))
		return;
	f->loads = xcalloc(nph, sizeof(*f->loads));
	for (i = 0; i < nph; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(elf, i, &ph) && ph.p_type == PT_LOAD)
			f->loads[f->nloads++] = ph;
	}
	f->info.loaded = true;
	n = dwfl_module_build_id(f->mod, &bits, &bid_vaddr);
	if (n > 0)
		buildid__hex(bits, n, f->build_id);
	f->info.has_symtab = dwfl_module_getsymtab(f->mod) > 0;
	f->dwarf = dwfl_module_getdwarf(f->mod, &f->dwbias);
	f->info.has_dwarf = f->dwarf != NULL;
	pr_debug("%s: %s: build-id %s symtab %d dwarf %d", path, open_path,
		 f->build_id, f->info.has_symtab, f->info.has_dwarf);
}

static void load_file(struct symbolizer *s, struct sym_file *f,
		      const char *path, const char *root)
{
	char buf[4096];
	const char *open_path = path;
	bool vdso = !strcmp(path, "[vdso]");
	int fd;

	f->info.build_id = f->build_id;
	f->info.mismatch = f->mismatch;
	if (vdso) {
		/* every process of this kernel maps the same vDSO image */
		fd = vdso_file(buf, sizeof(buf));
		if (fd < 0)
			return;
		open_path = buf;
	} else if (path[0] != '/') {
		return;
	} else {
		fd = open_regular(path);
	}
	if (fd < 0 && root) {
		snprintf(buf, sizeof(buf), "%s%s", root, path);
		fd = open_regular(buf);
		if (fd >= 0)
			open_path = buf;
	}
	if (fd < 0) {
		pr_debug("%s: %s", path, strerror(errno));
		return;
	}
	load_fd(s, f, path, open_path, fd, vdso);
}

/*
 * The first candidate that opens as an ELF file with build-id want (any,
 * when want is NULL). A file with another build-id is not the one the
 * target mapped: its names would be another build's.
 */
static void load_checked(struct symbolizer *s, struct sym_file *f,
			 const char *path, const char *want,
			 const char *const *cands, size_t n)
{
	char hex[BUILDID_HEX_LEN];
	size_t i;

	f->info.build_id = f->build_id;
	f->info.mismatch = f->mismatch;
	for (i = 0; i < n && !f->info.loaded; i++) {
		int fd = open_regular(cands[i]), len;

		if (fd < 0) {
			pr_debug("%s: %s", cands[i], strerror(errno));
			continue;
		}
		if (want) {
			len = buildid__hex_of_fd(fd, hex);
			if (len < 0 || strcmp(hex, want)) {
				pr_debug("%s: build-id %s, not %s", cands[i],
					 hex, want);
				snprintf(f->mismatch, sizeof(f->mismatch), "%s",
					 len < 0 ? "(not ELF)" :
					 *hex ? hex : "(none)");
				close(fd);
				continue;
			}
		}
		load_fd(s, f, path, cands[i], fd, false);
		if (!f->info.loaded && f->dwfl) {
			/* not an object libdwfl reads: the next candidate */
			dwfl_end(f->dwfl);
			f->dwfl = NULL;
			f->mod = NULL;
			f->dwarf = NULL;
			free(f->loads);
			f->loads = NULL;
			f->nloads = 0;
		}
	}
}

static struct sym_file *get_file(struct symbolizer *s, const char *path,
				 const char *root)
{
	struct sym_file *f;
	size_t i;

	for (i = 0; i < s->nfiles; i++)
		if (!s->files[i]->checked && !strcmp(s->files[i]->key, path))
			return s->files[i];
	GROW(s->files, s->capfiles, s->nfiles + 1);
	f = xcalloc(1, sizeof(*f));
	s->files[s->nfiles++] = f;
	f->key = xstrdup(path);
	load_file(s, f, path, root);
	return f;
}

static struct sym_file *find_checked(struct symbolizer *s, const char *path,
				     const char *want)
{
	size_t i;

	for (i = 0; i < s->nfiles; i++) {
		struct sym_file *f = s->files[i];

		if (f->checked && !strcmp(f->key, path) &&
		    (want ? f->want && !strcmp(f->want, want) : !f->want))
			return f;
	}
	return NULL;
}

const struct sym_file_info *
symbolizer__file_checked(struct symbolizer *s, const char *path,
			 const char *want_bid, const char *const *cands,
			 size_t n)
{
	struct sym_file *f = find_checked(s, path, want_bid);

	if (f)
		return &f->info;
	GROW(s->files, s->capfiles, s->nfiles + 1);
	f = xcalloc(1, sizeof(*f));
	s->files[s->nfiles++] = f;
	f->key = xstrdup(path);
	f->want = want_bid ? xstrdup(want_bid) : NULL;
	f->checked = true;
	load_checked(s, f, path, want_bid, cands, n);
	return &f->info;
}

const struct sym_file_info *symbolizer__file(struct symbolizer *s,
					     const char *path,
					     const char *root)
{
	return &get_file(s, path, root)->info;
}

static int cmp_cu(const void *a, const void *b)
{
	const struct cu_range *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* Go writes no .debug_aranges, so libdw cannot map a PC to its CU. */
static void build_cu_table(struct sym_file *f)
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

static bool find_cu(struct sym_file *f, Dwarf_Addr pc, Dwarf_Die *cu)
{
	size_t lo = 0, hi, i, tries;

	if (!f->cus_built)
		build_cu_table(f);
	hi = f->ncus;
	if (!hi || f->cus[0].lo > pc)
		return false;
	while (hi - lo > 1) {
		size_t mid = (lo + hi) / 2;

		if (f->cus[mid].lo <= pc)
			lo = mid;
		else
			hi = mid;
	}
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

static bool is_func(Dwarf_Die *die)
{
	int tag = dwarf_tag(die);

	return tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine;
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

static int lookup_dwarf(struct symbolizer *s, struct sym_file *f,
			Dwarf_Addr vaddr,
			struct sym_frame *frames, int max)
{
	Dwarf_Addr pc = vaddr - f->dwbias, bias;
	Dwarf_Die cu, *cup, *scopes = NULL, die;
	Dwarf_Files *files = NULL;
	size_t nfiles = 0;
	Dwarf_Line *line;
	bool wrap[SYM_MAX_INLINE];
	int n = 0, ns, i;

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
	ns = dwarf_getscopes(&cu, pc, &scopes);
	for (i = 0; i < ns && !is_func(&scopes[i]); i++)
		;
	if (ns <= 0 || i == ns) {
		free(scopes);
		return line ? 1 : 0;	/* caller fills the symtab name */
	}
	die = scopes[i];
	free(scopes);
	fill_func(s, &frames[0], &die);
	wrap[0] = is_wrapper(&die);
	n = 1;
	dwarf_getsrcfiles(&cu, &files, &nfiles);
	/* walk the physical parents of each inlined instance (eu-addr2line) */
	while (n < max && dwarf_tag(&die) == DW_TAG_inlined_subroutine) {
		int call_file = die_udata(&die, DW_AT_call_file, false);
		int call_line = die_udata(&die, DW_AT_call_line, false);
		Dwarf_Die *parents = NULL;
		const char *src = NULL;
		int np, j;

		np = dwarf_getscopes_die(&die, &parents);
		for (j = 1; j < np && !is_func(&parents[j]); j++)
			;
		if (np <= 0 || j >= np) {
			free(parents);
			break;
		}
		die = parents[j];
		free(parents);
		memset(&frames[n], 0, sizeof(frames[n]));
		fill_func(s, &frames[n], &die);
		if (files && (size_t)call_file < nfiles)
			src = dwarf_filesrc(files, call_file, NULL, NULL);
		frames[n].file = abs_src(s, &cu, src);
		frames[n].line = call_line;
		wrap[n] = is_wrapper(&die);
		n++;
	}
	return elide_wrappers(frames, wrap, n);
}

static bool in_plt(struct sym_file *f, Dwarf_Addr vaddr)
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
static const char *symbol_at(struct sym_file *f, Dwarf_Addr vaddr)
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
static void qualify_from_symtab(struct symbolizer *s, struct sym_file *f,
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

static int lookup_vaddr(struct symbolizer *s, struct sym_file *f,
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
	return lookup_vaddr(s, get_file(s, path, NULL), vaddr, frames, max);
}

static int lookup_mapped(struct symbolizer *s, struct sym_file *f,
			 uint64_t start, uint64_t offset, uint64_t addr,
			 struct sym_frame *frames, int max)
{
	uint64_t fileoff = addr - start + offset;
	size_t i;

	if (!f || !f->mod)
		return 0;
	for (i = 0; i < f->nloads; i++) {
		const GElf_Phdr *ph = &f->loads[i];

		if (fileoff >= ph->p_offset &&
		    fileoff < ph->p_offset + ph->p_memsz)
			return lookup_vaddr(s, f,
				fileoff - ph->p_offset + ph->p_vaddr,
				frames, max);
	}
	return 0;
}

int symbolizer__lookup(struct symbolizer *s, const char *path,
		       const char *root, uint64_t start, uint64_t offset,
		       uint64_t addr, struct sym_frame *frames, int max)
{
	return lookup_mapped(s, get_file(s, path, root), start, offset, addr,
			     frames, max);
}

int symbolizer__lookup_checked(struct symbolizer *s, const char *path,
			       const char *want_bid, uint64_t start,
			       uint64_t offset, uint64_t addr,
			       struct sym_frame *frames, int max)
{
	return lookup_mapped(s, find_checked(s, path, want_bid), start, offset,
			     addr, frames, max);
}

/* ---- kallsyms ---- */

struct ksym {
	uint64_t addr;
	uint64_t end;		/* first address not in it */
	char *name;
	char *module;
	bool marker;		/* _etext, _einittext: where text ends */
};

struct ksyms {
	struct ksym *syms;
	size_t n, cap;
};

struct kmod_extent {
	char name[128];
	uint64_t start, end;
};

static int cmp_ksym(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/*
 * The modules' extents from the "modules" file next to the kallsyms file
 * (/proc/modules for /proc/kallsyms): "name size refs deps state 0xaddr".
 * Addresses read 0 without CAP_SYSLOG; those modules get no extent.
 */
/* The "modules" file next to a kallsyms file (/proc/modules). */
static void modules_path(const char *kallsyms, char *path, size_t len)
{
	const char *slash = strrchr(kallsyms, '/');

	snprintf(path, len, "%.*smodules",
		 slash ? (int)(slash - kallsyms + 1) : 0, kallsyms);
}

/*
 * The modules' extents, from the lines of /proc/modules: "name size refs
 * deps state 0xaddr". Addresses read 0 without CAP_SYSLOG; those modules
 * get no extent.
 */
static struct kmod_extent *load_modules(FILE *fp, size_t *n)
{
	struct kmod_extent *m = NULL;
	char line[512];
	size_t cap = 0;

	*n = 0;
	if (!fp)
		return NULL;
	while (fgets(line, sizeof(line), fp)) {
		struct kmod_extent e;
		uint64_t size;

		if (sscanf(line, "%127s %" SCNu64 " %*s %*s %*s %" SCNx64,
			   e.name, &size, &e.start) != 3 || !e.start ||
		    e.start + size < e.start)
			continue;
		e.end = e.start + size;
		GROW(m, cap, *n + 1);
		m[(*n)++] = e;
	}
	return m;
}

/*
 * Where each symbol ends: the next symbol, a module's end if that comes
 * first, and for the last symbol with no extent known, its first byte only;
 * an address past the text must not take the last name before it.
 */
static void set_ends(struct ksyms *k, const struct kmod_extent *mods,
		     size_t nmods)
{
	size_t i, j;

	for (i = 0; i < k->n; i++) {
		struct ksym *s = &k->syms[i];

		s->end = i + 1 < k->n ? k->syms[i + 1].addr : s->addr + 1;
		if (!s->module[0])
			continue;
		for (j = 0; j < nmods; j++) {
			if (strcmp(mods[j].name, s->module) ||
			    s->addr < mods[j].start || s->addr >= mods[j].end)
				continue;
			if (i + 1 == k->n || mods[j].end < s->end)
				s->end = mods[j].end;
			break;
		}
	}
}

static struct ksyms *parse_ksyms(FILE *fp, FILE *modules)
{
	struct kmod_extent *mods;
	struct ksyms *k;
	char line[512];
	size_t nmods;

	k = xcalloc(1, sizeof(*k));
	while (fgets(line, sizeof(line), fp)) {
		char type, name[256], mod[128] = "";
		uint64_t addr;

		if (sscanf(line, "%" SCNx64 " %c %255s [%127[^]]]", &addr,
			   &type, name, mod) < 3 || !addr)
			continue;
		if (type != 't' && type != 'T' && type != 'w' && type != 'W')
			continue;
		GROW(k->syms, k->cap, k->n + 1);
		k->syms[k->n].addr = addr;
		k->syms[k->n].name = xstrdup(name);
		k->syms[k->n].module = xstrdup(mod);
		k->syms[k->n].marker = !mod[0] && (!strcmp(name, "_etext") ||
						   !strcmp(name, "_einittext"));
		k->n++;
	}
	qsort(k->syms, k->n, sizeof(*k->syms), cmp_ksym);
	mods = load_modules(modules, &nmods);
	set_ends(k, mods, nmods);
	free(mods);
	return k;
}

struct ksyms *ksyms__load(const char *path)
{
	char mpath[4096];
	struct ksyms *k;
	FILE *fp, *mfp;

	fp = fopen(path, "re");
	if (!fp)
		return NULL;
	modules_path(path, mpath, sizeof(mpath));
	mfp = fopen(mpath, "re");
	k = parse_ksyms(fp, mfp);
	fclose(fp);
	if (mfp)
		fclose(mfp);
	return k;
}

struct ksyms *ksyms__load_text(const char *kallsyms, size_t len,
			       const char *modules, size_t mlen)
{
	FILE *fp, *mfp = NULL;
	struct ksyms *k;

	if (!len)
		return NULL;
	fp = fmemopen((void *)kallsyms, len, "r");
	if (!fp)
		return NULL;
	if (mlen)
		mfp = fmemopen((void *)modules, mlen, "r");
	k = parse_ksyms(fp, mfp);
	fclose(fp);
	if (mfp)
		fclose(mfp);
	return k;
}

/* The whole of a /proc file (its size reads 0) into a malloc'd buffer. */
static char *slurp(const char *path, size_t *len)
{
	size_t cap = 1 << 20;
	char *buf;
	FILE *fp = fopen(path, "re");

	*len = 0;
	if (!fp)
		return NULL;
	buf = xmalloc(cap);
	for (;;) {
		size_t n = fread(buf + *len, 1, cap - *len, fp);

		*len += n;
		if (n == 0)
			break;
		if (*len == cap) {
			cap *= 2;
			buf = xrealloc(buf, cap);
		}
	}
	fclose(fp);
	return buf;
}

int ksyms__read(const char *path, char **kallsyms, size_t *len,
		char **modules, size_t *mlen)
{
	char mpath[4096];
	size_t i;

	*modules = NULL;
	*mlen = 0;
	*kallsyms = slurp(path, len);
	if (!*kallsyms)
		return -errno;
	/* without CAP_SYSLOG every address reads 0 (per-cpu symbols do
	 * anyway): keep it only if some line has an address */
	for (i = 0; i < *len; i++) {
		char c = (*kallsyms)[i];

		if (c == '\n' || c == ' ') {
			/* to the next line */
			while (i < *len && (*kallsyms)[i] != '\n')
				i++;
			continue;
		}
		if (c != '0')
			break;
	}
	if (i >= *len) {
		free(*kallsyms);
		*kallsyms = NULL;
		*len = 0;
		return -EPERM;
	}
	modules_path(path, mpath, sizeof(mpath));
	*modules = slurp(mpath, mlen);
	return 0;
}

void ksyms__free(struct ksyms *k)
{
	size_t i;

	if (!k)
		return;
	for (i = 0; i < k->n; i++) {
		free(k->syms[i].name);
		free(k->syms[i].module);
	}
	free(k->syms);
	free(k);
}

const char *ksyms__lookup(const struct ksyms *k, uint64_t addr,
			  const char **module)
{
	size_t lo = 0, hi;

	if (!k || !k->n || addr < k->syms[0].addr)
		return NULL;
	hi = k->n;
	while (hi - lo > 1) {
		size_t mid = (lo + hi) / 2;

		if (k->syms[mid].addr <= addr)
			lo = mid;
		else
			hi = mid;
	}
	/* past the end of the text, or of the last symbol we can bound */
	if (k->syms[lo].marker || addr >= k->syms[lo].end)
		return NULL;
	if (module)
		*module = k->syms[lo].module;
	return k->syms[lo].name;
}
