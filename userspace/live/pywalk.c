// SPDX-License-Identifier: GPL-2.0
/* tprof-read, live: CPython's frame walk installed, its code objects read. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "live/pywalk.h"
#include "model/pyrecords.h"

/* launch mode: the interpreter initialises some 20 ms after exec; look
 * every 2 ms for that long, then every 100 ms */
#define WAIT_FAST_NS	2000000ULL
#define WAIT_FAST_FOR_NS 2000000000ULL
#define WAIT_SLOW_NS	100000000ULL
/* thread checks that may fail (a thread between its tstate and its TSS
 * slot) before the walk starts from per-thread registrations instead */
#define MAX_TRIES	25
/* TID mode: the thread list read again at most this often */
#define RESCAN_NS	50000000ULL
#define MAX_THREADS	4096

void python_live__init(struct python_live *pl, struct recorder *rc,
		       struct device *sess, struct objects *objs)
{
	memset(pl, 0, sizeof(*pl));
	pl->rc = rc;
	pl->sess = sess;
	pl->objs = objs;
}

static void proc_free(struct pyl_proc *p)
{
	py_mem__close(&p->mem);
	free(p->seen);
	hindex_free(&p->seen_idx);
	free(p->regs);
	memset(p, 0, sizeof(*p));
	p->mem.fd = -1;
}

void python_live__free(struct python_live *pl)
{
	size_t i;

	for (i = 0; i < pl->nprocs; i++)
		proc_free(&pl->procs[i]);
	free(pl->procs);
	for (i = 0; i < pl->nfiles; i++)
		free(pl->files[i].path);
	free(pl->files);
	hindex_free(&pl->file_idx);
	objects__free(pl->own);
	memset(pl, 0, sizeof(*pl));
}

static struct pyl_proc *find_proc(const struct python_live *pl, int pid)
{
	size_t i;

	for (i = 0; i < pl->nprocs; i++)
		if (pl->procs[i].pid == pid)
			return &pl->procs[i];
	return NULL;
}

static struct pyl_proc *new_proc(struct python_live *pl, int pid)
{
	struct pyl_proc *p;

	GROW(pl->procs, pl->capprocs, pl->nprocs + 1);
	p = &pl->procs[pl->nprocs++];
	memset(p, 0, sizeof(*p));
	p->pid = pid;
	p->mem.fd = -1;
	hindex_init(&p->seen_idx);
	return p;
}

bool python_live__on(const struct python_live *pl, int pid)
{
	const struct pyl_proc *p = find_proc(pl, pid);

	return p && p->state == PYP_ON;
}

/* The one line of a process that keeps native frames only. */
static void native_only(struct pyl_proc *p, uint32_t version,
			const char *flags, const char *why)
{
	char v[32];

	p->state = PYP_OFF;
	py_mem__close(&p->mem);
	if (version)
		snprintf(v, sizeof(v), " %u.%u%s", (version >> 24) & 0xff,
			 (version >> 16) & 0xff, flags);
	else	/* no Py_Version: before 3.11 */
		snprintf(v, sizeof(v), " before 3.11");
	pr_err("pid %d: Python%s: native frames only%s%s%s", p->pid, v,
	       why ? " (" : "", why ? why : "", why ? ")" : "");
}

/* ---- finding the interpreter in a snapshot ---- */

static struct object *map_object(struct python_live *pl, int pid,
				 const struct mapping *m)
{
	struct file_view view = { .live = true };
	char root[64];

	if (!pl->objs)
		pl->objs = pl->own = objects__new();
	snprintf(root, sizeof(root), "/proc/%d/root", pid);
	view.root = root;
	return objects__get(pl->objs, m, &view);
}

/* where m's file's ELF addresses are in the target */
static bool map_bias(const struct object *o, const struct mapping *m,
		     uint64_t *bias)
{
	uint64_t v;

	if (!object__vaddr(o, m->start, m->offset, m->start, &v))
		return false;
	*bias = m->start - v;
	return true;
}

