/* SPDX-License-Identifier: GPL-2.0 */
/* tprof: per-CPU single-producer single-consumer record rings. */
#ifndef _TPROF_RING_H
#define _TPROF_RING_H

#include <linux/irq_work.h>
#include <linux/types.h>

struct tprof_session;

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
 * @work: wakes the reader from a safe context (irq_work).
 * @sess: owning session.
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
	struct tprof_session *sess;
};

int tprof_rings_alloc(struct tprof_session *s, u32 bytes);
void tprof_rings_free(struct tprof_session *s);
void tprof_rings_sync(struct tprof_session *s);
int tprof_ring_write(struct tprof_ring *r, const void *rec, u32 len,
		     bool sample, u64 weight_ns);
void tprof_ring_kick(struct tprof_ring *r);
int tprof_emit(struct tprof_session *s, const void *rec, u32 len);
int tprof_emit_any(struct tprof_session *s, const void *rec, u32 len);
void tprof_rings_flush_lost(struct tprof_session *s);
bool tprof_rings_empty(struct tprof_session *s);
ssize_t tprof_rings_read(struct tprof_session *s, char __user *buf,
			 size_t len);
void tprof_rings_stats(struct tprof_session *s, struct tprof_ring_stats *sum);

#endif /* _TPROF_RING_H */
