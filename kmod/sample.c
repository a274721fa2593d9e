// SPDX-License-Identifier: GPL-2.0
/*
 * tprof: what one sample is. Its kernel and user stacks, then its record
 * group (SAMPLE, with snapshots USTACK, with a user-memory walk UWALK)
 * written to this CPU's ring in one reservation, or counted lost. When a
 * sample is taken, and with what weight, is sampler.c's.
 * Context: hardirq or IRQs off, on the sampled thread's CPU, the thread
 * current (the timer, the switch probes, the off-CPU irq_work).
 */
#include <linux/kernel.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <linux/sched/signal.h>
#include <linux/sched/task_stack.h>
#include <linux/smp.h>
#include <linux/string.h>
#include <linux/timekeeping.h>

#include "arch.h"
#include "budget.h"
#include "offcpu.h"
#include "policy.h"
#include "procs.h"
#include "ring.h"
#include "sampler_cpu.h"
#include "session.h"
#include "stack.h"
#include "threads.h"
#include "uwalk.h"

/*
 * A chain left to the sample's snapshot (TPROF_F_USTACK_CHAIN): where it
 * starts, room for its frames past the snapshot, and the flags its walk
 * adds to the SAMPLE.
 */
struct tprof_chain {
	u64 fp;
	u64 *ips;
	u32 max;
	u16 rflags;
};

/*
 * The chain's frame records from @ch->fp that lie in the snapshot just
 * copied to the ring at @data (user address @lo, @span bytes) are read
 * there, not in user memory again: the reader walks them in stack[] the
 * same way (uapi TPROF_RF_USTACK_CHAIN). Those past it come from user
 * memory, written after a struct tprof_ustack_chain. The same stops as
 * tprof_stack_user()'s walk, and the same ips, between the two records.
 * Return: bytes written.
 */
static u32 tprof_put_uchain(struct tprof_ring *r, struct tprof_ring_res *res,
			    struct tprof_chain *ch, u64 data,
			    unsigned long lo, u32 span)
{
	struct tprof_ustack_chain hc = { 0 };
	u64 hc_pos = res->pos, fp = ch->fp, next, last, off;
	u32 n = 0;

	tprof_ring_skip(res, sizeof(hc));
	/* stack[] aligned as the records are: no word straddles the wrap */
	if (!(lo & 7) && span >= 16) {
		last = span - 16;	/* the last record's offset */
		while (fp && n < ch->max) {
			off = fp - lo;
			if (off > last || (off & 7))
				break;
			if (!tprof_ring_peek64(r, data + off + 8)) {
				fp = 0;	/* no return address: the end */
				break;
			}
			n++;
			next = tprof_ring_peek64(r, data + off);
			fp = tprof_link_ends(next, fp, &ch->rflags) ? 0 : next;
		}
	}
	hc.nr_inner = n;
	if (fp) {
		hc.nr_outer = tprof_stack_uchain(fp, ch->ips, ch->max - n,
						 &ch->rflags);
		tprof_ring_put(r, res, ch->ips, hc.nr_outer * sizeof(u64));
	}
	tprof_ring_put_at(r, hc_pos, &hc, sizeof(hc));
	return sizeof(hc) + hc.nr_outer * sizeof(u64);
}

/*
 * The USTACK record of a sample group at @res's position: c->ustack's
 * registers and @req bytes of user stack from @sp, copied straight into
 * the ring, as far as it reads without a fault; first, with @below, the
 * red zone under @sp when all of it reads (a page below sp that is not
 * present leaves it out, and the flag with it); with @ch, the chain after
 * them. @gflags: TPROF_RF_GROUP when a UWALK record follows.
 */
