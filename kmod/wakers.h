/* SPDX-License-Identifier: GPL-2.0 */
/* tprof: who ended each wait of an off-CPU session (wakers.c). */
#ifndef _TPROF_WAKERS_H
#define _TPROF_WAKERS_H

#include <linux/types.h>

struct tracepoint;

void tprof_wakers_lookup(struct tracepoint *tp);
void tprof_wakers_get(void);
void tprof_wakers_put(void);

#endif /* _TPROF_WAKERS_H */
