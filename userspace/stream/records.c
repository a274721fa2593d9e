// SPDX-License-Identifier: GPL-2.0
/* tprof-read: decode and validate tprof records from a byte stream. */
#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "stream/records.h"

/* The uapi layout is ABI: a header change that moves it fails here. */
#define TPROF_ASSERT_SIZE(type, size) \
	static_assert(sizeof(type) == (size), #type " is " #size " bytes")
TPROF_ASSERT_SIZE(struct tprof_ioc_info, TPROF_SIZEOF_IOC_INFO);
TPROF_ASSERT_SIZE(struct tprof_ioc_enable, TPROF_SIZEOF_IOC_ENABLE);
TPROF_ASSERT_SIZE(struct tprof_ioc_thread_period,
		  TPROF_SIZEOF_IOC_THREAD_PERIOD);
TPROF_ASSERT_SIZE(struct tprof_ioc_stats, TPROF_SIZEOF_IOC_STATS);
TPROF_ASSERT_SIZE(struct tprof_rec_hdr, TPROF_SIZEOF_REC_HDR);
TPROF_ASSERT_SIZE(struct tprof_rec_sample, TPROF_SIZEOF_REC_SAMPLE);
TPROF_ASSERT_SIZE(struct tprof_rec_lost, TPROF_SIZEOF_REC_LOST);
TPROF_ASSERT_SIZE(struct tprof_rec_thread, TPROF_SIZEOF_REC_THREAD);
TPROF_ASSERT_SIZE(struct tprof_rec_thread_stat, TPROF_SIZEOF_REC_THREAD_STAT);
TPROF_ASSERT_SIZE(struct tprof_rec_exec, TPROF_SIZEOF_REC_EXEC);
TPROF_ASSERT_SIZE(struct tprof_rec_proc_exit, TPROF_SIZEOF_REC_PROC_EXIT);
TPROF_ASSERT_SIZE(struct tprof_rec_denied, TPROF_SIZEOF_REC_DENIED);
TPROF_ASSERT_SIZE(struct tprof_rec_ustack, TPROF_SIZEOF_REC_USTACK);
TPROF_ASSERT_SIZE(struct tprof_rec_mmap, TPROF_SIZEOF_REC_MMAP);
TPROF_ASSERT_SIZE(struct tprof_rec_proc, TPROF_SIZEOF_REC_PROC);
TPROF_ASSERT_SIZE(struct tprof_rec_thread_off, TPROF_SIZEOF_REC_THREAD_OFF);
TPROF_ASSERT_SIZE(struct tprof_rec_throttle, TPROF_SIZEOF_REC_THROTTLE);

uint64_t tprof_record_ip(const struct tprof_record *r, unsigned int i)
{
	uint64_t ip;

	memcpy(&ip, r->ips + (size_t)i * 8, 8);
	return ip;
}

const char *tprof_record_type_name(unsigned int type)
{
	switch (type) {
	case TPROF_REC_SAMPLE: return "SAMPLE";
	case TPROF_REC_LOST: return "LOST";
	case TPROF_REC_THREAD: return "THREAD";
	case TPROF_REC_THREAD_EXIT: return "THREAD_EXIT";
	case TPROF_REC_THREAD_STAT: return "THREAD_STAT";
	case TPROF_REC_EXEC: return "EXEC";
	case TPROF_REC_PROC_EXIT: return "PROC_EXIT";
	case TPROF_REC_DENIED: return "DENIED";
	case TPROF_REC_USTACK: return "USTACK";
	case TPROF_REC_MMAP: return "MMAP";
	case TPROF_REC_PROC: return "PROC";
	case TPROF_REC_THREAD_OFF: return "THREAD_OFF";
	case TPROF_REC_THROTTLE: return "THROTTLE";
	case TPROF_UREC_SESSION: return "SESSION";
	case TPROF_UREC_MAPS: return "MAPS";
	case TPROF_UREC_STATS: return "STATS";
	case TPROF_UREC_BUILDID: return "BUILDID";
	case TPROF_UREC_VDSO: return "VDSO";
	case TPROF_UREC_KALLSYMS: return "KALLSYMS";
	case TPROF_UREC_PERFMAP: return "PERFMAP";
	default: return "unknown";
	}
}

const char *tprof_denied_reason(unsigned int reason)
{
	switch (reason) {
	case TPROF_DENIED_CREDS:
		return "its user or group ids changed (a setuid/setgid program, or a set*id call)";
	case TPROF_DENIED_DUMPABLE:
		return "it is no longer dumpable (prctl(PR_SET_DUMPABLE, 0), or it ran a program you may not read)";
	case TPROF_DENIED_PTRACE:
		return "you may not ptrace it (Yama's ptrace_scope, an LSM, or its capabilities)";
	default:
		return "the module no longer lets you profile it";
	}
}

/* Minimum size of each known type; 0 = unknown (skipped by size). */
static size_t min_size(unsigned int type)
{
	switch (type) {
	case TPROF_REC_SAMPLE: return sizeof(struct tprof_rec_sample);
	case TPROF_REC_LOST: return sizeof(struct tprof_rec_lost);
	case TPROF_REC_THREAD: return sizeof(struct tprof_rec_thread);
	case TPROF_REC_THREAD_EXIT:
	case TPROF_REC_THREAD_STAT: return sizeof(struct tprof_rec_thread_stat);
	case TPROF_REC_EXEC: return sizeof(struct tprof_rec_exec);
	case TPROF_REC_PROC_EXIT: return sizeof(struct tprof_rec_proc_exit);
	case TPROF_REC_DENIED: return sizeof(struct tprof_rec_denied);
	case TPROF_REC_USTACK: return sizeof(struct tprof_rec_ustack);
	case TPROF_REC_MMAP: return sizeof(struct tprof_rec_mmap);
	case TPROF_REC_PROC: return sizeof(struct tprof_rec_proc);
	case TPROF_REC_THREAD_OFF: return sizeof(struct tprof_rec_thread_off);
	case TPROF_REC_THROTTLE: return sizeof(struct tprof_rec_throttle);
	case TPROF_UREC_SESSION: return sizeof(struct tprof_urec_session);
	case TPROF_UREC_MAPS: return sizeof(struct tprof_urec_maps);
	case TPROF_UREC_STATS: return sizeof(struct tprof_urec_stats);
	case TPROF_UREC_BUILDID: return sizeof(struct tprof_urec_buildid);
	case TPROF_UREC_VDSO: return sizeof(struct tprof_urec_vdso);
	case TPROF_UREC_KALLSYMS: return sizeof(struct tprof_urec_kallsyms);
	case TPROF_UREC_PERFMAP: return sizeof(struct tprof_urec_perfmap);
	default: return 0;
	}
}

long tprof_record_decode(const void *buf, size_t len, struct tprof_record *r)
{
	const unsigned char *p = buf;
	size_t need;

	memset(r, 0, sizeof(*r));
	if (len == 0)
		return 0;
	if (len < sizeof(r->hdr))
		return -ENODATA;
	memcpy(&r->hdr, p, sizeof(r->hdr));
	if (r->hdr.size < sizeof(r->hdr) || r->hdr.size % 8 ||
	    r->hdr.size > TPROF_REC_MAX_SIZE || r->hdr.type == 0)
		return -EINVAL;
	need = min_size(r->hdr.type);
	if (need && r->hdr.size < need)
		return -EINVAL;
	if (r->hdr.size > len)
		return -ENODATA;
	r->raw = p;
	if (need)
		memcpy(&r->u, p, need);

	switch (r->hdr.type) {
	case TPROF_REC_SAMPLE: {
		const struct tprof_rec_sample *s = &r->u.sample;
		size_t nr = (size_t)s->nr_user + s->nr_kernel;

		if (s->nr_user > TPROF_MAX_USER_FRAMES ||
		    s->nr_kernel > TPROF_MAX_KERNEL_FRAMES ||
		    s->off_state > TPROF_OFF_RUNNABLE ||
		    !(r->hdr.flags & TPROF_RF_OFF_CPU) != !s->off_state ||
		    sizeof(*s) + nr * 8 > r->hdr.size)
			return -EINVAL;
		r->ips = p + sizeof(*s);
		break;
	}
	case TPROF_REC_USTACK: {
		const struct tprof_rec_ustack *u = &r->u.ustack;

		/* the bytes must be there; what they mean is unwind.c's */
		if (u->stack_bytes > u->stack_req ||
		    u->stack_req > TPROF_MAX_SNAPSHOT_BYTES ||
		    (size_t)u->stack_bytes > r->hdr.size - sizeof(*u))
			return -EINVAL;
		r->stack = p + sizeof(*u);
		break;
	}
	case TPROF_REC_MMAP:
		if (r->u.mmap.end <= r->u.mmap.start)
			return -EINVAL;
		break;
	case TPROF_UREC_MAPS:
		if ((size_t)r->u.maps.len > r->hdr.size - sizeof(r->u.maps))
			return -EINVAL;
		r->text = (const char *)p + sizeof(r->u.maps);
		break;
	case TPROF_UREC_BUILDID: {
		const struct tprof_urec_buildid *b = &r->u.buildid;

		if (b->bid_len > 64 || !b->path_len ||
		    (size_t)b->bid_len + b->path_len >
		    r->hdr.size - sizeof(*b))
			return -EINVAL;
		r->bid = p + sizeof(*b);
		r->text = (const char *)r->bid + b->bid_len;
		break;
	}
	case TPROF_UREC_KALLSYMS:
		if ((size_t)r->u.kallsyms.len + r->u.kallsyms.modules_len >
		    r->hdr.size - sizeof(r->u.kallsyms))
			return -EINVAL;
		r->text = (const char *)p + sizeof(r->u.kallsyms);
		break;
	case TPROF_UREC_PERFMAP:
		if ((size_t)r->u.perfmap.len >
		    r->hdr.size - sizeof(r->u.perfmap))
			return -EINVAL;
		r->text = (const char *)p + sizeof(r->u.perfmap);
		break;
	case TPROF_UREC_VDSO:
		if ((size_t)r->u.vdso.len > r->hdr.size - sizeof(r->u.vdso))
			return -EINVAL;
		r->image = p + sizeof(r->u.vdso);
		break;
	case TPROF_UREC_SESSION:
		if (r->u.session.magic != TPROF_RAW_MAGIC)
			return -EINVAL;
		break;
	default:
		break;
	}
	return r->hdr.size;
}

int tprof_stream_check(const void *buf, size_t len, char *why, size_t wlen)
{
	struct tprof_urec_session ss;
	char dummy[8];

	if (!why) {
		why = dummy;
		wlen = sizeof(dummy);
	}
	if (len < sizeof(ss)) {
		snprintf(why, wlen, "not a tprof stream (%zu bytes)", len);
		return -ENODATA;
	}
	memcpy(&ss, buf, sizeof(ss));
	if (ss.hdr.type != TPROF_UREC_SESSION || ss.magic != TPROF_RAW_MAGIC ||
	    ss.hdr.size < sizeof(ss) || ss.hdr.size % 8) {
		snprintf(why, wlen, "not a tprof stream (no SESSION record with its magic at the start; --save-raw writes one)");
		return -EINVAL;
	}
	/* a layout this reader does not know would decode as garbage */
	if (ss.abi_version != TPROF_ABI_VERSION) {
		snprintf(why, wlen, "stream of tprof ABI version %u; this tprof-read reads version %u",
			 ss.abi_version, TPROF_ABI_VERSION);
		return -EPROTO;
	}
	if (ss.record_version != TPROF_RECORD_VERSION) {
		snprintf(why, wlen, "stream of record format version %u; this tprof-read reads version %u",
			 ss.record_version, TPROF_RECORD_VERSION);
		return -EPROTO;
	}
	return 0;
}
