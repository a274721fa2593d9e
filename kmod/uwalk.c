// SPDX-License-Identifier: GPL-2.0
/*
 * tprof: user-memory walks (TPROF_IOC_SET_UWALK). tprof-read describes a
 * bounded walk of a followed process's own memory (CPython's frame chain,
 * say); every sample of the process with user context runs it, in the
 * sampled thread itself, and writes what it read as the sample group's
 * last record (TPROF_REC_UWALK). The module knows nothing of what it walks.
 * A chain longer than the record's room can keep both ends: its head, and
 * its last tail_frames frames, found by following the next pointers alone
 * (one 8-byte read a frame, at most tail_skip): an interpreter's deep
 * recursion keeps its outermost callers.
 *
 * Reads are stack.c's tprof_uread() of current's own mm, as the stack
 * walks' are: copy_from_user_nofault() (access_ok() keeps them in the
 * user range, nmi_uaccess_okay() in the loaded mm, pagefault_disable()
 * from ever faulting a page in) of pages looked up first, so that what
 * ptrace's own access refuses (memfd_secret pages, VM_IO/VM_PFNMAP
 * mappings) is never read; each counted, and at most
 * TPROF_UREAD_MAX_FAULTS failed ones per sample. Any read that fails ends
 * the walk (FAULT_START or FAULT). It is safe in hard irq on 6.1, 6.12 and
 * PREEMPT_RT alike: no lock, no sleep. A sample taken where current is not the sampled thread
 * gets no walk, and so no UWALK record (the sampler checks).
 *
 * Descriptors are set from process context and published with RCU: a
 * process's pointer (tprof_proc.uwalk) is swapped with xchg() by the ioctl
 * and by the exec probe, and the walk reads it with IRQs off. The ioctl
 * frees what it replaced with kfree_rcu(); the exec probe, which cannot,
 * leaves what it removed on the session's list, for the next ioctl or the
 * session's end.
 */
#include <linux/errno.h>
#include <linux/llist.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/pid.h>
#include <linux/rcupdate.h>
#include <linux/rwsem.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <asm/ptrace.h>

#include "arch.h"
#include "ring.h"
#include "session.h"
#include "stack.h"
#include "tprof.h"
#include "uwalk.h"

/* A frame's fields read with one copy when they lie within this many bytes. */
#define TPROF_UWALK_SPAN	128
/* Words of one frame, at most. */
#define TPROF_UWALK_MAX_WORDS	(TPROF_UWALK_MAX_FIELDS + \
				 TPROF_UWALK_MAX_CODE_OFFS)

/*
 * @len (1, 2, 4 or 8) bytes of user memory at @addr, zero-extended (the
 * low bytes of a little-endian u64): one user read (stack.c's
 * tprof_uread(): counted, bounded, refused on pages ptrace's own access
 * refuses). Context: current's mm, within a sample.
 */
static int tprof_uwalk_load(unsigned long addr, u32 len, u64 *v)
{
	u64 x = 0;

	if (tprof_uread(&x, addr, len))
		return -EFAULT;
	*v = x;
	return 0;
}

/*
 * One frame at @p: its field words into @words, its next pointer into
 * @next. One read covers a short span; the fields and the next pointer
 * lie at both ends of it, so it reads exactly when they all do. A span
 * that cannot be read is not read again word by word: the frame is
 * unreadable, and the walk ends there: a sample's cost stays bounded.
 */
