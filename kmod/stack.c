// SPDX-License-Identifier: GPL-2.0
/*
 * tprof: stack capture for samples, modelled on perf_callchain_user() and
 * perf_callchain_kernel() (get_perf_callchain() is not exported). Every
 * user read goes through tprof_uread() (below: its page checked, bounded
 * per sample, never faulting a page in, so safe in hardirq): a frame
 * record with two inline loads as perf's walk reads it, anything longer
 * with copy_from_user_nofault(), exported on x86-64 and arm64 alike. What
 * differs by architecture (where the walk starts, the kernel unwinder,
 * pointer authentication) is kmod/arch.h's; this file knows none of it.
 */
#include <linux/compat.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/percpu.h>
#include <linux/string.h>
#include <linux/sched.h>
#include <linux/uaccess.h>
#include <asm/ptrace.h>

#include "arch.h"
#include "compat.h"
#include "stack.h"
#include "uapi/tprof.h"

/*
 * User reads, one sample's: bounded, and never what ptrace refuses. Every
 * read of user memory a sample makes, in the frame-pointer walk, a
 * snapshot or a user-memory walk (uwalk.c), goes through tprof_uread() or
 * tprof_uread_upto(), and so:
 *
 * - In a process that may have mapped what ptrace's own access refuses
 *   (TPROF_P_GUARDED: a memfd_secret(2) or device mapping, VM_IO or
 *   VM_PFNMAP; kept by procs.h's rules, from the mmap and exec kprobes),
 *   its pages are looked up first, as GUP would look them up for
 *   /proc/PID/mem (access_remote_vm()), with the lockless
 *   get_user_page_fast_only() (exported; perf_virt_to_phys() calls it in
 *   NMI): a page not present, a special mapping or a secret page is
 *   refused, and never read. copy_from_user_nofault() alone would read a
 *   secret page: it is mapped in the process's own page tables, only the
 *   kernel's direct map lacks it. The reference is dropped at once: the
 *   page was only looked at. mmap_lock cannot be taken here (hard irq),
 *   and a VMA found without it may be freed under us on 6.1. Other
 *   processes' reads skip the look-up, which would cost every sample a
 *   page-table walk and two atomics per page.
 * - A read is one copy_from_user_nofault() of at most a page, or two
 *   inline loads of a frame record, all or nothing; it never faults a
 *   page in.
 * - A read that fails (a fault, or a refused page) ends the walk that made
 *   it: no retry, no word-by-word fallback. And a sample makes at most
 *   TPROF_UREAD_MAX_FAULTS failed reads: past it, none is tried. Each walk
 *   ends at its first, so a sample has at most one in its frame-pointer
 *   walk, two in its snapshot (the red zone, the stack) and one in its
 *   user-memory walk: four. The bound is what holds if that ever changes.
 *   A faulting read costs about 0.6 us natively (an exception and its
 *   fixup), a refused page about a page-table walk.
 * - Each is counted (STATS uread_*), with the most reads and failures one
 *   sample made, so the cost of the worst descriptor is an exact count.
 *
 * The per-CPU state is one sample's: tprof_uread_begin() starts it.
 * Samples never nest on a CPU (each runs with IRQs off), so it needs no
 * lock.
 */

/*
 * Pages a sample remembers as allowed: a walk's frames and code objects
 * lie on a few pages, and a stack window or a snapshot reads on.
 */
#define TPROF_UREAD_PAGES	4

struct tprof_uread_cpu {
	struct tprof_uread_stats *st;
	bool guarded;
	u32 reads;
	u32 faults;
	unsigned int next;
	unsigned long pages[TPROF_UREAD_PAGES];
};

static DEFINE_PER_CPU(struct tprof_uread_cpu, tprof_uread_cpu);

/**
 * tprof_uread_begin() - a new sample of current: its bound of failed
 *	reads starts over, and its counts go to @st.
 * @st: this CPU's counts of the session the sample is for, or NULL.
 * @guarded: its process may have mapped what ptrace's access refuses
 *	(TPROF_P_GUARDED): each page is looked up before it is read.
 *
 * The sampler calls it before the sample's first user read (its
 * frame-pointer walk); the snapshot and the user-memory walk after it
 * share the bound.
 * Context: hardirq or IRQs off.
 */
void tprof_uread_begin(struct tprof_uread_stats *st, bool guarded)
{
	struct tprof_uread_cpu *u = this_cpu_ptr(&tprof_uread_cpu);

	u->st = st;
	u->guarded = guarded;
	u->reads = 0;
	u->faults = 0;
	u->next = 0;
	memset(u->pages, 0, sizeof(u->pages));
	if (st)
		st->samples++;
}

