// SPDX-License-Identifier: GPL-2.0
/* Unit tests: libdw symbolization of the -O2 -g C test program, compared
 * with binutils addr2line -i -f; .gnu_debuglink; kallsyms. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/demangle.h"
#include "object/symbols.h"
#include "pbload.h"
#include "testlib.h"
#include "lib/util.h"

#define MAXF 16

struct a2l_frame {
	char name[256];
	char file[512];
	int line;
};

struct a2l_result {
	uint64_t addr;
	int n;
	struct a2l_frame f[MAXF];
};

static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');

	return s ? s + 1 : p;
}

/* Run addr2line -a -i -f on addrs; fills res. Returns 0 on success. */
static int addr2line(const char *bin, const uint64_t *addrs, size_t n,
		     struct a2l_result *res)
{
	char in[4096], cmd[8192], *out = NULL, *line, *save = NULL;
	FILE *fp;
	size_t i, cur = (size_t)-1;
	int st;

	snprintf(in, sizeof(in), "%s", build_path("unit/a2l.in"));
	fp = fopen(in, "we");
	if (!fp)
		return -errno;
	for (i = 0; i < n; i++)
		fprintf(fp, "0x%llx\n", (unsigned long long)addrs[i]);
	fclose(fp);
	snprintf(cmd, sizeof(cmd), "addr2line -a -i -f -e '%s' < '%s'", bin, in);
	st = run_capture(cmd, &out);
	if (st || !out) {
		free(out);
		return -EIO;
	}
	for (line = strtok_r(out, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (!strncmp(line, "0x", 2)) {
			cur++;
			if (cur >= n)
				break;
			res[cur].addr = strtoull(line, NULL, 16);
			res[cur].n = 0;
			continue;
		}
		if (cur >= n || res[cur].n >= MAXF)
			continue;
		{
			struct a2l_frame *f = &res[cur].f[res[cur].n];
			char *colon, *next = strtok_r(NULL, "\n", &save);

			snprintf(f->name, sizeof(f->name), "%s", line);
			if (!next)
				break;
			snprintf(f->file, sizeof(f->file), "%s", next);
			colon = strrchr(f->file, ':');
			f->line = 0;
			if (colon) {
				*colon = 0;
				f->line = atoi(colon + 1);
			}
			res[cur].n++;
		}
	}
	free(out);
	return cur + 1 == n ? 0 : -EINVAL;
}

static int source_line_of(const char *src, const char *prefix)
{
	char buf[512];
	FILE *fp = fopen(src, "re");
	int n = 0;

	if (!fp)
		return -1;
	while (fgets(buf, sizeof(buf), fp)) {
		n++;
		if (!strncmp(buf, prefix, strlen(prefix))) {
			fclose(fp);
			return n;
		}
	}
	fclose(fp);
	return -1;
}

/*
 * Compare every byte address of the given functions. Returns the number of
 * addresses compared; *mismatch gets the number that differ.
 */
static size_t compare_with_addr2line(const char *bin, const char *symbin,
				     const char *const *funcs,
				     size_t *mismatch, bool *saw_chain3)
{
	struct symbolizer *s = symbolizer__new();
	uint64_t *addrs = NULL;
	struct a2l_result *res;
	size_t n = 0, cap = 0, i;
	int fi;

	*mismatch = 0;
	*saw_chain3 = false;
	for (fi = 0; funcs[fi]; fi++) {
		uint64_t v, sz, a;

		if (elf_symbol(bin, funcs[fi], &v, &sz)) {
			fprintf(stderr, "    no symbol %s in %s\n", funcs[fi], bin);
			(*mismatch)++;
			continue;
		}
		for (a = v; a < v + sz; a++) {
			GROW(addrs, cap, n + 1);
			addrs[n++] = a;
		}
	}
	res = xcalloc(n + 1, sizeof(*res));
	if (addr2line(bin, addrs, n, res)) {
		fprintf(stderr, "    addr2line failed\n");
		*mismatch = n + 1;
		goto out;
	}
	for (i = 0; i < n; i++) {
		struct sym_frame fr[SYM_MAX_INLINE];
		int k, nf = symbolizer__lookup_vaddr(s, symbin, addrs[i], fr,
						     SYM_MAX_INLINE);
		bool bad = nf != res[i].n;

		for (k = 0; !bad && k < nf; k++) {
			const struct a2l_frame *a = &res[i].f[k];

			if (strcmp(fr[k].name, a->name) ||
			    strcmp(base_name(fr[k].file), base_name(a->file)) ||
			    fr[k].line != a->line)
				bad = true;
		}
		if (nf == 3)
			*saw_chain3 = true;
		if (bad && (*mismatch)++ < 5) {
			fprintf(stderr, "    0x%llx: libdw %d frames:",
				(unsigned long long)addrs[i], nf);
			for (k = 0; k < nf; k++)
				fprintf(stderr, " %s@%s:%d", fr[k].name,
					base_name(fr[k].file), fr[k].line);
			fprintf(stderr, "; addr2line %d:", res[i].n);
			for (k = 0; k < res[i].n; k++)
				fprintf(stderr, " %s@%s:%d", res[i].f[k].name,
					base_name(res[i].f[k].file),
					res[i].f[k].line);
			fputc('\n', stderr);
		}
	}
out:
	free(res);
	free(addrs);
	symbolizer__free(s);
	return n;
}

static const char *const c_funcs[] = {
	"hot_outer", "cold_func", "worker", "main", NULL,
};

/*
 * file (bin, or bin's stripped copy) names c_funcs' addresses as
 * addr2line does bin's, and leaf -> mid -> outer was seen as one
 * location's inline chain.
 */
static void check_vs_addr2line(const char *bin, const char *file)
{
	size_t n, mismatch;
	bool chain3;

	n = compare_with_addr2line(bin, file, c_funcs, &mismatch, &chain3);
	CHECK(n > 200);
	CHECK_EQ(mismatch, 0);
	CHECK(chain3);
}

static void test_c_vs_addr2line(void)
{
	const char *bin = build_path("progs/inlines");

	if (!need_file(bin, "build/progs/inlines not built"))
		return;
	if (!need_cmd("addr2line", "addr2line not installed (binutils)"))
		return;
	check_vs_addr2line(bin, bin);
}

static void test_c_inline_chain_and_start_line(void)
{
	const char *bin = build_path("progs/inlines");
	const char *src = root_path("tests/progs/inlines.c");
	struct symbolizer *s;
	const struct sym_file_info *fi;
	uint64_t v, sz, a;
	int leaf_decl = source_line_of(src, "hot_leaf(unsigned long x)");
	int mid_decl = source_line_of(src, "hot_mid(unsigned long x)");
	int outer_decl = source_line_of(src, "__attribute__((noinline)) unsigned long hot_outer");
	bool found = false;

	if (access(bin, R_OK) || elf_symbol(bin, "hot_outer", &v, &sz)) {
		SKIP("build/progs/inlines not built");
		return;
	}
	CHECK(leaf_decl > 0 && mid_decl > 0 && outer_decl > 0);
	s = symbolizer__new();
	fi = symbolizer__file(s, bin, NULL);
	CHECK(fi->loaded && fi->has_dwarf && fi->has_symtab);
	CHECK_EQ(strlen(fi->build_id), 40);	/* gcc/ld: sha1 GNU build-id */
	for (a = v; a < v + sz && !found; a++) {
		struct sym_frame fr[SYM_MAX_INLINE];
		int nf = symbolizer__lookup_vaddr(s, bin, a, fr, SYM_MAX_INLINE);

		if (nf != 3)
			continue;
		found = true;
		CHECK_STR(fr[0].name, "hot_leaf");
		CHECK_STR(fr[1].name, "hot_mid");
		CHECK_STR(fr[2].name, "hot_outer");
		CHECK_EQ(fr[0].start_line, leaf_decl);
		CHECK_EQ(fr[1].start_line, mid_decl);
		CHECK_EQ(fr[2].start_line, outer_decl);
		CHECK_STR(base_name(fr[2].file), "inlines.c");
		CHECK(fr[0].line > leaf_decl && fr[0].line < mid_decl);
	}
	CHECK(found);
	symbolizer__free(s);
}

/* Process address -> ELF vaddr through a PIE mapping at a random base. */
static void test_c_process_addresses(void)
{
	const char *bin = build_path("progs/inlines");
	struct symbolizer *s;
	uint64_t v, sz, base = 0x555555554000ULL;
	char *maps;

	if (access(bin, R_OK) || elf_symbol(bin, "hot_outer", &v, &sz)) {
		SKIP("build/progs/inlines not built");
		return;
	}
	maps = fake_maps(bin, base);
	CHECK(maps != NULL);
	s = symbolizer__new();
	if (maps) {
		/* find the r-xp line and use its start/offset */
		char *l = strstr(maps, "r-xp");
		unsigned long long start = 0, end = 0, off = 0;

		CHECK(l != NULL);
		while (l && l > maps && l[-1] != '\n')
			l--;
		CHECK(l && sscanf(l, "%llx-%llx r-xp %llx", &start, &end, &off) == 3);
		{
			struct sym_frame f1[SYM_MAX_INLINE], f2[SYM_MAX_INLINE];
			uint64_t a = v + sz / 2;
			int n1 = symbolizer__lookup(s, bin, NULL, start, off,
						    base + a, f1, SYM_MAX_INLINE);
			int n2 = symbolizer__lookup_vaddr(s, bin, a, f2,
							  SYM_MAX_INLINE);

			CHECK(n1 > 0);
			CHECK_EQ(n1, n2);
			if (n1 > 0 && n1 == n2) {
				CHECK_STR(f1[0].name, f2[0].name);
				CHECK_EQ(f1[0].line, f2[0].line);
			}
		}
	}
	free(maps);
	symbolizer__free(s);
}

static void test_c_debuglink(void)
{
	const char *bin = build_path("progs/inlines");
	const char *stripped = build_path("progs/inlines.stripped");
	const struct sym_file_info *fi;
	struct symbolizer *s;

	if (!need_files("build/progs/inlines.stripped not built", stripped,
			build_path("progs/inlines.debug"), NULL))
		return;
	s = symbolizer__new();
	fi = symbolizer__file(s, stripped, NULL);
	CHECK(fi->loaded);
	CHECK(fi->has_dwarf);	/* found through .gnu_debuglink */
	symbolizer__free(s);
	check_vs_addr2line(bin, stripped);
}

static void test_plt(void)
{
	const char *bin = build_path("progs/inlines");
	struct symbolizer *s;
	struct sym_frame fr[4];
	char cmd[4200], *out = NULL;
	unsigned long long addr = 0;

	if (!need_file(bin, "build/progs/inlines not built"))
		return;
	/* start of .plt (or .plt.sec) from the section headers */
	snprintf(cmd, sizeof(cmd),
		 "objdump -h '%s' | awk '$2 ~ /^\\.plt/ {print $4; exit}'", bin);
	CHECK_EQ(run_capture(cmd, &out), 0);
	if (out)
		addr = strtoull(out, NULL, 16);
	free(out);
	CHECK(addr != 0);
	s = symbolizer__new();
	CHECK_EQ(symbolizer__lookup_vaddr(s, bin, addr + 4, fr, 4), 1);
	CHECK_STR(fr[0].name, "[plt]");
	symbolizer__free(s);
}

static void test_missing_file(void)
{
	struct symbolizer *s = symbolizer__new();
	const struct sym_file_info *fi;
	struct sym_frame fr[4];

	fi = symbolizer__file(s, "/nonexistent/x", NULL);
	CHECK(!fi->loaded);
	CHECK_STR(fi->build_id, "");
	CHECK_EQ(symbolizer__lookup(s, "/nonexistent/x", NULL, 0x1000, 0,
				    0x1010, fr, 4), 0);
	fi = symbolizer__file(s, "[heap]", NULL);
	CHECK(!fi->loaded);
	/* not an ELF file */
	fi = symbolizer__file(s, root_path("tests/progs/inlines.c"), NULL);
	CHECK(!fi->loaded);
	symbolizer__free(s);
}

static void test_vdso(void)
{
	struct symbolizer *s = symbolizer__new();
	const struct sym_file_info *fi;
	unsigned long long a, b, start = 0, end = 0, off;
	char line[512];
	bool found = false;
	FILE *fp = fopen("/proc/self/maps", "re");

	while (fp && fgets(line, sizeof(line), fp))
		if (strstr(line, "[vdso]") && sscanf(line, "%llx-%llx", &a, &b) == 2) {
			start = a;
			end = b;
		}
	if (fp)
		fclose(fp);
	if (!start) {
		SKIP("no [vdso] mapping");
		symbolizer__free(s);
		return;
	}
	fi = symbolizer__file(s, "[vdso]", NULL);
	CHECK(fi->loaded && fi->has_symtab);
	for (off = 0; off < end - start && !found; off += 4) {
		struct sym_frame fr[4];

		if (symbolizer__lookup(s, "[vdso]", NULL, start, 0, start + off,
				       fr, 4) > 0 && strstr(fr[0].name, "clock_gettime"))
			found = true;
	}
	CHECK(found);
	symbolizer__free(s);
}

static void test_kallsyms(void)
{
	static const char text[] =
		"ffffffff81000000 T _stext\n"
		"ffffffff81000100 t do_one\n"
		"ffffffff81000200 T schedule\n"
		"ffffffff81000300 T _etext\n"
		"ffffffff81800000 T init_thing\n"
		"ffffffff81800100 T _einittext\n"
		"ffffffffc0000000 t ext4_thing\t[ext4]\n"
		"ffffffffc0000400 t ext4_last\t[ext4]\n"
		"ffffffffc0100000 t xfs_thing\t[xfs]\n"
		"ffffffff82000000 D some_data\n";
	/* ext4 is 64 KiB long, xfs's address hidden (no CAP_SYSLOG) */
	static const char modules[] =
		"ext4 65536 1 - Live 0xffffffffc0000000\n"
		"xfs 65536 0 - Live 0x0000000000000000\n";
	const char *path = build_path("unit/ks/kallsyms");
	const char *mpath = build_path("unit/ks/modules");
	const char *mod = NULL;
	struct ksyms *k;
	char *out = NULL;

	run_fmt(&out, "mkdir -p '%s'", build_path("unit/ks"));
	free(out);
	if (write_text(path, text) || write_text(mpath, modules))
		return;
	k = ksyms__load(path);
	CHECK(k != NULL);
	CHECK_STR(ksyms__lookup(k, 0xffffffff81000150ULL, &mod), "do_one");
	CHECK_STR(mod, "");
	CHECK_STR(ksyms__lookup(k, 0xffffffff81000200ULL, &mod), "schedule");
	CHECK_STR(ksyms__lookup(k, 0xffffffffc0000010ULL, &mod), "ext4_thing");
	CHECK_STR(mod, "ext4");
	CHECK(ksyms__lookup(k, 0x1000, &mod) == NULL);
	/* past the end of the kernel's text, of init text, of a module */
	CHECK(ksyms__lookup(k, 0xffffffff81000300ULL, &mod) == NULL);
	CHECK(ksyms__lookup(k, 0xffffffff81400000ULL, &mod) == NULL);
	CHECK_STR(ksyms__lookup(k, 0xffffffff81800010ULL, &mod), "init_thing");
	CHECK(ksyms__lookup(k, 0xffffffff81900000ULL, &mod) == NULL);
	CHECK_STR(ksyms__lookup(k, 0xffffffffc000fff0ULL, &mod), "ext4_last");
	CHECK(ksyms__lookup(k, 0xffffffffc0010000ULL, &mod) == NULL);
	CHECK(ksyms__lookup(k, 0xffffffffc00f0000ULL, &mod) == NULL);
	/* the last symbol, its module's end unknown: its own address only */
	CHECK_STR(ksyms__lookup(k, 0xffffffffc0100000ULL, &mod), "xfs_thing");
	CHECK(ksyms__lookup(k, 0xffffffffc0100010ULL, &mod) == NULL);
	CHECK(ksyms__lookup(k, 0xffffffffffffff00ULL, &mod) == NULL);
	ksyms__free(k);
	CHECK(ksyms__load("/nonexistent") == NULL);
}

/* mangled -> what Function.name must say; each symbol of cxxprog.cc */
static const struct {
	const char *mangled, *name;
} cxx_names[] = {
	{ "_ZNK3geo6Circle4areaEm", "geo::Circle::area(unsigned long) const" },
	{ "_ZNK3geo6Square4areaEm", "geo::Square::area(unsigned long) const" },
	{ "_ZNK5other6Circle4areaEm", "other::Circle::area(unsigned long) const" },
	{ "_Z6scaledIiEmT_", "unsigned long scaled<int>(int)" },
	{ "_Z6scaledIdEmT_", "unsigned long scaled<double>(double)" },
	{ "_Z4overi", "over(int)" },
	{ "_Z4overd", "over(double)" },
	{ "_ZZ4mainENKUlmE_clEm", "main::{lambda(unsigned long)#1}::operator()(unsigned long) const" },
};

/* The symbol's address, under its name or a GCC clone's (".isra.0"). */
static uint64_t cxx_sym(const char *bin, const char *mangled)
{
	static const char *const sfx[] = { "", ".isra.0", ".constprop.0",
					   ".part.0" };
	uint64_t v, sz;
	char name[256];
	size_t i;

	for (i = 0; i < sizeof(sfx) / sizeof(sfx[0]); i++) {
		snprintf(name, sizeof(name), "%s%s", mangled, sfx[i]);
		if (!elf_symbol(bin, name, &v, &sz))
			return v + sz / 2;
	}
	return 0;
}

/*
 * Linux allows kernel symbol names of 512 bytes (KSYM_NAME_LEN, Rust's
 * mangled names reach it). A name that long is one symbol: not cut at 255
 * bytes, and its line's tail not read as a line of its own. This name's
 * tail, past the first 511 bytes of its line, reads as the line
 * "ffffffff81000900Tbog": a symbol "bog" to a reader of 512-byte lines.
 */
static void test_kallsyms_long_names(void)
{
	const char *ks = build_path("unit/long-kallsyms/kallsyms");
	const char *raw = build_path("unit/long-kallsyms/long.raw");
	const char *pb = build_path("unit/long-kallsyms/long.pb.gz");
	uint64_t kips[2] = { 0xffffffff81000950ULL, 0xffffffff81001010ULL };
	char name[513], *out = NULL;
	bool seen_long = false, seen_after = false, seen_bog = false;
	struct sbuf b = { 0 };
	PbProfile *p;
	size_t i;
	FILE *fp;
	int rc;

	memset(name, 'k', 492);
	memcpy(name + 492, "ffffffff81000900Tbog", 20);
	name[512] = 0;
	mkdir(build_path("unit/long-kallsyms"), 0755);
	fp = fopen(ks, "we");
	CHECK(fp != NULL);
	if (!fp)
		return;
	fprintf(fp, "ffffffff81000000 T %s\nffffffff81001000 T after_long\n"
		"ffffffff81002000 T _etext\n", name);
	fclose(fp);
	sb_session(&b, 4242, 1000000, 1700000000000000000ULL, 1000);
	sb_thread(&b, 4242, 4242, "k", 1001);
	sb_sample(&b, 4242, 4242, 1000000, 1000000, 2000, 2, kips, 0, NULL);
	CHECK_EQ(sb_write(&b, raw), 0);
	sb_free(&b);
	rc = run_fmt(&out, "%s --input %s --kallsyms %s -o %s 2>&1",
		     tprof_read_bin(), raw, ks, pb);
	CHECK_EQ(rc, 0);
	free(out);
	p = load_checked(pb);
	if (!p)
		return;
	for (i = 0; i < p->n_function; i++) {
		const char *fn = p->string_table[p->function[i]->name];

		seen_long |= !strcmp(fn, name);
		seen_after |= !strcmp(fn, "after_long");
		seen_bog |= !strcmp(fn, "bog");
	}
	CHECK(seen_long);
	CHECK(seen_after);
	CHECK(!seen_bog);
	pb_free(p);
}

static void test_demangle(void)
{
	char *d = demangle("_ZNK3geo6Circle4areaEv");

	CHECK_STR(d, "geo::Circle::area() const");
	free(d);
	d = demangle("_ZZ4mainENKUlmE_clEm");
	CHECK_STR(d, "main::{lambda(unsigned long)#1}::operator()(unsigned long) const");
	free(d);
	d = demangle("_ZN9__gnu_cxx13new_allocatorIcE8allocateEmPKv");
	CHECK_STR(d, "__gnu_cxx::new_allocator<char>::allocate(unsigned long, void const*)");
	free(d);
	/* C and Go names, and junk, are left alone */
	CHECK(demangle("main") == NULL);
	CHECK(demangle("main.mix") == NULL);
	CHECK(demangle("_Zjunk") == NULL);
	CHECK(demangle("") == NULL);
	CHECK(demangle(NULL) == NULL);
}

/*
 * Same-named methods of different classes and namespaces, template
 * instances, overloads, a lambda: each its own qualified name (DWARF and
 * symtab alike), the mangled one in system_name.
 */
static void test_cxx_names(void)
{
	const char *bin = build_path("progs/cxxprog");
	struct symbolizer *s;
	struct sym_frame fr[MAXF];
	size_t i;

	if (!need_file(bin, "progs/cxxprog not built (g++)"))
		return;
	s = symbolizer__new();
	for (i = 0; i < sizeof(cxx_names) / sizeof(cxx_names[0]); i++) {
		uint64_t a = cxx_sym(bin, cxx_names[i].mangled);
		int n;

		CHECK(a != 0);
		if (!a)
			continue;
		n = symbolizer__lookup_vaddr(s, bin, a, fr, MAXF);
		CHECK(n >= 1);
		if (n < 1)
			continue;
		/* the outermost frame of the address is the function itself */
		CHECK_STR(fr[n - 1].name, cxx_names[i].name);
		CHECK_STR(fr[n - 1].system_name, cxx_names[i].mangled);
	}
	symbolizer__free(s);
}

/* Through tprof-read: go tool pprof -top keeps Circle and Square apart. */
static void test_cxx_pprof_top(void)
{
	const char *bin = build_path("progs/cxxprog");
	const char *raw = build_path("unit/cxx.raw");
	const char *pb = build_path("unit/cxx.pb.gz");
	uint64_t base = 0x555555554000ULL, circle, square;
	struct sbuf b = { 0 };
	char *maps, *out = NULL;
	int i, st;

	if (!need_file(bin, "progs/cxxprog not built (g++)"))
		return;
	circle = cxx_sym(bin, "_ZNK3geo6Circle4areaEm");
	square = cxx_sym(bin, "_ZNK3geo6Square4areaEm");
	maps = fake_maps(bin, base);
	CHECK(circle && square && maps);
	if (!circle || !square || !maps) {
		free(maps);
		return;
	}
	sb_session(&b, 77, 1000000, 1700000000000000000ULL, 1000);
	sb_maps(&b, 77, 1001, maps);
	sb_thread(&b, 77, 77, "cxxprog", 1002);
	for (i = 0; i < 163; i++) {
		uint64_t u[1] = { base + circle };

		sb_sample(&b, 77, 77, 1000000, 1000000, 2000 + i, 0, NULL, 1, u);
	}
	for (i = 0; i < 157; i++) {
		uint64_t u[1] = { base + square };

		sb_sample(&b, 77, 77, 1000000, 1000000, 3000 + i, 0, NULL, 1, u);
	}
	CHECK_EQ(sb_write(&b, raw), 0);
	sb_free(&b);
	free(maps);
	unlink(pb);
	st = run_read(&out, "--input '%s' -o '%s' 2>&1", raw, pb);
	CHECK_EQ(st, 0);
	free(out);
	if (!need_cmd("go", "go not installed: go tool pprof check skipped"))
		return;
	st = run_fmt(&out, "go tool pprof -top -symbolize=none '%s' 2>&1", pb);
	CHECK_EQ(st, 0);
	/* spin() is inlined into both: their cumulative rows (one "area" of
	 * 320ms before) */
	CHECK_HAS(out, "163ms 50.94%  geo::Circle::area(unsigned long) const\n");
	CHECK_HAS(out, "157ms 49.06%  geo::Square::area(unsigned long) const\n");
	out_done(out);
}

const struct unit_test symbolize_tests[] = {
	{ "symbolize: -O2 -g C program matches addr2line -i -f at every address", test_c_vs_addr2line },
	{ "symbolize: inline chain leaf->mid->outer with DW_AT_decl_line start lines", test_c_inline_chain_and_start_line },
	{ "symbolize: process addresses of a PIE mapping", test_c_process_addresses },
	{ "symbolize: stripped binary through .gnu_debuglink matches addr2line", test_c_debuglink },
	{ "symbolize: PLT stubs are named [plt]", test_plt },
	{ "symbolize: missing, pseudo and non-ELF files are unsymbolized", test_missing_file },
	{ "symbolize: [vdso] from our own image (clock_gettime)", test_vdso },
	{ "symbolize: kallsyms lookup incl. modules; nothing past _etext, _einittext, a module's end or the last symbol", test_kallsyms },
	{ "symbolize: a kallsyms name of 512 bytes is one symbol (tprof-read --kallsyms)", test_kallsyms_long_names },
	{ "symbolize: C++ demangling (libstdc++), C and Go names left alone", test_demangle },
	{ "symbolize: C++ methods, templates, overloads, lambdas: qualified demangled names, mangled system_name", test_cxx_names },
	{ "symbolize: C++ same-named methods stay apart in go tool pprof -top", test_cxx_pprof_top },
	{ NULL, NULL },
};
