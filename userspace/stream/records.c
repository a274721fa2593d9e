// SPDX-License-Identifier: GPL-2.0
/* tprof-read: decode and validate tprof records from a byte stream. */
#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "lib/util.h"
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
TPROF_ASSERT_SIZE(struct tprof_rec_uwalk, TPROF_SIZEOF_REC_UWALK);
TPROF_ASSERT_SIZE(struct tprof_rec_waker, TPROF_SIZEOF_REC_WAKER);
TPROF_ASSERT_SIZE(struct tprof_ustack_chain, TPROF_SIZEOF_USTACK_CHAIN);
/* the pseudo-records' layouts are the saved streams' */
TPROF_ASSERT_SIZE(struct tprof_urec_pyproc, 48);
TPROF_ASSERT_SIZE(struct tprof_urec_pycode, 56);
TPROF_ASSERT_SIZE(struct tprof_urec_machine, TPROF_SIZEOF_REC_HDR + 16);

uint64_t tprof_record_ip(const struct tprof_record *r, unsigned int i)
{
	uint64_t ip;

	memcpy(&ip, r->ips + (size_t)i * 8, 8);
	return ip;
}

uint64_t tprof_record_word(const struct tprof_record *r, unsigned int i)
{
	uint64_t w;

	memcpy(&w, r->words + (size_t)i * 8, 8);
	return w;
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
	case TPROF_DENIED_LABEL:
		return "its security label changed (an LSM domain change: SELinux setcon, AppArmor change_profile or change_hat)";
	case TPROF_DENIED_CGROUP:
		return "it moved out of the profiled cgroup";
	default:
		return "the module no longer lets you profile it";
	}
}

/*
 * The checks of one type, past its fixed part (which decode copied to
 * r->u): the variable parts must lie inside the record and the counts be
 * ones the ABI allows. NULL if the record is sound, else the fault as a
 * clause for "... skipped: FAULT"; pointers into p are set on success.
 */
typedef const char *(*rec_check)(struct tprof_record *r,
				 const unsigned char *p);

/* bytes of the record past its fixed part of size fixed */
static size_t room(const struct tprof_record *r, size_t fixed)
{
	return r->hdr.size - fixed;
}

static const char *check_sample(struct tprof_record *r, const unsigned char *p)
{
	const struct tprof_rec_sample *s = &r->u.sample;

	if (s->nr_user > TPROF_MAX_USER_FRAMES)
		return "more user frames than the ABI allows";
	if (s->nr_kernel > TPROF_MAX_KERNEL_FRAMES)
		return "more kernel frames than the ABI allows";
	if (s->off_state > TPROF_OFF_RUNNABLE)
		return "an off-CPU state that does not exist";
	if (!(r->hdr.flags & TPROF_RF_OFF_CPU) != !s->off_state)
		return "off-CPU flag and state disagree";
	/* a waker's stack at a wakeup is no time: counted nowhere */
	if ((r->hdr.flags & TPROF_RF_WAKE_STACK) &&
	    (s->weight_ns || s->period_ns || s->off_state))
		return "a waker's stack (TPROF_RF_WAKE_STACK) with a weight, period or off-CPU state";
	if ((r->hdr.flags & TPROF_RF_WAKE_STACK) && s->nr_kernel)
		return "a waker's stack (TPROF_RF_WAKE_STACK) with kernel frames";
	/* only arm64's samples carry the interrupted link register */
	if ((r->hdr.flags & TPROF_RF_USER_LR) && s->abi != TPROF_ABI_ARM64 &&
	    s->abi != TPROF_ABI_ARM32)
		return "a link register in a sample of an ABI without one";
	if (((size_t)s->nr_user + s->nr_kernel) * 8 > room(r, sizeof(*s)))
		return "its frames run past the record's end";
	r->ips = p + sizeof(*s);
	return NULL;
}

static uint64_t stack_word(const struct tprof_record *r, size_t off)
{
	uint64_t w;

	memcpy(&w, r->stack + off, 8);
	return w;
}