/* Is the page of @addr one current's process may have read? */
static bool tprof_upage_ok(struct tprof_uread_cpu *u, unsigned long addr)
{
	unsigned long key = (addr >> PAGE_SHIFT) + 1;
	struct page *page;
	unsigned int i;

	for (i = 0; i < TPROF_UREAD_PAGES; i++)
		if (u->pages[i] == key)
			return true;
	if (u->st)
		u->st->page_checks++;
	if (!get_user_page_fast_only(addr, 0, &page))
		return false;
	put_page(page);
	u->pages[u->next] = key;
	u->next = (u->next + 1) % TPROF_UREAD_PAGES;
	return true;
}

/*
 * @reads more reads of this sample, @failed of them failed (its walk ends
 * there): the sample's bound and the session's counts (STATS uread_*).
 */
static void tprof_uread_count(struct tprof_uread_cpu *u, unsigned int reads,
			      unsigned int failed)
{
	struct tprof_uread_stats *st = u->st;

	u->reads += reads;
	u->faults += failed;
	if (!st)
		return;
	st->reads += reads;
	st->max_reads = max_t(u64, st->max_reads, u->reads);
	if (failed) {
		st->faults += failed;
		st->max_faults = max_t(u64, st->max_faults, u->faults);
		if (u->faults >= TPROF_UREAD_MAX_FAULTS)
			st->capped++;
	}
}

/*
 * A frame record, two words of 8 or 4 bytes, with inline user loads, as
 * perf_callchain_user() reads one with a __get_user() pair: a walk makes a
 * read a frame, and a copy routine (copy_from_user_nofault()'s checks and
 * rep movs) costs more than the two loads. pagefault_disable() makes a
 * fault take the exception fixup. No nmi_uaccess_okay() (not exported):
 * a sample's context never runs with another mm loaded than current's
 * (the switches of mm run with IRQs off, EFI runtime calls in a kthread).
 * Context: hardirq or IRQs off; current's mm is the loaded one.
 * Return: 0 or -EFAULT.
 */
static int tprof_uload_record(void *dst, unsigned long addr, u32 len)
{
	const void __user *uaddr = (const void __user *)addr;

	pagefault_disable();
	if (!user_read_access_begin(uaddr, len))
		goto fault;
	if (len == 2 * sizeof(u64)) {
		const u64 __user *p = uaddr;
		u64 *d = dst;

		unsafe_get_user(d[0], p, efault);
		unsafe_get_user(d[1], p + 1, efault);
	} else {
		const u32 __user *p = uaddr;
		u32 *d = dst;

		unsafe_get_user(d[0], p, efault);
		unsafe_get_user(d[1], p + 1, efault);
	}
	user_read_access_end();
	pagefault_enable();
	return 0;
efault:
	user_read_access_end();
fault:
	pagefault_enable();
	return -EFAULT;
}

/* One read of [@addr, @addr + @len), @len <= PAGE_SIZE: 0 or -EFAULT. */
static int tprof_uread_one(struct tprof_uread_cpu *u, void *dst,
			   unsigned long addr, u32 len)
{
	unsigned long last = addr + len - 1;
	bool record = len == 2 * sizeof(u64) || len == 2 * sizeof(u32);
	int ret = 0;

	if (u->faults >= TPROF_UREAD_MAX_FAULTS)
		return -EFAULT;
	if (last < addr ||
	    (u->guarded && (!tprof_upage_ok(u, addr) ||
			    ((last ^ addr) >> PAGE_SHIFT &&
			     !tprof_upage_ok(u, last)))) ||
	    (record ? tprof_uload_record(dst, addr, len) :
	     copy_from_user_nofault(dst, (const void __user *)addr, len)))
		ret = -EFAULT;
	tprof_uread_count(u, 1, !!ret);
	return ret;
}

/**
 * tprof_uread() - @len bytes of current's memory at @addr, all or none.
 * @dst: where to.
 * @addr: a user address.
 * @len: at most PAGE_SIZE.
 *
 * Context: hardirq or IRQs off, within a sample (tprof_stack_user() came
 * first); current's mm is the loaded one.
 * Return: 0, or -EFAULT: not readable, refused, or past this sample's
 *	bound of failed reads.
 */
int tprof_uread(void *dst, unsigned long addr, u32 len)
{
	if (!len || len > PAGE_SIZE)
		return -EFAULT;
	return tprof_uread_one(this_cpu_ptr(&tprof_uread_cpu), dst, addr, len);
}

/**
 * tprof_uread_upto() - current's memory from @addr, a page at a time, up
 *	to the first page that cannot be read (snapshots).
 * @dst: where to.
 * @addr: a user address.
 * @len: bytes wanted.
 *
 * Context: as tprof_uread().
 * Return: the bytes copied.
 */