static int tprof_uwalk_frame(const struct tprof_uwalk *w, unsigned long p,
			     u64 *words, unsigned long *next)
{
	const struct tprof_ioc_uwalk *d = &w->d;
	u8 buf[TPROF_UWALK_SPAN] __aligned(8);
	u64 v;
	u32 i;

	if (w->span_len) {
		if (tprof_uread(buf, p + w->span_lo, w->span_len))
			return -EFAULT;
		for (i = 0; i < d->nr_fields; i++) {
			words[i] = 0;
			memcpy(&words[i], buf + d->fields[i].off - w->span_lo,
			       d->fields[i].len);
		}
		memcpy(&v, buf + d->next_off - w->span_lo, sizeof(v));
		*next = v;
		return 0;
	}
	for (i = 0; i < d->nr_fields; i++)
		if (tprof_uwalk_load(p + d->fields[i].off, d->fields[i].len,
				     &words[i]))
			return -EFAULT;
	if (tprof_uwalk_load(p + d->next_off, 8, &v))
		return -EFAULT;
	*next = v;
	return 0;
}

/*
 * The code words of the last code object a walk read: frames of one
 * function (a recursion) share it, and a walk is one instant's. Two code
 * objects taking turns miss it every frame: that costs one read per
 * frame, as a walk of distinct functions does.
 */
struct tprof_uwalk_code {
	u64 q;
	u64 v[TPROF_UWALK_MAX_CODE_OFFS];
};

/*
 * The code words of a frame whose fields are @words, into @words after
 * them. One read when they lie close together (it reads exactly when each
 * of them does), else one each. Return: 0, or -EFAULT: one of them could
 * not be read, which ends the walk before this frame (a code object that
 * faults is no cheaper to follow than a frame that does).
 */
static int tprof_uwalk_code(const struct tprof_uwalk *w, u64 *words,
			    struct tprof_uwalk_code *last)
{
	const struct tprof_ioc_uwalk *d = &w->d;
	u64 q = words[d->code_field] & ~d->code_mask;
	u8 buf[TPROF_UWALK_SPAN] __aligned(8);
	u64 *v = &words[d->nr_fields];
	u32 j;

	if (q && q == last->q) {
		memcpy(v, last->v, d->nr_code_offs * sizeof(u64));
		return 0;
	}
	/* a frame with no code object: nothing to read */
	if (!q) {
		memset(v, 0, d->nr_code_offs * sizeof(u64));
		return 0;
	}
	if (w->code_len) {
		if (tprof_uread(buf, q + w->code_lo, w->code_len))
			return -EFAULT;
		for (j = 0; j < d->nr_code_offs; j++)
			memcpy(&v[j], buf + d->code_offs[j] - w->code_lo,
			       sizeof(u64));
	} else {
		for (j = 0; j < d->nr_code_offs; j++)
			if (tprof_uwalk_load(q + d->code_offs[j], 8, &v[j]))
				return -EFAULT;
	}
	last->q = q;
	memcpy(last->v, v, d->nr_code_offs * sizeof(u64));
	return 0;
}

/* The frames a record may carry: @max_frames, and what @max_bytes holds. */
static u32 tprof_uwalk_room(const struct tprof_ioc_uwalk *d)
{
	u32 fbytes = (d->nr_fields + d->nr_code_offs) * sizeof(u64);

	return min_t(u32, d->max_frames, d->max_bytes / fbytes);
}

/*
 * From the start to the first frame (see the uapi). @start is set to p
 * after the start and the guard. Return: TPROF_UWALK_OK with the first
 * frame (or 0) in *@p, or the status that ends the walk there.
 */