static bool is_libc(const char *path)
{
	const char *b = strrchr(path, '/');

	b = b ? b + 1 : path;
	return !strncmp(b, "libc.so", 7) || !strncmp(b, "libc-2.", 7);
}

/* glibc's TSD slot of key 0, from the libc pid maps (else glibc 2.36's) */
static int64_t find_slot0(struct python_live *pl, int pid,
			  const struct maps *mp, const struct maps_snapshot *sn,
			  bool *decoded)
{
	int64_t slot0;
	size_t i;

	for (i = 0; i < sn->n; i++) {
		const struct mapping *m = &mp->all[sn->idx[i]];
		struct object *o;

		if (!is_libc(m->path))
			continue;
		o = map_object(pl, pid, m);
		if (o && o->info.loaded && !py_elf__tsd_slot0(o, &slot0)) {
			*decoded = true;
			return slot0;
		}
	}
	*decoded = false;
	return PY_TSD_SLOT0_DEFAULT;
}

/* The layout of the interpreter p found: 0, or a native-only line said. */
static int layout_of(struct pyl_proc *p, const struct py_elf *pe,
		     uint64_t bias, const char *flags)
{
	uint32_t version = 0;
	char why[96];
	int ret;

	if (!pe->py_version ||
	    py_mem__read(&p->mem, pe->py_version + bias, &version, 4))
		version = pe->file_version;
	/* before 3.11 (no Py_Version): the name's, if it says */
	if (!version && pe->name_minor)
		version = 0x03000000U | (pe->name_minor << 16);
	if (!version) {
		native_only(p, 0, "", NULL);
		return -ENOTSUP;
	}
	/* a debug build, whatever its name said */
	if (pe->debug && !strchr(flags, 'd'))
		flags = "d";
	if (*flags) {
		native_only(p, version, flags, NULL);
		return -ENOTSUP;
	}
	if (py_layout__needs_debug(version)) {
		unsigned char blob[PY_DEBUG_OFFSETS_MAX];

		if (py_mem__read(&p->mem, p->runtime, blob, sizeof(blob))) {
			native_only(p, version, "", "debug offsets unreadable");
			return -EFAULT;
		}
		ret = py_layout__from_debug(version, blob, sizeof(blob),
					    &p->L, why, sizeof(why));
		/* a free-threaded build, whatever its name said */
		if (ret == -EINVAL && !strcmp(why, "a free-threaded build")) {
			native_only(p, version, "t", NULL);
			return ret;
		}
	} else {
		ret = py_layout__builtin(version, &p->L);
	}
	if (ret) {
		native_only(p, version, "", NULL);
		return ret;
	}
	/* the table's co_code_adaptive is PyCode_Type's tp_basicsize */
	if (pe->code_basicsize &&
	    pe->code_basicsize != p->L.co_code_adaptive) {
		snprintf(why, sizeof(why),
			 "code objects of %llu bytes, not %u",
			 (unsigned long long)pe->code_basicsize,
			 p->L.co_code_adaptive);
		native_only(p, version, "", why);
		return -EINVAL;
	}
	return 0;
}

