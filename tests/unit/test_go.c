// SPDX-License-Identifier: GPL-2.0
/* Unit tests: Go binary symbolization (no .debug_aranges: own CU table)
 * compared with the names, files, lines and inline chains of the program's
 * own runtime/pprof profile. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pprof.h"
#include "profile.pb-c.h"
#include "symbolize.h"
#include "testlib.h"
#include "util.h"

typedef Perftools__Profiles__Profile PbProfile;

static PbProfile *load_profile(const char *path)
{
	uint8_t *gz = NULL, *raw = NULL;
	size_t gzlen = 0, cap = 0, rawlen;
	PbProfile *p = NULL;
	FILE *fp = fopen(path, "re");

	if (!fp)
		return NULL;
	for (;;) {
		size_t n;

		GROW(gz, cap, gzlen + 65536);
		n = fread(gz + gzlen, 1, cap - gzlen, fp);
		if (!n)
			break;
		gzlen += n;
	}
	fclose(fp);
	if (!pprof__gunzip(gz, gzlen, &raw, &rawlen))
		p = perftools__profiles__profile__unpack(NULL, rawlen, raw);
	free(gz);
	free(raw);
	return p;
}

static const char *S(const PbProfile *p, int64_t i)
{
	return i >= 0 && (size_t)i < p->n_string_table ? p->string_table[i] : "?";
}

static void test_go_vs_runtime_pprof(void)
{
	const char *bin = build_path("progs/goprog");
	const char *ref = build_path("unit/go-runtime.pb.gz");
	char cmd[8192], *out = NULL, *abs = NULL;
	struct symbolizer *s;
	PbProfile *p;
	size_t i, compared = 0, mismatch = 0, main_frames = 0, inl = 0;
	bool start_lines = false;

	if (access(bin, X_OK)) {
		SKIP("build/progs/goprog not built (apt-get install golang-go)");
		return;
	}
	abs = realpath(bin, NULL);
	snprintf(cmd, sizeof(cmd), "'%s' -s 0.6 -g 2 -cpuprofile '%s' >/dev/null",
		 abs, ref);
	CHECK_EQ(run_capture(cmd, &out), 0);
	free(out);
	p = load_profile(ref);
	CHECK(p != NULL);
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

			if (strcmp(fr[k].name, S(p, f->name)) ||
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
	fprintf(stderr, "    compared %zu locations (%zu with inlines), %zu mismatches, start_line %s\n",
		compared, inl, mismatch, start_lines ? "present" : "absent");
	CHECK(compared >= 5);
	CHECK(main_frames > 0);
	CHECK(inl > 0);
	CHECK_EQ(mismatch, 0);
	perftools__profiles__profile__free_unpacked(p, NULL);
	symbolizer__free(s);
	free(abs);
}

const struct unit_test go_tests[] = {
	{ "symbolize: Go binary matches its own runtime/pprof (names, files, lines, inlines)", test_go_vs_runtime_pprof },
	{ NULL, NULL },
};
