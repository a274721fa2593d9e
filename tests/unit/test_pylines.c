// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests: CPython line tables (analyze/pylines.c) against Python's own
 * co_lines(), run now by /usr/bin/python3.11 on code of every shape (line
 * continuations, loops that jump back, a lambda, a gap of 150 lines for
 * multi-byte varints, try/with/finally for instructions with no line, a
 * generator, a class body, comprehensions) and on whole stdlib modules:
 * the decoder must give Python's line for every instruction offset.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyze/pylines.h"
#include "lib/util.h"
#include "testlib.h"

#define PY311 "/usr/bin/python3.11"

/*
 * For each code object: "C <qualname> <co_firstlineno> <bytecode bytes>
 * <co_linetable hex>", then its co_lines() as "R <start> <end> <line>"
 * (-1: None).
 */
static const char dump_py[] =
"import sys, types, threading, argparse, json.decoder, collections\n"
"def walk(co):\n"
"    yield co\n"
"    for c in co.co_consts:\n"
"        if isinstance(c, types.CodeType):\n"
"            yield from walk(c)\n"
"def dump(top):\n"
"    for co in walk(top):\n"
"        print('C', co.co_qualname.replace(' ', '_'), co.co_firstlineno,\n"
"              len(co.co_code), co.co_linetable.hex() or '-')\n"
"        for s, e, l in co.co_lines():\n"
"            print('R', s, e, -1 if l is None else l)\n"
"dump(compile(open(sys.argv[1]).read(), 'sample.py', 'exec'))\n"
"for m in (threading, argparse, json.decoder, collections):\n"
"    dump(compile(open(m.__file__).read(), m.__file__, 'exec'))\n";

static const char sample_py[] =
"def multi(a,\n"
"          b):\n"
"    x = a + \\\n"
"        b\n"
"    return (x *\n"
"            2)\n"
"\n"
"def loop(n):\n"
"    t = 0\n"
"    for i in range(n):\n"
"        if i % 3:\n"
"            t += i\n"
"        else:\n"
"            t -= 1\n"
"    while t > 0:\n"
"        t //= 2\n"
"    return t\n"
"\n"
"key = lambda v: (v % 7,\n"
"                 -v)\n"
"\n"
"def far():\n"
"    a = 1\n"
"@GAP@"
"    b = a + 1\n"
"    return [a for a in range(b)]\n"
"\n"
"def noline(path):\n"
"    try:\n"
"        with open(path) as f:\n"
"            return f.read()\n"
"    except OSError:\n"
"        return None\n"
"    finally:\n"
"        pass\n"
"\n"
"class K:\n"
"    def meth(self):\n"
"        yield from range(3)\n";