static void tprof_put_ustack(struct tprof_cpu *c, struct tprof_ring *r,
			     struct tprof_ring_res *res,
			     const struct tprof_rec_sample *rec,
			     unsigned long sp, u32 req, bool below,
			     u16 gflags, struct tprof_chain *ch)
{
	struct tprof_rec_ustack *u = &c->ustack;
	u8 zone[TPROF_SNAPSHOT_BELOW_BYTES];
	u32 got = 0, room, want, n, pad, under = 0, chain = 0;
	u64 hdr_pos = res->pos;
	void *dst;
	static const u64 zero;

	tprof_ring_skip(res, sizeof(*u));
	if (below && sp >= sizeof(zone) &&
	    tprof_arch_ucopy(zone, sp - sizeof(zone), sizeof(zone)) ==
	    sizeof(zone)) {
		tprof_ring_put(r, res, zone, sizeof(zone));
		under = sizeof(zone);
	}
	/* At most two spans: the ring may wrap. */
	while (got < req) {
		dst = tprof_ring_span(r, res, &room);
		want = min(room, req - got);
		n = tprof_arch_ucopy(dst, sp + got, want);
		tprof_ring_skip(res, n);
		got += n;
		if (n < want)	/* an unreadable page ends it */
			break;
	}
	pad = ALIGN(got, 8) - got;
	if (pad)
		tprof_ring_put(r, res, &zero, pad);
	if (ch)
		chain = tprof_put_uchain(r, res, ch, hdr_pos + sizeof(*u),
					 sp - under, under + got);
	u->hdr.type = TPROF_REC_USTACK;
	u->hdr.flags = (got < req ? TPROF_RF_USTACK_PARTIAL : 0) |
		       (under ? TPROF_RF_USTACK_BELOW : 0) |
		       (ch ? TPROF_RF_USTACK_CHAIN : 0) | gflags;
	u->hdr.size = sizeof(*u) + under + got + pad + chain;
	u->hdr.time_ns = rec->hdr.time_ns;
	u->tid = rec->tid;
	u->abi = rec->abi;
	u->stack_req = under + req;
	u->stack_bytes = under + got;
	tprof_ring_put_at(r, hdr_pos, u, sizeof(*u));
}

/*
 * Does a sample of @abi get a USTACK record? The uapi gives AArch32 tasks
 * (TPROF_ABI_ARM32) none: no unwinder could use their snapshots.
 */
static bool tprof_snapshots(const struct tprof_session *s, u32 abi)
{
	return s->snapshot_bytes && abi != TPROF_ABI_ARM32;
}

/*
 * Writes @rec (a SAMPLE of @len bytes) and the rest of its group in one
 * reservation: first, for an off-CPU sample whose wait has a waker, the
 * WAKER record @wk (with TPROF_RF_GROUP); with snapshots and user
 * registers @uregs (NULL: none, the thread is in do_exit()) its USTACK
 * record (and the chain @ch in it, whose walk's flags @rec gets); with a
 * user-memory walk @w its UWALK record, last, the walk's words written
 * straight into the ring as it reads them. The reader gets all or none.
 * @sample: a sample of time (of @weight), not a waker's stack.
 * Context: hardirq or IRQs off; c's thread is current, its mm loaded.
 * Return: 0, or -ENOSPC (all dropped, counted as one lost sample, or
 * with !@sample as lost records).
 */
static int tprof_write_group(struct tprof_cpu *c, struct tprof_ring *r,
			     const struct tprof_rec_waker *wk,
			     struct tprof_rec_sample *rec, u32 len,
			     struct pt_regs *uregs, bool sample, u64 weight,
			     const struct tprof_uwalk *w,
			     struct tprof_chain *ch)
{
	struct tprof_session *s = c->sess;
	bool timed = s->flags & TPROF_F_PATH_TIMING;
	struct tprof_uwalk_res wres;
	struct tprof_ring_res res;
	unsigned long sp = 0;
	u32 req = 0, snap = 0;
	bool below = false;
	u64 t0 = 0, rec_pos;
	int ret = 0;

	/* a WAKER alone makes a group without user context */
	if (uregs && tprof_snapshots(s, rec->abi)) {
		sp = tprof_arch_user_regs(uregs, rec->abi, c->ustack.regs);
		req = tprof_stack_ubytes(sp, s->snapshot_bytes);
		/* x86-64's red zone; ia32 and arm64 have none */
		below = (s->flags & TPROF_F_SNAPSHOT_BELOW) &&
			tprof_arch_red_zone(rec->abi);
		snap = sizeof(c->ustack) + ALIGN(req, 8) +
		       (below ? TPROF_SNAPSHOT_BELOW_BYTES : 0) +
		       (ch ? sizeof(struct tprof_ustack_chain) +
			ch->max * sizeof(u64) : 0);
	}
	if (tprof_ring_reserve(r, (wk ? sizeof(*wk) : 0) + len + snap +
			       (w ? sizeof(struct tprof_rec_uwalk) : 0),
			       sample, weight, &res))
		return -ENOSPC;
	if (wk)
		tprof_ring_put(r, &res, wk, sizeof(*wk));
	/* the SAMPLE last: the chain's walk may add to its flags */
	rec_pos = res.pos;
	tprof_ring_skip(&res, len);
	if (snap)
		tprof_put_ustack(c, r, &res, rec, sp, req, below,
				 w ? TPROF_RF_GROUP : 0, ch);
	if (ch)
		rec->hdr.flags |= ch->rflags;
	tprof_ring_put_at(r, rec_pos, rec, len);
	if (w) {
		if (timed)
			t0 = local_clock();
		ret = tprof_uwalk_write(r, &res, w, uregs,
					READ_ONCE(c->thr->uaddr), rec->tid,
					rec->hdr.time_ns, &wres);
		if (timed)
			r->st.uwalk_path_ns += local_clock() - t0;
	}
	if (ret) {
		tprof_ring_cancel(r, &res, sample, weight);
		return ret;
	}
	tprof_ring_commit(r, &res, sample, weight);
	if (w)
		tprof_uwalk_account(&r->st, &wres);
	return 0;
}

