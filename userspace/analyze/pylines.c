// SPDX-License-Identifier: GPL-2.0
/*
 * tprof-read: CPython's line tables (Objects/locations.md, 3.11+), decoded
 * as Objects/codeobject.c's advance() and get_line_delta() read them.
 *
 * Each entry's first byte is 1CCCCLLL (bit 7 marks an entry's start; no
 * other byte has it): it covers LLL + 1 code units of 2 bytes; code C says
 * how the line moves from the one before (co_firstlineno at first):
 *   0-9    short form: same line (1 column byte follows)
 *   10-12  one-line form: + C - 10 (2 column bytes follow)
 *   13     no columns: + a signed varint
 *   14     long form: + a signed varint (then 3 varints)
 *   15     no location: the instructions have no line; the line the
 *          next entry moves from stays
 * A varint is 6-bit chunks, least significant first, bit 6 = more; signed:
 * the low bit is the sign.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/pylines.h"
#include "lib/util.h"

/* The varint at lt[*i..len), *i moved past it; -1 if it does not end. */
static int64_t varint(const uint8_t *lt, size_t len, size_t *i)
{
	uint64_t val = 0;
	unsigned int shift = 0;
	uint8_t b;

	do {
		if (*i >= len || shift > 30 || (lt[*i] & 0x80))
			return -1;
		b = lt[(*i)++];
		val |= (uint64_t)(b & 63) << shift;
		shift += 6;
	} while (b & 64);
	return (int64_t)val;
}

static void add_range(struct pylines *pl, size_t *cap, uint32_t start,
		      uint32_t end, int32_t line)
{
	struct pyline_range *last = pl->n ? &pl->r[pl->n - 1] : NULL;

	if (last && last->line == line && last->end == start) {
		last->end = end;
		return;
	}
	GROW(pl->r, *cap, pl->n + 1);
	pl->r[pl->n++] = (struct pyline_range){ start, end, line };
}

int pylines__decode(struct pylines *pl, const uint8_t *lt, size_t len,
		    int32_t first_line)
{
	int64_t line = first_line, delta;
	uint32_t addr = 0;
	size_t i = 0, cap = 0;

	memset(pl, 0, sizeof(*pl));
	pl->first_line = first_line;
	while (i < len) {
		uint8_t b = lt[i++];
		unsigned int code = (b >> 3) & 15, units = (b & 7) + 1;

		if (!(b & 0x80))
			return -EINVAL;
		delta = 0;
		if (code == 13 || code == 14) {
			size_t at = i;
			int64_t v = varint(lt, len, &at);

			if (v < 0)
				return -EINVAL;
			delta = v & 1 ? -(v >> 1) : v >> 1;
		} else if (code >= 10 && code <= 12) {
			delta = code - 10;
		}
		line += delta;
		/* a table that claims lines past int32 is not CPython's */
		if (line < -1 || line > INT32_MAX || addr > UINT32_MAX - 16)
			return -EINVAL;
		add_range(pl, &cap, addr, addr + units * 2,
			  code == 15 ? PYLINE_NONE : (int32_t)line);
		addr += units * 2;
		/* the column bytes and varints: up to the next entry */
		while (i < len && !(lt[i] & 0x80))
			i++;
	}
	return 0;
}

void pylines__free(struct pylines *pl)
{
	if (!pl)
		return;
	free(pl->r);
	memset(pl, 0, sizeof(*pl));
}

int32_t pylines__line(const struct pylines *pl, int64_t off)
{
	size_t lo = 0, hi = pl->n;

	if (off < 0)
		return pl->first_line;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if ((uint64_t)off >= pl->r[mid].end)
			lo = mid + 1;
		else if ((uint64_t)off < pl->r[mid].start)
			hi = mid;
		else
			return pl->r[mid].line;
	}
	return 0;
}
