// SPDX-License-Identifier: GPL-2.0
/*
 * tprof-read: aggregate a record stream into per-thread samples.
 *
 * The stream's owner says when it ends, once: profile__finish(), from the
 * replay at the input's end or the live loop after DISABLE. What still
 * waits (a SAMPLE for its USTACK, samples for their PROC record) is added
 * then, and no part of a sample is taken after it; other records still
 * count (a launch's exit stop reads the maps later). The passes after it
 * (resolve, symbolize, summary, encode) read the profile as const and take
 * the aggregated samples with profile__take_samples().
 */
#include <errno.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#include "lib/buildid.h"
#include "lib/cgroup_names.h"
#include "model/idtable.h"
#include "model/profile.h"
#include "model/timeline.h"

/* Comm changes a thread may have before they are indexed by time. */
#define COMM_SCAN 8

struct comm_index {
	struct timeline all, execs;	/* seq: index into comms */
};

/*
 * One sample waiting for its process's PROC record (profile.h): its SAMPLE,
 * USTACK and UWALK records, each kept by hold() (bytes NULL: absent).
 */
struct waiting_sample {
	int pid;
	struct tprof_record rec[3];
	unsigned char *bytes[3];
	size_t cap[3];
};

/*
 * At most this many samples and bytes wait (a PROC record lost with a full
 * ring never comes): past either, all go on as they are.
 */
#define WAITING_MAX_SAMPLES 4096U
#define WAITING_MAX_BYTES (16U << 20)
/* ancestors looked at for a followed process's line to the target */
#define WAITING_MAX_DEPTH 64

void profile__init(struct profile *p)
{
	memset(p, 0, sizeof(*p));
	maps__init(&p->maps);
	perfmap__init(&p->jit);
	python__init(&p->py);
	wakejoin__init(&p->wakes);
	agg__init(&p->whole, 0, UINT64_MAX);
	p->first_time_ns = UINT64_MAX;
}

static void comm_index_free(struct comm_index *ci)
{
	if (!ci)
		return;
	timeline__free(&ci->all);
	timeline__free(&ci->execs);
	free(ci);
}

static void proc_cgroups_free(struct proc_info *pi)
{
	uint32_t i;

	for (i = 0; i < pi->ncgroups; i++)
		free(pi->cgroups[i].path);
	free(pi->cgroups);
	pi->cgroups = NULL;
	pi->ncgroups = 0;
}

void profile__free(struct profile *p)
{
	unsigned int k;
	size_t i;

	if (!p)
		return;
	for (i = 0; i < p->nthreads; i++) {
		free(p->threads[i].comms);
		comm_index_free(p->threads[i].cidx);
	}
	for (i = 0; i < p->nprocs; i++)
		proc_cgroups_free(&p->procs[i]);
	agg__free(&p->whole);
	free(p->threads);
	free(p->procs);
	hindex_free(&p->proc_idx);
	hindex_free(&p->thread_idx);
	maps__free(&p->maps);
	perfmap__free(&p->jit);
	python__free(&p->py);
	wakejoin__free(&p->wakes);
	for (i = 0; i < p->nwaiting; i++)
		for (k = 0; k < 3; k++)
			free(p->waiting[i].bytes[k]);
	free(p->waiting);
	free(p->pending_us);
	free(p->kallsyms);
	free(p->modules);
	free(p->pending);
	memset(p, 0, sizeof(*p));
}

/* The index hashes of a thread's tid and a process's pid. */
static uint64_t thread_hash(int tid)
{
	return hash_u64((uint32_t)tid);
}

static uint64_t proc_hash(int pid)
{
	return hash_u64((uint32_t)pid ^ 0x9e3779b9U);
}

/* The thread of tid; with add, added if new (else NULL). */
static struct thread_info *thread_of(const struct profile *p, int tid,
				     bool add)
{
	struct profile *w = (struct profile *)p;	/* written only with add */

	return IDTABLE_GET(w->threads, w->nthreads, w->capthreads,
			   w->thread_idx, tid, tid, thread_hash(tid), add);
}

struct thread_info *profile__thread(struct profile *p, int tid)
{
	return thread_of(p, tid, true);
}

const struct thread_info *profile__find_thread(const struct profile *p,
					       int tid)
{
	return thread_of(p, tid, false);
}

/* The process of pid; with add, added if new (else NULL). */
static struct proc_info *proc_of(const struct profile *p, int pid, bool add)
{
	struct profile *w = (struct profile *)p;	/* written only with add */

	return IDTABLE_GET(w->procs, w->nprocs, w->capprocs, w->proc_idx, pid,
			   pid, proc_hash(pid), add);
}

struct proc_info *profile__proc(struct profile *p, int pid)
{
	return proc_of(p, pid, true);
}

const struct proc_info *profile__find_proc(const struct profile *p, int pid)
{
	return proc_of(p, pid, false);
}

const char *profile__proc_end(const struct profile *p,
			      const struct proc_info *pi, char *buf, size_t len)
{
	/* a cgroup session's limit is the module parameter's */
	if (pi->dropped && (p->session.flags & TPROF_F_CGROUP))
		snprintf(buf, len,
			 "not followed (more processes at once than tprof.ko's cgroup_procs_bits allow)");
	else if (pi->dropped)
		snprintf(buf, len, "not followed (more than %d processes)",
			 TPROF_MAX_PROCS);
	else if (pi->denied)
		snprintf(buf, len, "denied: %s",
			 tprof_denied_reason(pi->denied_reason));
	else if (!pi->exited)
		snprintf(buf, len, "running");
	else if (WIFSIGNALED(pi->exit_code))
		snprintf(buf, len, "killed by signal %d",
			 WTERMSIG(pi->exit_code));
	else
		snprintf(buf, len, "exit %d", WEXITSTATUS(pi->exit_code));
	return buf;
}

