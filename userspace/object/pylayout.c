// SPDX-License-Identifier: GPL-2.0
/*
 * tprof-read: CPython layouts per minor version, the walk made from one
 * (object/pylayout.h).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "object/pylayout.h"

/*
 * 3.11 (Debian 3.11.2's headers; python-frames.md section 1): the thread's
 * frame is tstate->cframe->current_frame, the oldest frame of each
 * eval-loop activation has is_entry set.
 */
static const struct py_layout layout_311 = {
	.rt_interp_head = 40, .rt_tss_init = 592, .rt_tss_key = 596,
	.is_next = 0, .is_threads_head = 16,
	.ts_next = 8, .ts_thread_id = 152, .ts_native_tid = 160,
	.ts_frame = 56, .cf_current = 8,
	.fr_code = 32, .fr_previous = 48, .fr_instr = 56,
	.fr_entry = 68, .fr_entry_len = 2,
	.entry_kind = TPROF_PY_ENTRY_FLAG,
	.ob_type = 8, .co_filename = 112, .co_qualname = 128,
	.co_linetable = 136, .co_firstlineno = 72, .co_code_adaptive = 184,
	.u_length = 16, .u_state = 32, .u_ascii_size = 48,
	.u_compact_size = 72, .b_size = 16, .b_sval = 32,
};

/*
 * 3.12 (3.12.1's headers, section 2): _PyCFrame holds only current_frame
 * (at 0); a sentinel frame owned by the C stack (owner 3) starts each
 * activation.
 */
static const struct py_layout layout_312 = {
	.rt_interp_head = 40, .rt_tss_init = 1544, .rt_tss_key = 1548,
	.is_next = 0, .is_threads_head = 72,
	.ts_next = 8, .ts_thread_id = 136, .ts_native_tid = 144,
	.ts_frame = 56, .cf_current = 0,
	.fr_code = 0, .fr_previous = 8, .fr_instr = 56,
	.fr_entry = 70, .fr_entry_len = 1,
	.entry_kind = TPROF_PY_ENTRY_SENTINEL, .entry_value = 3,
	.ob_type = 8, .co_filename = 112, .co_qualname = 128,
	.co_linetable = 136, .co_firstlineno = 68, .co_code_adaptive = 192,
	.u_length = 16, .u_state = 32, .u_ascii_size = 40,
	.u_compact_size = 56, .b_size = 16, .b_sval = 32,
};

int py_layout__builtin(uint32_t version, struct py_layout *L)
{
	if ((version >> 24) != 3)
		return -ENOTSUP;
	switch (py_minor(version)) {
	case 11:
		*L = layout_311;
		break;
	case 12:
		*L = layout_312;
		break;
	default:
		return -ENOTSUP;
	}
	L->version = version;
	return 0;
}

/* ---- _Py_DebugOffsets (3.13: pycore_runtime.h; 3.14:
 * pycore_debug_offsets.h, as py-spy's bindgen of tag v3.14.0 has it) ---- */

struct dbg_head {
	char cookie[8];
	uint64_t version;
	uint64_t free_threaded;
};

struct dbg_313 {
	struct dbg_head h;
	struct { uint64_t size, finalizing, interpreters_head; } rt;
	struct {
		uint64_t size, id, next, threads_head, gc, imports_modules,
			 sysdict, builtins, ceval_gil, gil_runtime_state,
			 gil_enabled, gil_locked, gil_holder;
	} is;
	struct {
		uint64_t size, prev, next, interp, current_frame, thread_id,
			 native_thread_id, datastack_chunk, status;
	} ts;
	struct {
		uint64_t size, previous, executable, instr_ptr, localsplus,
			 owner;
	} fr;
	struct {
		uint64_t size, filename, name, qualname, linetable,
			 firstlineno, argcount, localsplusnames,
			 localspluskinds, co_code_adaptive;
	} co;
	struct { uint64_t size, ob_type; } ob;
	struct { uint64_t size, tp_name, tp_repr, tp_flags; } type;
	struct { uint64_t size, ob_item, ob_size; } tuple, list;
	struct { uint64_t size, ma_keys, ma_values; } dict;
	struct { uint64_t size, ob_fval; } flt;
	struct { uint64_t size, lv_tag, ob_digit; } lng;
	struct { uint64_t size, ob_size, ob_sval; } bytes;
	struct { uint64_t size, state, length, asciiobject_size; } uni;
	struct { uint64_t size, collecting; } gc;
};

