/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tprof-read: where CPython keeps what its frame walk needs, per minor
 * version (x86-64, default GIL builds): built-in tables for 3.11 and 3.12
 * (derived from their headers, ../shared/design/python-frames.md sections 1
 * and 2), 3.13 and 3.14 from the interpreter's own _Py_DebugOffsets; and
 * the user-memory walk (TPROF_IOC_SET_UWALK) and PYPROC record made from
 * a layout.
 */
#ifndef _TPROF_OBJECT_PYLAYOUT_H
#define _TPROF_OBJECT_PYLAYOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "stream/records.h"

struct py_layout {
	uint32_t version;		/* PY_VERSION_HEX */
	/* _PyRuntimeState */
	int32_t rt_interp_head;		/* interpreters.head */
	int32_t rt_tss_init;		/* autoTSSkey._is_initialized; -1: ? */
	int32_t rt_tss_key;		/* autoTSSkey._key; -1: unknown */
	/* PyInterpreterState */
	int32_t is_next, is_threads_head;
	/* PyThreadState */
	int32_t ts_next, ts_thread_id, ts_native_tid;
	int32_t ts_frame;		/* cframe (3.11, 3.12), current_frame */
	int32_t cf_current;		/* _PyCFrame.current_frame; -1: none */
	/* _PyInterpreterFrame */
	int32_t fr_code, fr_previous, fr_instr;
	int32_t fr_entry;		/* is_entry (3.11), else owner */
	uint8_t fr_entry_len;		/* bytes recorded from fr_entry */
	uint8_t entry_kind;		/* TPROF_PY_ENTRY_* */
	uint8_t entry_value;		/* SENTINEL: the least owner value */
	uint64_t code_mask;		/* tag bits of the code word */
	/* PyObject, PyCodeObject */
	int32_t ob_type;
	int32_t co_filename, co_qualname, co_linetable, co_firstlineno;
	uint32_t co_code_adaptive;
	/* str (PyASCIIObject, PyCompactUnicodeObject), bytes */
	int32_t u_length, u_state;
	uint32_t u_ascii_size, u_compact_size;
	int32_t b_size, b_sval;
};

/* _Py_DebugOffsets' cookie, at _PyRuntime + 0 from 3.13 on */
#define PY_DEBUG_COOKIE "xdebugpy"
/* bytes of _PyRuntime to read for the debug offsets (3.14's are ~700) */
#define PY_DEBUG_OFFSETS_MAX 1024

static inline unsigned int py_minor(uint32_t version)
{
	return (version >> 16) & 0xff;
}

/* Does the minor version need _Py_DebugOffsets (3.13 and later)? */
static inline bool py_layout__needs_debug(uint32_t version)
{
	return (version >> 24) == 3 && py_minor(version) >= 13;
}

/*
 * The built-in layout of version (3.11, 3.12): 0, or -ENOTSUP for a
 * version without one.
 */
int py_layout__builtin(uint32_t version, struct py_layout *L);

/*
 * The layout of version (3.13, 3.14) from the _Py_DebugOffsets blob at
 * _PyRuntime (len bytes read there), the struct chosen by version: 0, or
 * -ENOTSUP (a minor without a known struct), -EINVAL (no cookie, another
 * major.minor than version, a free-threaded build, offsets that cannot be
 * a GIL build's); why gets a clause saying which.
 */
int py_layout__from_debug(uint32_t version, const void *blob, size_t len,
			  struct py_layout *L, char *why, size_t wlen);

/* frames a walk records: the module's most (TPROF_UWALK_MAX_FRAMES);
 * 256 frames of 5 words are 10 KiB, within TPROF_UWALK_MAX_BYTES */
#define PY_WALK_MAX_FRAMES	256
/* of them, the outermost of a deeper chain (TPROF_UWALK_MAX_TAIL) */
#define PY_WALK_TAIL_FRAMES	16

/*
 * The walk of L for pid: from the thread pointer at tp_slot (the address of
 * the thread's tstate, relative to it: the pthread TSS slot of CPython's
 * key), or with tid_mode from the tstate registered per thread
 * (TPROF_IOC_SET_UWALK_TID); and the PYPROC record that says how to read
 * its UWALK records (ranges not included: the caller's).
 */
void py_layout__walk(const struct py_layout *L, int pid, bool tid_mode,
		     int64_t tp_slot, struct tprof_ioc_uwalk *w,
		     struct tprof_urec_pyproc *pp);

/*
 * The word indexes, in each walked frame, of the code object's
 * co_filename and co_qualname pointers (PYPROC's w_check is the first:
 * the check word is both, folded by py_check_fold()).
 */
#define PY_WORD_FILENAME	3
#define PY_WORD_QUALNAME	4

#endif /* _TPROF_OBJECT_PYLAYOUT_H */