void profile__proc_counts(const struct profile *p, uint64_t *procs,
			  uint64_t *dropped)
{
	if (p->have_proc_totals) {
		*procs = p->procs_followed_k + p->procs_dropped_k;
		*dropped = p->procs_dropped_k;
	} else {
		*procs = p->nprocs;
		*dropped = p->procs_dropped;
	}
}

bool profile__has_tree(const struct profile *p, uint64_t *procs,
		       uint64_t *dropped)
{
	profile__proc_counts(p, procs, dropped);
	return *procs >= 2 || *dropped || p->procs_denied;
}

int profile__target(const struct profile *p)
{
	if (p->have_session)
		return (int)p->session.pid;
	return p->nprocs ? p->procs[0].pid : 0;
}

const char *profile__proc_name(const struct profile *p, int pid,
			       uint64_t time_ns)
{
	const struct thread_info *t = profile__find_thread(p, pid);

	return t ? thread__comm_at(t, time_ns) : "";
}

/*
 * The entry of pi's cgroups at time_ns: the newest at or before it (CGROUP
 * records are stamped by their PROC or EXEC record, a process's arrive
 * nearly in order, and few), else the first; -1 without any.
 */
static int cgroup_index(const struct proc_info *pi, uint64_t time_ns)
{
	int best = -1;
	uint32_t i;

	for (i = 0; i < pi->ncgroups; i++)
		if (pi->cgroups[i].time_ns <= time_ns &&
		    (best < 0 || pi->cgroups[i].time_ns >=
				 pi->cgroups[best].time_ns))
			best = (int)i;
	return best < 0 && pi->ncgroups ? 0 : best;
}

const struct cgroup_change *profile__cgroup_at(const struct profile *p,
					       int pid, uint64_t time_ns)
{
	const struct proc_info *pi = profile__find_proc(p, pid);
	int i = pi ? cgroup_index(pi, time_ns) : -1;

	return i < 0 ? NULL : &pi->cgroups[i];
}

/* cgroup changes of pid at or before time_ns: part of the key */
static uint32_t cgroup_gen(const struct profile *p, int pid, uint64_t time_ns)
{
	const struct proc_info *pi;
	uint32_t i, n = 0;

	/* most sessions: no process ever changed, no lookup per sample */
	if (!p->cgroup_moves)
		return 0;
	pi = profile__find_proc(p, pid);
	for (i = 0; pi && i < pi->ncgroups; i++)
		n += pi->cgroups[i].time_ns <= time_ns;
	return n;
}

/* Past COMM_SCAN comm changes, a thread's are indexed by time. */
static void index_comm(struct thread_info *t, uint32_t i)
{
	const struct comm_change *c = &t->comms[i];

	timeline__add(&t->cidx->all, c->time_ns, i);
	if (c->exec)
		timeline__add(&t->cidx->execs, c->time_ns, i);
}

/* exec: a new program, even one of the same name, starts a new entry */
static void set_comm(struct thread_info *t, uint64_t time_ns,
		     const __u8 comm[16], bool exec)
{
	struct comm_change *c;
	uint32_t i;

	if (!exec && t->ncomms && !strncmp(t->comms[t->ncomms - 1].comm,
					   (const char *)comm, 16))
		return;
	/* most threads have one name: room for one, not GROW()'s 16 */
	if (t->ncomms == t->capcomms) {
		t->capcomms = t->capcomms ? t->capcomms * 2 : 1;
		t->comms = xrealloc(t->comms, t->capcomms * sizeof(*t->comms));
	}
	c = &t->comms[t->ncomms++];
	c->time_ns = time_ns;
	memcpy(c->comm, comm, 16);
	c->comm[16] = 0;
	c->exec = exec;
	if (t->cidx) {
		index_comm(t, t->ncomms - 1);
	} else if (t->ncomms > COMM_SCAN) {
		t->cidx = xcalloc(1, sizeof(*t->cidx));
		for (i = 0; i < t->ncomms; i++)
			index_comm(t, i);
	}
}

uint64_t profile__exec_before(const struct profile *p, int pid,
			      uint64_t time_ns)
{
	const struct thread_info *t = profile__find_thread(p, pid);
	struct tl_ent e;
	uint64_t best = 0;
	size_t i;

	if (t && t->cidx)
		return timeline__last_le(&t->cidx->execs, time_ns, &e) ?
		       e.time : 0;
	for (i = 0; t && i < t->ncomms; i++)
		if (t->comms[i].exec && t->comms[i].time_ns <= time_ns &&
		    t->comms[i].time_ns > best)
			best = t->comms[i].time_ns;
	return best;
}

/* Comm changes of t at or before time_ns: part of the aggregation key. */
static uint32_t comm_gen(const struct thread_info *t, uint64_t time_ns)
{
	uint32_t n = 0;
	size_t i;

	if (t && t->cidx)
		return (uint32_t)timeline__count_le(&t->cidx->all, time_ns);
	for (i = 0; t && i < t->ncomms; i++)
		n += t->comms[i].time_ns <= time_ns;
	return n;
}

const char *thread__comm_at(const struct thread_info *t, uint64_t time_ns)
{
	const char *best = NULL;
	uint64_t best_time = 0;
	struct tl_ent e;
	size_t i;

	if (t->cidx) {
		if (timeline__last_le(&t->cidx->all, time_ns, &e))
			return t->comms[e.seq].comm;
		return t->comms[0].comm;
	}
	/* records from different CPUs arrive out of order: pick by time */
	for (i = 0; i < t->ncomms; i++)
		if (t->comms[i].time_ns <= time_ns &&
		    (!best || t->comms[i].time_ns >= best_time)) {
			best = t->comms[i].comm;
			best_time = t->comms[i].time_ns;
		}
	if (!best && t->ncomms)
		best = t->comms[0].comm;
	return best ? best : "";
}

/*
 * The sample's stack: kernel ips, then the user frames unwound from its
 * snapshot us when there is one that helps, else the FP chain.
 */
