/* SPDX-License-Identifier: GPL-2.0 */
/* tprof-read: make any byte string valid UTF-8 (profile strings). */
#ifndef _TPROF_UTF8_H
#define _TPROF_UTF8_H

#include <stdbool.h>
#include <stddef.h>

/* Is s[0..n) well-formed UTF-8 (Unicode 15, table 3-7)? */
bool utf8_valid(const char *s, size_t n);

/*
 * A malloc'd, NUL-terminated copy of s[0..n) with each maximal ill-formed
 * subpart replaced by U+FFFD (the Unicode and WHATWG "replacement" policy,
 * as Python's errors="replace"): deterministic, and a character the kernel
 * cut at comm's 15 bytes becomes one U+FFFD.
 */
char *utf8_sanitize(const char *s, size_t n);

#endif /* _TPROF_UTF8_H */