static int hexval(char c)
{
	return c >= '0' && c <= '9' ? c - '0' :
	       c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

static size_t unhex(const char *hex, uint8_t *out, size_t cap)
{
	size_t n = 0;

	while (hex[0] && hex[1] && hexval(hex[0]) >= 0 && n < cap) {
		out[n++] = (uint8_t)(hexval(hex[0]) << 4 | hexval(hex[1]));
		hex += 2;
	}
	return n;
}

/* What the dump says of one code object, and how the decoder agreed. */
struct code_check {
	char name[256];
	int first_line;
	size_t ncode;
	struct pylines pl;
	int32_t *want;		/* per code unit */
	bool ok;
};

static void finish(struct code_check *cc, unsigned int *codes,
		   unsigned int *offsets, unsigned int *bad)
{
	size_t u;

	if (!cc->want)
		return;
	for (u = 0; u < cc->ncode / 2; u++) {
		int32_t got = pylines__line(&cc->pl, (int64_t)u * 2);

		(*offsets)++;
		if (got != cc->want[u] && (*bad)++ < 10)
			fprintf(stderr, "    %s (line %d): offset %zu: line %d, co_lines() says %d\n",
				cc->name, cc->first_line, u * 2, got,
				cc->want[u]);
	}
	/* a frame that has not begun (prev_instr = code - 1 unit) */
	if (pylines__line(&cc->pl, -2) != cc->first_line && (*bad)++ < 10)
		fprintf(stderr, "    %s: offset -2 is not co_firstlineno\n",
			cc->name);
	/* past the bytecode: no line of it */
	if (pylines__line(&cc->pl, (int64_t)cc->ncode) != 0 && (*bad)++ < 10)
		fprintf(stderr, "    %s: offset past the code has a line\n",
			cc->name);
	(*codes)++;
	pylines__free(&cc->pl);
	free(cc->want);
	cc->want = NULL;
}

static void test_pylines_vs_python(void)
{
	char dir[] = "/tmp/tprof-pylines-XXXXXX", path[64], script[64];
	static uint8_t lt[1 << 20];
	struct code_check cc = { 0 };
	unsigned int codes = 0, offsets = 0, bad = 0, nover64 = 0,
		     nnone = 0;
	char *out = NULL, *line, *save = NULL;
	const char *at;
	FILE *f;
	size_t i;

	if (access(PY311, X_OK)) {
		SKIP("no " PY311);
		return;
	}
	CHECK(mkdtemp(dir) != NULL);
	snprintf(path, sizeof(path), "%s/sample.py", dir);
	snprintf(script, sizeof(script), "%s/dump.py", dir);
	f = fopen(script, "w");
	CHECK(f && fputs(dump_py, f) >= 0);
	fclose(f);
	/* 150 comment lines: a line delta of 151 (varint of 2 bytes) */
	f = fopen(path, "w");
	at = strstr(sample_py, "@GAP@");
	fwrite(sample_py, 1, (size_t)(at - sample_py), f);
	for (i = 0; i < 150; i++)
		fputs("    # gap\n", f);
	fputs(at + 5, f);
	fclose(f);

	CHECK_EQ(run_fmt(&out, PY311 " %s %s", script, path), 0);
	for (line = strtok_r(out, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char name[256], hex[1 << 16];
		int s, e, l, fl;
		size_t nc;

		if (sscanf(line, "C %255s %d %zu %65535s", name, &fl, &nc,
			   hex) == 4) {
			size_t n = strcmp(hex, "-") ? unhex(hex, lt, sizeof(lt)) :
				   0;

			finish(&cc, &codes, &offsets, &bad);
			snprintf(cc.name, sizeof(cc.name), "%s", name);
			cc.first_line = fl;
			cc.ncode = nc;
			cc.want = xcalloc(nc / 2 + 1, sizeof(*cc.want));
			CHECK_EQ(pylines__decode(&cc.pl, lt, n, fl), 0);
		} else if (sscanf(line, "R %d %d %d", &s, &e, &l) == 3 &&
			   cc.want) {
			int u;

			for (u = s / 2; u < e / 2 && (size_t)u < cc.ncode / 2;
			     u++)
				cc.want[u] = l;
			nnone += l < 0;
			nover64 += e > s && l - cc.first_line >= 64;
		}
	}
	finish(&cc, &codes, &offsets, &bad);
	printf("    %u code objects, %u offsets, %u of them wrong; %u ranges of no line, %u 64+ lines past the first\n",
	       codes, offsets, bad, nnone, nover64);
	CHECK_EQ(bad, 0);
	/* the shapes were there: else the test proves less than it says */
	CHECK(codes > 500);
	CHECK(nnone > 0);
	CHECK(nover64 > 0);
	free(out);
	unlink(path);
	unlink(script);
	rmdir(dir);
}

/* Tables that do not parse: the ranges before the fault stay, no crash. */
static void test_pylines_malformed(void)
{
	/* entry 1: code 13 (no columns), 1 unit, delta +2; entry 2: a
	 * varint that never ends */
	const uint8_t cut[] = { 0x80 | 13 << 3, 4, 0x80 | 13 << 3, 0x41 };
	const uint8_t nostart[] = { 0x05 };
	struct pylines pl;

	CHECK_EQ(pylines__decode(&pl, cut, sizeof(cut), 10), -EINVAL);
	CHECK_EQ(pylines__line(&pl, 0), 12);
	CHECK_EQ(pylines__line(&pl, 2), 0);
	pylines__free(&pl);
	CHECK_EQ(pylines__decode(&pl, nostart, sizeof(nostart), 10), -EINVAL);
	CHECK_EQ(pylines__line(&pl, 0), 0);
	CHECK_EQ(pylines__line(&pl, -2), 10);
	pylines__free(&pl);
	/* no table: only "not begun" has a line */
	CHECK_EQ(pylines__decode(&pl, NULL, 0, 7), 0);
	CHECK_EQ(pylines__line(&pl, 0), 0);
	CHECK_EQ(pylines__line(&pl, -2), 7);
	pylines__free(&pl);
}

const struct unit_test pylines_tests[] = {
	{ "pylines: every offset of 3.11 code agrees with co_lines()",
	  test_pylines_vs_python },
	{ "pylines: malformed tables", test_pylines_malformed },
	{ NULL, NULL },
};