struct dbg_314 {
	struct dbg_head h;
	struct { uint64_t size, finalizing, interpreters_head; } rt;
	struct {
		uint64_t size, id, next, threads_head, threads_main, gc,
			 imports_modules, sysdict, builtins, ceval_gil,
			 gil_runtime_state, gil_enabled, gil_locked,
			 gil_holder, code_object_generation, tlbc_generation;
	} is;
	struct {
		uint64_t size, prev, next, interp, current_frame, thread_id,
			 native_thread_id, datastack_chunk, status;
	} ts;
	struct {
		uint64_t size, previous, executable, instr_ptr, localsplus,
			 owner, stackpointer, tlbc_index;
	} fr;
	struct {
		uint64_t size, filename, name, qualname, linetable,
			 firstlineno, argcount, localsplusnames,
			 localspluskinds, co_code_adaptive, co_tlbc;
	} co;
	struct { uint64_t size, ob_type; } ob;
	struct { uint64_t size, tp_name, tp_repr, tp_flags; } type;
	struct { uint64_t size, ob_item, ob_size; } tuple, list;
	struct { uint64_t size, used, table, mask; } set;
	struct { uint64_t size, ma_keys, ma_values; } dict;
	struct { uint64_t size, ob_fval; } flt;
	struct { uint64_t size, lv_tag, ob_digit; } lng;
	struct { uint64_t size, ob_size, ob_sval; } bytes;
	struct { uint64_t size, state, length, asciiobject_size; } uni;
	struct { uint64_t size, collecting; } gc;
	struct { uint64_t size, gi_name, gi_iframe, gi_frame_state; } gen;
	struct { uint64_t next, prev; } llist;
	struct {
		uint64_t eval_breaker, remote_debugger_support,
			 remote_debugging_enabled, debugger_pending_call,
			 debugger_script_path, debugger_script_path_size;
	} dbg;
};

/* The groups both structs share, as one set of offsets. */
struct dbg_common {
	uint64_t interpreters_head;
	uint64_t is_size, is_next, is_threads_head;
	uint64_t ts_size, ts_next, ts_current_frame, ts_thread_id,
		 ts_native_tid;
	uint64_t fr_size, fr_previous, fr_executable, fr_instr, fr_owner;
	uint64_t co_size, co_filename, co_qualname, co_linetable,
		 co_firstlineno, co_code_adaptive;
	uint64_t ob_type;
	uint64_t b_size, b_sval;
	uint64_t u_state, u_length, u_ascii_size;
};

#define COMMON_FROM(c, d)						\
	do {								\
		(c)->interpreters_head = (d)->rt.interpreters_head;	\
		(c)->is_size = (d)->is.size;				\
		(c)->is_next = (d)->is.next;				\
		(c)->is_threads_head = (d)->is.threads_head;		\
		(c)->ts_size = (d)->ts.size;				\
		(c)->ts_next = (d)->ts.next;				\
		(c)->ts_current_frame = (d)->ts.current_frame;		\
		(c)->ts_thread_id = (d)->ts.thread_id;			\
		(c)->ts_native_tid = (d)->ts.native_thread_id;		\
		(c)->fr_size = (d)->fr.size;				\
		(c)->fr_previous = (d)->fr.previous;			\
		(c)->fr_executable = (d)->fr.executable;		\
		(c)->fr_instr = (d)->fr.instr_ptr;			\
		(c)->fr_owner = (d)->fr.owner;				\
		(c)->co_size = (d)->co.size;				\
		(c)->co_filename = (d)->co.filename;			\
		(c)->co_qualname = (d)->co.qualname;			\
		(c)->co_linetable = (d)->co.linetable;			\
		(c)->co_firstlineno = (d)->co.firstlineno;		\
		(c)->co_code_adaptive = (d)->co.co_code_adaptive;	\
		(c)->ob_type = (d)->ob.ob_type;				\
		(c)->b_size = (d)->bytes.ob_size;			\
		(c)->b_sval = (d)->bytes.ob_sval;			\
		(c)->u_state = (d)->uni.state;				\
		(c)->u_length = (d)->uni.length;			\
		(c)->u_ascii_size = (d)->uni.asciiobject_size;		\
	} while (0)

