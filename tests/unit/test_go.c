// SPDX-License-Identifier: GPL-2.0
/* Unit tests: Go binary symbolization (no .debug_aranges: own CU table)
 * compared with the names, files, lines and inline chains of the program's
 * own runtime/pprof profile. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "output/pprof.h"
#include "pbload.h"
#include "object/symbols.h"
#include "testlib.h"
#include "lib/util.h"

static const char *S(const PbProfile *p, int64_t i)
{
	return i >= 0 && (size_t)i < p->n_string_table ? p->string_table[i] : "?";
}

/* Go < 1.21 runtime/pprof abbreviates generic shapes: main.Sum[...] */
static bool same_go_name(const char *dwarf, const char *rt)
{
	const char *dots = strstr(rt, "[...]");

	if (!dots)
		return !strcmp(dwarf, rt);
	return !strncmp(dwarf, rt, dots - rt + 1) && strchr(dwarf + (dots - rt), ']');
}

/*
 * Run bin with -cpuprofile ref, then compare every location of bin's
 * mapping with tprof's symbolizer. need_start_lines: the toolchain writes
 * DW_AT_decl_line (Go >= 1.21), so start lines must be present and equal.
 */
static void compare_go(const char *bin, const char *ref, bool need_start_lines)
{
	char cmd[8192], *out = NULL, *abs = NULL;
	struct symbolizer *s;
	PbProfile *p;
	size_t i, compared = 0, mismatch = 0, main_frames = 0, inl = 0;
	bool start_lines = false;

	abs = realpath(bin, NULL);
	if (!abs) {
		CHECK(abs != NULL);
		return;
	}
	snprintf(cmd, sizeof(cmd), "'%s' -s 0.6 -g 2 -cpuprofile '%s' >/dev/null",
		 abs, ref);
	CHECK_EQ(run_capture(cmd, &out), 0);
	free(out);
	p = load_checked(ref);
	if (!p) {
		free(abs);
		return;
	}
	s = symbolizer__new();
	CHECK(symbolizer__file(s, abs, NULL)->has_dwarf);
	for (i = 0; i < p->n_location; i++) {
		const Perftools__Profiles__Location *l = p->location[i];
		const Perftools__Profiles__Mapping *m;
		struct sym_frame fr[SYM_MAX_INLINE];
		size_t k;
		int nf;
		bool bad;

		if (!l->mapping_id || l->mapping_id > p->n_mapping)
			continue;
		m = p->mapping[l->mapping_id - 1];
		if (strcmp(S(p, m->filename), abs) || !l->n_line)
			continue;
		nf = symbolizer__lookup(s, abs, NULL, m->memory_start,
					m->file_offset, l->address, fr,
					SYM_MAX_INLINE);
		compared++;
		bad = (size_t)nf != l->n_line;
		for (k = 0; !bad && k < l->n_line; k++) {
			const Perftools__Profiles__Function *f =
				p->function[l->line[k]->function_id - 1];

			if (!same_go_name(fr[k].name, S(p, f->name)) ||
			    strcmp(fr[k].file, S(p, f->filename)) ||
			    fr[k].line != l->line[k]->line ||
			    (f->start_line && fr[k].start_line != f->start_line))
				bad = true;
			if (!strncmp(fr[k].name, "main.", 5))
				main_frames++;
			if (fr[k].start_line)
				start_lines = true;
		}
		if (l->n_line > 1)
			inl++;
		if (bad && mismatch++ < 8) {
			fprintf(stderr, "    0x%llx: tprof %d:", (unsigned long long)l->address, nf);
			for (k = 0; k < (size_t)nf; k++)
				fprintf(stderr, " %s:%d(s=%d)", fr[k].name, fr[k].line, fr[k].start_line);
			fprintf(stderr, "; runtime/pprof %zu:", l->n_line);
			for (k = 0; k < l->n_line; k++) {
				const Perftools__Profiles__Function *f =
					p->function[l->line[k]->function_id - 1];

				fprintf(stderr, " %s:%lld(s=%lld)", S(p, f->name),
					(long long)l->line[k]->line,
					(long long)f->start_line);
			}
			fputc('\n', stderr);
		}
	}
	fprintf(stderr, "    %s: compared %zu locations (%zu with inlines), %zu mismatches, start_line %s\n",
		bin, compared, inl, mismatch, start_lines ? "present" : "absent");
	CHECK(compared >= 5);
	CHECK(main_frames > 0);
	CHECK(inl > 0);
	CHECK_EQ(mismatch, 0);
	if (need_start_lines)
		CHECK(start_lines);
	pb_free(p);
	symbolizer__free(s);
	free(abs);
}