/*
 * With PF_EXITING: TPROF_RF_THREAD_EXIT when only current is leaving and
 * its process lives on: no group exit (exit_group(), a fatal signal) is in
 * progress (exit_group(2) sets SIGNAL_GROUP_EXIT even for a process's only
 * thread), and some thread still counts in signal->live, which do_exit()
 * drops for current a few steps after PF_EXITING. Racy reads: at worst a
 * thread leaving beside the process's last one is called a process's exit,
 * and those few steps of a last thread that leaves by exit(2), not
 * exit_group(2), a thread's.
 *
 * Context: hardirq or IRQs off; current is in do_exit().
 */
static u16 tprof_thread_exit_only(void)
{
	struct signal_struct *sig = current->signal;

	if (READ_ONCE(sig->flags) & SIGNAL_GROUP_EXIT)
		return 0;
	return atomic_read(&sig->live) > 0 ? TPROF_RF_THREAD_EXIT : 0;
}

/*
 * The WAKER record of the wait @k ended, of thread @vtid (@vpid), first
 * in a group written at @time_ns: its off-CPU sample's, or (with
 * TPROF_RF_WAKER_WAKEUP added) its waker's stack's.
 */
static void tprof_fill_waker(struct tprof_rec_waker *wrec, u64 time_ns,
			     u32 vpid, u32 vtid, const struct tprof_waker *k)
{
	memset(wrec, 0, sizeof(*wrec));
	wrec->hdr.type = TPROF_REC_WAKER;
	wrec->hdr.flags = TPROF_RF_GROUP;
	wrec->hdr.size = sizeof(*wrec);
	wrec->hdr.time_ns = time_ns;
	wrec->pid = vpid;
	wrec->tid = vtid;
	wrec->kind = k->kind;
	wrec->waker_pid = k->pid;
	wrec->waker_tid = k->tid;
	wrec->seq = k->seq;
	memcpy(wrec->waker_comm, k->comm, sizeof(wrec->waker_comm));
}

/*
 * The SAMPLE record @rec of thread @t, taken on this CPU now, with @nk
 * kernel and @nu user frames after it: all but its weight, period and
 * off-CPU state (0 here). Return: its size.
 */
static u32 tprof_fill_sample(struct tprof_rec_sample *rec, u16 rflags,
			     const struct tprof_thread *t, u32 nk, u32 nu,
			     u32 abi)
{
	u32 len = sizeof(*rec) + (nk + nu) * sizeof(u64);

	rec->hdr.type = TPROF_REC_SAMPLE;
	rec->hdr.flags = rflags;
	rec->hdr.size = len;
	rec->hdr.time_ns = ktime_get_mono_fast_ns();
	rec->pid = t->vpid;
	rec->tid = t->vtid;
	rec->cpu = smp_processor_id();
	rec->nr_user = nu;
	rec->nr_kernel = nk;
	rec->weight_ns = 0;
	rec->period_ns = 0;
	rec->abi = abi;
	rec->off_state = 0;
	return len;
}

/*
 * The user part of a sample of thread @t (current) of @s from @uregs: its
 * frame-pointer walk into @ips (its flags in *@rflags), the reads'
 * bound begun; with TPROF_F_USTACK_CHAIN a 64-bit chain is left to the
 * USTACK record, where the snapshot has it (*@ch = @chain, its frames
 * past the walk's after them in @ips).
 * Context: hardirq or IRQs off; current is @t's thread.
 * Return: the frames in @ips.
 */
static u32 tprof_user_stack(struct tprof_session *s, struct tprof_thread *t,
			    struct pt_regs *uregs, u64 *ips, u32 *abi,
			    u16 *rflags, struct tprof_chain *chain,
			    struct tprof_chain **ch)
{
	u32 nu;