u32 tprof_uread_upto(void *dst, unsigned long addr, u32 len)
{
	struct tprof_uread_cpu *u = this_cpu_ptr(&tprof_uread_cpu);
	u32 got = 0, n;

	while (got < len) {
		n = min_t(unsigned long, len - got,
			  PAGE_SIZE - offset_in_page(addr + got));
		if (tprof_uread_one(u, (u8 *)dst + got, addr + got, n))
			break;
		got += n;
	}
	return got;
}

/**
 * tprof_uread_stats() - STATS' uread_* of a session: sums over its CPUs,
 *	and the most of any one sample.
 * @pcpu: the session's counts (tprof_procs.uread), or NULL.
 * @st: the reply to fill.
 *
 * Context: process.
 */
void tprof_uread_stats(struct tprof_uread_stats __percpu *pcpu,
		       struct tprof_ioc_stats *st)
{
	int cpu;

	if (!pcpu)
		return;
	for_each_possible_cpu(cpu) {
		const struct tprof_uread_stats *c = per_cpu_ptr(pcpu, cpu);

		st->uread_samples += READ_ONCE(c->samples);
		st->uread_reads += READ_ONCE(c->reads);
		st->uread_faults += READ_ONCE(c->faults);
		st->uread_page_checks += READ_ONCE(c->page_checks);
		st->uread_capped += READ_ONCE(c->capped);
		st->uread_max_reads = max_t(u64, st->uread_max_reads,
					    READ_ONCE(c->max_reads));
		st->uread_max_faults = max_t(u64, st->uread_max_faults,
					     READ_ONCE(c->max_faults));
	}
}

/**
 * tprof_stack_kernel() - kernel return addresses of current.
 * @regs: interrupt registers (kernel mode), or NULL to unwind from here.
 * @first_frame: without @regs, the frame of the probe that called us: the
 *	walk starts at its caller, so tprof's own frames never show.
 * @ips: output, innermost first.
 * @max: capacity of @ips (>= 1).
 * @rflags: TPROF_RF_KERNEL_TRUNCATED is or'ed in when cut.
 *
 * Context: hardirq or IRQs off, current's own stack.
 * Return: number of ips.
 */
unsigned int tprof_stack_kernel(struct pt_regs *regs,
				unsigned long *first_frame, u64 *ips,
				unsigned int max, u16 *rflags)
{
	if (regs && user_mode(regs))
		return 0;
	return tprof_arch_kernel_stack(regs, first_frame, ips, max, rflags);
}

struct tprof_frame64 {
	u64 next;
	u64 ret;
};

struct tprof_frame32 {
	u32 next;
	u32 ret;
};

/* The 32-bit records of an ia32 task, from @fp; ips from ips[@n]. */
static unsigned int tprof_stack_walk32(u32 fp, u64 *ips, unsigned int n,
				       unsigned int max, u16 *rflags)
{
	while (fp) {
		struct tprof_frame32 f;

		if (n == max) {
			*rflags |= TPROF_RF_USER_TRUNCATED;
			break;
		}
		if ((fp & 3) ||
		    tprof_uread(&f, (unsigned long)compat_ptr(fp), sizeof(f))) {
			*rflags |= TPROF_RF_USER_FAULT;
			break;
		}
		if (!f.ret)
			break;
		ips[n++] = f.ret;
		if (tprof_link_ends(f.next, fp, rflags))
			break;
		fp = f.next;
	}
	return n;
}

/* tprof_stack_walk64() for a guarded process: each frame via tprof_uread(). */
static unsigned int tprof_stack_walk64_checked(u64 fp, u64 *ips,
					       unsigned int n, unsigned int max,
					       u16 *rflags)
{
	while (fp) {
		struct tprof_frame64 f;

		if (n == max) {
			*rflags |= TPROF_RF_USER_TRUNCATED;
			break;
		}
		if ((fp & 7) || tprof_uread(&f, fp, sizeof(f))) {
			*rflags |= TPROF_RF_USER_FAULT;
			break;
		}
		if (!f.ret)
			break;
		ips[n++] = tprof_arch_user_ret(f.ret);
		if (tprof_link_ends(f.next, fp, rflags))
			break;
		fp = f.next;
	}
	return n;
}

/*
 * The 64-bit records {next, ret} (x86-64 {rbp, ret}, AArch64 {x29, x30})
 * from @fp; ips from ips[@n]. The same walk as perf's on both, and as
 * tight: two inline loads a frame under one pagefault_disable(), the
 * reads counted once at the end (the walk's first failed read ends it, so
 * it adds at most one failure to the sample's bound). A guarded process's
 * frames go through tprof_uread(), each page looked up.
 */