/* An interpreter in m? Then p is set up to wait for it: true. */
static bool found(struct python_live *pl, struct pyl_proc *p,
		  const struct mapping *m, enum py_elf_kind kind,
		  unsigned int minor, const char *flags)
{
	struct object *o = map_object(pl, p->pid, m);
	struct py_elf pe;
	uint64_t bias;
	unsigned int i;
	int ret;

	if (!o || !o->info.loaded) {
		pr_debug("pid %d: %s: not readable: no Python frames",
			 p->pid, m->path);
		return false;
	}
	ret = py_elf__inspect(o, kind, &pe);
	if (ret || !map_bias(o, m, &bias)) {
		pr_debug("pid %d: %s: no interpreter (%s)", p->pid, m->path,
			 ret == -ENOENT ? "no _PyRuntime, or a launcher" :
			 ret == -EPROTONOSUPPORT ?
			 "not x86-64: no frame layouts for its machine" :
			 "not in its ELF's segments");
		return false;
	}
	pe.name_minor = minor;
	ret = py_mem__open(&p->mem, p->pid);
	if (ret) {
		pr_debug("pid %d: /proc/%d/mem: %s", p->pid, p->pid,
			 strerror(-ret));
		native_only(p, pe.file_version, flags,
			    "its memory is not readable");
		return true;
	}
	p->runtime = pe.runtime + bias;
	if (layout_of(p, &pe, bias, flags))
		return true;
	if (!pe.code_type || !pe.neval) {
		native_only(p, p->L.version, "", "no PyCode_Type or eval loop");
		return true;
	}
	p->code_type = pe.code_type + bias;
	p->str_type = pe.str_type ? pe.str_type + bias : 0;
	for (i = 0; i < pe.neval; i++)
		p->eval[i] = (struct py_range){ pe.eval[i].start + bias,
						pe.eval[i].end + bias };
	p->neval = pe.neval;
	p->state = PYP_WAIT;
	p->found_ns = p->next_ns = now_ns(CLOCK_MONOTONIC);
	pr_debug("pid %d: Python %#x at %s (runtime %#llx, %u eval ranges)",
		 p->pid, p->L.version, m->path,
		 (unsigned long long)p->runtime, p->neval);
	return true;
}

static void try_install(struct python_live *pl, struct pyl_proc *p);

/*
 * What m's file is, by its contents (cached per file): a python3.X
 * renamed "myapp", a venv's copy named "python" and an embedded
 * libpython are found as the interpreter is.
 */
static int probe(struct python_live *pl, int pid, const struct mapping *m,
		 enum py_elf_kind *kind)
{
	uint64_t h = hash_u64(m->inode ^ hash_u64((uint64_t)m->dev_major << 32 |
						  m->dev_minor));
	struct hiter it = { 0 };
	struct pyl_file *f;
	char path[4200];
	uint32_t item;
	int r;

	*kind = PY_ELF_NONE;
	if (m->path[0] != '/')
		return PY_PROBE_NONE;
	while (hindex_next(&pl->file_idx, h, &it, &item)) {
		f = &pl->files[item - 1];
		if (f->inode == m->inode && f->dev_major == m->dev_major &&
		    f->dev_minor == m->dev_minor && !strcmp(f->path, m->path)) {
			*kind = f->kind;
			return f->probe;
		}
	}
	snprintf(path, sizeof(path), "/proc/%d/root%s", pid, m->path);
	r = py_elf__probe_path(path, kind);
	if (r < 0)	/* gone, or not ours to read: not remembered */
		return PY_PROBE_NONE;
	GROW(pl->files, pl->capfiles, pl->nfiles + 1);
	f = &pl->files[pl->nfiles++];
	*f = (struct pyl_file){ m->dev_major, m->dev_minor, m->inode,
				xstrdup(m->path), r, *kind };
	hindex_put(&pl->file_idx, h, pl->nfiles);
	return r;
}