static u32 tprof_uwalk_begin(const struct tprof_ioc_uwalk *d,
			     struct pt_regs *uregs, u64 tid_addr,
			     unsigned long *p, u64 *start)
{
	unsigned long tp = 0;
	u64 v = 0;
	u32 i;

	switch (d->start) {
	case TPROF_UWALK_START_TP:
		/* current's thread pointer, 0 for compat tasks (no start) */
		tp = tprof_arch_user_tp(uregs);
		if (!tp)
			return TPROF_UWALK_NO_START;
		if (tprof_uwalk_load(tp + d->start_addr, 8, &v))
			return TPROF_UWALK_FAULT_START;
		break;
	case TPROF_UWALK_START_ADDR:
		if (tprof_uwalk_load(d->start_addr, 8, &v))
			return TPROF_UWALK_FAULT_START;
		break;
	default:	/* TPROF_UWALK_START_TID: no load */
		v = tid_addr;
		break;
	}
	if (!v)
		return TPROF_UWALK_NO_START;
	*start = v;
	if (d->flags & TPROF_UWALK_F_GUARD_TP) {
		u64 g;

		if (!tp)
			tp = tprof_arch_user_tp(uregs);
		if (tprof_uwalk_load(v + d->guard_off, 8, &g))
			return TPROF_UWALK_FAULT_START;
		if (!tp || g != tp)
			return TPROF_UWALK_GUARD;
	}
	for (i = 0; i < d->nr_steps; i++) {
		if (tprof_uwalk_load(v + d->steps[i], 8, &v))
			return TPROF_UWALK_FAULT_START;
		if (!v)
			return TPROF_UWALK_NO_START;
	}
	*p = v;
	return TPROF_UWALK_OK;
}

/*
 * One frame at @p, its fields and code words, into the ring. Return: 0,
 * -EFAULT (a word could not be read: nothing written), or -ENOSPC.
 */
static int tprof_uwalk_put(const struct tprof_uwalk *w, struct tprof_ring *r,
			   struct tprof_ring_res *res, unsigned long p,
			   struct tprof_uwalk_code *last, unsigned long *next)
{
	const struct tprof_ioc_uwalk *d = &w->d;
	u32 fbytes = w->words * sizeof(u64);
	u64 words[TPROF_UWALK_MAX_WORDS];

	if (tprof_uwalk_frame(w, p, words, next) ||
	    (d->code_field != TPROF_UWALK_NO_CODE &&
	     tprof_uwalk_code(w, words, last)))
		return -EFAULT;
	if (tprof_ring_extend(r, res, fbytes))
		return -ENOSPC;
	tprof_ring_put(r, res, words, fbytes);
	return 0;
}

/*
 * Past the head, from frame @p (not read yet): follow only the next
 * pointers, at most tail_skip of them, keeping the last tail_frames
 * frames' addresses, to the chain's end; then write those frames. A chain
 * that ended within tail_frames of the head is the head's continuation
 * (*@nr_tail 0, OK); else they are its outermost frames (*@nr_tail,
 * TRUNCATED: frames were left out). Not found within tail_skip: TRUNCATED
 * with no tail; a next pointer that faults: FAULT. A tail frame that
 * faults ends it there: FAULT, with the tail frames before it (the reader
 * takes no tail of a FAULT walk for the outermost).
 * Return: the status; *@n and *@nr_tail count what was written, or
 *	-ENOSPC in *@err.
 */
static u32 tprof_uwalk_tail(const struct tprof_uwalk *w, struct tprof_ring *r,
			    struct tprof_ring_res *res, unsigned long p,
			    struct tprof_uwalk_code *last, u32 *n,
			    u32 *nr_tail, int *err)
{
	const struct tprof_ioc_uwalk *d = &w->d;
	unsigned long addr[TPROF_UWALK_MAX_TAIL], next;
	u32 seen = 0, k, i;
	u64 v;

	for (;;) {
		if (seen == d->tail_skip)
			return TPROF_UWALK_TRUNCATED;
		addr[seen++ % d->tail_frames] = p;
		if (tprof_uwalk_load(p + d->next_off, 8, &v))
			return TPROF_UWALK_FAULT;
		if (!v || v == p)
			break;
		p = v;
	}
	k = min(seen, d->tail_frames);
	for (i = seen - k; i < seen; i++) {
		*err = tprof_uwalk_put(w, r, res, addr[i % d->tail_frames], last,
				       &next);
		if (*err == -EFAULT) {
			*err = 0;
			return TPROF_UWALK_FAULT;
		}
		if (*err)
			return TPROF_UWALK_FAULT;
		(*n)++;
		if (seen > d->tail_frames)
			(*nr_tail)++;
	}
	return seen > d->tail_frames ? TPROF_UWALK_TRUNCATED : TPROF_UWALK_OK;
}