/* An offset that fits in a structure of size (a word of it: 8 bytes). */
static bool within(uint64_t off, uint64_t size)
{
	return size >= 8 && size < (1U << 20) && off <= size - 1;
}

/* Offsets that can be a GIL build's of this family of layouts. */
static bool common_sane(const struct dbg_common *c)
{
	return c->interpreters_head < (1U << 20) &&
	       within(c->is_next, c->is_size) &&
	       within(c->is_threads_head, c->is_size) &&
	       within(c->ts_next, c->ts_size) &&
	       within(c->ts_current_frame, c->ts_size) &&
	       within(c->ts_thread_id, c->ts_size) &&
	       within(c->ts_native_tid, c->ts_size) &&
	       within(c->fr_previous, c->fr_size) &&
	       within(c->fr_executable, c->fr_size) &&
	       within(c->fr_instr, c->fr_size) &&
	       within(c->fr_owner, c->fr_size) &&
	       within(c->co_filename, c->co_size) &&
	       within(c->co_qualname, c->co_size) &&
	       within(c->co_linetable, c->co_size) &&
	       within(c->co_firstlineno, c->co_size) &&
	       c->co_code_adaptive && c->co_code_adaptive <= c->co_size &&
	       c->ob_type == 8 && c->b_size < 64 && c->b_sval < 64 &&
	       c->u_state < 64 && c->u_length < 64 &&
	       c->u_ascii_size && c->u_ascii_size < 128;
}

/* The TSS key's place in _PyRuntimeState (not in the debug offsets). */
static void tss_of(unsigned int minor, struct py_layout *L)
{
	if (minor == 13) {
		/* 3.13.0's headers, confirmed live (key 1) */
		L->rt_tss_init = 2160;
		L->rt_tss_key = 2164;
	} else {
		/* unknown: the key is found by the thread list (live) */
		L->rt_tss_init = -1;
		L->rt_tss_key = -1;
	}
}

int py_layout__from_debug(uint32_t version, const void *blob, size_t len,
			  struct py_layout *L, char *why, size_t wlen)
{
	unsigned int minor = py_minor(version);
	struct dbg_common c;
	struct dbg_head h;

	if ((version >> 24) != 3 || (minor != 13 && minor != 14)) {
		snprintf(why, wlen, "no debug offsets known for this version");
		return -ENOTSUP;
	}
	if (len < sizeof(h)) {
		snprintf(why, wlen, "debug offsets unreadable");
		return -EINVAL;
	}
	memcpy(&h, blob, sizeof(h));
	if (memcmp(h.cookie, PY_DEBUG_COOKIE, 8)) {
		snprintf(why, wlen, "no debug offsets (bad cookie)");
		return -EINVAL;
	}
	if ((h.version >> 16) != (version >> 16)) {
		snprintf(why, wlen, "debug offsets of version %u.%u",
			 (unsigned int)(h.version >> 24) & 0xff,
			 (unsigned int)(h.version >> 16) & 0xff);
		return -EINVAL;
	}
	if (h.free_threaded) {
		snprintf(why, wlen, "a free-threaded build");
		return -EINVAL;
	}
	if (minor == 13) {
		struct dbg_313 d;

		if (len < sizeof(d))
			goto short_blob;
		memcpy(&d, blob, sizeof(d));
		COMMON_FROM(&c, &d);
	} else {
		struct dbg_314 d;

		if (len < sizeof(d))
			goto short_blob;
		memcpy(&d, blob, sizeof(d));
		COMMON_FROM(&c, &d);
	}
	if (!common_sane(&c)) {
		snprintf(why, wlen, "debug offsets out of range");
		return -EINVAL;
	}
	memset(L, 0, sizeof(*L));
	L->version = version;
	L->rt_interp_head = c.interpreters_head;
	L->is_next = c.is_next;
	L->is_threads_head = c.is_threads_head;
	L->ts_next = c.ts_next;
	L->ts_thread_id = c.ts_thread_id;
	L->ts_native_tid = c.ts_native_tid;
	L->ts_frame = c.ts_current_frame;
	L->cf_current = -1;
	L->fr_code = c.fr_executable;
	L->fr_previous = c.fr_previous;
	L->fr_instr = c.fr_instr;
	L->fr_entry = c.fr_owner;
	L->fr_entry_len = 1;
	/* 3.13: FRAME_OWNED_BY_CSTACK = 3; 3.14: _INTERPRETER = 3, CSTACK 4 */
	L->entry_kind = TPROF_PY_ENTRY_SENTINEL;
	L->entry_value = 3;
	/* 3.14: f_executable is a _PyStackRef, tagged in its low bits */
	L->code_mask = minor >= 14 ? 3 : 0;
	L->ob_type = c.ob_type;
	L->co_filename = c.co_filename;
	L->co_qualname = c.co_qualname;
	L->co_linetable = c.co_linetable;
	L->co_firstlineno = c.co_firstlineno;
	L->co_code_adaptive = c.co_code_adaptive;
	L->u_state = c.u_state;
	L->u_length = c.u_length;
	L->u_ascii_size = c.u_ascii_size;
	/* PyCompactUnicodeObject: utf8_length and utf8 after the ASCII head */
	L->u_compact_size = c.u_ascii_size + 16;
	L->b_size = c.b_size;
	L->b_sval = c.b_sval;
	tss_of(minor, L);
	return 0;

short_blob:
	snprintf(why, wlen, "debug offsets cut short (%zu bytes)", len);
	return -EINVAL;
}