static uint32_t sample_ips(struct profile *p, const struct tprof_record *r,
			   const struct tprof_record *us, uint64_t *ips,
			   bool *truncated)
{
	const struct tprof_rec_sample *s = &r->u.sample;
	uint32_t nr = (uint32_t)s->nr_user + s->nr_kernel, i, n = 0;
	bool lr = (r->hdr.flags & TPROF_RF_USER_LR) && s->nr_user > 1;

	*truncated = false;
	for (i = 0; i < s->nr_kernel; i++)
		ips[i] = tprof_record_ip(r, i);
	/* a snapshot, or the FP chain alone: the unwinder checks each of
	 * the chain's links against the CFI (analyze/unwind.c fp_checked())
	 * and tells an arm64 link register that is the caller from a stale
	 * one (keep_lr()) */
	if (p->unwind)
		n = p->unwind(p->unwind_ctx, p, r, us, ips + s->nr_kernel,
			      TPROF_MAX_USER_FRAMES, truncated);
	if (n)
		return s->nr_kernel + n;
	/* without an unwinder, the chain as the kernel walked it */
	for (i = s->nr_kernel, n = s->nr_kernel; i < nr; i++)
		if (!lr || i != (uint32_t)s->nr_kernel + 1)
			ips[n++] = tprof_record_ip(r, i);
	return n;
}

/*
 * The sample's UWALK record uw merged into its user frames ips[nk..*nr):
 * whether any Python frame went in (ips has room for a walk's frames).
 */
static bool merge_python(struct profile *p, const struct tprof_record *r,
			 const struct tprof_record *uw, uint64_t *ips,
			 uint32_t *nr, uint32_t room)
{
	const struct tprof_rec_sample *s = &r->u.sample;
	uint32_t nk = s->nr_kernel, n;

	if (!uw)
		return false;
	if (s->abi != TPROF_ABI_X86_64) {	/* no 32-bit layouts */
		p->py.st.walks++;
		p->py.st.no_proc++;
		return false;
	}
	n = python__merge(&p->py, (int)s->pid, uw, ips + nk, *nr - nk,
			  room - nk);
	if (!n)
		return false;
	*nr = nk + n;
	return true;
}

uint64_t profile__pac_bits(const struct profile *p)
{
	/* bits 63:56 are no address either (a TBI tag, or the PAC with TBI
	 * off for code): never part of a user return address */
	return p->have_machine ?
	       p->machine.user_pac_mask | 0xff00000000000000ULL :
	       ~((1ULL << 48) - 1);
}

/* A pointer of r into its record's bytes, moved to the same place in to. */
static const void *rebase(const struct tprof_record *r, const void *ptr,
			  const unsigned char *to)
{
	const unsigned char *q = ptr;

	return q && q >= r->raw && q < r->raw + r->hdr.size ?
	       to + (q - r->raw) : NULL;
}

/*
 * Keep r as k, a copy of its bytes in *buf: a group's records until its
 * end, a waiting sample's until its PROC record.
 */
static void hold(const struct tprof_record *r, struct tprof_record *k,
		 unsigned char **buf, size_t *cap)
{
	GROW(*buf, *cap, r->hdr.size);
	memcpy(*buf, r->raw, r->hdr.size);
	/* decoded once: the copy's pointers are into the copied bytes */
	*k = *r;
	k->raw = *buf;
	k->ips = rebase(r, r->ips, *buf);
	k->text = rebase(r, r->text, *buf);
	k->bid = rebase(r, r->bid, *buf);
	k->image = rebase(r, r->image, *buf);
	k->stack = rebase(r, r->stack, *buf);
	k->words = rebase(r, r->words, *buf);
	k->linetable = rebase(r, r->linetable, *buf);
}

/*
 * A sample of a process that is not the target, in a session that follows
 * children, before the PROC records of its process and of each ancestor
 * up to the target: its snapshot cannot be unwound with the maps its
 * process copied (a grandchild's line to them goes through its parent's
 * record). It waits (profile.h).
 */
static bool awaits_proc(const struct profile *p, int pid)
{
	const struct proc_info *pi;
	unsigned int depth;

	if (!p->have_session || !(p->session.flags & TPROF_F_CHILDREN))
		return false;
	for (depth = 0; depth < WAITING_MAX_DEPTH; depth++) {
		if (pid == (int)p->session.pid)
			return false;
		pi = profile__find_proc(p, pid);
		/* a cgroup's processes join by themselves: no tree above */
		if (!pi && depth && (p->session.flags & TPROF_F_CGROUP))
			return false;
		if (!pi || (!pi->joined && !pi->dropped))
			return true;
		if (pi->dropped || pi->ppid <= 0)
			return false;
		pid = pi->ppid;
	}
	return false;
}

static void add_sample_now(struct profile *p, const struct tprof_record *sr,
			   const struct tprof_record *us,
			   const struct tprof_record *uw);

/* Add waiting sample i (then forgotten: its slot is reused). */
static void release_one(struct profile *p, size_t i)
{
	struct waiting_sample *w = &p->waiting[i];
	unsigned int k;

	add_sample_now(p, &w->rec[0], w->bytes[1] ? &w->rec[1] : NULL,
		       w->bytes[2] ? &w->rec[2] : NULL);
	for (k = 0; k < 3; k++) {
		if (w->bytes[k])
			p->waiting_bytes -= w->rec[k].hdr.size;
		free(w->bytes[k]);
		w->bytes[k] = NULL;
	}
}

/*
 * The samples that need wait no more (a PROC record came; all: the
 * stream's end, or a full list), in the order they came.
 */
static void release_waiting(struct profile *p, bool all)
{
	size_t i, n = 0;

	for (i = 0; i < p->nwaiting; i++) {
		if (all || !awaits_proc(p, p->waiting[i].pid))
			release_one(p, i);
		else
			p->waiting[n++] = p->waiting[i];
	}
	p->nwaiting = n;
}