/* the chain's first frame record and the user address of stack[0] */
static uint64_t chain_start(const struct tprof_record *r, uint64_t *lo)
{
	const struct tprof_rec_ustack *u = &r->u.ustack;
	bool arm64 = u->abi == TPROF_ABI_ARM64;

	*lo = u->regs[arm64 ? TPROF_AREG_SP : TPROF_UREG_SP] -
	      (r->hdr.flags & TPROF_RF_USTACK_BELOW ?
	       TPROF_SNAPSHOT_BELOW_BYTES : 0);
	return u->regs[arm64 ? TPROF_AREG_FP : TPROF_UREG_BP];
}

/*
 * The first @max frame records of a USTACK record's chain in its stack[],
 * from the frame pointer of its registers, as the module walked them:
 * each 8-byte aligned with its 16 bytes in stack[]. Their return addresses
 * go to @ips (NULL: only count them; arm64's with @pac_bits cleared).
 * Return: the records walked, fewer than @max where one leaves stack[].
 */
static unsigned int walk_inner(const struct tprof_record *r,
			       uint64_t pac_bits, uint64_t *ips,
			       unsigned int max)
{
	const struct tprof_rec_ustack *u = &r->u.ustack;
	uint64_t lo, fp = chain_start(r, &lo), off, ret;
	unsigned int n;

	for (n = 0; n < max; n++) {
		off = fp - lo;
		if ((fp & 7) || off >= u->stack_bytes ||
		    u->stack_bytes - off < 16)
			break;
		if (ips) {
			ret = stack_word(r, off + 8);
			ips[n] = u->abi == TPROF_ABI_ARM64 ? ret & ~pac_bits :
				 ret;
		}
		fp = stack_word(r, off);
	}
	return n;
}

/*
 * TPROF_RF_USTACK_CHAIN: the chain's header and outer ips after stack[]
 * (r->words), and every inner frame record inside stack[], where the
 * module read it (tprof_record_join_chain() walks them again).
 */
static const char *check_chain(struct tprof_record *r, const unsigned char *p)
{
	const struct tprof_rec_ustack *u = &r->u.ustack;
	size_t at = sizeof(*u) + (((size_t)u->stack_bytes + 7) & ~(size_t)7);

	if (u->abi != TPROF_ABI_X86_64 && u->abi != TPROF_ABI_ARM64)
		return "a frame-pointer chain in a task of 32-bit frames";
	if (r->hdr.size < at + sizeof(r->chain))
		return "its frame-pointer chain runs past the record's end";
	memcpy(&r->chain, p + at, sizeof(r->chain));
	if ((uint64_t)r->chain.nr_inner + r->chain.nr_outer >
	    TPROF_MAX_USER_FRAMES)
		return "more user frames than the ABI allows";
	if ((size_t)r->chain.nr_outer * 8 >
	    r->hdr.size - at - sizeof(r->chain))
		return "its frame-pointer chain runs past the record's end";
	if (walk_inner(r, 0, NULL, r->chain.nr_inner) < r->chain.nr_inner)
		return "a frame-pointer chain that leaves its snapshot";
	r->words = p + at + sizeof(r->chain);
	return NULL;
}

unsigned int tprof_record_chain_ips(const struct tprof_record *us,
				    uint64_t pac_bits, uint64_t *ips,
				    unsigned int max)
{
	unsigned int i, n;

	if (!(us->hdr.flags & TPROF_RF_USTACK_CHAIN))
		return 0;
	/* all of them: check_chain() walked them */
	n = walk_inner(us, pac_bits, ips,
		       us->chain.nr_inner < max ? us->chain.nr_inner : max);
	for (i = 0; i < us->chain.nr_outer && n < max; i++)
		ips[n++] = tprof_record_word(us, i);
	return n;
}

const struct tprof_record *
tprof_record_join_chain(const struct tprof_record *s,
			const struct tprof_record *us, uint64_t pac_bits,
			struct tprof_record *out, uint64_t *ips)
{
	const struct tprof_rec_sample *sa = &s->u.sample;
	uint32_t n = (uint32_t)sa->nr_kernel + sa->nr_user, i;

