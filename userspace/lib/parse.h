/* SPDX-License-Identifier: GPL-2.0 */
/* tprof-read: parse option values: decimal only, finite, in range. */
#ifndef _TPROF_PARSE_H
#define _TPROF_PARSE_H

#include <stdint.h>

/*
 * Each returns 0, or -EINVAL for text that is not of the form (no sign,
 * space, base prefix, nan or inf), or -ERANGE past max. A leading zero is
 * decimal: "010" is 10.
 */

/* "123" <= max */
int parse_uint(const char *s, unsigned long long max, unsigned long long *out);
/* "1.5", "2e3", ".5" (finite, >= 0) */
int parse_decimal(const char *s, double *out);
/* "250us", "1ms", "1.5s", "2m", "20000" (ns), rounded to ns */
int parse_duration_ns(const char *s, uint64_t *out);
/* "4096", "256K", "64M", "1G" (binary units, case-insensitive) <= max */
int parse_size(const char *s, unsigned long long max, unsigned long long *out);

#endif /* _TPROF_PARSE_H */
