// SPDX-License-Identifier: GPL-2.0
/*
 * Harness self-test for the debug kernel: at load, commit the bug named by
 * bug= (sleep, lockdep, kasan, odebug, list), each one a detector of the
 * debug kernel must report. The host must then report the kernel as failed,
 * through a panic (panic_on_warn) or through guest-run.sh's dmesg check.
 */
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/slab.h>
#include <linux/timer.h>
#include <linux/list.h>
#include <linux/string.h>

static char *bug = "";
module_param(bug, charp, 0444);
MODULE_PARM_DESC(bug, "sleep|lockdep|kasan|odebug|list");

static DEFINE_SPINLOCK(tprof_debug_spin);
static DEFINE_MUTEX(tprof_debug_a);
static DEFINE_MUTEX(tprof_debug_b);

/*
 * DEBUG_ATOMIC_SLEEP: "BUG: sleeping function called from invalid context"
 * from mutex_lock()'s might_sleep() (msleep() would not get there: it goes
 * straight to schedule(), whose "scheduling while atomic" panics).
 */
static void tprof_debug_sleep(void)
{
	spin_lock(&tprof_debug_spin);
	mutex_lock(&tprof_debug_a);
	mutex_unlock(&tprof_debug_a);
	spin_unlock(&tprof_debug_spin);
}

/* lockdep: "possible circular locking dependency detected" (a then b, b then a) */
static void tprof_debug_lockdep(void)
{
	mutex_lock(&tprof_debug_a);
	mutex_lock(&tprof_debug_b);
	mutex_unlock(&tprof_debug_b);
	mutex_unlock(&tprof_debug_a);
	mutex_lock(&tprof_debug_b);
	mutex_lock(&tprof_debug_a);
	mutex_unlock(&tprof_debug_a);
	mutex_unlock(&tprof_debug_b);
}

/* KASAN: "BUG: KASAN: slab-out-of-bounds" (one byte past a kmalloc(8)) */
static void tprof_debug_kasan(void)
{
	volatile size_t i = 8;
	char *p = kmalloc(8, GFP_KERNEL);

	if (!p)
		return;
	pr_info("read %d\n", ((volatile char *)p)[i]);
	kfree(p);
}

static void tprof_debug_timer_fn(struct timer_list *t)
{
}

/* DEBUG_OBJECTS: "ODEBUG: free active ... object type: timer_list" */
static void tprof_debug_odebug(void)
{
	struct timer_list *t = kmalloc(sizeof(*t), GFP_KERNEL);

	if (!t)
		return;
	timer_setup(t, tprof_debug_timer_fn, 0);
	mod_timer(t, jiffies + 100 * HZ);
	kfree(t);
}

/* DEBUG_LIST: "list_add corruption. next->prev should be prev ..." */
static void tprof_debug_list(void)
{
	LIST_HEAD(head);
	struct list_head a, b;

	list_add(&a, &head);
	a.prev = &b;
	list_add(&b, &head);
}

static int __init tprof_debug_init(void)
{
	if (!strcmp(bug, "sleep"))
		tprof_debug_sleep();
	else if (!strcmp(bug, "lockdep"))
		tprof_debug_lockdep();
	else if (!strcmp(bug, "kasan"))
		tprof_debug_kasan();
	else if (!strcmp(bug, "odebug"))
		tprof_debug_odebug();
	else if (!strcmp(bug, "list"))
		tprof_debug_list();
	else
		return -EINVAL;
	return 0;
}

static void __exit tprof_debug_exit(void)
{
}

module_init(tprof_debug_init);
module_exit(tprof_debug_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("tprof harness self-test (bugs the debug kernel must report)");
