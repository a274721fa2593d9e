/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tprof-read, live: CPython in the followed processes. When a maps
 * snapshot shows an interpreter (a file defining _PyRuntime, whatever its
 * name: python3.X, libpython3.X.so, a renamed copy), wait for it
 * to initialise, find each thread's state from its thread pointer (the
 * pthread TSS slot of CPython's key, checked against the thread list; else
 * a start registered per thread), install the frame walk
 * (TPROF_IOC_SET_UWALK) and write a PYPROC record; then, for each UWALK
 * record, read the code objects not read before and write PYCODE records
 * before the sample that needs them.
 */
#ifndef _TPROF_LIVE_PYWALK_H
#define _TPROF_LIVE_PYWALK_H

#include <stdbool.h>
#include <stdint.h>

#include "live/device.h"
#include "live/pycode.h"
#include "live/recorder.h"
#include "object/object.h"
#include "object/pyelf.h"

enum pyl_state {
	PYP_WAIT,		/* found, not initialised (or threads unchecked) */
	PYP_ON,			/* walk installed */
	PYP_OFF,		/* native frames only (said once) */
};

/* a (code object, check word) pair seen in a process's walks */
struct pyl_seen {
	uint64_t addr, check;
	uint64_t last_ns;	/* CLOCK_MONOTONIC of the last read */
	uint32_t tries;		/* reads made */
	bool done;		/* read whole: never again */
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
	uint64_t str_type;		/* PyUnicode_Type, in the target */
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

/* a mapped file's contents, probed once (object/pyelf.h py_probe) */
struct pyl_file {
	uint32_t dev_major, dev_minor;
	uint64_t inode;
	char *path;
	int probe;
	enum py_elf_kind kind;
};

struct python_live {
	struct recorder *rc;
	struct device *sess;
	struct objects *objs;		/* the run's, else own */
	struct objects *own;
	struct pyl_proc *procs;
	size_t nprocs, capprocs;
	struct pyl_file *files;		/* probed */
	size_t nfiles, capfiles;
	struct hindex file_idx;
	bool refused_said;		/* the module refused a walk */
	uint64_t pycodes, stale;	/* PYCODE records written, of them stale */
	uint64_t names_only;	/* of them, names from the strings alone */
	uint64_t retried;	/* code objects read whole after a failed read */
};

void python_live__init(struct python_live *pl, struct recorder *rc,
		       struct device *sess, struct objects *objs);
void python_live__free(struct python_live *pl);

/* A new maps snapshot of pid (the newest, sn): an interpreter in it? */
void python_live__maps(struct python_live *pl, int pid,
		       const struct maps_snapshot *sn);
/* pid exec'd: what was known of its interpreter is gone with its memory. */
void python_live__exec(struct python_live *pl, int pid);
/* pid exited long enough ago (a live agent's eviction): its state and
 * its /proc/PID/mem descriptor go. */
void python_live__forget(struct python_live *pl, int pid);
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

#endif /* _TPROF_LIVE_PYWALK_H */
