// SPDX-License-Identifier: GPL-2.0
/*
 * tprof: per-CPU byte rings. One producer per ring (its CPU, IRQs off),
 * one consumer (read() under the session lock); the pattern of
 * Documentation/core-api/circular-buffers.rst with free-running counters.
 * A full ring drops the record, counts it, and owes the reader a LOST record.
 */
#include <linux/cpumask.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>
#include <linux/topology.h>
#include <linux/uaccess.h>
#include <linux/mm.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include "ring.h"
#include "tprof.h"

/* irq_work: hardirq (or the irq_work kthread on PREEMPT_RT). */
static void tprof_ring_wake(struct irq_work *work)
{
	struct tprof_ring *r = container_of(work, struct tprof_ring, work);

	r->set->notify(r->set->ctx);
}

/**
 * tprof_rings_alloc() - a ring of @bytes per possible CPU.
 * @rs: the set (zeroed).
 * @bytes: ring size, a power of two.
 * @notify: called from irq_work when a producer kicks a ring.
 * @ctx: its argument.
 *
 * Context: process. On failure, tprof_rings_free() frees what was made.
 * Return: 0 or -ENOMEM.
 */
int tprof_rings_alloc(struct tprof_rings *rs, u32 bytes,
		      void (*notify)(void *ctx), void *ctx)
{
	int cpu;

	rs->notify = notify;
	rs->ctx = ctx;
	rs->ring = kcalloc(nr_cpu_ids, sizeof(*rs->ring), GFP_KERNEL_ACCOUNT);
	if (!rs->ring)
		return -ENOMEM;
	for_each_possible_cpu(cpu) {
		struct tprof_ring *r;

		r = kzalloc_node(sizeof(*r), GFP_KERNEL_ACCOUNT, cpu_to_node(cpu));
		if (!r)
			return -ENOMEM;
		rs->ring[cpu] = r;
		/* Charged to the caller's memory cgroup (policy.c: locked_vm) */
		r->data = kvmalloc_node(bytes, GFP_KERNEL_ACCOUNT,
					cpu_to_node(cpu));
		if (!r->data)
			return -ENOMEM;
		r->mask = bytes - 1;
		r->set = rs;
		init_irq_work(&r->work, tprof_ring_wake);
	}
	return 0;
}

/* Also frees a partial allocation from tprof_rings_alloc(). */
void tprof_rings_free(struct tprof_rings *rs)
{
	int cpu;

	if (!rs->ring)
		return;
	for_each_possible_cpu(cpu) {
		struct tprof_ring *r = rs->ring[cpu];

		if (!r)
			continue;
		kvfree(r->data);
		kfree(r);
	}
	kfree(rs->ring);
	rs->ring = NULL;
}

/* Waits for queued notifications; no producer may be left. */
void tprof_rings_sync(struct tprof_rings *rs)
{
	int cpu;

	for_each_possible_cpu(cpu)
		irq_work_sync(&rs->ring[cpu]->work);
}

static void tprof_ring_copy_in(struct tprof_ring *r, u64 pos, const void *src,
			       u32 len)
{
	u64 off = pos & r->mask;
	u32 first = min_t(u64, len, r->mask + 1 - off);

	memcpy(r->data + off, src, first);
	memcpy(r->data, src + first, len - first);
}

static void tprof_ring_copy_out(struct tprof_ring *r, u64 pos, void *dst,
				u32 len)
{
	u64 off = pos & r->mask;
	u32 first = min_t(u64, len, r->mask + 1 - off);

	memcpy(dst, r->data + off, first);
	memcpy(dst + first, r->data, len - first);
}

static int tprof_ring_copy_to_user(struct tprof_ring *r, u64 pos,
				   char __user *dst, u32 len)
{
	u64 off = pos & r->mask;
	u32 first = min_t(u64, len, r->mask + 1 - off);

	if (copy_to_user(dst, r->data + off, first))
		return -EFAULT;
	if (copy_to_user(dst + first, r->data, len - first))
		return -EFAULT;
	return 0;
}

/* Context: the ring's producer. Bytes free for records. */
static u64 tprof_ring_room(struct tprof_ring *r)
{
	/* Pairs with D in tprof_ring_read_one(). */
	return r->mask + 1 - (r->head - smp_load_acquire(&r->tail));
}

/*
 * Context: the ring's producer, with room checked. Writes at @head the LOST
 * record of the drops pending since the last one and clears them; the
 * caller publishes the returned head.
 */