	tprof_uread_begin(s->procs.uread ? this_cpu_ptr(s->procs.uread) : NULL,
			  !tprof_policy_mm_watched() ||
			  test_bit(TPROF_P_GUARDED, &t->proc->bits));
	nu = tprof_stack_user(uregs, ips, s->max_user_frames, abi, rflags,
			      s->flags & TPROF_F_USTACK_CHAIN ? &chain->fp : NULL);
	if ((s->flags & TPROF_F_USTACK_CHAIN) && tprof_abi_chain(*abi)) {
		chain->ips = ips + nu;
		chain->max = s->max_user_frames - nu;
		*ch = chain;
	}
	return nu;
}

/**
 * tprof_take_sample() - one sample of c's thread: its stacks and the
 *	record group, written to this CPU's ring (or counted lost).
 * @c: this CPU's state; its thread is current.
 * @regs: the interrupted context (the timer), or NULL (a probe: the kernel
 *	walk starts at c->kfrom).
 * @weight: the CPU or off-CPU time it stands for.
 * @period: the period it was taken at.
 * @late: sample points passed beyond the first (TPROF_RF_LATE).
 * @off_state: 0 for a CPU-time sample, else the TPROF_OFF_* of an
 *	off-CPU one (taken right after the switch-in that ended the wait).
 *
 * Context: hardirq or IRQs off; c's thread is current.
 */
void tprof_take_sample(struct tprof_cpu *c, struct pt_regs *regs,
		       u64 weight, u64 period, u64 late, u32 off_state)
{
	struct tprof_session *s = c->sess;
	struct tprof_thread *t = c->thr;
	unsigned int cpu = smp_processor_id();
	struct tprof_ring *r = s->rings.ring[cpu];
	struct tprof_rec_sample *rec = (void *)c->scratch;
	u64 *ips = (u64 *)(rec + 1);
	struct pt_regs *uregs = NULL;
	const struct tprof_uwalk *w = NULL;
	struct tprof_chain chain = { 0 }, *ch = NULL;
	struct tprof_rec_waker wrec, *wk = NULL;
	unsigned int nk = 0, nu = 0;
	bool budget = !s->grant.privileged;
	bool timed = (s->flags & TPROF_F_PATH_TIMING) || budget;
	u64 t0 = timed ? local_clock() : 0, t1;
	u16 rflags = (late ? TPROF_RF_LATE : 0) |
		     (off_state ? TPROF_RF_OFF_CPU : 0);
	u32 abi = TPROF_ABI_NONE;
	u32 len;

	if (s->max_kernel_frames) {
		if (!regs && c->defer_valid && !off_state) {
			nk = min_t(unsigned int, c->defer_nk,
				   s->max_kernel_frames);
			memcpy(ips, c->defer_kips, nk * sizeof(u64));
			rflags |= c->defer_kflags;
		} else {
			nk = tprof_stack_kernel(regs, c->kfrom, ips,
						s->max_kernel_frames, &rflags);
		}
		if (rflags & TPROF_RF_KERNEL_TRUNCATED)
			r->st.kernel_stack_truncated++;
	}
	if (!off_state)
		c->defer_valid = false;
	/*
	 * In do_exit() (PF_EXITING) the user stack is going away with the
	 * mm (exit_mm()): such a sample is the exit path's, with no user
	 * context, rather than a walk of half-unmapped memory.
	 */
	if (regs && user_mode(regs))
		uregs = regs;
	else if (tprof_is_user_task(current) &&
		 !(current->flags & PF_EXITING))
		uregs = task_pt_regs(current);
	if (uregs)
		nu = tprof_user_stack(s, t, uregs, ips + nk, &abi, &rflags,
				      &chain, &ch);
	/* the walk reads the sampled thread's memory: current must be it */
	if (uregs && c->task == current)
		w = tprof_uwalk_of(t->proc);
	if (uregs && (tprof_snapshots(s, abi) || w))
		rflags |= TPROF_RF_GROUP;
	/* the exit path's time: no user stack to show, but not "none" */
	if (current->flags & PF_EXITING)
		rflags |= TPROF_RF_EXITING | tprof_thread_exit_only();
	len = tprof_fill_sample(rec, rflags, t, nk, nu, abi);
	rec->weight_ns = weight;
	rec->period_ns = period;
	rec->off_state = off_state;

	if (!off_state) {	/* tprof_off_add() counted an off-CPU one */
		t->samples++;
		t->weight_ns += weight;
	} else if (c->off_waker.kind) {
		tprof_fill_waker(&wrec, rec->hdr.time_ns, rec->pid, rec->tid,
				 &c->off_waker);
		wk = &wrec;
		c->off_waker.kind = 0;
	}
	if ((rflags & TPROF_RF_GROUP) || wk ?
	    tprof_write_group(c, r, wk, rec, len, uregs, true, weight, w, ch) :
	    tprof_ring_write(r, rec, len, true, weight)) {
		if (wk)
			r->st.wakers_dropped++;
		if (off_state) {
			tprof_off_lost(tprof_thread_off(&s->threads, t), weight);
		} else {
			t->lost_samples++;
			t->lost_weight_ns += weight;
		}
	} else if (wk) {
		r->st.waker_records++;
	}
	if (rec->hdr.flags & TPROF_RF_USER_TRUNCATED)
		r->st.user_stack_truncated++;
	if (rec->hdr.flags & TPROF_RF_USER_FAULT)
		r->st.user_stack_faults++;
	r->st.late_timer_periods += late;
	if (!timed)
		return;
	t1 = local_clock();
	if (s->flags & TPROF_F_PATH_TIMING) {
		r->st.sample_path_ns += t1 - t0;
		r->st.sample_path_calls++;
	}
	if (budget)
		tprof_budget_charge(s, t1 - t0, t1);
}

