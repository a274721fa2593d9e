// SPDX-License-Identifier: GPL-2.0
/* Unit tests: every profile string valid UTF-8 (issue 13, item 7). */
#include <stdlib.h>
#include <string.h>

#include "testlib.h"
#include "lib/utf8.h"

#define FFFD "\xef\xbf\xbd"

static void check_fix(const char *in, const char *want)
{
	char *got = utf8_sanitize(in, strlen(in));

	CHECK_STR(got, want);
	CHECK(utf8_valid(got, strlen(got)));
	CHECK_EQ(utf8_valid(in, strlen(in)), !strcmp(in, want));
	free(got);
}

static void test_sanitize(void)
{
	/* well-formed: unchanged */
	check_fix("", "");
	check_fix("worker-7", "worker-7");
	check_fix("h\xc3\xa9llo \xe2\x82\xac \xf0\x9f\x98\x80", "h\xc3\xa9llo \xe2\x82\xac \xf0\x9f\x98\x80");
	/* comm cut at 15 bytes inside a 3-byte character: one U+FFFD */
	check_fix("abcdefghijklm\xe2\x82", "abcdefghijklm" FFFD);
	check_fix("x\xf0\x9f\x98", "x" FFFD);
	check_fix("\xf0\x9f\x98y", FFFD "y");
	/* stray bytes, overlongs, surrogates, past U+10FFFF: one per byte */
	check_fix("a\xff" "b", "a" FFFD "b");
	check_fix("\x80", FFFD);
	check_fix("\xc0\xaf", FFFD FFFD);
	check_fix("\xe0\x80\xaf", FFFD FFFD FFFD);
	check_fix("\xed\xa0\x80", FFFD FFFD FFFD);
	check_fix("\xf4\x90\x80\x80", FFFD FFFD FFFD FFFD);
	check_fix("\xf5", FFFD);
	/* the largest code points still valid */
	check_fix("\xed\x9f\xbf\xf4\x8f\xbf\xbf", "\xed\x9f\xbf\xf4\x8f\xbf\xbf");
}

const struct unit_test utf8_tests[] = {
	{ "utf8: ill-formed subparts become U+FFFD, well-formed text unchanged", test_sanitize },
	{ NULL, NULL },
};