	if (!us || !(us->hdr.flags & TPROF_RF_USTACK_CHAIN))
		return s;
	for (i = 0; i < n; i++)
		ips[i] = tprof_record_ip(s, i);
	/* the SAMPLE's user ips (the pc, arm64's lr) and the chain's: at most
	 * TPROF_MAX_USER_FRAMES, which check_sample() holds nr_user to */
	n += tprof_record_chain_ips(us, pac_bits, ips + n,
				    TPROF_MAX_USER_FRAMES - sa->nr_user);
	*out = *s;
	out->u.sample.nr_user = (uint16_t)(n - sa->nr_kernel);
	out->ips = (const unsigned char *)ips;
	return out;
}

static const char *check_ustack(struct tprof_record *r, const unsigned char *p)
{
	const struct tprof_rec_ustack *u = &r->u.ustack;

	/* the bytes must be there; what they mean is unwind.c's */
	uint32_t below = r->hdr.flags & TPROF_RF_USTACK_BELOW ?
			 TPROF_SNAPSHOT_BELOW_BYTES : 0;

	if (u->stack_bytes > u->stack_req)
		return "more stack bytes than were asked for";
	if (u->stack_req > TPROF_MAX_SNAPSHOT_BYTES + below)
		return "a snapshot larger than the ABI allows";
	if (u->stack_bytes < below)
		return "fewer stack bytes than the red zone it says it has";
	if (below && u->abi != TPROF_ABI_X86_64)
		return "a red zone in a task without one";
	if ((size_t)u->stack_bytes > room(r, sizeof(*u)))
		return "its stack bytes run past the record's end";
	r->stack = p + sizeof(*u);
	if (r->hdr.flags & TPROF_RF_USTACK_CHAIN)
		return check_chain(r, p);
	return NULL;
}

static const char *check_mmap(struct tprof_record *r, const unsigned char *p)
{
	(void)p;
	return r->u.mmap.end <= r->u.mmap.start ? "an empty address range" :
	       NULL;
}

static const char *check_session(struct tprof_record *r,
				 const unsigned char *p)
{
	(void)p;
	return r->u.session.magic != TPROF_RAW_MAGIC ? "no stream magic" :
	       NULL;
}

static const char *check_maps(struct tprof_record *r, const unsigned char *p)
{
	if ((size_t)r->u.maps.len > room(r, sizeof(r->u.maps)))
		return "its text runs past the record's end";
	r->text = (const char *)p + sizeof(r->u.maps);
	return NULL;
}

static const char *check_cgroup(struct tprof_record *r,
				const unsigned char *p)
{
	if ((size_t)r->u.cgroup.len > room(r, sizeof(r->u.cgroup)))
		return "its text runs past the record's end";
	r->text = (const char *)p + sizeof(r->u.cgroup);
	return NULL;
}

static const char *check_buildid(struct tprof_record *r,
				 const unsigned char *p)
{
	const struct tprof_urec_buildid *b = &r->u.buildid;

	if (b->bid_len > 64)
		return "a build-id longer than 64 bytes";
	if (!b->path_len)
		return "no path";
	if ((size_t)b->bid_len + b->path_len > room(r, sizeof(*b)))
		return "its build-id and path run past the record's end";
	r->bid = p + sizeof(*b);
	r->text = (const char *)r->bid + b->bid_len;
	return NULL;
}

static const char *check_kallsyms(struct tprof_record *r,
				  const unsigned char *p)
{
	if ((size_t)r->u.kallsyms.len + r->u.kallsyms.modules_len >
	    room(r, sizeof(r->u.kallsyms)))
		return "its text runs past the record's end";
	r->text = (const char *)p + sizeof(r->u.kallsyms);
	return NULL;
}

