/* SPDX-License-Identifier: GPL-2.0 */
/* tprof-agent: /metrics, the Prometheus text exposition format 0.0.4. */
#ifndef _TPROF_AGENT_METRICS_H
#define _TPROF_AGENT_METRICS_H

#include <stddef.h>

#include "agent/evict.h"
#include "agent/windows.h"
#include "model/profile.h"

/* The page's text (malloc'd, *len bytes): the session's and the agent's. */
char *metrics__text(const struct profile *p, const struct windows *ws,
		    const struct evict *ev, size_t *len);

#endif /* _TPROF_AGENT_METRICS_H */
