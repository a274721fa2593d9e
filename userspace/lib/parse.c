// SPDX-License-Identifier: GPL-2.0
/* tprof-read: parse option values: decimal only, finite, in range. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lib/parse.h"
#include "lib/util.h"

/*
 * strtoull(.., 0) read "010" as octal 8 and strtod() takes "nan", "inf",
 * "0x1p3" and leading blanks: accept only what a person means by a number.
 */
static const char *decimal_end(const char *s, int allow_fraction)
{
	const char *p = s;
	int digits = 0;

	while (*p >= '0' && *p <= '9')
		p++, digits++;
	if (allow_fraction && *p == '.') {
		p++;
		while (*p >= '0' && *p <= '9')
			p++, digits++;
	}
	if (!digits)
		return NULL;
	if (allow_fraction && (*p == 'e' || *p == 'E')) {
		const char *q = p + 1;

		if (*q == '+' || *q == '-')
			q++;
		if (*q >= '0' && *q <= '9') {
			while (*q >= '0' && *q <= '9')
				q++;
			p = q;
		}
	}
	return p;
}

int parse_uint(const char *s, unsigned long long max, unsigned long long *out)
{
	const char *end = decimal_end(s, 0);
	unsigned long long v;

	if (!end || *end)
		return -EINVAL;
	errno = 0;
	v = strtoull(s, NULL, 10);
	if (errno == ERANGE || v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

/* s[0..end) is a decimal number: its value, finite. */
static int decimal_value(const char *s, const char *end, double *out)
{
	char buf[64];
	double v;

	if ((size_t)(end - s) >= sizeof(buf))
		return -ERANGE;
	memcpy(buf, s, end - s);
	buf[end - s] = '\0';
	errno = 0;
	v = strtod(buf, NULL);
	if (errno == ERANGE || !isfinite(v))
		return -ERANGE;
	*out = v;
	return 0;
}

int parse_decimal(const char *s, double *out)
{
	const char *end = decimal_end(s, 1);

	if (!end || *end)
		return -EINVAL;
	return decimal_value(s, end, out);
}

int parse_duration_ns(const char *s, uint64_t *out)
{
	static const struct {
		const char *sfx;
		double mul;
	} units[] = {
		{ "ns", 1 }, { "us", 1e3 }, { "µs", 1e3 }, { "ms", 1e6 },
		{ "s", 1e9 }, { "m", 60e9 }, { "", 1 },
	};
	const char *end = decimal_end(s, 1);
	double v;
	size_t i;
	int ret;

	if (!end)
		return -EINVAL;
	for (i = 0; i < ARRAY_SIZE(units); i++) {
		if (strcmp(end, units[i].sfx))
			continue;
		ret = decimal_value(s, end, &v);
		if (ret)
			return ret;
		v = v * units[i].mul + 0.5;
		/* a double at or past 2^64 has no uint64_t value (UB to cast) */
		if (!(v < 18446744073709551616.0))
			return -ERANGE;
		*out = (uint64_t)v;
		return 0;
	}
	return -EINVAL;
}

int parse_size(const char *s, unsigned long long max, unsigned long long *out)
{
	const char *end = decimal_end(s, 0);
	unsigned long long v;
	unsigned int shift = 0;
	char digits[32];

	if (!end || end == s || (size_t)(end - s) >= sizeof(digits))
		return end ? -ERANGE : -EINVAL;
	switch (*end) {
	case '\0':
		break;
	case 'k': case 'K':
		shift = 10;
		break;
	case 'm': case 'M':
		shift = 20;
		break;
	case 'g': case 'G':
		shift = 30;
		break;
	default:
		return -EINVAL;
	}
	if (shift && end[1])
		return -EINVAL;
	memcpy(digits, s, end - s);
	digits[end - s] = '\0';
	errno = 0;
	v = strtoull(digits, NULL, 10);
	if (errno == ERANGE || v > (max >> shift))
		return -ERANGE;
	*out = v << shift;
	return 0;
}