static const char *check_vdso(struct tprof_record *r, const unsigned char *p)
{
	if ((size_t)r->u.vdso.len > room(r, sizeof(r->u.vdso)))
		return "its image runs past the record's end";
	r->image = p + sizeof(r->u.vdso);
	return NULL;
}

/* words a UWALK frame may have: its fields, then its code words */
#define UWALK_MAX_WORDS (TPROF_UWALK_MAX_FIELDS + TPROF_UWALK_MAX_CODE_OFFS)

static const char *check_uwalk(struct tprof_record *r, const unsigned char *p)
{
	const struct tprof_rec_uwalk *w = &r->u.uwalk;
	size_t bytes = (size_t)w->nr_frames * w->words_per_frame * 8;

	if (w->status > TPROF_UWALK_TRUNCATED)
		return "a walk status that does not exist";
	if (w->words_per_frame > UWALK_MAX_WORDS)
		return "more words per frame than the ABI allows";
	if (w->nr_frames > TPROF_UWALK_MAX_FRAMES)
		return "more frames than the ABI allows";
	if (w->nr_frames && !w->words_per_frame)
		return "frames of no words";
	/* a tail comes after one frame of the head at least */
	if (w->nr_tail > TPROF_UWALK_MAX_TAIL ||
	    (w->nr_tail && w->nr_tail >= w->nr_frames))
		return "a tail of more frames than the walk has, or the ABI allows";
	if (bytes > TPROF_UWALK_MAX_BYTES)
		return "more words than the ABI allows";
	if (bytes > room(r, sizeof(*w)))
		return "its words run past the record's end";
	r->words = p + sizeof(*w);
	return NULL;
}

static const char *check_pyproc(struct tprof_record *r, const unsigned char *p)
{
	const struct tprof_urec_pyproc *y = &r->u.pyproc;
	unsigned int i;

	if (y->w_code >= UWALK_MAX_WORDS || y->w_instr >= UWALK_MAX_WORDS ||
	    y->w_entry >= UWALK_MAX_WORDS || y->w_check >= UWALK_MAX_WORDS)
		return "a frame word past the ABI's words per frame";
	if (y->entry_kind != TPROF_PY_ENTRY_FLAG &&
	    y->entry_kind != TPROF_PY_ENTRY_SENTINEL)
		return "an entry kind that does not exist";
	if (y->entry_shift > 56)
		return "an entry byte outside its word";
	if ((size_t)y->nr_ranges * 16 > room(r, sizeof(*y)))
		return "its ranges run past the record's end";
	r->words = p + sizeof(*y);
	for (i = 0; i < y->nr_ranges; i++)
		if (tprof_record_word(r, 2 * i) >= tprof_record_word(r, 2 * i + 1))
			return "an empty code range";
	return NULL;
}

static const char *check_pycode(struct tprof_record *r, const unsigned char *p)
{
	const struct tprof_urec_pycode *c = &r->u.pycode;

	if ((size_t)c->qualname_len + c->filename_len + c->linetable_len >
	    room(r, sizeof(*c)))
		return "its names and line table run past the record's end";
	r->text = (const char *)p + sizeof(*c);
	r->linetable = (const unsigned char *)r->text + c->qualname_len +
		       c->filename_len;
	return NULL;
}

/*
 * A WAKER record: a known kind; a comm only with a tid, NUL-ended; one
 * written at the wakeup (TPROF_RF_WAKER_WAKEUP) names a waker thread and
 * the wait's number, which its SAMPLE's stack is joined by.
 */
static const char *check_waker(struct tprof_record *r, const unsigned char *p)
{
	const struct tprof_rec_waker *w = &r->u.waker;

	(void)p;
	if (w->kind < TPROF_WAKER_TASK || w->kind > TPROF_WAKER_SOFTIRQ)
		return "an unknown waker kind";
	if (w->waker_comm[sizeof(w->waker_comm) - 1])
		return "its waker's comm is not NUL-terminated";
	if (!w->waker_tid && w->waker_comm[0])
		return "a waker's comm without its tid";
	if ((r->hdr.flags & TPROF_RF_WAKER_WAKEUP) &&
	    (!w->waker_tid || !w->seq))
		return "a wakeup's WAKER (TPROF_RF_WAKER_WAKEUP) without its waker's tid or the wait's seq";
	return NULL;
}

