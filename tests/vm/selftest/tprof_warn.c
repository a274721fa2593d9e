// SPDX-License-Identifier: GPL-2.0
/*
 * Harness self-test: a module whose init WARNs. With panic_on_warn=1 the
 * guest must die and the host must report the kernel as failed.
 */
#include <linux/module.h>
#include <linux/bug.h>

static int __init tprof_warn_init(void)
{
	WARN(1, "tprof harness self-test: deliberate WARN\n");
	return 0;
}

static void __exit tprof_warn_exit(void)
{
}

module_init(tprof_warn_init);
module_exit(tprof_warn_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("tprof harness self-test (WARN in init)");