/**
 * tprof_uwalk_write() - run walk @w and write its UWALK record into @res.
 * @r: the ring.
 * @res: the sample group's reservation, with room for the record's header
 *	at its position; grown frame by frame (tprof_ring_extend()).
 * @w: the walk (tprof_uwalk_of()).
 * @uregs: current's user registers (the sample's user context).
 * @tid_addr: with TPROF_UWALK_START_TID, the sampled thread's address.
 * @vtid: the sample's tid.
 * @time_ns: the sample's time.
 * @out: what it recorded, for tprof_uwalk_account() once committed.
 *
 * Words go straight into the ring, one frame at a time: nothing larger
 * than a frame's span is on the stack.
 * Context: hardirq or IRQs off; current is the sampled thread, its mm the
 * loaded one.
 * Return: 0, or -ENOSPC: the ring had no room for the words (the caller
 *	drops the group).
 */
int tprof_uwalk_write(struct tprof_ring *r, struct tprof_ring_res *res,
		      const struct tprof_uwalk *w, struct pt_regs *uregs,
		      u64 tid_addr, u32 vtid, u64 time_ns,
		      struct tprof_uwalk_res *out)
{
	const struct tprof_ioc_uwalk *d = &w->d;
	struct tprof_rec_uwalk rec = {
		.hdr.type = TPROF_REC_UWALK,
		.hdr.time_ns = time_ns,
		.tid = vtid,
		.words_per_frame = w->words,
	};
	struct tprof_uwalk_code last = { .q = 0 };
	u32 head = tprof_uwalk_room(d) - d->tail_frames;
	unsigned long p = 0, next;
	u64 hdr_pos = res->pos;
	u32 status, n = 0, nr_tail = 0;
	int err = 0;

	tprof_ring_skip(res, sizeof(rec));
	status = tprof_uwalk_begin(d, uregs, tid_addr, &p, &rec.start);
	while (status == TPROF_UWALK_OK && p) {
		if (n == head) {
			status = d->tail_frames ?
				 tprof_uwalk_tail(w, r, res, p, &last, &n,
						  &nr_tail, &err) :
				 TPROF_UWALK_TRUNCATED;
			break;
		}
		err = tprof_uwalk_put(w, r, res, p, &last, &next);
		if (err) {
			status = TPROF_UWALK_FAULT;
			break;
		}
		n++;
		if (next == p)	/* a frame that is its own next: the end */
			break;
		p = next;
	}
	if (err == -ENOSPC)
		return -ENOSPC;
	rec.hdr.size = sizeof(rec) + n * w->words * sizeof(u64);
	rec.status = status;
	rec.nr_frames = n;
	rec.nr_tail = nr_tail;
	tprof_ring_put_at(r, hdr_pos, &rec, sizeof(rec));
	out->status = status;
	out->frames = n;
	return 0;
}

/* A committed walk's counts. Context: the ring's producer. */
void tprof_uwalk_account(struct tprof_ring_stats *st,
			 const struct tprof_uwalk_res *res)
{
	st->uwalks++;
	st->uwalk_frames += res->frames;
	st->uwalk_faults += res->status == TPROF_UWALK_FAULT ||
			    res->status == TPROF_UWALK_FAULT_START;
	st->uwalk_truncated += res->status == TPROF_UWALK_TRUNCATED;
}

/* Unused entries of the arrays must be zero (a later field's reserve). */
static bool tprof_uwalk_tail_zero(const void *a, size_t used, size_t all)
{
	return !memchr_inv((const u8 *)a + used, 0, all - used);
}