/*
 * A type that grew: its fixed part as far as the record has it (the table's
 * min_size is its first version's), the fields an older writer's lacks 0.
 */
static void copy_grown(struct tprof_record *r, const unsigned char *p,
		       void *fixed, size_t size)
{
	memcpy(fixed, p, r->hdr.size < size ? r->hdr.size : size);
}

static const char *check_stats(struct tprof_record *r, const unsigned char *p)
{
	copy_grown(r, p, &r->u.stats, sizeof(r->u.stats));
	return NULL;
}

/* an older module's PROC record: no cgroup_id */
static const char *check_proc(struct tprof_record *r, const unsigned char *p)
{
	copy_grown(r, p, &r->u.proc, sizeof(r->u.proc));
	return NULL;
}

static const char *check_perfmap(struct tprof_record *r,
				 const unsigned char *p)
{
	if ((size_t)r->u.perfmap.len > room(r, sizeof(r->u.perfmap)))
		return "its text runs past the record's end";
	r->text = (const char *)p + sizeof(r->u.perfmap);
	return NULL;
}

/*
 * THE table of record types: each known type's name, the size of its fixed
 * part (the least a record of it may be; copied to tprof_record.u) and its
 * checks (NULL: the fixed part is all). A type not here is skipped by its
 * size, so a newer module's records do not stop an older reader.
 */
struct rec_type {
	const char *name;
	unsigned int min_size;
	rec_check check;
};

#define REC(t, n, st, chk) [t] = { n, sizeof(struct st), chk }
static const struct rec_type kernel_types[] = {
	REC(TPROF_REC_SAMPLE, "SAMPLE", tprof_rec_sample, check_sample),
	REC(TPROF_REC_LOST, "LOST", tprof_rec_lost, NULL),
	REC(TPROF_REC_THREAD, "THREAD", tprof_rec_thread, NULL),
	REC(TPROF_REC_THREAD_EXIT, "THREAD_EXIT", tprof_rec_thread_stat, NULL),
	REC(TPROF_REC_THREAD_STAT, "THREAD_STAT", tprof_rec_thread_stat, NULL),
	REC(TPROF_REC_EXEC, "EXEC", tprof_rec_exec, NULL),
	REC(TPROF_REC_PROC_EXIT, "PROC_EXIT", tprof_rec_proc_exit, NULL),
	REC(TPROF_REC_DENIED, "DENIED", tprof_rec_denied, NULL),
	REC(TPROF_REC_USTACK, "USTACK", tprof_rec_ustack, check_ustack),
	REC(TPROF_REC_MMAP, "MMAP", tprof_rec_mmap, check_mmap),
	[TPROF_REC_PROC] = { "PROC", TPROF_SIZEOF_REC_PROC_V1, check_proc },
	REC(TPROF_REC_THREAD_OFF, "THREAD_OFF", tprof_rec_thread_off, NULL),
	REC(TPROF_REC_THROTTLE, "THROTTLE", tprof_rec_throttle, NULL),
	REC(TPROF_REC_UWALK, "UWALK", tprof_rec_uwalk, check_uwalk),
	REC(TPROF_REC_WAKER, "WAKER", tprof_rec_waker, check_waker),
};

