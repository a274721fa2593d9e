/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tprof-read: CPython's line tables (co_linetable, PEP 626, 3.11+): the
 * line of an instruction's byte offset, as PyCode_Addr2Line() gives it.
 */
#ifndef _TPROF_ANALYZE_PYLINES_H
#define _TPROF_ANALYZE_PYLINES_H

#include <stddef.h>
#include <stdint.h>

/* Bytecode [start, end) (byte offsets) is on line (-1: no line). */
struct pyline_range {
	uint32_t start, end;
	int32_t line;
};

/* A decoded table: its ranges in order, adjacent ones of a line joined. */
struct pylines {
	struct pyline_range *r;
	size_t n;
	int32_t first_line;
};

#define PYLINE_NONE	(-1)	/* an instruction with no line */

/*
 * Decode the table lt[0..len) of a code object whose co_firstlineno is
 * first_line. Returns 0, or -EINVAL at an entry that does not parse (the
 * ranges before it are kept): a table is read from a live target and
 * stored in streams, so it is not trusted.
 */
int pylines__decode(struct pylines *pl, const uint8_t *lt, size_t len,
		    int32_t first_line);
void pylines__free(struct pylines *pl);

/*
 * The line of the instruction at byte offset off: first_line before the
 * code (off < 0: a frame that has not begun), PYLINE_NONE for one the
 * table says has no line, 0 past the table (not an instruction of it).
 * O(log n).
 */
int32_t pylines__line(const struct pylines *pl, int64_t off);

#endif /* _TPROF_ANALYZE_PYLINES_H */