/* Keep copies of a sample's records until its PROC record comes. */
static void wait_sample(struct profile *p, const struct tprof_record *sr,
			const struct tprof_record *us,
			const struct tprof_record *uw)
{
	const struct tprof_record *r[3] = { sr, us, uw };
	struct waiting_sample *w;
	size_t all = 0;
	unsigned int k;

	for (k = 0; k < 3; k++)
		all += r[k] ? r[k]->hdr.size : 0;
	/* full (a PROC record lost): all go on as they are */
	if (p->nwaiting >= WAITING_MAX_SAMPLES ||
	    p->waiting_bytes + all > WAITING_MAX_BYTES)
		release_waiting(p, true);
	GROW(p->waiting, p->capwaiting, p->nwaiting + 1);
	w = &p->waiting[p->nwaiting++];
	memset(w, 0, sizeof(*w));
	w->pid = (int)sr->u.sample.pid;
	for (k = 0; k < 3; k++)
		if (r[k])
			hold(r[k], &w->rec[k], &w->bytes[k], &w->cap[k]);
	p->waiting_bytes += all;
}

/* One sample of a known process, joined to its group, unwound, counted. */
static void add_sample_now(struct profile *p, const struct tprof_record *sr,
			   const struct tprof_record *us,
			   const struct tprof_record *uw)
{
	uint64_t chain[TPROF_MAX_KERNEL_FRAMES + TPROF_MAX_USER_FRAMES];
	struct tprof_record joined;
	/* a chain in the USTACK record: as if the SAMPLE had it */
	const struct tprof_record *r =
		tprof_record_join_chain(sr, us, profile__pac_bits(p), &joined,
					chain);
	const struct tprof_rec_sample *s = &r->u.sample;
	uint64_t ips[TPROF_MAX_KERNEL_FRAMES + TPROF_MAX_USER_FRAMES +
		     TPROF_UWALK_MAX_FRAMES];
	struct agg_sample a = {
		.pid = s->pid, .tid = s->tid, .period_ns = s->period_ns,
		.nr_kernel = s->nr_kernel, .abi = s->abi,
		.off_state = s->off_state, .ips = ips,
		.snap_epoch = maps__epoch_at(&p->maps, r->hdr.time_ns),
		.comm_gen = comm_gen(profile__find_thread(p, s->tid),
				     r->hdr.time_ns),
		.cgroup_gen = cgroup_gen(p, (int)s->pid, r->hdr.time_ns),
		.first_time_ns = r->hdr.time_ns,
		.weight_ns = s->weight_ns, .count = 1,
		.exiting = r->hdr.flags & TPROF_RF_EXITING,
		.kernel_lr = (r->hdr.flags & TPROF_RF_KERNEL_LR) &&
			     s->nr_kernel > 1,
	};
	struct thread_info *t;
	bool wake_stack = r->hdr.flags & TPROF_RF_WAKE_STACK;

	/* a waker's stack: only for an output that joins it to its wait */
	if (wake_stack) {
		bool paired = sr->waker.hdr.flags & TPROF_RF_WAKER_WAKEUP;

		p->wake_stacks++;
		p->wake_stack_orphans += !paired;
		if (!p->join_wakes || !paired)
			return;
		a.wake_stack = true;
		a.wake_id = wakejoin__id(&p->wakes, WAKE_SIDE_STACK,
					 (int)sr->waker.pid,
					 (int)sr->waker.tid, sr->waker.seq, false);
	} else if (p->join_wakes && sr->waker.kind && sr->waker.seq) {
		a.wake_id = wakejoin__id(&p->wakes, WAKE_SIDE_WAIT,
					 (int)s->pid, (int)s->tid,
					 sr->waker.seq, sr->waker.waker_tid != 0);
	}
	/* a waker's stack has its waker too: the one a chain's waits get */
	if (sr->waker.kind) {
		a.waker.kind = sr->waker.kind;
		a.waker.pid = (int)sr->waker.waker_pid;
		a.waker.tid = (int)sr->waker.waker_tid;
		memcpy(a.waker.comm, sr->waker.waker_comm,
		       sizeof(a.waker.comm));
	}
	a.thread_exit = a.exiting && (r->hdr.flags & TPROF_RF_THREAD_EXIT);
	a.nr = sample_ips(p, r, us, ips, &a.truncated);
	a.python = merge_python(p, r, uw, ips, &a.nr, ARRAY_SIZE(ips));
	/* its thread and process first: a sink may look them up */
	t = profile__thread(p, s->tid);
	t->pid = s->pid;
	if (!p->nprocs || p->procs[p->nprocs - 1].pid != (int)s->pid)
		profile__proc(p, (int)s->pid);
	if (p->sink.sample)
		p->sink.sample(p->sink.ctx, p, &a, r->hdr.time_ns);
	else
		agg__add(&p->whole, &a, r->hdr.time_ns);
	if (wake_stack)
		return;
	p->sample_records++;
	p->sample_weight_ns = sat_add(p->sample_weight_ns, s->weight_ns);
	if (s->off_state) {
		p->off_records++;
		p->off_weight_ns = sat_add(p->off_weight_ns, s->weight_ns);
	}
}

/* A sample: now, or once its process's PROC record came (profile.h). */
static void add_sample(struct profile *p, const struct tprof_record *sr,
		       const struct tprof_record *us,
		       const struct tprof_record *uw)
{
	if (awaits_proc(p, (int)sr->u.sample.pid))
		wait_sample(p, sr, us, uw);
	else
		add_sample_now(p, sr, us, uw);
}

struct agg_sample *profile__take_samples(struct profile *p, size_t *n)
{
	return agg__take_samples(&p->whole, n);
}

void profile__set_sink(struct profile *p, const struct profile_sink *sink)
{
	if (sink)
		p->sink = *sink;
	else
		memset(&p->sink, 0, sizeof(p->sink));
}