static void test_go_vs_runtime_pprof(void)
{
	const char *bin = build_path("progs/goprog");

	if (access(bin, X_OK)) {
		SKIP("build/progs/goprog not built (apt-get install golang-go)");
		return;
	}
	compare_go(bin, build_path("unit/go-runtime.pb.gz"), false);
}

static bool build_modern(const char *go, const char *out)
{
	char cmd[8192], *log = NULL;
	int st;

	snprintf(cmd, sizeof(cmd),
		 "cd '%s' && GOCACHE='%s' GOPATH='%s' GOPROXY=off GO111MODULE=off "
		 "GOTOOLCHAIN=local '%s' build -o '%s' . 2>&1",
		 root_path("tests/progs/goprog"), build_path("gocache-modern"),
		 build_path("gopath"), go, out);
	st = run_capture(cmd, &log);
	if (st)
		fprintf(stderr, "    %s\n", log ? log : "");
	free(log);
	return st == 0;
}

static void test_go_modern_start_lines(void)
{
	const char *go = modern_go(), *bin = build_path("unit/goprog-modern");

	if (!go) {
		SKIP("no Go >= 1.21 (apt: golang-1.23-go from bookworm-backports)");
		return;
	}
	CHECK(build_modern(go, bin));
	if (!t_checks_failed)
		compare_go(bin, build_path("unit/go-modern-runtime.pb.gz"), true);
}

/*
 * The runtime/pprof samples of a Go >= 1.21 binary, turned into a tprof
 * record stream (leaf pc, return addresses = pprof address + 1), replayed
 * through tprof-read: `go build -pgo` must accept the result and pgodebug
 * must report the same hot functions and call sites as with the original.
 */
