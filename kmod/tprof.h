/* SPDX-License-Identifier: GPL-2.0 */
/* tprof: declarations shared between the module's files. */
#ifndef _TPROF_TPROF_H
#define _TPROF_TPROF_H

#include "compat.h"
#include "uapi/tprof.h"

#define TPROF_VERSION "0.1.0"

int tprof_dev_init(void);
void tprof_dev_exit(void);

#endif /* _TPROF_TPROF_H */