/**
 * tprof_take_waker_stack() - current's stack as the waker of a wait
 *	(TPROF_F_WAKER_STACKS): a WAKER record (TPROF_RF_WAKER_WAKEUP) and a
 *	SAMPLE of current marked TPROF_RF_WAKE_STACK, with its snapshot
 *	and user-memory walk as a sample of it would have, written to this
 *	CPU's ring in one group.
 * @c: this CPU's state; its thread, of @woken's session, is current.
 * @woken: the thread whose wait current ends.
 * @k: who ends it (current), with the wait's number.
 *
 * Weight 0, no kernel stack (the wakeup's own path), nothing accounted to
 * the thread; an unprivileged session's budget is charged as for a
 * sample, so wakers cannot buy more sampling cost than samples can.
 * Context: sched_waking, IRQs off; current is a user task, not exiting.
 * Return: 0, or -ENOSPC (dropped: STATS waker_stacks_dropped).
 */
int tprof_take_waker_stack(struct tprof_cpu *c,
			   const struct tprof_thread *woken,
			   const struct tprof_waker *k)
{
	struct tprof_session *s = c->sess;
	struct tprof_thread *t = c->thr;
	struct tprof_ring *r = s->rings.ring[smp_processor_id()];
	struct tprof_rec_sample *rec = (void *)c->scratch;
	u64 *ips = (u64 *)(rec + 1);
	struct pt_regs *uregs = task_pt_regs(current);
	struct tprof_chain chain = { 0 }, *ch = NULL;
	const struct tprof_uwalk *w;
	bool budget = !s->grant.privileged;
	u64 t0 = budget ? local_clock() : 0, t1;
	u16 rflags = TPROF_RF_WAKE_STACK;
	u32 abi = TPROF_ABI_NONE, nu, len;
	struct tprof_rec_waker wk;
	int ret;

	nu = tprof_user_stack(s, t, uregs, ips, &abi, &rflags, &chain, &ch);
	w = tprof_uwalk_of(t->proc);
	if (tprof_snapshots(s, abi) || w)
		rflags |= TPROF_RF_GROUP;
	len = tprof_fill_sample(rec, rflags, t, 0, nu, abi);
	tprof_fill_waker(&wk, rec->hdr.time_ns, woken->vpid, woken->vtid, k);
	wk.hdr.flags |= TPROF_RF_WAKER_WAKEUP;
	ret = tprof_write_group(c, r, &wk, rec, len, uregs, false, 0, w, ch);
	if (ret)
		r->st.waker_stacks_dropped++;
	else
		r->st.waker_stacks++;
	if (budget) {
		t1 = local_clock();
		tprof_budget_charge(s, t1 - t0, t1);
	}
	return ret;
}

/*
 * The timer leaves a passed point to the switch-out: keep the kernel stack
 * of what it interrupted (empty for user mode), once per deferral.
 * Context: hardirq.
 */
void tprof_defer_kstack(struct tprof_cpu *c, struct pt_regs *regs)
{
	struct tprof_session *s = c->sess;
	u16 kflags = 0;

	if (!s->max_kernel_frames || c->defer_valid || !regs)
		return;
	c->defer_nk = user_mode(regs) ? 0 :
		      tprof_stack_kernel(regs, NULL, c->defer_kips,
					 s->max_kernel_frames, &kflags);
	c->defer_kflags = kflags;
	c->defer_valid = true;
}
