/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tprof-read: arrays of one entry per thread or process grow without
 * zeroing their new room (GROW() zeroes it): room never written is never
 * resident, and a 100,000-process tree's arrays are a quarter room on
 * average. Each new entry is initialised by its caller.
 */
#ifndef _TPROF_GROW_H
#define _TPROF_GROW_H

#include <stddef.h>

#include "lib/util.h"

static inline void grow_untouched(void **arr, size_t *cap, size_t need,
				  size_t elsz)
{
	size_t ncap = *cap ? *cap : 16;

	if (need <= *cap)
		return;
	while (ncap < need)
		ncap *= 2;
	*arr = xrealloc(*arr, ncap * elsz);
	*cap = ncap;
}

#define GROW_UNTOUCHED(arr, cap, need) \
	grow_untouched((void **)&(arr), &(cap), (need), sizeof(*(arr)))

#endif /* _TPROF_GROW_H */