/* Checks @d (start != 0) and applies its defaults. Return: 0 or -EINVAL. */
static int tprof_uwalk_check(struct tprof_ioc_uwalk *d)
{
	u32 i;

	if (d->start < TPROF_UWALK_START_TP || d->start > TPROF_UWALK_START_TID)
		return -EINVAL;
	if (d->flags & ~TPROF_UWALK_F_GUARD_TP)
		return -EINVAL;
	if (!(d->flags & TPROF_UWALK_F_GUARD_TP) && d->guard_off)
		return -EINVAL;
	if (d->start == TPROF_UWALK_START_TID && d->start_addr)
		return -EINVAL;
	if (d->start == TPROF_UWALK_START_ADDR &&
	    (!d->start_addr || (u64)d->start_addr >= TASK_SIZE_MAX))
		return -EINVAL;
	if (d->nr_steps > TPROF_UWALK_MAX_STEPS ||
	    !tprof_uwalk_tail_zero(d->steps, d->nr_steps * sizeof(d->steps[0]),
				   sizeof(d->steps)))
		return -EINVAL;
	if (!d->nr_fields || d->nr_fields > TPROF_UWALK_MAX_FIELDS ||
	    !tprof_uwalk_tail_zero(d->fields,
				   d->nr_fields * sizeof(d->fields[0]),
				   sizeof(d->fields)))
		return -EINVAL;
	for (i = 0; i < d->nr_fields; i++) {
		u16 len = d->fields[i].len;

		if (len != 1 && len != 2 && len != 4 && len != 8)
			return -EINVAL;
	}
	if (d->code_field == TPROF_UWALK_NO_CODE) {
		if (d->nr_code_offs || d->code_mask)
			return -EINVAL;
	} else if (d->code_field >= d->nr_fields || !d->nr_code_offs) {
		return -EINVAL;
	}
	if (d->nr_code_offs > TPROF_UWALK_MAX_CODE_OFFS ||
	    !tprof_uwalk_tail_zero(d->code_offs,
				   d->nr_code_offs * sizeof(d->code_offs[0]),
				   sizeof(d->code_offs)))
		return -EINVAL;
	if (d->max_frames > TPROF_UWALK_MAX_FRAMES ||
	    d->max_bytes > TPROF_UWALK_MAX_BYTES)
		return -EINVAL;
	if (!d->max_frames)
		d->max_frames = TPROF_UWALK_DEFAULT_FRAMES;
	if (!d->max_bytes)
		d->max_bytes = TPROF_UWALK_DEFAULT_BYTES;
	/* room for one frame at least */
	if (d->max_bytes < (d->nr_fields + d->nr_code_offs) * sizeof(u64))
		return -EINVAL;
	/* a tail, and a head of one frame at least before it */
	if (!d->tail_frames != !d->tail_skip ||
	    d->tail_frames > TPROF_UWALK_MAX_TAIL ||
	    d->tail_skip > TPROF_UWALK_MAX_SKIP ||
	    (d->tail_frames && d->tail_frames >= tprof_uwalk_room(d)))
		return -EINVAL;
	return 0;
}

/* The span of a frame's fields and next pointer (tprof_uwalk_frame()). */
static void tprof_uwalk_span(struct tprof_uwalk *w)
{
	const struct tprof_ioc_uwalk *d = &w->d;
	s64 lo = d->next_off, hi = (s64)d->next_off + 8;
	u32 i;

	for (i = 0; i < d->nr_fields; i++) {
		lo = min_t(s64, lo, d->fields[i].off);
		hi = max_t(s64, hi, d->fields[i].off + d->fields[i].len);
	}
	w->span_lo = lo;
	w->span_len = hi - lo <= TPROF_UWALK_SPAN ? hi - lo : 0;
	w->code_lo = 0;
	w->code_len = 0;
	if (!d->nr_code_offs)
		return;
	lo = d->code_offs[0];
	hi = lo + 8;
	for (i = 1; i < d->nr_code_offs; i++) {
		lo = min_t(s64, lo, d->code_offs[i]);
		hi = max_t(s64, hi, (s64)d->code_offs[i] + 8);
	}
	w->code_lo = lo;
	w->code_len = hi - lo <= TPROF_UWALK_SPAN ? hi - lo : 0;
}

