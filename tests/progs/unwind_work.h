/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The unwinding tests' workload, one copy for the x86 program (unwind.c,
 * 64-bit and -m32) and the arm64 one (unwind_arm64.c): a frameless leaf
 * under its caller, and qsort's comparator under sort_round. Included by
 * exactly one file of each program (the functions are its own symbols).
 */
#ifndef TPROF_UNWIND_WORK_H
#define TPROF_UNWIND_WORK_H

#include <stddef.h>
#include <stdlib.h>

#define NOINLINE __attribute__((noinline))

static volatile unsigned long sink;

/* the hot leaf: a loop, no calls, so GCC gives it no frame */
NOINLINE unsigned long hot_leaf(unsigned long x)
{
	unsigned long i, h = x;

	for (i = 0; i < 2000; i++)
		h = h * 6364136223846793005UL + i;
	return h;
}

/* calls hot_leaf and uses the result: neither inlined nor a tail call */
NOINLINE unsigned long caller(unsigned long x)
{
	unsigned long h = hot_leaf(x);

	sink += h;
	return h ^ x;
}

NOINLINE int cmp_ints(const void *a, const void *b)
{
	unsigned int x = *(const unsigned int *)a, y = *(const unsigned int *)b;
	int i;

	/* some work per comparison, so the samples land here */
	for (i = 0; i < 50; i++) {
		x = x * 2654435761U + 1;
		y = y * 2654435761U + 1;
	}
	sink += x ^ y;
	return (*(const unsigned int *)a > *(const unsigned int *)b) -
	       (*(const unsigned int *)a < *(const unsigned int *)b);
}

NOINLINE void sort_round(unsigned int *v, size_t n, unsigned int seed)
{
	size_t i;

	for (i = 0; i < n; i++) {
		seed = seed * 1103515245U + 12345U;
		v[i] = seed;
	}
	qsort(v, n, sizeof(*v), cmp_ints);
	sink += v[0];
}

#endif /* TPROF_UNWIND_WORK_H */