void python_live__maps(struct python_live *pl, int pid,
		       const struct maps_snapshot *sn)
{
	struct maps *mp = &pl->rc->prof->maps;
	struct pyl_proc *p = find_proc(pl, pid);
	const char *old = NULL;
	size_t i;

	if (p) {	/* found already (or said no) for this program */
		/* at exec, libc is not mapped yet */
		if (p->state == PYP_WAIT && !p->slot0_decoded)
			p->slot0 = find_slot0(pl, pid, mp, sn,
					      &p->slot0_decoded);
		return;
	}
	for (i = 0; i < sn->n; i++) {
		const struct mapping *m = &mp->all[sn->idx[i]];
		enum py_elf_kind kind;
		unsigned int minor = 0;
		char flags[4];
		int r;

		if (i && !strcmp(m->path, mp->all[sn->idx[i - 1]].path))
			continue;	/* the same file's next segment */
		r = probe(pl, pid, m, &kind);
		if (r == PY_PROBE_OLD && !old)
			old = m->path;
		if (r != PY_PROBE_RUNTIME)
			continue;
		/* the name's version and flags, where it has them */
		if (py_elf__name(m->path, &minor, flags) == PY_ELF_NONE) {
			minor = 0;
			memset(flags, 0, sizeof(flags));
		}
		if (!p)
			p = new_proc(pl, pid);
		if (found(pl, p, m, kind, minor, flags))
			break;
	}
	if (!p && old) {	/* said once: the process is known as such */
		p = new_proc(pl, pid);
		p->state = PYP_OFF;
		pr_err("pid %d: %s: a CPython before 3.7 (no _PyRuntime): native frames only",
		       pid, old);
		return;
	}
	if (!p)
		return;
	if (i == sn->n) {	/* no interpreter after all */
		proc_free(p);
		pl->nprocs--;
		return;
	}
	if (p->state == PYP_WAIT) {
		p->slot0 = find_slot0(pl, pid, mp, sn, &p->slot0_decoded);
		try_install(pl, p);
	}
}

void python_live__exec(struct python_live *pl, int pid)
{
	struct pyl_proc *p = find_proc(pl, pid);

	if (!p)
		return;
	proc_free(p);
	*p = pl->procs[--pl->nprocs];
}

void python_live__forget(struct python_live *pl, int pid)
{
	python_live__exec(pl, pid);
}

/* ---- the thread list and the walk ---- */

struct pyl_thread {
	uint64_t ts, tp;
	int tid;
};

/* p's tstates (interpreters' lists): how many, at most max; -EFAULT */
static int list_threads(struct pyl_proc *p, struct pyl_thread *t, int max)
{
	const struct py_layout *L = &p->L;
	uint64_t interp, ts, v;
	int n = 0, ni = 0;

	if (py_mem__u64(&p->mem, p->runtime + L->rt_interp_head, &interp))
		return -EFAULT;
	for (; interp && ni < 64; ni++) {
		if (py_mem__u64(&p->mem, interp + L->is_threads_head, &ts))
			return -EFAULT;
		for (; ts && n < max; n++) {
			t[n].ts = ts;
			if (py_mem__u64(&p->mem, ts + L->ts_thread_id,
					&t[n].tp) ||
			    py_mem__u64(&p->mem, ts + L->ts_native_tid, &v) ||
			    py_mem__u64(&p->mem, ts + L->ts_next, &ts))
				return -EFAULT;
			t[n].tid = (int)v;
		}
		if (py_mem__u64(&p->mem, interp + L->is_next, &interp))
			return -EFAULT;
	}
	return n;
}

/*
 * Does the TSS slot at TP + slot hold each listed thread's own tstate?
 * Threads not started yet (no thread pointer) are not asked. 1: yes for
 * all (and at least one), 0: no.
 */
static int slot_holds(struct pyl_proc *p, const struct pyl_thread *t, int n,
		      int64_t slot)
{
	int i, ok = 0;
	uint64_t v;

	for (i = 0; i < n; i++) {
		if (!t[i].tp)
			continue;
		if (py_mem__u64(&p->mem, t[i].tp + slot, &v) || v != t[i].ts)
			return 0;
		ok++;
	}
	return ok > 0;
}

/* The key's slot, checked against the threads: true with p->tp_slot. */
static bool find_tp_slot(struct pyl_proc *p, const struct pyl_thread *t, int n)
{
	uint32_t key;
	int k;

	if (p->L.rt_tss_key >= 0) {
		if (py_mem__read(&p->mem, p->runtime + p->L.rt_tss_key, &key, 4))
			return false;
		/* keys >= 32 are in glibc's second-level arrays */
		if (key >= 32)
			return false;
		p->tp_slot = p->slot0 + 16 * (int64_t)key;
		return slot_holds(p, t, n, p->tp_slot);
	}
	/* the key's place unknown (3.14): the one key all threads agree on */
	for (k = 0; k < 32; k++) {
		p->tp_slot = p->slot0 + 16 * k;
		if (slot_holds(p, t, n, p->tp_slot))
			return true;
	}
	return false;
}

