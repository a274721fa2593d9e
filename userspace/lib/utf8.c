// SPDX-License-Identifier: GPL-2.0
/* tprof-read: make any byte string valid UTF-8 (profile strings). */
#include <string.h>

#include "lib/utf8.h"
#include "lib/util.h"

/*
 * Length of the well-formed sequence at s[0..n) (1 to 4), or minus the
 * length of its maximal ill-formed subpart (the bytes that could still have
 * begun a valid sequence, at least 1). Overlongs, surrogates and code points
 * past U+10FFFF are ill-formed: strict protobuf decoders reject them too.
 */
static int seq_len(const unsigned char *s, size_t n)
{
	unsigned char lo = 0x80, hi = 0xbf;
	int need, i;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		need = 1;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		need = 2;
		if (s[0] == 0xe0)
			lo = 0xa0;	/* overlong */
		if (s[0] == 0xed)
			hi = 0x9f;	/* surrogates */
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		need = 3;
		if (s[0] == 0xf0)
			lo = 0x90;	/* overlong */
		if (s[0] == 0xf4)
			hi = 0x8f;	/* past U+10FFFF */
	} else {
		return -1;
	}
	for (i = 1; i <= need; i++) {
		if ((size_t)i >= n || s[i] < lo || s[i] > hi)
			return -i;
		lo = 0x80;
		hi = 0xbf;
	}
	return need + 1;
}

bool utf8_valid(const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0;

	while (i < n) {
		int l = seq_len(p + i, n - i);

		if (l < 0)
			return false;
		i += l;
	}
	return true;
}

char *utf8_sanitize(const char *s, size_t n)
{
	static const char repl[] = "\xef\xbf\xbd";	/* U+FFFD */
	const unsigned char *p = (const unsigned char *)s;
	/* each replaced subpart is at least one byte, U+FFFD three */
	char *out = xmalloc(3 * n + 1), *o = out;
	size_t i = 0;

	while (i < n) {
		int l = seq_len(p + i, n - i);

		if (l > 0) {
			memcpy(o, p + i, l);
			o += l;
			i += l;
		} else {
			memcpy(o, repl, 3);
			o += 3;
			i += -l;
		}
	}
	*o = '\0';
	return out;
}