/*
 * Frees the walks execs removed. Context: process; with @now, nothing can
 * read them any more (the session stopped), else after a grace period.
 */
static void tprof_uwalk_gc(struct tprof_session *s, bool now)
{
	struct llist_node *list = llist_del_all(&s->uwalk_gc);
	struct tprof_uwalk *w, *tmp;

	llist_for_each_entry_safe(w, tmp, list, gc) {
		if (now)
			kfree(w);
		else
			kfree_rcu(w, rcu);
	}
}

/* The session's end: what execs removed. Context: process, stopped. */
void tprof_uwalk_free_all(struct tprof_session *s)
{
	tprof_uwalk_gc(s, true);
}

/*
 * May @s walk the memory of its processes? What snapshots need: ptrace
 * attach (TPROF_F_MEM_PROOF; its descendants are proven so too,
 * children.c), or privilege.
 */
static int tprof_uwalk_allowed(struct tprof_session *s)
{
	if (tprof_session_state(s) != TPROF_ACTIVE)
		return -EINVAL;
	if (!s->grant.privileged && !(s->flags & TPROF_F_MEM_PROOF))
		return -EPERM;
	return 0;
}

/*
 * A process @s reports, found by its leader @task: followed, admitted
 * (not pending proof), neither denied nor exited.
 * Context: RCU-sched reader (the slot stays the process's meanwhile).
 */
static struct tprof_proc *tprof_uwalk_proc(struct tprof_session *s,
					   struct task_struct *task)
{
	struct tprof_proc *pr = tprof_procs_find(&s->procs, task_tgid(task));
	unsigned long bits;

	if (!pr)
		return NULL;
	bits = READ_ONCE(pr->bits);
	if (bits & (BIT(TPROF_P_DENIED) | BIT(TPROF_P_PENDING) |
		    BIT(TPROF_P_EXITED) | BIT(TPROF_P_GROUP_DEAD)))
		return NULL;
	return pr;
}

/* Reads SET_UWALK's growable argument, as ENABLE's. */
static int tprof_uwalk_copy(struct tprof_ioc_uwalk *d, const void __user *uarg)
{
	u32 usize;
	int ret;

	if (get_user(usize, (const u32 __user *)uarg))
		return -EFAULT;
	if (usize < sizeof(*d) || usize > PAGE_SIZE)
		return -EINVAL;
	ret = copy_struct_from_user(d, sizeof(*d), uarg, usize);
	if (ret)
		return ret == -E2BIG ? -EINVAL : ret;
	if (d->__reserved || d->pid <= 0)
		return -EINVAL;
	return 0;
}

/**
 * tprof_uwalk_set() - TPROF_IOC_SET_UWALK: set or remove (start 0) the walk
 *	of a process @s reports.
 * @s: the session.
 * @uarg: struct tprof_ioc_uwalk.
 *
 * The process's exec_update_lock is held for read across it, so that the
 * mm the walk is set for is the one the process has when it is published:
 * an exec after that removes it (the exec probe), one before it made the
 * mm it is set for.
 * Context: process, s->lock held.
 * Return: 0, -EPERM, -ESRCH, -EINVAL, -ENOMEM, -EFAULT.
 */