/* Is the interpreter initialised: its key made, a thread listed? */
static bool ready(struct pyl_proc *p)
{
	uint64_t interp;
	int32_t init;

	if (py_mem__u64(&p->mem, p->runtime + p->L.rt_interp_head, &interp) ||
	    !interp)
		return false;
	if (p->L.rt_tss_init >= 0 &&
	    (py_mem__read(&p->mem, p->runtime + p->L.rt_tss_init, &init, 4) ||
	     init != 1))
		return false;
	return true;
}

/* TID mode: each listed thread's tstate registered with the module */
static void register_threads(struct python_live *pl, struct pyl_proc *p)
{
	static struct pyl_thread t[MAX_THREADS];
	int n = list_threads(p, t, MAX_THREADS), i;
	size_t j;

	for (i = 0; i < n; i++) {
		if (!t[i].tid)
			continue;
		for (j = 0; j < p->nregs; j++)
			if (p->regs[j].tid == t[i].tid)
				break;
		if (j < p->nregs && p->regs[j].ts == t[i].ts)
			continue;
		if (device__set_uwalk_tid(pl->sess, p->pid, t[i].tid,
					  t[i].ts))
			continue;	/* gone, or not followed yet */
		if (j == p->nregs) {
			GROW(p->regs, p->capregs, p->nregs + 1);
			p->nregs++;
		}
		p->regs[j] = (struct pyl_reg){ t[i].tid, t[i].ts };
	}
}

static void write_pyproc(struct python_live *pl, struct pyl_proc *p,
			 struct tprof_urec_pyproc *pp)
{
	uint64_t ranges[2 * PY_EVAL_MAX_RANGES];
	unsigned int i;

	for (i = 0; i < p->neval; i++) {
		ranges[2 * i] = p->eval[i].start;
		ranges[2 * i + 1] = p->eval[i].end;
	}
	pp->nr_ranges = p->neval;
	recorder__urec(pl->rc, TPROF_UREC_PYPROC, pp, sizeof(*pp), ranges,
		       p->neval * 16);
}

static void install(struct python_live *pl, struct pyl_proc *p)
{
	struct tprof_urec_pyproc pp;
	struct tprof_ioc_uwalk w;
	int ret;

	py_layout__walk(&p->L, p->pid, p->tid_mode, p->tp_slot, &w, &pp);
	ret = device__set_uwalk(pl->sess, &w);
	/* a module before tails refuses them: the head alone, as before */
	if (ret == -EINVAL && w.tail_frames) {
		w.tail_frames = 0;
		w.tail_skip = 0;
		ret = device__set_uwalk(pl->sess, &w);
	}
	if (ret == -ESRCH) {	/* not a process of the session */
		pr_debug("pid %d: no walk: not followed", p->pid);
		p->state = PYP_OFF;
		return;
	}
	if (ret) {
		p->state = PYP_OFF;
		py_mem__close(&p->mem);
		if (pl->refused_said)
			return;
		pl->refused_said = true;
		pr_err("pid %d: Python %u.%u: native frames only (%s)", p->pid,
		       (p->L.version >> 24) & 0xff, py_minor(p->L.version),
		       ret == -EPERM ? "the module reads user memory only with ptrace-attach access" :
		       ret == -ENOTTY || ret == -EINVAL ?
		       "this tprof.ko has no user-memory walks" :
		       strerror(-ret));
		return;
	}
	p->state = PYP_ON;
	write_pyproc(pl, p, &pp);
	if (p->tid_mode)
		register_threads(pl, p);
	pr_debug("pid %d: Python frames from %s (slot %#llx)", p->pid,
		 p->tid_mode ? "per-thread starts" : "the thread pointer",
		 (unsigned long long)p->tp_slot);
}

