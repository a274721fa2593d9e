/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tprof-read: CPython in the stream. Per process, how to read its UWALK
 * records (a PYPROC record, until an EXEC newer than it); per (pid, code
 * address, check word), what tprof-read read of the code object (PYCODE
 * records, any time in the stream: they are looked up only once it is
 * whole); and the Python frames merged into aggregated stacks
 * (model/pymerge.c), each interned as (pid, code, check, instruction) and
 * kept in the stack as a tagged value (py_frame_ip()).
 */
#ifndef _TPROF_MODEL_PYRECORDS_H
#define _TPROF_MODEL_PYRECORDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/util.h"
#include "stream/records.h"

/*
 * A merged stack's Python frame: PY_FRAME_TAG | its index in
 * python.frames. No x86-64 address has this top byte (not canonical
 * with 48- or 57-bit addresses), and a merged stack's native words that
 * have it anyway (an FP walk through data) are made PY_FRAME_JUNK first.
 */
#define PY_FRAME_TAG	0xfe00000000000000ULL
#define PY_FRAME_MASK	0xff00000000000000ULL
#define PY_FRAME_JUNK	(PY_FRAME_TAG - 1)

static inline bool py_frame_ip(uint64_t ip)
{
	return (ip & PY_FRAME_MASK) == PY_FRAME_TAG;
}

/*
 * The check word of a walked frame: its words w[0..n) (PYPROC's w_check
 * to the frame's last: co_filename and co_qualname), folded into one. A
 * single word is itself: a stream whose walks copied co_qualname alone
 * reads as it did.
 */
static inline uint64_t py_check_fold(const uint64_t *w, unsigned int n)
{
	uint64_t c = n ? w[0] : 0;
	unsigned int i;

	for (i = 1; i < n; i++)
		c = ((c << 29 | c >> 35) * 0x9e3779b97f4a7c15ULL) ^ w[i];
	return c;
}

/* A process's interpreter, from its last PYPROC record. */
struct py_proc {
	int pid;
	bool valid;		/* false after an EXEC newer than the record */
	uint64_t time_ns;	/* the PYPROC record's */
	struct tprof_urec_pyproc d;
	uint64_t *ranges;	/* d.nr_ranges [start, end) pairs */
};

/* A Python function as profiles name it: interned. */
struct py_func {
	char *qualname, *filename;
	uint32_t first_line;
};

/* One PYCODE record. */
struct py_code {
	int pid;
	bool stale;		/* TPROF_PYCODE_F_STALE: no names */
	uint64_t addr, check, time_ns;
	uint32_t func;		/* 1-based into python.funcs; 0 when stale */
	unsigned char *linetable;
	uint32_t linetable_len;
	uint32_t next;		/* 1-based: the next record of the same key */
};

/* A frame of a merged stack; code 0: where a walk was cut. */
struct py_frame {
	int pid;
	uint64_t code, check;
	int64_t off;		/* the instruction's byte offset in the
				 * bytecode; < 0: the code not yet begun */
};

/* What became of the walks (--report, -v). */
struct py_stats {
	uint64_t walks;		/* UWALK records joined to their sample */
	uint64_t empty;		/* of them, with no frame (no state yet,
				 * a guard or start that failed) */
	uint64_t merged;	/* frames went into the native stack */
	uint64_t no_proc;	/* no PYPROC for the process (or an IA32
				 * sample): native only */
	uint64_t bad_words;	/* words per frame short of PYPROC's */
	uint64_t mismatched;	/* more native eval frames than activations
				 * (past the one tolerated): native only */
	uint64_t extra_eval;	/* one native eval frame more (tolerated) */
	uint64_t appended;	/* activations under the deepest native
				 * frame (the native stack ended first) */
	uint64_t frames;	/* Python frames put into stacks */
	uint64_t overflow;	/* frames left out for room */
	uint64_t cut;		/* walks cut short (the module's frame cap, a
				 * fault): "[truncated]" where they end */
	uint64_t tails;		/* of them, with the chain's outermost frames
				 * (nr_tail) after "[truncated]" */
	uint64_t tail_unplaced;	/* of those, whose native stack had too few
				 * eval frames for them: no native root */
	uint64_t orphans;	/* UWALK records with no sample before them */
	uint64_t missing;	/* samples whose group had no UWALK (the
				 * USTACK said one would come) */
};

struct python {
	struct py_proc *procs;
	size_t nprocs, capprocs;
	struct hindex proc_idx;
	struct py_func *funcs;
	size_t nfuncs, capfuncs;
	struct hindex func_idx;
	struct py_code *codes;
	size_t ncodes, capcodes;
	struct hindex code_idx;	/* the first record of each key */
	struct py_frame *frames;
	size_t nframes, capframes;
	struct hindex frame_idx;
	uint32_t cut_func;	/* "[truncated]", 1-based, 0 until a walk was */
	/* frames of forgotten processes (python__forget()): their slots,
	 * reused; pid -1 until then (stacks hold frames by index) */
	uint32_t *free_frames;
	size_t nfree_frames, capfree_frames;
	struct py_stats st;
};

void python__init(struct python *py);
void python__free(struct python *py);

/* A PYPROC record: pid's interpreter from now on (ranges copied). */
void python__add_proc(struct python *py, const struct tprof_record *r);
/* An EXEC record: pid runs another program from time_ns. */
void python__exec(struct python *py, int pid, uint64_t time_ns);
/* pid's interpreter, NULL if none (or none since its exec). */
const struct py_proc *python__proc(const struct python *py, int pid);

/* A PYCODE record (copied). */
void python__add_code(struct python *py, const struct tprof_record *r);
/* The first PYCODE record of (pid, addr, check), else NULL; the others
 * of the key follow through ->next. */
const struct py_code *python__code(const struct python *py, int pid,
				   uint64_t addr, uint64_t check);
const struct py_code *python__code_next(const struct python *py,
					const struct py_code *c);

/* The tagged stack word of a frame, interned. */
uint64_t python__frame(struct python *py, int pid, uint64_t code,
		       uint64_t check, int64_t off);
/* The tagged word of "[truncated]": where a walk of pid was cut. */
uint64_t python__cut_frame(struct python *py, int pid);
/* The frame of a tagged word, NULL if it names none. */
const struct py_frame *python__frame_of(const struct python *py,
					uint64_t ip);

/*
 * Merge the UWALK record w into a sample's user frames ips[0..n) (ips[0]
 * the pc, then return addresses), in place, at most max frames: each
 * native frame in one of the process's eval-loop ranges becomes the
 * Python frames of the next activation of the walk, innermost first;
 * activations left over go under the deepest native frame. A walk cut
 * short ends the stack where it was cut, with "[truncated]" (the native
 * frames below ran Python frames the walk never reached: none is the
 * caller of its last one). Returns the
 * new count, or 0 when the stack stays native (no interpreter known, a
 * walk that does not fit the native stack: counted in py->st).
 * Context: aggregation of one sample (model/profile.c).
 */
unsigned int python__merge(struct python *py, int pid,
			   const struct tprof_record *w, uint64_t *ips,
			   unsigned int n, unsigned int max);

/*
 * A live agent's eviction: drop the PYPROC and PYCODE records of every
 * process gone(ctx, pid) says is, and free its frames' slots for reuse
 * (no stack still held may name them: the caller's to know). Codes are
 * renumbered, frames keep their indexes. Returns the codes dropped.
 */
size_t python__forget(struct python *py, bool (*gone)(void *ctx, int pid),
		      void *ctx);

#endif /* _TPROF_MODEL_PYRECORDS_H */
