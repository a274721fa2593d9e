// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests: --no-symbolize keeps what a later symbolizer needs (issue 13
 * item 8): each mapping's file and GNU build-id, also from a stream that
 * recorded no build-id (read from the file, as symbolizing would), and no
 * names or has_* flags.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/buildid.h"
#include "pbload.h"
#include "testlib.h"

#define PID 4194996
#define PIE_BASE 0x555555554000ULL
#define S(p, i) ((p)->string_table[(i)])

static void test_no_symbolize_keeps_buildids(void)
{
	const char *bin = build_path("progs/inlines");
	const char *raw = build_path("unit/nosym.raw");
	const char *pb = build_path("unit/nosym.pb.gz");
	char hex[BUILDID_HEX_LEN], *maps, *out = NULL;
	unsigned char bits[BUILDID_MAX];
	struct sbuf b = { 0 };
	uint64_t v = 0, sz, addr;
	PbProfile *p;
	size_t i;
	int fd, len = -1, st;

	if (access(bin, R_OK) || elf_symbol(bin, "hot_outer", &v, &sz)) {
		SKIP("progs/inlines not built");
		return;
	}
	fd = open(bin, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		len = buildid__from_fd(fd, bits);
		close(fd);
	}
	CHECK(len > 0);
	buildid__hex(bits, len > 0 ? len : 0, hex);
	maps = fake_maps(bin, PIE_BASE);
	CHECK(maps != NULL);
	addr = PIE_BASE + v + 0x10;
	/* no BUILDID record: a stream of an older tprof-read */
	sb_session(&b, PID, 1000000, 1700000000000000000ULL, 1000);
	sb_maps(&b, PID, 1001, maps ? maps : "");
	sb_sample(&b, PID, PID, 1000000, 1000000, 2000, 0, NULL, 1, &addr);
	CHECK_EQ(sb_write(&b, raw), 0);
	unlink(pb);
	st = run_read(&out, "--input '%s' --no-symbolize -o '%s' 2>&1",
		      raw, pb);
	CHECK_EQ(st, 0);
	p = load_checked(pb);
	if (p) {
		const Perftools__Profiles__Mapping *m = NULL;

		for (i = 0; i < p->n_mapping; i++)
			if (!strcmp(S(p, p->mapping[i]->filename), bin))
				m = p->mapping[i];
		CHECK(m != NULL);
		if (m) {
			CHECK_STR(S(p, m->build_id), hex);
			CHECK(!m->has_functions && !m->has_line_numbers);
		}
		for (i = 0; i < p->n_location; i++)
			CHECK_EQ(p->location[i]->n_line, 0);
		pb_free(p);
	}
	out_done(out);
	free(maps);
	sb_free(&b);
}

const struct unit_test nosym_tests[] = {
	{ "no-symbolize: mappings keep their file and build-id (read from the file when the stream has none), no names", test_no_symbolize_keeps_buildids },
	{ NULL, NULL },
};