static u64 tprof_ring_put_lost(struct tprof_ring *r, u64 head)
{
	struct tprof_rec_lost lost = {
		.hdr.type = TPROF_REC_LOST,
		.hdr.size = sizeof(lost),
		.hdr.time_ns = ktime_get_mono_fast_ns(),
		.lost_samples = r->pend_samples,
		.lost_weight_ns = r->pend_weight_ns,
		.lost_records = r->pend_records,
	};

	tprof_ring_copy_in(r, head, &lost, sizeof(lost));
	r->pend_samples = 0;
	r->pend_weight_ns = 0;
	r->pend_records = 0;
	return head + sizeof(lost);
}

/* Context: IRQs off: the owner's callback runs soon, from this CPU. */
void tprof_rings_kick(struct tprof_rings *rs)
{
	irq_work_queue(&tprof_rings_this(rs)->work);
}

/* A record (or a sample's group) is dropped: counted, owed a LOST record. */
static void tprof_ring_drop(struct tprof_ring *r, bool sample, u64 weight_ns)
{
	if (sample) {
		r->pend_samples++;
		r->pend_weight_ns += weight_ns;
		r->st.lost_samples++;
		r->st.lost_weight_ns += weight_ns;
	} else {
		r->pend_records++;
		r->st.lost_records++;
	}
}

/**
 * tprof_ring_reserve() - room for records written in place, or a drop.
 * @r: the ring.
 * @max: bytes to reserve (the records may end up shorter).
 * @sample: they are a sample (dropped, they count as a lost sample).
 * @weight_ns: the sample's weight.
 * @res: the reservation, for tprof_ring_put() and friends.
 *
 * A LOST record of earlier drops goes first, where it fits. Nothing is
 * visible to the reader before tprof_ring_commit(), which must follow
 * before the ring's next write.
 *
 * Context: the ring's producer: its own CPU with IRQs off (probe, hrtimer,
 * or local_irq_save()), or the stopping session once sampling has ended.
 * Return: 0, or -ENOSPC when dropped.
 */
int tprof_ring_reserve(struct tprof_ring *r, u32 max, bool sample,
		       u64 weight_ns, struct tprof_ring_res *res)
{
	u64 size = r->mask + 1;
	u64 head = r->head;
	/* A: pairs with D in tprof_ring_read_one(): the reader is done with it. */
	u64 tail = smp_load_acquire(&r->tail);
	bool pend = r->pend_samples || r->pend_records;
	u64 need = (u64)max + (pend ? sizeof(struct tprof_rec_lost) : 0);

	if (need > size - (head - tail)) {
		tprof_ring_drop(r, sample, weight_ns);
		return -ENOSPC;
	}
	if (pend)
		head = tprof_ring_put_lost(r, head);
	res->start = head;
	res->pos = head;
	res->end = head + max;
	return 0;
}

/* Appends @len bytes to @res. Context: the ring's producer. */
void tprof_ring_put(struct tprof_ring *r, struct tprof_ring_res *res,
		    const void *src, u32 len)
{
	if (WARN_ON_ONCE(len > res->end - res->pos))
		return;
	tprof_ring_copy_in(r, res->pos, src, len);
	res->pos += len;
}

/* Overwrites reserved bytes at @pos (a header written last). */
void tprof_ring_put_at(struct tprof_ring *r, u64 pos, const void *src,
		       u32 len)
{
	tprof_ring_copy_in(r, pos, src, len);
}

/*
 * Where the next bytes of @res go in place (a copy from user memory):
 * *@len is set to how many lie contiguous there, up to the reservation's
 * end; tprof_ring_skip() then counts what was written.
 */
void *tprof_ring_span(struct tprof_ring *r, struct tprof_ring_res *res,
		      u32 *len)
{
	u64 off = res->pos & r->mask;

	*len = min_t(u64, res->end - res->pos, r->mask + 1 - off);
	return r->data + off;
}

void tprof_ring_skip(struct tprof_ring_res *res, u32 len)
{
	res->pos += min_t(u64, len, res->end - res->pos);
}

/**
 * tprof_ring_extend() - room for @len more bytes at @res's position, for
 *	records whose size is known only as they are written (a user-memory
 *	walk's words).
 * @r: the ring.
 * @res: a reservation of @r not yet committed.
 * @len: bytes wanted past @res->pos.
 *
 * Context: the ring's producer.
 * Return: 0, or -ENOSPC: the ring has no more room (nothing changed; the
 *	caller cancels the reservation).
 */
int tprof_ring_extend(struct tprof_ring *r, struct tprof_ring_res *res,
		      u32 len)
{
	u64 end = res->pos + len;

	if (end <= res->end)
		return 0;
	/* A: as in tprof_ring_reserve(). */
	if (end - smp_load_acquire(&r->tail) > r->mask + 1)
		return -ENOSPC;
	res->end = end;
	return 0;
}