static void test_go_pgo_from_replay(void)
{
	const char *go = modern_go();
	char bin[4096], ref[4096], raw[4096], tp[4096];	/* build_path() recycles */
	char cmd[16384], *a = NULL, *b = NULL, *abs;
	struct sbuf sb = { 0 };
	PbProfile *p;
	size_t i, j, cpu = 1;
	int st;

	if (!go) {
		SKIP("no Go >= 1.21 (apt: golang-1.23-go from bookworm-backports)");
		return;
	}
	snprintf(bin, sizeof(bin), "%s", build_path("unit/goprog-modern"));
	snprintf(ref, sizeof(ref), "%s", build_path("unit/go-modern-runtime.pb.gz"));
	snprintf(raw, sizeof(raw), "%s", build_path("unit/go-modern.raw"));
	snprintf(tp, sizeof(tp), "%s", build_path("unit/go-modern-tprof.pb.gz"));
	if (access(bin, X_OK) || access(ref, R_OK)) {
		CHECK(build_modern(go, bin));
		snprintf(cmd, sizeof(cmd), "'%s' -s 0.6 -g 2 -cpuprofile '%s' >/dev/null", bin, ref);
		CHECK_EQ(system(cmd), 0);
	}
	p = load_checked(ref);
	if (!p)
		return;
	abs = realpath(bin, NULL);
	for (i = 0; i < p->n_sample_type; i++)
		if (!strcmp(S(p, p->sample_type[i]->type), "cpu"))
			cpu = i;
	sb_session(&sb, 7000, p->period, 1700000000000000000ULL, 10);
	{
		char maps[65536] = "";
		size_t n = 0;

		for (i = 0; i < p->n_mapping; i++) {
			const Perftools__Profiles__Mapping *m = p->mapping[i];

			n += snprintf(maps + n, sizeof(maps) - n,
				      "%llx-%llx r-xp %08llx 08:01 1 %s\n",
				      (unsigned long long)m->memory_start,
				      (unsigned long long)m->memory_limit,
				      (unsigned long long)m->file_offset,
				      S(p, m->filename));
			if (n >= sizeof(maps))
				break;
		}
		sb_maps(&sb, 7000, 11, maps);
	}
	sb_thread(&sb, 7000, 7000, "goprog", 12);
	for (i = 0; i < p->n_sample; i++) {
		const Perftools__Profiles__Sample *s = p->sample[i];
		uint64_t ips[128];
		size_t n = s->n_location_id < 128 ? s->n_location_id : 128;
		int64_t c;

		for (j = 0; j < n; j++) {
			uint64_t addr = p->location[s->location_id[j] - 1]->address;

			ips[j] = j ? addr + 1 : addr;
		}
		/* one record per original sample, weight = its cpu value */
		for (c = 0; c < s->value[0] && s->value[0] > 0; c++)
			sb_sample(&sb, 7000, 7000, p->period,
				  (uint64_t)s->value[cpu] / (uint64_t)s->value[0],
				  100 + i, 0, NULL, n, ips);
	}
	CHECK_EQ(sb_write(&sb, raw), 0);
	sb_free(&sb);
	pb_free(p);

	snprintf(cmd, sizeof(cmd), "'%s' --input '%s' -o '%s' 2>&1",
		 getenv("TPROF_READ") ? getenv("TPROF_READ") : build_path("tprof-read"),
		 raw, tp);
	CHECK_EQ(run_capture(cmd, &a), 0);
	free(a);
	a = NULL;
	/*
	 * pgodebug lines about main.*, as a sorted set. A cached compile
	 * prints nothing, so each build gets a fresh nonce file in a copy of
	 * the package (the standard library stays cached).
	 */
#define PGO_CMD "d='%s' && rm -rf \"$d\" && mkdir -p \"$d\" && cp '%s'/*.go \"$d\" && " \
	"printf 'package main\\n\\nvar _ = \"%%s\"\\n' \"$(date +%%s%%N)-$$\" > \"$d/nonce.go\" && " \
	"cd \"$d\" && GOCACHE='%s' GOPATH='%s' GOPROXY=off GO111MODULE=off " \
	"GOTOOLCHAIN=local '%s' build -o /dev/null -pgo='%s' -gcflags=-d=pgodebug=1 . 2>&1 " \
	"| grep -E 'hot-|PGO' | grep 'main\\.' | sed 's/ at .*//' | sort -u"
	snprintf(cmd, sizeof(cmd), PGO_CMD, build_path("unit/pgo-src"),
		 root_path("tests/progs/goprog"), build_path("gocache-modern"),
		 build_path("gopath"), go, tp);
	st = run_capture(cmd, &a);
	CHECK_EQ(st, 0);
	snprintf(cmd, sizeof(cmd), PGO_CMD, build_path("unit/pgo-src"),
		 root_path("tests/progs/goprog"), build_path("gocache-modern"),
		 build_path("gopath"), go, ref);
	st = run_capture(cmd, &b);
	CHECK_EQ(st, 0);
	CHECK(a && *a);
	CHECK(a && b && !strcmp(a, b));
	if (t_checks_failed)
		fprintf(stderr, "    tprof:\n%s    runtime/pprof:\n%s", a ? a : "", b ? b : "");
	else
		fprintf(stderr, "    pgodebug agrees:\n%s", a);
	free(a);
	free(b);
	free(abs);
}

/*
 * Every address of errors.init in the Go test program, named, with
 * LeakSanitizer on and nothing suppressed: elfutils 0.188's
 * dwarf_getscopes() leaked 32 bytes at some of them (Go 1.19 and 1.23
 * alike); tprof-read finds the functions around an address in its own
 * index of the CU's scopes now (object/scopes.c), and never calls it.
 * Those were the addresses of code inlined from other packages, whose
 * abstract origins lie in their own package's CU: libdw gave up there,
 * and errors.init was named with the inlined code's file and line
 * (internal/reflectlite/type.go:974). Now the inlined functions come
 * above errors.init, and errors.init's own frame is in errors' source.
 */
