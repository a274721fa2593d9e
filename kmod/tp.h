/* SPDX-License-Identifier: GPL-2.0 */
/* tprof: scheduler tracepoints (not exported: found by name). */
#ifndef _TPROF_TP_H
#define _TPROF_TP_H

int tprof_tp_init(void);
int tprof_tp_get(void);
void tprof_tp_put(void);

#endif /* _TPROF_TP_H */