#define UREC(t, n, st, chk) REC((t) - TPROF_UREC_BASE, n, st, chk)
static const struct rec_type user_types[] = {
	UREC(TPROF_UREC_SESSION, "SESSION", tprof_urec_session, check_session),
	UREC(TPROF_UREC_MAPS, "MAPS", tprof_urec_maps, check_maps),
	/* saved by readers before the walk counters: STATS_V1's reply */
	[TPROF_UREC_STATS - TPROF_UREC_BASE] = {
		"STATS", offsetof(struct tprof_urec_stats, stats) +
			 TPROF_SIZEOF_IOC_STATS_V1, check_stats },
	UREC(TPROF_UREC_KALLSYMS, "KALLSYMS", tprof_urec_kallsyms,
	     check_kallsyms),
	UREC(TPROF_UREC_BUILDID, "BUILDID", tprof_urec_buildid, check_buildid),
	UREC(TPROF_UREC_VDSO, "VDSO", tprof_urec_vdso, check_vdso),
	UREC(TPROF_UREC_PYPROC, "PYPROC", tprof_urec_pyproc, check_pyproc),
	UREC(TPROF_UREC_PYCODE, "PYCODE", tprof_urec_pycode, check_pycode),
	UREC(TPROF_UREC_PERFMAP, "PERFMAP", tprof_urec_perfmap, check_perfmap),
	UREC(TPROF_UREC_MACHINE, "MACHINE", tprof_urec_machine, NULL),
	UREC(TPROF_UREC_CGROUP, "CGROUP", tprof_urec_cgroup, check_cgroup),
};

/* The table's row of type, NULL for one this reader does not know. */
static const struct rec_type *rec_type(unsigned int type)
{
	const struct rec_type *t = NULL;

	if (type < ARRAY_SIZE(kernel_types))
		t = &kernel_types[type];
	else if (type >= TPROF_UREC_BASE &&
		 type - TPROF_UREC_BASE < ARRAY_SIZE(user_types))
		t = &user_types[type - TPROF_UREC_BASE];
	return t && t->name ? t : NULL;
}

const char *tprof_record_type_name(unsigned int type)
{
	const struct rec_type *t = rec_type(type);

	return t ? t->name : "unknown";
}

size_t tprof_record_min_size(unsigned int type)
{
	const struct rec_type *t = rec_type(type);

	return t ? t->min_size : 0;
}

/*
 * The header alone says where the next record starts; a size that breaks
 * these rules cannot be trusted, and nothing after it can be found.
 */
static const char *check_framing(const struct tprof_rec_hdr *h)
{
	if (h->size < sizeof(*h))
		return "a size smaller than a record header";
	if (h->size % 8)
		return "a size that is not a multiple of 8";
	if (h->size > TPROF_REC_MAX_SIZE)
		return "a size over the 64 MiB a record may have";
	if (h->type == 0)
		return "type 0, which no writer uses";
	return NULL;
}

long tprof_record_decode(const void *buf, size_t len, struct tprof_record *r)
{
	const unsigned char *p = buf;
	const struct rec_type *t;

	memset(r, 0, sizeof(*r));
	if (len == 0)
		return 0;
	if (len < sizeof(r->hdr))
		return -ENODATA;
	memcpy(&r->hdr, p, sizeof(r->hdr));
	r->fault = check_framing(&r->hdr);
	if (r->fault)
		return -EBADMSG;
	if (r->hdr.size > len)
		return -ENODATA;
	r->raw = p;
	t = rec_type(r->hdr.type);
	if (!t)
		return r->hdr.size;
	if (r->hdr.size < t->min_size) {
		r->fault = "smaller than its type's fixed part";
		return -EINVAL;
	}
	memcpy(&r->u, p, t->min_size);
	if (t->check)
		r->fault = t->check(r, p);
	return r->fault ? -EINVAL : (long)r->hdr.size;
}

size_t tprof_urec_build(unsigned char **out, unsigned int type,
			uint64_t time_ns, const void *fixed, size_t fixed_size,
			const void *tail, size_t tail_len)
{
	size_t size = (fixed_size + tail_len + 7) & ~(size_t)7;
	struct tprof_rec_hdr hdr = {
		.type = type, .size = size, .time_ns = time_ns,
	};
	unsigned char *buf = xcalloc(1, size);

	*out = buf;
	memcpy(buf, fixed, fixed_size);
	memcpy(buf, &hdr, sizeof(hdr));
	if (tail_len)
		memcpy(buf + fixed_size, tail, tail_len);
	return size;
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