int tprof_uwalk_set(struct tprof_session *s, const void __user *uarg)
{
	struct tprof_uwalk *w = NULL;
	struct tprof_ioc_uwalk d;
	struct task_struct *task;
	struct mm_struct *mm;
	struct tprof_proc *pr;
	int ret;

	ret = tprof_uwalk_copy(&d, uarg);
	if (!ret)
		ret = tprof_uwalk_allowed(s);
	/* start 0 removes it: the rest of the descriptor is not looked at */
	if (!ret && d.start)
		ret = tprof_uwalk_check(&d);
	if (ret)
		return ret;
	if (d.start) {
		w = kzalloc(sizeof(*w), GFP_KERNEL_ACCOUNT);
		if (!w)
			return -ENOMEM;
		w->d = d;
		w->words = d.nr_fields + d.nr_code_offs;
		tprof_uwalk_span(w);
	}
	ret = -ESRCH;
	task = tprof_task_get(s->pid_ns, d.pid, PIDTYPE_TGID);
	if (!task)
		goto out_free;
	ret = down_read_killable(&task->signal->exec_update_lock);
	if (ret)
		goto out_put;
	ret = -ESRCH;
	mm = get_task_mm(task);
	if (!mm)
		goto out_up;
	if (w)
		w->mm = mm;
	mmput(mm);
	rcu_read_lock_sched();
	pr = tprof_uwalk_proc(s, task);
	if (pr) {
		/* now the one it replaces, freed after a grace period */
		w = unrcu_pointer(xchg(&pr->uwalk, RCU_INITIALIZER(w)));
		ret = 0;
	}
	rcu_read_unlock_sched();
out_up:
	up_read(&task->signal->exec_update_lock);
out_put:
	put_task_struct(task);
out_free:
	if (!ret && w)
		kfree_rcu(w, rcu);
	else
		kfree(w);	/* never published */
	tprof_uwalk_gc(s, false);
	return ret;
}

/**
 * tprof_uwalk_set_tid() - TPROF_IOC_SET_UWALK_TID: where the walks of one
 *	thread start (TPROF_UWALK_START_TID).
 * @s: the session.
 * @uarg: struct tprof_ioc_uwalk_tid.
 *
 * A live thread of a process @s reports; one that has not run since
 * ENABLE has no slot yet, and gets the address at its first switch-in
 * (threads.c).
 * Context: process, s->lock held.
 * Return: 0, -EPERM, -ESRCH, -EINVAL, -ENOSPC (too many such threads
 *	wait for their first switch-in), -EFAULT.
 */
int tprof_uwalk_set_tid(struct tprof_session *s, const void __user *uarg)
{
	struct tprof_ioc_uwalk_tid ut;
	struct task_struct *task;
	u32 gtid = 0;
	int ret;

	if (copy_from_user(&ut, uarg, sizeof(ut)))
		return -EFAULT;
	if (ut.pid <= 0 || ut.tid <= 0 || ut.addr >= TASK_SIZE_MAX)
		return -EINVAL;
	ret = tprof_uwalk_allowed(s);
	if (ret)
		return ret;
	task = tprof_task_get(s->pid_ns, ut.tid, PIDTYPE_PID);
	if (!task)
		return -ESRCH;
	rcu_read_lock_sched();
	if (task_tgid_nr_ns(task, s->pid_ns) == ut.pid &&
	    !(task->flags & PF_EXITING) && tprof_uwalk_proc(s, task))
		gtid = task->pid;
	rcu_read_unlock_sched();
	put_task_struct(task);
	if (!gtid)
		return -ESRCH;
	return tprof_threads_set_uaddr(&s->threads, gtid, ut.addr);
}

/**
 * tprof_uwalk_exec() - @p's process exec'd: its walk is removed (its
 *	memory is new), and so is @p's start address.
 * @s: a session that has the process (denied too).
 * @pr: the process.
 * @p: current, the thread that exec'd.
 *
 * Context: IRQs off (exec probe).
 */
void tprof_uwalk_exec(struct tprof_session *s, struct tprof_proc *pr,
		      struct task_struct *p)
{
	struct tprof_uwalk *w = unrcu_pointer(xchg(&pr->uwalk, NULL));

	if (w)
		llist_add(&w->gc, &s->uwalk_gc);
	tprof_threads_set_uaddr(&s->threads, p->pid, 0);
}