static unsigned int tprof_stack_walk64(u64 fp, u64 *ips, unsigned int n,
				       unsigned int max, u16 *rflags)
{
	struct tprof_uread_cpu *u = this_cpu_ptr(&tprof_uread_cpu);
	unsigned int reads = 0, failed = 0;

	if (u->guarded)
		return tprof_stack_walk64_checked(fp, ips, n, max, rflags);
	pagefault_disable();
	while (fp) {
		const u64 __user *p = (const u64 __user *)fp;
		u64 next, ret;

		if (n == max) {
			*rflags |= TPROF_RF_USER_TRUNCATED;
			break;
		}
		if (u->faults >= TPROF_UREAD_MAX_FAULTS) {
			*rflags |= TPROF_RF_USER_FAULT;
			break;
		}
		reads++;
		if ((fp & 7) || !user_read_access_begin(p, 2 * sizeof(u64)))
			goto fault;
		unsafe_get_user(next, p, efault);
		unsafe_get_user(ret, p + 1, efault);
		user_read_access_end();
		if (!ret)
			break;
		ips[n++] = tprof_arch_user_ret(ret);
		if (tprof_link_ends(next, fp, rflags))
			break;
		fp = next;
		continue;
efault:
		user_read_access_end();
fault:
		*rflags |= TPROF_RF_USER_FAULT;
		failed = 1;
		break;
	}
	pagefault_enable();
	tprof_uread_count(u, reads, failed);
	return n;
}

/**
 * tprof_stack_user() - user pc and return addresses of current.
 * @regs: user registers (user_mode()).
 * @ips: output, innermost first: the pc, the link register where the
 *	architecture has one (TPROF_RF_USER_LR), the frame-pointer chain.
 * @max: capacity of @ips (>= 1).
 * @abi: set to the TPROF_ABI_* of the user context.
 * @rflags: TPROF_RF_USER_LR / TPROF_RF_USER_TRUNCATED /
 *	TPROF_RF_USER_FAULT or'ed in.
 * @chain_fp: NULL: the chain is walked here. Else, for a 64-bit task
 *	(tprof_abi_chain()), it is left to the caller: set to where it
 *	starts, for a walk in the sample's snapshot and tprof_stack_uchain().
 *
 * Its reads count against the sample's bound (tprof_uread_begin()).
 * Context: hardirq or IRQs off; current's mm is the loaded one.
 * Return: number of ips.
 */
unsigned int tprof_stack_user(struct pt_regs *regs, u64 *ips,
			      unsigned int max, u32 *abi, u16 *rflags,
			      u64 *chain_fp)
{
	struct tprof_ustart st;
	unsigned int n = 0;

	tprof_arch_user_start(regs, &st);
	*abi = st.abi;
	ips[n++] = st.pc;
	if (st.rflags & TPROF_RF_USER_LR) {
		if (n == max) {
			*rflags |= TPROF_RF_USER_TRUNCATED;
			return n;
		}
		ips[n++] = st.lr;
		*rflags |= TPROF_RF_USER_LR;
	}
	if (chain_fp && tprof_abi_chain(st.abi)) {
		*chain_fp = st.fp;
		return n;
	}
	if (st.frame32)
		return tprof_stack_walk32(st.fp, ips, n, max, rflags);
	return tprof_stack_walk64(st.fp, ips, n, max, rflags);
}

/**
 * tprof_stack_uchain() - the return addresses of a 64-bit task's
 *	frame-pointer chain from @fp, read in user memory (the part of a
 *	chain that tprof_stack_user() left to its caller).
 * @fp: the first frame record's address.
 * @ips: output, innermost first.
 * @max: capacity of @ips (0: TPROF_RF_USER_TRUNCATED if @fp is set).
 * @rflags: TPROF_RF_USER_TRUNCATED / TPROF_RF_USER_FAULT or'ed in.
 *
 * Context: as tprof_stack_user(), within the same sample.
 * Return: number of ips.
 */
unsigned int tprof_stack_uchain(u64 fp, u64 *ips, unsigned int max,
				u16 *rflags)
{
	return tprof_stack_walk64(fp, ips, 0, max, rflags);
}

/**
 * tprof_stack_ubytes() - how many bytes of user stack a snapshot asks for.
 * @sp: the user stack pointer.
 * @want: the session's snapshot size.
 *
 * Clamped where current's address space ends (perf_ustack_task_size()).
 * Context: current's registers.
 */
u32 tprof_stack_ubytes(unsigned long sp, u32 want)
{
	unsigned long top = TASK_SIZE;

	if (!sp || sp >= top)
		return 0;
	return min_t(unsigned long, want, top - sp);
}