/**
 * tprof_ring_cancel() - drop what was written into @res: the reader never
 *	sees it. A LOST record the reservation put first is published (the
 *	drops it counts are no longer pending anywhere else), and this drop
 *	is counted as tprof_ring_reserve() counts one.
 * @r: the ring.
 * @res: a reservation of @r not yet committed.
 * @sample: as for tprof_ring_reserve().
 * @weight_ns: likewise.
 *
 * Context: the ring's producer.
 */
void tprof_ring_cancel(struct tprof_ring *r, struct tprof_ring_res *res,
		       bool sample, u64 weight_ns)
{
	if (res->start != r->head) {
		/* B: pairs with C in tprof_ring_read_one(): LOST is whole. */
		smp_store_release(&r->head, res->start);
	}
	tprof_ring_drop(r, sample, weight_ns);
}

/**
 * tprof_ring_commit() - publish what was written into @res (it may be
 *	less than reserved: the rest stays free).
 * @r: the ring.
 * @res: the reservation; every record in it complete, 8-byte multiples.
 * @sample: as for tprof_ring_reserve().
 * @weight_ns: likewise.
 *
 * Context: the ring's producer.
 */
void tprof_ring_commit(struct tprof_ring *r, struct tprof_ring_res *res,
		       bool sample, u64 weight_ns)
{
	u64 size = r->mask + 1;

	/* B: pairs with C in tprof_ring_read_one(): the records are complete. */
	smp_store_release(&r->head, res->pos);
	if (sample) {
		r->st.samples++;
		r->st.samples_weight_ns += weight_ns;
	}
	if (READ_ONCE(r->set->reader_waiting) &&
	    res->pos - READ_ONCE(r->tail) >= size / 2)
		irq_work_queue(&r->work);
}

/**
 * tprof_ring_write() - append one whole record or drop it.
 * @r: the ring.
 * @rec: record, hdr.size == @len, a multiple of 8.
 * @len: bytes.
 * @sample: a SAMPLE record (dropped ones count as lost samples).
 * @weight_ns: the sample's weight.
 *
 * Context: as tprof_ring_reserve().
 * Return: 0, or -ENOSPC when dropped.
 */
int tprof_ring_write(struct tprof_ring *r, const void *rec, u32 len,
		     bool sample, u64 weight_ns)
{
	struct tprof_ring_res res;
	int ret;

	ret = tprof_ring_reserve(r, len, sample, weight_ns, &res);
	if (ret)
		return ret;
	tprof_ring_put(r, &res, rec, len);
	tprof_ring_commit(r, &res, sample, weight_ns);
	return 0;
}

/* A non-sample record. Context: IRQs off; writes to this CPU's ring. */
int tprof_rings_emit(struct tprof_rings *rs, const void *rec, u32 len)
{
	return tprof_ring_write(tprof_rings_this(rs), rec, len, false, 0);
}

/*
 * Context: process, after sampling stopped (no producer left): the ring
 * with the most room takes the record.
 */
int tprof_rings_emit_any(struct tprof_rings *rs, const void *rec, u32 len)
{
	struct tprof_ring *best = NULL;
	u64 best_free = 0;
	int cpu;

	for_each_possible_cpu(cpu) {
		struct tprof_ring *r = rs->ring[cpu];
		u64 room = tprof_ring_room(r);

		if (!best || room > best_free) {
			best = r;
			best_free = room;
		}
	}
	return tprof_ring_write(best, rec, len, false, 0);
}

/*
 * Context: process, after sampling stopped (no producer left; the stop
 * and the reader are serialized by the session's state): tells the reader
 * about drops no later record carried, where there is room; a ring still
 * full keeps its debt for the reader's next call, once drained.
 * Return: whether a LOST record was written.
 */
bool tprof_rings_flush_lost(struct tprof_rings *rs)
{
	bool wrote = false;
	int cpu;

	for_each_possible_cpu(cpu) {
		struct tprof_ring *r = rs->ring[cpu];

		if ((!r->pend_samples && !r->pend_records) ||
		    tprof_ring_room(r) < sizeof(struct tprof_rec_lost))
			continue;
		/* B: pairs with C in tprof_ring_read_one(). */
		smp_store_release(&r->head, tprof_ring_put_lost(r, r->head));
		wrote = true;
	}
	return wrote;
}

bool tprof_rings_empty(struct tprof_rings *rs)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		struct tprof_ring *r = rs->ring[cpu];

		/* Pairs with B in tprof_ring_commit(). */
		if (smp_load_acquire(&r->head) != READ_ONCE(r->tail))
			return false;
	}
	return true;
}

/*
 * Bytes of the record at @pos and of the records grouped with it
 * (TPROF_RF_GROUP): read() returns them together. 0 if malformed.
 */