void profile__index(struct profile *p)
{
	perfmap__index(&p->jit);
}

/*
 * The held SAMPLE, with what came of its group: its partner did not
 * follow.
 */
static void flush_group(struct profile *p)
{
	if (!p->have_pending)
		return;
	p->have_pending = false;
	if (p->have_pending_us) {
		p->have_pending_us = false;
		p->ustack_paired++;
		p->py.st.missing++;
		add_sample(p, &p->pending_rec, &p->pending_us_rec, NULL);
		return;
	}
	p->ustack_missing++;
	add_sample(p, &p->pending_rec, NULL, NULL);
}

void profile__finish(struct profile *p)
{
	if (p->finished)
		return;
	flush_group(p);
	release_waiting(p, true);
	/* the waits and stacks whose partner did not come: lost */
	wakejoin__finish(&p->wakes);
	perfmap__seal(&p->jit);
	p->finished = true;
}

/* Is r (of thread tid) the next record of the held SAMPLE's group? */
static bool in_group(const struct profile *p, const struct tprof_record *r,
		     uint32_t tid)
{
	return tid == p->pending_rec.u.sample.tid &&
	       r->hdr.time_ns == p->pending_rec.hdr.time_ns;
}

/*
 * The held SAMPLE's group goes on with r: its USTACK (then, with
 * TPROF_RF_GROUP, held too, for the UWALK), or its UWALK. Returns whether
 * r was consumed.
 */
static bool pair_group(struct profile *p, const struct tprof_record *r)
{
	const struct tprof_record *s = &p->pending_rec;

	if (!p->have_pending_us && r->hdr.type == TPROF_REC_USTACK &&
	    in_group(p, r, r->u.ustack.tid)) {
		if (r->hdr.flags & TPROF_RF_GROUP) {
			hold(r, &p->pending_us_rec, &p->pending_us,
			     &p->pending_us_cap);
			p->have_pending_us = true;
			return true;
		}
		p->have_pending = false;
		p->ustack_paired++;
		add_sample(p, s, r, NULL);
		return true;
	}
	if (r->hdr.type == TPROF_REC_UWALK && in_group(p, r, r->u.uwalk.tid)) {
		p->have_pending = false;
		if (p->have_pending_us) {
			p->have_pending_us = false;
			p->ustack_paired++;
			add_sample(p, s, &p->pending_us_rec, r);
		} else {
			add_sample(p, s, NULL, r);
		}
		return true;
	}
	return false;
}

/*
 * A SAMPLE with TPROF_RF_GROUP is added with the records right after it
 * that are its group (same tid, same time): its USTACK, and its UWALK
 * last; with anything else, or nothing, it keeps what came (without a
 * USTACK, its FP chain) and counts as missing its partner. A PYCODE
 * record may come in between (it names code, whenever it comes). Returns
 * whether r was consumed.
 */
static bool pair(struct profile *p, const struct tprof_record *r)
{
	if (p->have_pending) {
		if (r->hdr.type == TPROF_UREC_PYCODE)
			return false;
		if (pair_group(p, r))
			return true;
		flush_group(p);
	}
	if (r->hdr.type == TPROF_REC_SAMPLE &&
	    (r->hdr.flags & TPROF_RF_GROUP)) {
		hold(r, &p->pending_rec, &p->pending, &p->pending_cap);
		p->have_pending = true;
		return true;
	}
	if (r->hdr.type == TPROF_REC_USTACK) {
		p->ustack_orphans++;
		return true;
	}
	if (r->hdr.type == TPROF_REC_UWALK) {
		p->py.st.orphans++;
		return true;
	}
	return false;
}

bool profile__sample_unmapped(struct profile *p, const struct tprof_record *r,
			      int pid)
{
	uint64_t ips[TPROF_MAX_KERNEL_FRAMES + TPROF_MAX_USER_FRAMES];
	unsigned int i, n = 0;

	if (r->hdr.type == TPROF_REC_USTACK) {
		n = tprof_record_chain_ips(r, profile__pac_bits(p), ips,
					   TPROF_MAX_USER_FRAMES);
	} else {
		for (i = r->u.sample.nr_kernel;
		     i < (unsigned int)r->u.sample.nr_kernel +
			 r->u.sample.nr_user; i++)
			ips[n++] = tprof_record_ip(r, i);
	}
	for (i = 0; i < n; i++)
		if (ips[i] && !maps__find(&p->maps, pid, ips[i],
					  r->hdr.time_ns))
			return true;
	return false;
}

uint64_t profile__denied_after_ns(const struct profile *p)
{
	uint64_t t = p->denied_rec.hdr.time_ns;

	return p->denied && t > p->first_time_ns ? t - p->first_time_ns : 0;
}

/* A PROC record: a followed process, or ENABLE's counts of them. */
static int add_proc(struct profile *p, const struct tprof_record *r)
{
	struct proc_info *pi;
	struct thread_info *t;

	if (r->hdr.flags & TPROF_RF_PROC_TOTALS) {
		p->have_proc_totals = true;
		p->procs_followed_k = r->u.proc.pid;
		p->procs_dropped_k = r->u.proc.ppid;
		return 0;
	}
	/* ENABLE's count of the descendants past the limit */
	if ((r->hdr.flags & TPROF_RF_PROC_COUNT) &&
	    (r->hdr.flags & TPROF_RF_PROC_DROPPED)) {
		p->procs_dropped += r->u.proc.ppid;
		return 0;
	}
	pi = profile__proc(p, (int)r->u.proc.pid);
	pi->ppid = (int)r->u.proc.ppid;
	if (r->hdr.flags & TPROF_RF_PROC_DROPPED) {
		pi->dropped = true;
		p->procs_dropped++;
		release_waiting(p, false);
		return 0;
	}
	pi->joined = true;
	maps__set_parent(&p->maps, pi->pid, pi->ppid);
	/* its name until a THREAD record of its main thread comes */
	t = profile__thread(p, (int)r->u.proc.pid);
	t->pid = (int)r->u.proc.pid;
	if (!t->ncomms)
		set_comm(t, r->hdr.time_ns, r->u.proc.comm, false);
	release_waiting(p, false);
	return 0;
}

