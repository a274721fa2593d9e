// SPDX-License-Identifier: GPL-2.0
/*
 * Test module: makes timer interrupts late on purpose, in any guest mode.
 * Writing N to /sys/module/tprof_late/parameters/irqoff_us spins for N us
 * of local_clock() with IRQs off, in the writer's own context: a timer due
 * meanwhile (tprof.ko's) fires when IRQs come back, still in the writer's
 * system call, N us late at most, and the scheduler charges the spin to
 * the writer as its own CPU time (no IRQ time accounting on Debian's
 * kernels; the thread's CPU clock counts it either way, it runs in the
 * task). Loaded by the cases that need it (tests/cases/62-late.sh), built
 * by tests/vm/run-kernel.sh for x86-64 guests.
 */
#include <linux/irqflags.h>
#include <linux/kernel.h>
#include <linux/moduleparam.h>
#include <linux/module.h>
#include <linux/sched/clock.h>

/* longer than a soft lockup's threshold would be a bug of the caller */
#define TPROF_LATE_MAX_US	100000

static unsigned int tprof_late_last;

static int tprof_late_set(const char *val, const struct kernel_param *kp)
{
	unsigned long flags;
	unsigned int us;
	u64 end;
	int ret;

	ret = kstrtouint(val, 0, &us);
	if (ret)
		return ret;
	if (us > TPROF_LATE_MAX_US)
		return -EINVAL;
	local_irq_save(flags);
	end = local_clock() + (u64)us * NSEC_PER_USEC;
	while (local_clock() < end)
		cpu_relax();
	local_irq_restore(flags);
	tprof_late_last = us;
	return 0;
}

static const struct kernel_param_ops tprof_late_ops = {
	.set = tprof_late_set,
	.get = param_get_uint,
};
module_param_cb(irqoff_us, &tprof_late_ops, &tprof_late_last, 0200);
MODULE_PARM_DESC(irqoff_us, "write N: spin N us with IRQs off, in the writer");

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("tprof test module: timer interrupts late on purpose");