void py_layout__walk(const struct py_layout *L, int pid, bool tid_mode,
		     int64_t tp_slot, struct tprof_ioc_uwalk *w,
		     struct tprof_urec_pyproc *pp)
{
	unsigned int words;

	memset(w, 0, sizeof(*w));
	w->size = sizeof(*w);
	w->pid = pid;
	w->start = tid_mode ? TPROF_UWALK_START_TID : TPROF_UWALK_START_TP;
	w->start_addr = tid_mode ? 0 : tp_slot;
	/* ts->thread_id is pthread_self(): the thread pointer. In TID mode
	 * too: a tstate registered for a thread that is gone is not walked */
	w->flags = TPROF_UWALK_F_GUARD_TP;
	w->guard_off = L->ts_thread_id;
	w->steps[w->nr_steps++] = L->ts_frame;
	if (L->cf_current >= 0)
		w->steps[w->nr_steps++] = L->cf_current;
	w->next_off = L->fr_previous;
	w->nr_fields = 3;
	w->fields[0] = (struct tprof_uwalk_field){ L->fr_code, 8 };
	w->fields[1] = (struct tprof_uwalk_field){ L->fr_instr, 8 };
	w->fields[2] = (struct tprof_uwalk_field){ L->fr_entry,
						   L->fr_entry_len };
	/* the words that say which code object it was at the sample, for
	 * the read that comes later: co_filename tells the same source
	 * compiled under two names apart, co_qualname functions of one
	 * file (the address alone is reused once the code is freed). A
	 * sentinel's word (3.13+: None) is no code object: its entry byte
	 * says so */
	w->code_field = 0;
	w->nr_code_offs = 2;
	w->code_offs[0] = L->co_filename;
	w->code_offs[1] = L->co_qualname;
	w->code_mask = L->code_mask;
	words = w->nr_fields + w->nr_code_offs;
	/* the module's most: a recursion that goes deeper is cut there and
	 * says so ([truncated], model/pymerge.c), and keeps its outermost
	 * frames (the <module>, main and the recursion's caller) from a
	 * walk of the next pointers alone: one read a frame, the module's
	 * most of them (a recursion to some 8,400 frames) */
	w->max_frames = PY_WALK_MAX_FRAMES;
	w->max_bytes = PY_WALK_MAX_FRAMES * words * 8;
	w->tail_frames = PY_WALK_TAIL_FRAMES;
	w->tail_skip = TPROF_UWALK_MAX_SKIP;

	memset(pp, 0, sizeof(*pp));
	pp->pid = pid;
	pp->version = L->version;
	pp->code_adaptive = L->co_code_adaptive;
	pp->code_mask = L->code_mask;
	pp->w_code = 0;
	pp->w_instr = 1;
	pp->w_entry = 2;
	pp->w_check = PY_WORD_FILENAME;
	pp->entry_kind = L->entry_kind;
	pp->entry_shift = 0;
	pp->entry_value = L->entry_value;
}
