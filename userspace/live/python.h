/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tprof-read, live: CPython in the followed processes. When a maps
 * snapshot shows an interpreter (python3.X, libpython3.X.so), wait for it
 * to initialise, find each thread's state from its thread pointer (the
 * pthread TSS slot of CPython's key, checked against the thread list; else
 * a start registered per thread), install the frame walk
 * (TPROF_IOC_SET_UWALK) and write a PYPROC record; then, for each UWALK
 * record, read the code objects not read before and write PYCODE records
 * before the sample that needs them.
 */
#ifndef _TPROF_LIVE_PYTHON_H
#define _TPROF_LIVE_PYTHON_H

#include <stdbool.h>
#include <stdint.h>

#include "live/pycode.h"
#include "live/recorder.h"
#include "live/session.h"
#include "object/object.h"
#include "object/python.h"

enum pyl_state {
	PYP_WAIT,		/* found, not initialised (or threads unchecked) */
	PYP_ON,			/* walk installed */
	PYP_OFF,		/* native frames only (said once) */
};

/* a (code object, check word) pair read for a process */
struct pyl_seen {
	uint64_t addr, check;
};

/* a thread's registered start, TID mode */
struct pyl_reg {
	int tid;
	uint64_t ts;
};

struct pyl_proc {
	int pid;
	enum pyl_state state;
	struct py_layout L;
	uint64_t runtime;		/* _PyRuntime, in the target */
	uint64_t code_type;		/* PyCode_Type, in the target */
	struct py_range eval[PY_EVAL_MAX_RANGES];	/* in the target */
	unsigned int neval;
	int64_t slot0;			/* glibc's TSD slot of key 0 */
	bool slot0_decoded;		/* from libc's code, not the default */
	int64_t tp_slot;		/* the walk's start: TP + tp_slot */
	bool tid_mode;
	struct py_mem mem;
	uint64_t found_ns, next_ns;	/* when found, when to look next */
	unsigned int tries;		/* thread checks that failed */
	struct pyl_seen *seen;		/* code objects read */
	size_t nseen, capseen;
	struct hindex seen_idx;
	struct pyl_reg *regs;		/* TID mode */
	size_t nregs, capregs;
};

struct python_live {
	struct recorder *rc;
	struct session *sess;
	struct objects *objs;		/* the run's, else own */
	struct objects *own;
	struct pyl_proc *procs;
	size_t nprocs, capprocs;
	bool refused_said;		/* the module refused a walk */
	uint64_t pycodes, stale;	/* PYCODE records written, of them stale */
};

void python_live__init(struct python_live *pl, struct recorder *rc,
		       struct session *sess, struct objects *objs);
void python_live__free(struct python_live *pl);

/* A new maps snapshot of pid (the newest, sn): an interpreter in it? */
void python_live__maps(struct python_live *pl, int pid,
		       const struct maps_snapshot *sn);
/* pid exec'd: what was known of its interpreter is gone with its memory. */
void python_live__exec(struct python_live *pl, int pid);
/* A THREAD record of pid: TID mode registers new threads' states. */
void python_live__thread(struct python_live *pl, int pid);
/*
 * From the live loop: interpreters waiting for initialisation are looked
 * at again (and TID mode's thread lists). The poll timeout it wants, ms.
 */
void python_live__poll(struct python_live *pl);
int python_live__poll_ms(const struct python_live *pl, int dflt);
/* Has pid a walk installed (its samples' groups end with UWALK)? */
bool python_live__on(const struct python_live *pl, int pid);
/*
 * A UWALK record (rec) of pid's: a PYCODE record for each code object of
 * its frames not read before; call before the sample is added.
 */
void python_live__uwalk(struct python_live *pl, int pid,
			const struct tprof_record *rec);

#endif /* _TPROF_LIVE_PYTHON_H */
