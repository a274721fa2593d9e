// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests: CPython 3.11's offsets recomputed with offsetof() from the
 * installed headers (Debian's libpython3.11-dev, /usr/include/python3.11,
 * internal ones with Py_BUILD_CORE), for test_python_live.c to compare
 * with object/pylayout.c's table. Built apart: only this file sees
 * Python.h.
 */
#include <stdbool.h>
#include <stddef.h>

#include "object/pylayout.h"

#if __has_include(<Python.h>)
#define Py_BUILD_CORE 1
#include <Python.h>
#include <internal/pycore_frame.h>
#include <internal/pycore_interp.h>
#include <internal/pycore_runtime.h>
#endif

#if defined(PY_VERSION_HEX) && PY_MINOR_VERSION == 11
const bool py311_headers = true;
const size_t py311_runtime_size = sizeof(_PyRuntimeState);

const struct py_layout py311_from_headers = {
	.version = PY_VERSION_HEX,
	.rt_interp_head = offsetof(_PyRuntimeState, interpreters.head),
	.rt_tss_init = offsetof(_PyRuntimeState,
				gilstate.autoTSSkey._is_initialized),
	.rt_tss_key = offsetof(_PyRuntimeState, gilstate.autoTSSkey._key),
	.is_next = offsetof(PyInterpreterState, next),
	.is_threads_head = offsetof(PyInterpreterState, threads.head),
	.ts_next = offsetof(PyThreadState, next),
	.ts_thread_id = offsetof(PyThreadState, thread_id),
	.ts_native_tid = offsetof(PyThreadState, native_thread_id),
	.ts_frame = offsetof(PyThreadState, cframe),
	.cf_current = offsetof(_PyCFrame, current_frame),
	.fr_code = offsetof(_PyInterpreterFrame, f_code),
	.fr_previous = offsetof(_PyInterpreterFrame, previous),
	.fr_instr = offsetof(_PyInterpreterFrame, prev_instr),
	.fr_entry = offsetof(_PyInterpreterFrame, is_entry),
	/* is_entry, then owner: both recorded */
	.fr_entry_len = offsetof(_PyInterpreterFrame, owner) + 1 -
			offsetof(_PyInterpreterFrame, is_entry),
	.entry_kind = TPROF_PY_ENTRY_FLAG,
	.ob_type = offsetof(PyObject, ob_type),
	.co_filename = offsetof(PyCodeObject, co_filename),
	.co_qualname = offsetof(PyCodeObject, co_qualname),
	.co_linetable = offsetof(PyCodeObject, co_linetable),
	.co_firstlineno = offsetof(PyCodeObject, co_firstlineno),
	.co_code_adaptive = offsetof(PyCodeObject, co_code_adaptive),
	.u_length = offsetof(PyASCIIObject, length),
	.u_state = offsetof(PyASCIIObject, state),
	.u_ascii_size = sizeof(PyASCIIObject),
	.u_compact_size = sizeof(PyCompactUnicodeObject),
	.b_size = offsetof(PyVarObject, ob_size),
	.b_sval = offsetof(PyBytesObject, ob_sval),
};
#else
const bool py311_headers = false;
const size_t py311_runtime_size;
const struct py_layout py311_from_headers;
#endif
