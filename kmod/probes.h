/* SPDX-License-Identifier: GPL-2.0 */
/* tprof: the probes and their registration. */
#ifndef _TPROF_PROBES_H
#define _TPROF_PROBES_H

#include <linux/types.h>

int tprof_probes_init(void);
int tprof_probes_get(void);
void tprof_probes_put(void);
bool tprof_probes_have_cgroup(void);
int tprof_probes_get_cgroup(void);
void tprof_probes_put_cgroup(void);

#endif /* _TPROF_PROBES_H */
