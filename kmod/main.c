// SPDX-License-Identifier: GPL-2.0
/* tprof: module entry points. */
#include <linux/module.h>

#include "arch.h"
#include "budget.h"
#include "probes.h"
#include "sampler.h"
#include "tprof.h"

static int __init tprof_init(void)
{
	int ret;

	ret = tprof_probes_init();
	if (ret)
		return ret;
	ret = tprof_arch_init();
	if (ret)
		return ret;
	ret = tprof_sampler_init();
	if (ret)
		goto err_arch_exit;
	ret = tprof_dev_init();
	if (ret)
		goto err_sampler_exit;
	pr_info("version %s (abi %u) loaded\n", TPROF_VERSION, TPROF_ABI_VERSION);
	return 0;

err_sampler_exit:
	tprof_sampler_exit();
err_arch_exit:
	tprof_arch_exit();
	return ret;
}

/*
 * Sessions belong to open files, and an open file pins the module
 * (fops.owner), so by the time we get here no session exists.
 */
static void __exit tprof_exit(void)
{
	tprof_dev_exit();
	tprof_sampler_exit();
	tprof_budget_exit();
	tprof_arch_exit();
}

module_init(tprof_init);
module_exit(tprof_exit);

MODULE_LICENSE("GPL");
MODULE_AUTHOR("tprof developers");
MODULE_DESCRIPTION("Per-thread CPU-time sampling profiler");
MODULE_VERSION(TPROF_VERSION);
