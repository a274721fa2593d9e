// SPDX-License-Identifier: GPL-2.0
/* Unit tests: the sorted symbol index (symtab.c) names every address as
 * libdwfl's dwfl_module_addrinfo() does, in real binaries: glibc (.dynsym
 * and labels), libstdc++, a Go binary, a -g C program, a 32-bit one, node,
 * an arm64 program. One rule is perf's: where libdwfl names an address by
 * an ARM/AArch64 mapping symbol ($x, $d: "$x+0x70" for a PLT entry), the
 * index names it by none. */
#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <gelf.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "object/symtab.h"
#include "testlib.h"

static const Dwfl_Callbacks cb = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
};

struct cmp_stats {
	size_t probes, named, mismatches, mapping;
	double t_dwfl, t_index;
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* $a, $d, $t, $x, $x.N...: what symtab.c skips */
static bool mapping_symbol(const char *name)
{
	return name && name[0] == '$' && name[1] && strchr("adtx", name[1]) &&
	       (name[2] == '\0' || name[2] == '.');
}

static void probe(Dwfl_Module *mod, const struct symtab *t, uint64_t addr,
		  struct cmp_stats *st, const char *path)
{
	GElf_Off off;
	GElf_Sym sym;
	const char *want, *got;
	double t0 = now(), t1;
	bool same;

	want = dwfl_module_addrinfo(mod, addr, &off, &sym, NULL, NULL, NULL);
	t1 = now();
	got = symtab__lookup(t, addr);
	st->t_index += now() - t1;
	st->t_dwfl += t1 - t0;
	st->probes++;
	st->named += want != NULL;
	st->mapping += mapping_symbol(want);
	/* where libdwfl answers with a mapping symbol: any name but one */
	same = mapping_symbol(want) ? !mapping_symbol(got) :
	       (!want) == (!got) && (!want || !strcmp(want, got));
	if (!same && st->mismatches++ < 5)
		fprintf(stderr, "    %s: 0x%llx: addrinfo %s, index %s\n",
			path, (unsigned long long)addr,
			want ? want : "(none)", got ? got : "(none)");
}

/*
 * Compare at each symbol's edges and middle, and on a stride over every
 * allocated section (gaps, labels, padding). At most max_syms symbols:
 * addrinfo is the slow side. Returns how many addresses libdwfl named by
 * a mapping symbol.
 */
static size_t compare_file(const char *path, size_t max_syms, size_t stride_n)
{
	struct cmp_stats st = { 0 };
	Dwfl *dwfl = dwfl_begin(&cb);
	Dwfl_Module *mod;
	struct symtab *t;
	Elf_Scn *scn = NULL;
	GElf_Addr bias;
	Elf *elf;
	int fd, n, i, step;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || !dwfl) {
		if (fd >= 0)
			close(fd);
		dwfl_end(dwfl);
		return 0;
	}
	dwfl_report_begin(dwfl);
	mod = dwfl_report_elf(dwfl, path, path, fd, 0, true);
	dwfl_report_end(dwfl, NULL, NULL);
	CHECK(mod != NULL);
	if (!mod) {
		close(fd);
		dwfl_end(dwfl);
		return 0;
	}
	n = dwfl_module_getsymtab(mod);
	t = symtab__new(mod);
	CHECK(n > 1 && t != NULL);
	step = n > (int)max_syms ? n / (int)max_syms : 1;
	for (i = 1; i < n; i += step) {
		GElf_Sym sym;
		GElf_Addr v;
		uint64_t off[] = { 0, 1, 0, 0, 0 };
		size_t k;

		if (!dwfl_module_getsym_info(mod, i, &sym, &v, NULL, NULL,
					     NULL))
			continue;
		off[2] = sym.st_size / 2;
		off[3] = sym.st_size ? sym.st_size - 1 : 2;
		off[4] = sym.st_size;
		for (k = 0; k < sizeof(off) / sizeof(off[0]); k++)
			probe(mod, t, v + off[k], &st, path);
		probe(mod, t, v - 1, &st, path);
	}
	elf = dwfl_module_getelf(mod, &bias);
	while (elf && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		uint64_t a, d;

		if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_ALLOC) ||
		    !sh.sh_size)
			continue;
		d = sh.sh_size / stride_n ? sh.sh_size / stride_n : 1;
		for (a = sh.sh_addr; a < sh.sh_addr + sh.sh_size; a += d)
			probe(mod, t, a + bias, &st, path);
	}
	fprintf(stderr, "    %s: %d symbols, %zu addresses, %zu named (%zu by a mapping symbol), %zu differ; %.1f us an address by addrinfo, %.2f us by the index\n",
		path, n, st.probes, st.named, st.mapping, st.mismatches,
		st.t_dwfl * 1e6 / st.probes, st.t_index * 1e6 / st.probes);
	CHECK_EQ(st.mismatches, 0);
	CHECK(st.named > st.probes / 4);
	symtab__free(t);
	dwfl_end(dwfl);
	return st.mapping;
}

static void test_symtab_matches_addrinfo(void)
{
	const char *files[] = {
		"/lib/x86_64-linux-gnu/libc.so.6",
		"/usr/lib/x86_64-linux-gnu/libstdc++.so.6",
		build_path("progs/goprog"),
		build_path("progs/inlines"),
		build_path("progs/unwind32"),
		build_path("progs/cxxprog"),
	};
	size_t i;

	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		if (access(files[i], R_OK)) {
			fprintf(stderr, "    %s: not here, skipped\n", files[i]);
			continue;
		}
		compare_file(files[i], 800, 200);
	}
}

/*
 * An arm64 program (CI's 6.1-arm64 guest showed its PLT entry as a
 * function "$x" under spinner()): libdwfl names some addresses by a
 * mapping symbol, so the rule is reached.
 */
static void test_symtab_arm64(void)
{
	const char *prog = arm64_program();

	if (prog)
		CHECK(compare_file(prog, 800, 200) > 0);
}

/* node: 100k+ symbols, where addrinfo's scan took 2 ms an address */
static void test_symtab_node(void)
{
	const char *node = "/usr/bin/node";

	if (!need_file(node, "/usr/bin/node not installed (.ci/packages)"))
		return;
	compare_file(node, 100, 30);
}

const struct unit_test symtab_tests[] = {
	{ "symtab: names as dwfl_module_addrinfo at symbol edges and across sections (glibc, libstdc++, Go, C, 32-bit, C++)", test_symtab_matches_addrinfo },
	{ "symtab: an arm64 program: names as dwfl_module_addrinfo, but none by a mapping symbol ($x, $d), qemu-user", test_symtab_arm64 },
	{ "symtab: node's 100k+ symbols, named as dwfl_module_addrinfo does", test_symtab_node },
	{ NULL, NULL },
};
