// SPDX-License-Identifier: GPL-2.0
/*
 * tprof: the sched tracepoints are not exported to modules; find them with
 * for_each_kernel_tracepoint() (as lttng-modules and falco do) and register
 * the probes only while at least one session is active.
 */
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/printk.h>
#include <linux/string.h>
#include <linux/tracepoint.h>

#include "sampler.h"
#include "threads.h"
#include "tp.h"

struct tprof_tp {
	const char *name;
	void *probe;		/* prototype matches TP_PROTO exactly (kCFI) */
	struct tracepoint *tp;
};

static struct tprof_tp tprof_tps[] = {
	{ "sched_process_fork", tprof_probe_fork },
	{ "sched_process_exec", tprof_probe_exec },
	{ "sched_process_exit", tprof_probe_exit },
	{ "sched_switch", tprof_probe_sched_switch },
};

/* Active sessions; protected by tprof_sessions_mutex (session.c). */
static unsigned int tprof_tp_users;

static void tprof_tp_lookup(struct tracepoint *tp, void *priv)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(tprof_tps); i++)
		if (!strcmp(tp->name, tprof_tps[i].name))
			tprof_tps[i].tp = tp;
}

int tprof_tp_init(void)
{
	unsigned int i;

	for_each_kernel_tracepoint(tprof_tp_lookup, NULL);
	for (i = 0; i < ARRAY_SIZE(tprof_tps); i++) {
		if (!tprof_tps[i].tp) {
			pr_err("tracepoint %s not found\n", tprof_tps[i].name);
			return -ENOENT;
		}
	}
	return 0;
}

static void tprof_tp_unregister(unsigned int n)
{
	while (n--)
		tracepoint_probe_unregister(tprof_tps[n].tp, tprof_tps[n].probe,
					    NULL);
	/* In-flight probes are done once this returns. */
	tracepoint_synchronize_unregister();
}

/* Context: process, tprof_sessions_mutex held. */
int tprof_tp_get(void)
{
	unsigned int i;
	int ret;

	if (tprof_tp_users++)
		return 0;
	for (i = 0; i < ARRAY_SIZE(tprof_tps); i++) {
		ret = tracepoint_probe_register(tprof_tps[i].tp,
						tprof_tps[i].probe, NULL);
		if (ret) {
			pr_err("registering %s: %d\n", tprof_tps[i].name, ret);
			tprof_tp_unregister(i);
			tprof_tp_users--;
			return ret;
		}
	}
	return 0;
}

/* Context: process, tprof_sessions_mutex held. */
void tprof_tp_put(void)
{
	if (--tprof_tp_users)
		return;
	tprof_tp_unregister(ARRAY_SIZE(tprof_tps));
}