static void test_go_getscopes_leak(void)
{
	const char *bin = build_path("progs/goprog");
	struct sym_frame fr[SYM_MAX_INLINE];
	struct symbolizer *s;
	uint64_t v, sz, a;
	int named = 0, inlined = 0, elsewhere = 0;

	if (access(bin, R_OK) || elf_symbol(bin, "errors.init", &v, &sz)) {
		SKIP("build/progs/goprog not built (apt-get install golang-go)");
		return;
	}
	s = symbolizer__new();
	for (a = v; a < v + sz; a++) {
		int n = symbolizer__lookup_vaddr(s, bin, a, fr, SYM_MAX_INLINE);

		if (n <= 0 || strcmp(fr[n - 1].name, "errors.init"))
			continue;
		named++;
		inlined += n > 1;
		if (!strstr(fr[n - 1].file, "/errors/") && elsewhere++ < 3)
			fprintf(stderr, "    0x%llx: errors.init at %s:%d\n",
				(unsigned long long)a, fr[n - 1].file,
				fr[n - 1].line);
	}
	CHECK(named > 0);
	CHECK(inlined > 0);
	CHECK_EQ(elsewhere, 0);
	symbolizer__free(s);
}

/*
 * Go's compiler-made wrappers (DW_AT_trampoline) never show above a real
 * frame in runtime/pprof: its traceback elides them. os.ReadFile's
 * deferwrap1 inlines os.(*File).Close; at every address of that inlined
 * call tprof must name Close alone, as runtime/pprof did once in CI
 * (0x49aaec: "os.(*File).Close" where tprof said "... deferwrap1" too).
 */
static void test_go_wrappers_elided(void)
{
	const char *go = modern_go(), *bin = build_path("unit/goprog-modern");
	struct sym_frame fr[SYM_MAX_INLINE];
	struct symbolizer *s;
	uint64_t v, sz, a;
	int close_alone = 0, wrapper_above = 0, wrapper_alone = 0, k;

	if (!go) {
		SKIP("no Go >= 1.21 (apt: golang-1.23-go from bookworm-backports)");
		return;
	}
	if (access(bin, X_OK))
		CHECK(build_modern(go, bin));
	if (elf_symbol(bin, "os.ReadFile.deferwrap1", &v, &sz)) {
		CHECK(!"os.ReadFile.deferwrap1 in goprog-modern");
		return;
	}
	s = symbolizer__new();
	for (a = v; a < v + sz; a++) {
		int n = symbolizer__lookup_vaddr(s, bin, a, fr, SYM_MAX_INLINE);

		for (k = 0; k < n; k++)
			if (strstr(fr[k].name, "deferwrap"))
				wrapper_above += n > 1;
		wrapper_alone += n == 1 && strstr(fr[0].name, "deferwrap");
		close_alone += n == 1 && !strcmp(fr[0].name, "os.(*File).Close");
	}
	fprintf(stderr, "    os.ReadFile.deferwrap1: %llu addresses, %d Close alone, %d wrapper alone, %d with a wrapper above\n",
		(unsigned long long)sz, close_alone, wrapper_alone, wrapper_above);
	CHECK(close_alone > 0);
	CHECK(wrapper_alone > 0);	/* its own code keeps its name */
	CHECK_EQ(wrapper_above, 0);
	symbolizer__free(s);
}

const struct unit_test go_tests[] = {
	{ "go: every address of errors.init named, in errors' source, inlined callees above it; no leak", test_go_getscopes_leak },
	{ "symbolize: Go binary matches its own runtime/pprof (names, files, lines, inlines)", test_go_vs_runtime_pprof },
	{ "symbolize: Go >= 1.21 binary: start lines match runtime/pprof too", test_go_modern_start_lines },
	{ "symbolize: Go wrappers (deferwrap, -fm) are elided above a real frame, as runtime/pprof does", test_go_wrappers_elided },
	{ "pgo: runtime/pprof samples replayed through tprof-read give the same pgodebug report", test_go_pgo_from_replay },
	{ NULL, NULL },
};
