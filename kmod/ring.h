/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tprof: per-CPU single-producer single-consumer record rings. A leaf: the
 * rings know nothing of sessions; their owner hears of them through a
 * callback (from irq_work) and tells them when a reader waits.
 */
#ifndef _TPROF_RING_H
#define _TPROF_RING_H

#include <linux/irq_work.h>
#include <linux/smp.h>
#include <linux/types.h>

struct tprof_ioc_stats;

/* Counters owned by the ring's producer; summed by TPROF_IOC_STATS. */
struct tprof_ring_stats {
	u64 samples;
	u64 samples_weight_ns;
	u64 lost_samples;
	u64 lost_weight_ns;
	u64 lost_records;
	u64 user_stack_faults;
	u64 user_stack_truncated;
	u64 kernel_stack_truncated;
	u64 sample_path_ns;
	u64 sample_path_calls;
	u64 late_timer_periods;
	u64 timer_arms;
	u64 sched_ins;
	u64 uwalks;
	u64 uwalk_frames;
	u64 uwalk_faults;
	u64 uwalk_truncated;
	u64 uwalk_path_ns;
	u64 wakers;
	u64 waker_records;
	u64 wakers_dropped;
	u64 waker_stacks;
	u64 waker_stacks_dropped;
};

/**
 * struct tprof_ring - one CPU's ring of one session.
 * @head: bytes ever written; written by the producer only (its CPU with
 *	IRQs off, or the stopping session once no producer is left).
 * @tail: bytes ever consumed; written by the reader only (session lock).
 * @mask: size - 1 (size is a power of two).
 * @data: vmalloc'd buffer.
 * @pend_samples: samples dropped since the last LOST record (producer).
 * @pend_weight_ns: their weight.
 * @pend_records: other records dropped since the last LOST record.
 * @st: statistics (producer).
 * @work: calls @set->notify from a safe context (irq_work).
 * @set: the set this ring belongs to.
 */
struct tprof_ring {
	u64 head;
	u64 tail;
	u64 mask;
	u8 *data;
	u64 pend_samples;
	u64 pend_weight_ns;
	u64 pend_records;
	struct tprof_ring_stats st;
	struct irq_work work;
	struct tprof_rings *set;
};

/**
 * struct tprof_rings - one ring per possible CPU, and what their owner said.
 * @ring: indexed by CPU.
 * @read_cpu: where the next read starts (fairness between CPUs).
 * @reader_waiting: a reader sleeps or polls: producers kick @notify when
 *	a ring is half full.
 * @notify: the owner's callback, from irq_work (hardirq, or the irq_work
 *	kthread on PREEMPT_RT): may wake and queue work, nothing more.
 * @ctx: its argument.
 */
struct tprof_rings {
	struct tprof_ring **ring;
	unsigned int read_cpu;
	bool reader_waiting;
	void (*notify)(void *ctx);
	void *ctx;
};

/**
 * struct tprof_ring_res - room reserved at a ring's head: records are
 *	written in place, then published together by tprof_ring_commit(),
 *	or dropped together by tprof_ring_cancel().
 * @start: where the reservation's records begin (after a LOST record).
 * @pos: where the next byte goes.
 * @end: the end of the reservation (tprof_ring_extend() moves it).
 */
struct tprof_ring_res {
	u64 start;
	u64 pos;
	u64 end;
};

int tprof_rings_alloc(struct tprof_rings *rs, u32 bytes,
		      void (*notify)(void *ctx), void *ctx);
void tprof_rings_free(struct tprof_rings *rs);
void tprof_rings_sync(struct tprof_rings *rs);
int tprof_ring_write(struct tprof_ring *r, const void *rec, u32 len,
		     bool sample, u64 weight_ns);
int tprof_ring_reserve(struct tprof_ring *r, u32 max, bool sample,
		       u64 weight_ns, struct tprof_ring_res *res);
void tprof_ring_put(struct tprof_ring *r, struct tprof_ring_res *res,
		    const void *src, u32 len);
void tprof_ring_put_at(struct tprof_ring *r, u64 pos, const void *src,
		       u32 len);
void *tprof_ring_span(struct tprof_ring *r, struct tprof_ring_res *res,
		      u32 *len);
void tprof_ring_skip(struct tprof_ring_res *res, u32 len);
int tprof_ring_extend(struct tprof_ring *r, struct tprof_ring_res *res,
		      u32 len);
void tprof_ring_cancel(struct tprof_ring *r, struct tprof_ring_res *res,
		       bool sample, u64 weight_ns);
void tprof_ring_commit(struct tprof_ring *r, struct tprof_ring_res *res,
		       bool sample, u64 weight_ns);
void tprof_rings_kick(struct tprof_rings *rs);
int tprof_rings_emit(struct tprof_rings *rs, const void *rec, u32 len);
int tprof_rings_emit_any(struct tprof_rings *rs, const void *rec, u32 len);
bool tprof_rings_flush_lost(struct tprof_rings *rs);
bool tprof_rings_empty(struct tprof_rings *rs);
ssize_t tprof_rings_read(struct tprof_rings *rs, char __user *buf,
			 size_t len);
void tprof_rings_stats(struct tprof_rings *rs, struct tprof_ioc_stats *sum);

/*
 * The u64 at @pos (8-byte aligned), within a reservation of @r the
 * producer has written (a snapshot read back). Context: the ring's producer.
 */
static inline u64 tprof_ring_peek64(const struct tprof_ring *r, u64 pos)
{
	return *(const u64 *)(r->data + (pos & r->mask));
}

/* This CPU's ring. Context: preemption off. */
static inline struct tprof_ring *tprof_rings_this(struct tprof_rings *rs)
{
	return rs->ring[smp_processor_id()];
}

#endif /* _TPROF_RING_H */