static u64 tprof_ring_unit(struct tprof_ring *r, u64 pos, u64 head)
{
	u64 at = pos;
	struct tprof_rec_hdr hdr;

	do {
		if (head - at < sizeof(hdr))
			return 0;
		tprof_ring_copy_out(r, at, &hdr, sizeof(hdr));
		if (hdr.size < sizeof(hdr) || hdr.size & 7 ||
		    hdr.size > head - at)
			return 0;
		at += hdr.size;
	} while (hdr.flags & TPROF_RF_GROUP);
	return at - pos;
}

/*
 * Copies whole records of one ring to @buf; *done counts bytes so far.
 * Return: 0, -ENOBUFS when the next record does not fit, -EFAULT.
 */
static int tprof_ring_read_one(struct tprof_ring *r, char __user *buf,
			       size_t len, size_t *done)
{
	/* C: pairs with B in tprof_ring_commit() and tprof_rings_flush_lost(). */
	u64 head = smp_load_acquire(&r->head);
	u64 tail = r->tail;
	int ret = 0;

	while (tail != head) {
		u64 size = tprof_ring_unit(r, tail, head);

		if (WARN_ON_ONCE(!size)) {
			tail = head;
			break;
		}
		if (size > len - *done) {
			ret = -ENOBUFS;
			break;
		}
		if (tprof_ring_copy_to_user(r, tail, buf + *done, size)) {
			ret = -EFAULT;
			break;
		}
		*done += size;
		tail += size;
	}
	/* D: pairs with A in tprof_ring_reserve(): the space is free again. */
	smp_store_release(&r->tail, tail);
	return ret;
}

/**
 * tprof_rings_read() - copy whole records from all rings.
 * @rs: the rings.
 * @buf: user buffer.
 * @len: its size.
 *
 * Context: process, the only consumer (the owner serializes readers).
 * Return: bytes copied; 0 when all rings are empty; -EINVAL when the first
 * pending record does not fit in @len; -EFAULT.
 */
ssize_t tprof_rings_read(struct tprof_rings *rs, char __user *buf,
			 size_t len)
{
	unsigned int n = nr_cpu_ids, i;
	size_t done = 0;
	int ret = 0;

	for (i = 0; i < n && !ret; i++) {
		unsigned int cpu = (rs->read_cpu + i) % n;

		if (!cpu_possible(cpu))
			continue;
		ret = tprof_ring_read_one(rs->ring[cpu], buf, len, &done);
	}
	rs->read_cpu = (rs->read_cpu + 1) % n;
	if (ret == -EFAULT)
		return -EFAULT;
	if (ret == -ENOBUFS && !done)
		return -EINVAL;
	return done;
}

/*
 * Adds the rings' counts to their fields of STATS' reply @sum (the rest
 * are the session's). Context: process.
 */
void tprof_rings_stats(struct tprof_rings *rs, struct tprof_ioc_stats *sum)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		const struct tprof_ring_stats *st = &rs->ring[cpu]->st;

		sum->samples += READ_ONCE(st->samples);
		sum->samples_weight_ns += READ_ONCE(st->samples_weight_ns);
		sum->lost_samples += READ_ONCE(st->lost_samples);
		sum->lost_weight_ns += READ_ONCE(st->lost_weight_ns);
		sum->lost_records += READ_ONCE(st->lost_records);
		sum->user_stack_faults += READ_ONCE(st->user_stack_faults);
		sum->user_stack_truncated += READ_ONCE(st->user_stack_truncated);
		sum->kernel_stack_truncated +=
			READ_ONCE(st->kernel_stack_truncated);
		sum->sample_path_ns += READ_ONCE(st->sample_path_ns);
		sum->sample_path_calls += READ_ONCE(st->sample_path_calls);
		sum->late_timer_periods += READ_ONCE(st->late_timer_periods);
		sum->timer_arms += READ_ONCE(st->timer_arms);
		sum->sched_ins += READ_ONCE(st->sched_ins);
		sum->uwalks += READ_ONCE(st->uwalks);
		sum->uwalk_frames += READ_ONCE(st->uwalk_frames);
		sum->uwalk_faults += READ_ONCE(st->uwalk_faults);
		sum->uwalk_truncated += READ_ONCE(st->uwalk_truncated);
		sum->uwalk_path_ns += READ_ONCE(st->uwalk_path_ns);
		sum->wakers += READ_ONCE(st->wakers);
		sum->waker_records += READ_ONCE(st->waker_records);
		sum->wakers_dropped += READ_ONCE(st->wakers_dropped);
		sum->waker_stacks += READ_ONCE(st->waker_stacks);
		sum->waker_stacks_dropped += READ_ONCE(st->waker_stacks_dropped);
	}
}