static void try_install(struct python_live *pl, struct pyl_proc *p)
{
	static struct pyl_thread t[MAX_THREADS];
	uint64_t now = now_ns(CLOCK_MONOTONIC);
	int n;

	p->next_ns = now + (now - p->found_ns < WAIT_FAST_FOR_NS ?
			    WAIT_FAST_NS : WAIT_SLOW_NS);
	if (!ready(p))
		return;
	/* libc is mapped by now: a snapshot that shows it */
	if (!p->slot0_decoded)
		recorder__maps(pl->rc, p->pid, false);
	n = list_threads(p, t, MAX_THREADS);
	if (n <= 0)
		return;
	if (!find_tp_slot(p, t, n)) {
		/* a thread between its tstate and its slot: look again;
		 * for good: start from per-thread registrations */
		if (++p->tries < MAX_TRIES)
			return;
		p->tid_mode = true;
	}
	install(pl, p);
}

void python_live__thread(struct python_live *pl, int pid)
{
	struct pyl_proc *p = find_proc(pl, pid);

	/* the new thread's tstate gets its native id as it starts */
	if (p && p->state == PYP_ON && p->tid_mode)
		p->next_ns = now_ns(CLOCK_MONOTONIC) + WAIT_FAST_NS;
}

void python_live__poll(struct python_live *pl)
{
	uint64_t now = now_ns(CLOCK_MONOTONIC);
	size_t i;

	for (i = 0; i < pl->nprocs; i++) {
		struct pyl_proc *p = &pl->procs[i];

		if (now < p->next_ns)
			continue;
		if (p->state == PYP_WAIT) {
			try_install(pl, p);
		} else if (p->state == PYP_ON && p->tid_mode) {
			register_threads(pl, p);
			p->next_ns = now + RESCAN_NS;
		}
	}
}

int python_live__poll_ms(const struct python_live *pl, int dflt)
{
	uint64_t now = now_ns(CLOCK_MONOTONIC);
	size_t i;

	for (i = 0; i < pl->nprocs; i++) {
		const struct pyl_proc *p = &pl->procs[i];

		if ((p->state == PYP_WAIT || (p->state == PYP_ON &&
					      p->tid_mode)) &&
		    now - p->found_ns < WAIT_FAST_FOR_NS)
			return WAIT_FAST_NS / 1000000;
	}
	return dflt;
}

/* ---- code objects ---- */

/*
 * A stale read is tried again when a later sample shows the same words,
 * at most this often: the function whose code object was gone at the
 * first read (freed at import, its address and strings reused by a
 * function that runs for long) is named from its own read.
 */
#define RETRY_NS	5000000ULL

static struct pyl_seen *seen(struct pyl_proc *p, uint64_t addr,
			     uint64_t check)
{
	uint64_t h = hash_u64(addr ^ hash_u64(check));
	struct hiter it = { 0 };
	uint32_t item;

	while (hindex_next(&p->seen_idx, h, &it, &item))
		if (p->seen[item - 1].addr == addr &&
		    p->seen[item - 1].check == check)
			return &p->seen[item - 1];
	GROW(p->seen, p->capseen, p->nseen + 1);
	p->seen[p->nseen] = (struct pyl_seen){ .addr = addr, .check = check };
	hindex_put(&p->seen_idx, h, p->nseen + 1);
	return &p->seen[p->nseen++];
}