/* A DENIED record: the module ended a process's sampling. */
static int add_denied(struct profile *p, const struct tprof_record *r)
{
	struct proc_info *pi = profile__proc(p, (int)r->u.denied.pid);

	if (pi->denied)
		return 0;
	pi->denied = true;
	pi->denied_reason = r->u.denied.reason;
	pi->denied_ns = r->hdr.time_ns;
	/* moved out of a cgroup session's cgroup: it left, nobody refused */
	if (r->u.denied.reason != TPROF_DENIED_CGROUP)
		p->procs_denied++;
	if (!p->denied && (int)r->u.denied.pid == profile__target(p)) {
		p->denied = true;
		p->denied_rec = r->u.denied;
	}
	return 0;
}

/* The stream's KALLSYMS record: the first one wins. */
static int add_kallsyms(struct profile *p, const struct tprof_record *r)
{
	if (p->kallsyms)
		return 0;
	p->kallsyms_len = r->u.kallsyms.len;
	p->kallsyms = xmalloc(p->kallsyms_len + 1);
	memcpy(p->kallsyms, r->text, p->kallsyms_len);
	p->modules_len = r->u.kallsyms.modules_len;
	p->modules = xmalloc(p->modules_len + 1);
	memcpy(p->modules, r->text + p->kallsyms_len, p->modules_len);
	return 0;
}

static int on_sample(struct profile *p, const struct tprof_record *r)
{
	add_sample(p, r, NULL, NULL);
	return 0;
}

static int on_lost(struct profile *p, const struct tprof_record *r)
{
	const struct tprof_rec_lost *l = &r->u.lost;

	p->lost_samples = sat_add(p->lost_samples, l->lost_samples);
	p->lost_weight_ns = sat_add(p->lost_weight_ns, l->lost_weight_ns);
	p->lost_records = sat_add(p->lost_records, l->lost_records);
	if (p->sink.sample) {
		if (p->sink.lost)
			p->sink.lost(p->sink.ctx, p, r->hdr.time_ns,
				     l->lost_samples, l->lost_weight_ns);
	} else {
		agg__add_lost(&p->whole, l->lost_samples, l->lost_weight_ns);
	}
	return 0;
}

static int on_thread(struct profile *p, const struct tprof_record *r)
{
	struct thread_info *t;

	profile__proc(p, (int)r->u.thread.pid);
	t = profile__thread(p, r->u.thread.tid);
	t->pid = r->u.thread.pid;
	set_comm(t, r->hdr.time_ns, r->u.thread.comm, false);
	return 0;
}

/* THREAD_STAT and THREAD_EXIT: the kernel's totals, cumulative */
static int on_thread_stat(struct profile *p, const struct tprof_record *r)
{
	struct thread_info *t = profile__thread(p, r->u.stat.tid);

	t->pid = r->u.stat.pid;
	t->stat = r->u.stat;	/* the latest one wins */
	t->have_stat = true;
	if (r->hdr.type == TPROF_REC_THREAD_EXIT) {
		t->exited = true;
		t->exit_ns = r->hdr.time_ns;
	}
	if (!t->ncomms)
		set_comm(t, r->hdr.time_ns, r->u.stat.comm, false);
	return 0;
}

static int on_thread_off(struct profile *p, const struct tprof_record *r)
{
	struct thread_info *t = profile__thread(p, (int)r->u.thread_off.tid);

	t->pid = (int)r->u.thread_off.pid;
	t->off = r->u.thread_off;
	t->have_off = true;
	return 0;
}

static int on_exec(struct profile *p, const struct tprof_record *r)
{
	struct thread_info *t = profile__thread(p, r->u.exec.tid);

	t->pid = r->u.exec.pid;
	set_comm(t, r->hdr.time_ns, r->u.exec.comm, true);
	python__exec(&p->py, (int)r->u.exec.pid, r->hdr.time_ns);
	return 0;
}

static int on_mmap(struct profile *p, const struct tprof_record *r)
{
	const struct tprof_rec_mmap *mm = &r->u.mmap;

	if (maps__add_mmap(&p->maps, (int)mm->pid, r->hdr.time_ns, mm->start,
			   mm->end, mm->pgoff, mm->dev_major, mm->dev_minor,
			   mm->inode))
		p->maps_reused = true;
	return 0;
}

static int on_proc_exit(struct profile *p, const struct tprof_record *r)
{
	struct proc_info *pi = profile__proc(p, (int)r->u.proc_exit.pid);

	pi->exited = true;
	pi->exit_code = r->u.proc_exit.exit_code;
	pi->exit_ns = r->hdr.time_ns;
	if ((int)r->u.proc_exit.pid == profile__target(p)) {
		p->proc_exited = true;
		p->exit_code = r->u.proc_exit.exit_code;
	}
	return 0;
}

static int on_throttle(struct profile *p, const struct tprof_record *r)
{
	p->throttles++;
	if (r->u.throttle.shift >= p->throttle.shift)
		p->throttle = r->u.throttle;
	return 0;
}

static int on_session(struct profile *p, const struct tprof_record *r)
{
	p->have_session = true;
	p->session = r->u.session;
	return 0;
}

static int on_machine(struct profile *p, const struct tprof_record *r)
{
	p->have_machine = true;
	p->machine = r->u.machine;
	return 0;
}

static int on_maps(struct profile *p, const struct tprof_record *r)
{
	maps__add_snapshot(&p->maps, r->u.maps.pid, r->hdr.time_ns, r->text,
			   r->u.maps.len);
	return 0;
}

