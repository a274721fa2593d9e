/* SPDX-License-Identifier: GPL-2.0 */
/* tprof: declarations shared between the module's files. */
#ifndef _TPROF_TPROF_H
#define _TPROF_TPROF_H

#include "compat.h"
#include "uapi/tprof.h"

#ifndef TPROF_VERSION
#error "TPROF_VERSION: the top-level Kbuild sets it from dkms.conf"
#endif

/* Per-CPU ring size when ENABLE passes 0 (reported by INFO). */
#define TPROF_DEFAULT_RING_BYTES	(256U * 1024)
#define TPROF_MIN_RING_BYTES		4096U
#define TPROF_MAX_RING_BYTES		(64U << 20)
/* Longest accepted period: keeps weight arithmetic far from overflow. */
#define TPROF_MAX_PERIOD_NS		(100ULL * NSEC_PER_SEC)
/* Concurrent sessions (each on its own process). */
#define TPROF_MAX_SESSIONS		32
/* Of them, unprivileged ones: the rest are kept for CAP_PERFMON. */
#define TPROF_MAX_UNPRIV_SESSIONS	24

int tprof_dev_init(void);
void tprof_dev_exit(void);

#endif /* _TPROF_TPROF_H */