static void write_pycode(struct python_live *pl, struct pyl_proc *p,
			 uint64_t addr, uint64_t check,
			 const struct pyc_read *c)
{
	struct tprof_urec_pycode pc = { .pid = p->pid, .addr = addr,
					.check = check };
	unsigned char *tail = NULL;
	size_t ql = 0, fl = 0;

	if (c->stale) {
		pc.flags = TPROF_PYCODE_F_STALE;
		pl->stale++;
	} else {
		ql = strlen(c->qualname);
		fl = strlen(c->filename);
		pc.first_line = c->first_line;
		pc.qualname_len = ql;
		pc.filename_len = fl;
		pc.linetable_len = c->linetable_len;
		tail = xmalloc(ql + fl + c->linetable_len + 1);
		memcpy(tail, c->qualname, ql);
		memcpy(tail + ql, c->filename, fl);
		if (c->linetable_len)	/* none for names read alone */
			memcpy(tail + ql + fl, c->linetable, c->linetable_len);
	}
	recorder__urec(pl->rc, TPROF_UREC_PYCODE, &pc, sizeof(pc), tail,
		       ql + fl + pc.linetable_len);
	pl->pycodes++;
	free(tail);
}

/*
 * The code object of one walked frame: read the first time its words are
 * seen, and again after a read that did not find it (at most every
 * RETRY_NS) until one does. The first failed read writes what could be
 * had: its names from its strings (a module body, freed before its
 * sample reached us), else a stale record; the read that finds it, the
 * whole record, nearer in time to the samples after it.
 */
static void code_seen(struct python_live *pl, struct pyl_proc *p,
		      uint64_t code, const struct pyc_want *want,
		      uint64_t check, uint64_t now)
{
	struct pyl_seen *s = seen(p, code, check);
	struct pyc_read c;

	if (s->done || (s->tries && now - s->last_ns < RETRY_NS))
		return;
	s->tries++;
	s->last_ns = now;
	pyc__read(&p->mem, &p->L, p->code_type, code, want, &c);
	if (!c.stale) {
		s->done = true;
		if (s->tries > 1)
			pl->retried++;
		write_pycode(pl, p, code, check, &c);
	} else if (s->tries == 1) {
		pyc__free(&c);
		pyc__read_names(&p->mem, &p->L, p->str_type, want, &c);
		pl->names_only += !c.stale;
		write_pycode(pl, p, code, check, &c);
	}
	pyc__free(&c);
}

void python_live__uwalk(struct python_live *pl, int pid,
			const struct tprof_record *rec)
{
	struct pyl_proc *p = find_proc(pl, pid);
	struct tprof_rec_uwalk u;
	const unsigned char *w;
	struct tprof_urec_pyproc pp;
	struct tprof_ioc_uwalk d;
	uint64_t now;
	uint32_t f;

	if (!p || p->state != PYP_ON || rec->hdr.size < sizeof(u))
		return;
	memcpy(&u, rec->raw, sizeof(u));
	py_layout__walk(&p->L, p->pid, p->tid_mode, p->tp_slot, &d, &pp);
	if (u.words_per_frame != d.nr_fields + d.nr_code_offs ||
	    (uint64_t)u.nr_frames * u.words_per_frame * 8 >
	    rec->hdr.size - sizeof(u))
		return;
	now = now_ns(CLOCK_MONOTONIC);
	w = rec->raw + sizeof(u);
	for (f = 0; f < u.nr_frames; f++, w += u.words_per_frame * 8) {
		uint64_t code, entry, cw[2];
		struct pyc_want want;

		memcpy(&code, w + 8 * pp.w_code, 8);
		memcpy(&entry, w + 8 * pp.w_entry, 8);
		memcpy(cw, w + 8 * PY_WORD_FILENAME, 16);
		code &= ~pp.code_mask;
		/* a sentinel's word is no code object (3.13+: None) */
		if (!code || (pp.entry_kind == TPROF_PY_ENTRY_SENTINEL &&
			      ((entry >> pp.entry_shift) & 0xff) >=
			      pp.entry_value))
			continue;
		want = (struct pyc_want){ cw[0], cw[1] };
		code_seen(pl, p, code, &want, py_check_fold(cw, 2), now);
	}
}