/*
 * A CGROUP record: the process's cgroup from its time on, if its text has
 * a cgroup v2 path (none: a v1-only system, a malformed text) and it is
 * not the path the process had last.
 */
static int on_cgroup(struct profile *p, const struct tprof_record *r)
{
	struct cgroup_names nm;
	struct cgroup_change *c;
	struct proc_info *pi;
	const char *path;
	size_t len;
	char *blk;

	if (cgroup_v2_path(r->text, r->u.cgroup.len, &path, &len))
		return 0;
	pi = profile__proc(p, (int)r->u.cgroup.pid);
	if (pi->ncgroups) {
		const char *last = pi->cgroups[pi->ncgroups - 1].path;

		if (strlen(last) == len && !memcmp(last, path, len))
			return 0;
		p->cgroup_moves = true;
	}
	cgroup_names(path, len, &nm);
	/* path, unit and id, each NUL-terminated, in one block */
	blk = xmalloc(len + nm.unit_len + nm.id_len + 3);
	pi->cgroups = xrealloc(pi->cgroups,
			       (pi->ncgroups + 1) * sizeof(*pi->cgroups));
	c = &pi->cgroups[pi->ncgroups++];
	c->time_ns = r->hdr.time_ns;
	c->path = blk;
	memcpy(blk, path, len);
	blk[len] = 0;
	blk += len + 1;
	memcpy(blk, path + nm.unit_off, nm.unit_len);
	blk[nm.unit_len] = 0;
	c->unit = blk;
	blk += nm.unit_len + 1;
	memcpy(blk, path + nm.id_off, nm.id_len);
	blk[nm.id_len] = 0;
	c->container_id = blk;
	return 0;
}

static int on_buildid(struct profile *p, const struct tprof_record *r)
{
	const struct tprof_urec_buildid *b = &r->u.buildid;
	char hex[BUILDID_HEX_LEN];

	buildid__hex(r->bid, b->bid_len, hex);
	maps__add_buildid(&p->maps, b->dev_major, b->dev_minor, b->inode,
			  r->text, b->path_len, hex);
	return 0;
}

static int on_vdso(struct profile *p, const struct tprof_record *r)
{
	maps__add_vdso(&p->maps, r->u.vdso.pid, r->u.vdso.start, r->image,
		       r->u.vdso.len);
	return 0;
}

static int on_perfmap(struct profile *p, const struct tprof_record *r)
{
	perfmap__add_text(&p->jit, r->u.perfmap.pid, r->text,
			  r->u.perfmap.len);
	return 0;
}

static int on_pyproc(struct profile *p, const struct tprof_record *r)
{
	python__add_proc(&p->py, r);
	return 0;
}

static int on_pycode(struct profile *p, const struct tprof_record *r)
{
	python__add_code(&p->py, r);
	return 0;
}

static int on_stats(struct profile *p, const struct tprof_record *r)
{
	p->have_stats = true;
	p->stats = r->u.stats.stats;
	p->end_time_ns = r->hdr.time_ns;
	return 0;
}

typedef int (*record_fn)(struct profile *p, const struct tprof_record *r);

/*
 * What the model does with each record type, one handler a type (as perf's
 * machine__process_event()). USTACK and UWALK records reach the model only
 * through pair(), with the SAMPLE they belong to.
 */
static const record_fn kernel_handlers[] = {
	[TPROF_REC_SAMPLE] = on_sample,
	[TPROF_REC_LOST] = on_lost,
	[TPROF_REC_THREAD] = on_thread,
	[TPROF_REC_THREAD_EXIT] = on_thread_stat,
	[TPROF_REC_THREAD_STAT] = on_thread_stat,
	[TPROF_REC_EXEC] = on_exec,
	[TPROF_REC_PROC_EXIT] = on_proc_exit,
	[TPROF_REC_DENIED] = add_denied,
	[TPROF_REC_MMAP] = on_mmap,
	[TPROF_REC_PROC] = add_proc,
	[TPROF_REC_THREAD_OFF] = on_thread_off,
	[TPROF_REC_THROTTLE] = on_throttle,
};

static const record_fn user_handlers[] = {
	[TPROF_UREC_SESSION - TPROF_UREC_BASE] = on_session,
	[TPROF_UREC_MAPS - TPROF_UREC_BASE] = on_maps,
	[TPROF_UREC_STATS - TPROF_UREC_BASE] = on_stats,
	[TPROF_UREC_KALLSYMS - TPROF_UREC_BASE] = add_kallsyms,
	[TPROF_UREC_BUILDID - TPROF_UREC_BASE] = on_buildid,
	[TPROF_UREC_VDSO - TPROF_UREC_BASE] = on_vdso,
	[TPROF_UREC_PYPROC - TPROF_UREC_BASE] = on_pyproc,
	[TPROF_UREC_PYCODE - TPROF_UREC_BASE] = on_pycode,
	[TPROF_UREC_PERFMAP - TPROF_UREC_BASE] = on_perfmap,
	[TPROF_UREC_MACHINE - TPROF_UREC_BASE] = on_machine,
	[TPROF_UREC_CGROUP - TPROF_UREC_BASE] = on_cgroup,
};

static record_fn handler(unsigned int type)
{
	if (type < ARRAY_SIZE(kernel_handlers))
		return kernel_handlers[type];
	if (type >= TPROF_UREC_BASE &&
	    type - TPROF_UREC_BASE < ARRAY_SIZE(user_handlers))
		return user_handlers[type - TPROF_UREC_BASE];
	return NULL;
}

/*
 * A WAKER record is held for the SAMPLE right after it in its group (same
 * tid and time), which gets it as its waker: an off-CPU SAMPLE of the
 * woken thread, or, for a WAKER written at the wakeup
 * (TPROF_RF_WAKER_WAKEUP), the waker's stack (TPROF_RF_WAKE_STACK, of
 * waker_tid). One that finds no such SAMPLE is counted and dropped.
 * Returns the record to go on with (a SAMPLE with its waker in *withw),
 * or NULL (a WAKER, held).
 */
static const struct tprof_record *take_waker(struct profile *p,
					     const struct tprof_record *r,
					     struct tprof_record *withw)
{
	bool had = p->have_waker, wakeup;

	p->have_waker = false;
	if (r->hdr.type == TPROF_REC_WAKER) {
		p->waker_orphans += had;
		p->waker = r->u.waker;
		p->have_waker = true;
		return NULL;
	}
	if (!had)
		return r;
	wakeup = p->waker.hdr.flags & TPROF_RF_WAKER_WAKEUP;
	if (r->u.sample.tid != (wakeup ? p->waker.waker_tid : p->waker.tid) ||
	    r->hdr.time_ns != p->waker.hdr.time_ns ||
	    !(r->hdr.flags & (wakeup ? TPROF_RF_WAKE_STACK :
			      TPROF_RF_OFF_CPU))) {
		p->waker_orphans++;
		return r;
	}
	*withw = *r;
	withw->waker = p->waker;
	p->wakers_paired++;
	return withw;
}

int profile__add(struct profile *p, const struct tprof_record *r)
{
	struct tprof_record withw;
	record_fn fn;

	/* the stream ended (profile__finish()): no part of a sample */
	if (p->finished && (r->hdr.type == TPROF_REC_SAMPLE ||
			    r->hdr.type == TPROF_REC_USTACK ||
			    r->hdr.type == TPROF_REC_UWALK))
		return -EINVAL;
	p->nrecords++;
	if (r->hdr.type == TPROF_REC_WAKER || r->hdr.type == TPROF_REC_SAMPLE)
		r = take_waker(p, r, &withw);
	if (!r)
		return 0;
	/* a waker's stack is no time of the session: no span either */
	if (r->hdr.type < TPROF_UREC_BASE && r->hdr.time_ns &&
	    !(r->hdr.type == TPROF_REC_SAMPLE &&
	      (r->hdr.flags & TPROF_RF_WAKE_STACK))) {
		if (r->hdr.time_ns < p->first_time_ns)
			p->first_time_ns = r->hdr.time_ns;
		if (r->hdr.time_ns > p->last_time_ns)
			p->last_time_ns = r->hdr.time_ns;
	}
	if (pair(p, r))
		return 0;
	fn = handler(r->hdr.type);
	if (!fn) {
		p->nunknown++;
		return 0;
	}
	return fn(p, r);
}

/* ---- forgetting (a live agent's eviction) ---- */

void profile__sizes(const struct profile *p, struct profile_sizes *s)
{
	memset(s, 0, sizeof(*s));
	s->procs = p->nprocs;
	s->threads = p->nthreads;
	s->snapshots = p->maps.nsnaps;
	s->mappings = p->maps.nall;
	s->pycodes = p->py.ncodes;
	s->pyframes = p->py.nframes - p->py.nfree_frames;
	s->perfmap = p->jit.n;
	s->procs_forgotten = p->procs_forgotten;
	s->threads_forgotten = p->threads_forgotten;
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return x < y ? -1 : x > y;
}

struct gone_set {
	const int *pids;
	size_t n;
};

static bool is_gone(void *ctx, int pid)
{
	const struct gone_set *g = ctx;

	return g->n && bsearch(&pid, g->pids, g->n, sizeof(int), cmp_int);
}

/* Has the process ended before before_ns, with no sample of it waiting? */
static bool proc_done(const struct profile *p, const struct proc_info *pi,
		      uint64_t before_ns)
{
	size_t i;

	if (pi->pid == profile__target(p))
		return false;
	if (!(pi->exited && pi->exit_ns && pi->exit_ns < before_ns) &&
	    !(pi->denied && pi->denied_ns && pi->denied_ns < before_ns))
		return false;
	for (i = 0; i < p->nwaiting; i++)
		if (p->waiting[i].pid == pi->pid)
			return false;
	return true;
}

size_t profile__forget(struct profile *p, uint64_t before_ns, int **gone)
{
	struct gone_set g = { 0 };
	int *pids = NULL;
	size_t i, n, cap = 0;

	for (i = n = 0; i < p->nprocs; i++) {
		if (proc_done(p, &p->procs[i], before_ns)) {
			GROW(pids, cap, g.n + 1);
			pids[g.n++] = p->procs[i].pid;
			proc_cgroups_free(&p->procs[i]);
		} else {
			p->procs[n++] = p->procs[i];
		}
	}
	if (n != p->nprocs) {
		p->nprocs = n;
		hindex_free(&p->proc_idx);
		for (i = 0; i < n; i++)
			hindex_put(&p->proc_idx, proc_hash(p->procs[i].pid),
				   i + 1);
	}
	if (g.n)
		qsort(pids, g.n, sizeof(*pids), cmp_int);
	g.pids = pids;
	/* threads: a gone process's, and the others' that exited (not a
	 * main thread: its comms name the process) */
	for (i = n = 0; i < p->nthreads; i++) {
		struct thread_info *t = &p->threads[i];

		if (is_gone(&g, t->pid) ||
		    (t->exited && t->tid != t->pid && t->exit_ns &&
		     t->exit_ns < before_ns)) {
			free(t->comms);
			comm_index_free(t->cidx);
			p->threads_forgotten++;
		} else {
			p->threads[n++] = *t;
		}
	}
	if (n != p->nthreads) {
		p->nthreads = n;
		hindex_free(&p->thread_idx);
		for (i = 0; i < n; i++)
			hindex_put(&p->thread_idx,
				   thread_hash(p->threads[i].tid), i + 1);
	}
	p->procs_forgotten += g.n;
	maps__forget(&p->maps, is_gone, &g, before_ns);
	perfmap__forget(&p->jit, is_gone, &g);
	python__forget(&p->py, is_gone, &g);
	*gone = pids;
	return g.n;
}
