// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests: the live side of Python frames without the module. What
 * Debian's python3.11 ELF says (its _PyRuntime, PyCode_Type, the eval
 * loop's two parts: the numbers of python-frames.md), glibc's TSD slot,
 * the 3.11 table against offsetof() on the installed headers, the
 * _Py_DebugOffsets decoder (3.13 and 3.14 blobs built here; refusals),
 * and the walker oracle: the walk tprof-read installs, run by a
 * userspace copy of the module's interpreter over /proc/PID/mem with each
 * thread's fs_base from ptrace, must name the frames the target's own
 * sys._current_frames() names, line for line; a freed and reused code
 * object reads as stale, never as the new one's name.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#include "analyze/pylines.h"
#include "lib/util.h"
#include "live/pycode.h"
#include "live/pywalk.h"
#include "model/profile.h"
#include "live/pytarget.h"
#include "object/object.h"
#include "object/pylayout.h"
#include "object/pyelf.h"
#include "testlib.h"

#define PY311 "/usr/bin/python3.11"

/* tests/unit/py311/offsets.c, built against the installed headers */
extern const bool py311_headers;
extern const size_t py311_runtime_size;
extern const struct py_layout py311_from_headers;

static const char *libc_path(void)
{
	static const char *const paths[] = {
		"/lib/x86_64-linux-gnu/libc.so.6",
		"/usr/lib/x86_64-linux-gnu/libc.so.6",
	};
	size_t i;

	for (i = 0; i < 2; i++)
		if (!access(paths[i], R_OK))
			return paths[i];
	return NULL;
}

static void test_names(void)
{
	unsigned int minor = 0;
	char fl[4];

	CHECK_EQ(py_elf__name("/usr/bin/python3.11", &minor, fl), PY_ELF_EXE);
	CHECK_EQ(minor, 11);
	CHECK_STR(fl, "");
	CHECK_EQ(py_elf__name("/opt/lib/libpython3.12.so.1.0", &minor, fl),
		 PY_ELF_LIB);
	CHECK_EQ(minor, 12);
	CHECK_EQ(py_elf__name("/usr/bin/python3.11d", &minor, fl), PY_ELF_EXE);
	CHECK_STR(fl, "d");
	CHECK_EQ(py_elf__name("libpython3.13t.so.1.0", &minor, fl), PY_ELF_LIB);
	CHECK_STR(fl, "t");
	CHECK_EQ(py_elf__name("/usr/bin/python3", &minor, fl), PY_ELF_NONE);
	CHECK_EQ(py_elf__name("/usr/bin/python3.11-config", &minor, fl),
		 PY_ELF_NONE);
	CHECK_EQ(py_elf__name("/usr/lib/libpython3.so", &minor, fl),
		 PY_ELF_NONE);
}

/*
 * Names that start like an interpreter's and are not one, or say no
 * version: none is read past its end (ASan), none is taken for a
 * python3.X. Each name is its own allocation of exactly its size, so a
 * read past it is a heap overflow ASan reports.
 */
static void test_names_not_python(void)
{
	static const char *const names[] = {
		"python", "python3", "python2.7", "python3.11-dbg",
		"pythonloader.so", "myapp", "/venv/bin/python",
		"/root/.pyenv/shims/python3", "python3.", "python3.x",
		"libpython", "libpython2.7.so.1.0", "",
	};
	unsigned int minor = 77, i;
	char fl[4];

	for (i = 0; i < ARRAY_SIZE(names); i++) {
		char *n = xstrdup(names[i]);

		memcpy(fl, "zzz", 4);
		CHECK_EQ(py_elf__name(n, &minor, fl), PY_ELF_NONE);
		CHECK_STR(fl, "");
		free(n);
	}
	CHECK_EQ(minor, 77);	/* untouched */
}

/* cp src dst (dst under build/), executable: 0 */
static int copy_exe(const char *src, const char *dst)
{
	char *out = NULL;
	int ret = run_fmt(&out, "mkdir -p \"$(dirname '%s')\" && cp '%s' '%s'",
			  dst, src, dst);

	free(out);
	return ret;
}

/*
 * CPython by its contents, whatever the file is called: python3.11 copied
 * as myapp and as a venv's bin/python is the interpreter (before ENABLE
 * too: its snapshots' size, by command and by a running pid's maps);
 * Debian's libpython3.11 a library interpreter; pyenv's launchers are
 * launchers, its 2.7 library is one without _PyRuntime; libc and sh are
 * none of those.
 */
static void test_probe(void)
{
	static const struct {
		const char *path;
		int probe;
		enum py_elf_kind kind;
	} files[] = {
		{ "/usr/lib/x86_64-linux-gnu/libpython3.11.so.1.0",
		  PY_PROBE_RUNTIME, PY_ELF_LIB },
		{ "/root/.pyenv/versions/3.12.1/bin/python3.12",
		  PY_PROBE_LAUNCHER, PY_ELF_NONE },
		{ "/root/.pyenv/versions/3.12.1/lib/libpython3.12.so.1.0",
		  PY_PROBE_RUNTIME, PY_ELF_LIB },
		{ "/root/.pyenv/versions/3.10.13/lib/libpython3.10.so.1.0",
		  PY_PROBE_RUNTIME, PY_ELF_LIB },
		{ "/root/.pyenv/versions/2.7.18/lib/libpython2.7.so.1.0",
		  PY_PROBE_OLD, PY_ELF_NONE },
		{ "/bin/sh", PY_PROBE_NONE, PY_ELF_NONE },
	};
	const char *myapp = build_path("unit/py-probe/myapp");
	const char *venv = build_path("unit/py-probe/venv/bin/python");
	enum py_elf_kind kind;
	char what[4096];
	unsigned int i;
	pid_t pid;

	if (access(PY311, X_OK)) {
		SKIP("no " PY311);
		return;
	}
	CHECK_EQ(copy_exe(PY311, myapp), 0);
	CHECK_EQ(copy_exe(PY311, venv), 0);
	CHECK_EQ(py_elf__probe_path(PY311, &kind), PY_PROBE_RUNTIME);
	CHECK_EQ(kind, PY_ELF_EXE);
	CHECK_EQ(py_elf__probe_path(myapp, &kind), PY_PROBE_RUNTIME);
	CHECK_EQ(kind, PY_ELF_EXE);
	CHECK_EQ(py_elf__probe_path(venv, &kind), PY_PROBE_RUNTIME);
	CHECK_EQ(py_elf__probe_path("/nonexistent/python3.11", &kind),
		 -ENOENT);
	if (libc_path())
		CHECK_EQ(py_elf__probe_path(libc_path(), &kind),
			 PY_PROBE_NONE);
	for (i = 0; i < ARRAY_SIZE(files); i++) {
		if (access(files[i].path, R_OK)) {
			printf("    skip: no %s\n", files[i].path);
			continue;
		}
		CHECK_EQ(py_elf__probe_path(files[i].path, &kind),
			 files[i].probe);
		CHECK_EQ(kind, files[i].kind);
	}
	/* snapshots sized for CPython: by the command, by the pid's maps */
	CHECK(pytarget__command(myapp, what, sizeof(what)));
	CHECK(pytarget__command(venv, what, sizeof(what)));
	CHECK(!pytarget__command("/bin/sh", what, sizeof(what)));
	pid = fork();
	if (!pid) {
		execl(myapp, "myapp", "-c", "import time; time.sleep(30)",
		      (char *)NULL);
		_exit(127);
	}
	what[0] = 0;
	for (i = 0; i < 200 && !pytarget__pid(pid, what, sizeof(what)); i++)
		usleep(10000);
	CHECK_STR(what, myapp);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

/* Debian's 3.11.2, as python-frames.md sections 0.4, 1 and 5.2 give it */
static void test_elf_311(void)
{
	struct objects *objs;
	struct py_elf pe;
	struct object *o;
	int64_t slot0 = 0;

	if (access(PY311, X_OK)) {
		SKIP("no " PY311);
		return;
	}
	objs = objects__new();
	o = objects__file(objs, PY311, NULL);
	CHECK_EQ(py_elf__inspect(o, PY_ELF_EXE, &pe), 0);
	CHECK_EQ(pe.runtime_size, 166688);
	CHECK_EQ(pe.code_basicsize, 184);
	CHECK_EQ(pe.file_version >> 16, 0x030b);
	CHECK(pe.code_type != 0);
	if (pe.file_version == 0x030b02f0) {	/* the note's build */
		CHECK_EQ(pe.runtime, 0xa5b740);
		CHECK_EQ(pe.neval, 2);
		CHECK_EQ(pe.eval[0].start, 0x52b0f0);
		CHECK_EQ(pe.eval[0].end, 0x538a4c);
		CHECK_EQ(pe.eval[1].start, 0x430f05);
		CHECK_EQ(pe.eval[1].end, 0x43455e);
		printf("    cold part: %u distinct jump targets\n",
		       pe.cold_targets);
	}
	if (libc_path()) {
		o = objects__file(objs, libc_path(), NULL);
		CHECK_EQ(py_elf__tsd_slot0(o, &slot0), 0);
		/* glibc 2.36: (0x31 << 4) + 8 */
		CHECK_EQ(slot0, 0x318);
	}
	objects__free(objs);
}

/* a libpython with a .symtab names its split-off part (pyenv's build) */
static void test_elf_libpython(void)
{
	const char *lib = "/root/.pyenv/versions/3.12.1/lib/libpython3.12.so.1.0";
	struct objects *objs;
	struct py_elf pe;

	if (!need_file(lib, "no libpython3.12 with symbols"))
		return;
	objs = objects__new();
	CHECK_EQ(py_elf__inspect(objects__file(objs, lib, NULL), PY_ELF_LIB,
				 &pe), 0);
	CHECK_EQ(pe.file_version >> 16, 0x030c);
	CHECK(pe.neval >= 2);
	CHECK(pe.runtime != 0);
	/* its launcher: no interpreter of its own */
	CHECK_EQ(py_elf__inspect(objects__file(objs,
		"/root/.pyenv/versions/3.12.1/bin/python3.12", NULL),
		PY_ELF_EXE, &pe), -ENOENT);
	objects__free(objs);
}

static void test_layout_311(void)
{
	struct py_layout L;

	CHECK_EQ(py_layout__builtin(0x030b02f0, &L), 0);
	if (!py311_headers) {
		SKIP("no Python 3.11 headers");
		return;
	}
	CHECK_EQ(py311_runtime_size, 166688);
	L.version = py311_from_headers.version;
	CHECK(!memcmp(&L, &py311_from_headers, sizeof(L)));
#define F(x) CHECK_EQ(L.x, py311_from_headers.x)
	F(rt_interp_head); F(rt_tss_init); F(rt_tss_key); F(is_threads_head);
	F(ts_next); F(ts_thread_id); F(ts_native_tid); F(ts_frame);
	F(cf_current); F(fr_code); F(fr_previous); F(fr_instr); F(fr_entry);
	F(fr_entry_len); F(co_filename); F(co_qualname); F(co_linetable);
	F(co_firstlineno); F(co_code_adaptive); F(u_ascii_size);
	F(u_compact_size); F(b_sval);
#undef F
}

/*
 * _Py_DebugOffsets blobs as the interpreters lay them out: u64 words,
 * by group (3.13: Include/internal/pycore_runtime.h; 3.14:
 * pycore_debug_offsets.h), values those of 3.13.0 (python-frames.md 2).
 */
static void put(uint64_t *b, size_t i, uint64_t v)
{
	b[i] = v;
}

static size_t blob_313(uint64_t *b, uint64_t version, uint64_t ft)
{
	memset(b, 0, 1024);
	memcpy(b, "xdebugpy", 8);
	put(b, 1, version);
	put(b, 2, ft);
	/* runtime_state 3..5 */
	put(b, 3, 24); put(b, 5, 632);
	/* interpreter_state 6..18: size id next threads_head ... */
	put(b, 6, 8000); put(b, 8, 0); put(b, 9, 7344);
	/* thread_state 19..27: size prev next interp current_frame
	 * thread_id native_thread_id datastack_chunk status */
	put(b, 19, 400); put(b, 21, 8); put(b, 23, 72); put(b, 24, 152);
	put(b, 25, 160);
	/* interpreter_frame 28..33: size previous executable instr_ptr
	 * localsplus owner */
	put(b, 28, 80); put(b, 29, 8); put(b, 30, 0); put(b, 31, 56);
	put(b, 32, 72); put(b, 33, 70);
	/* code_object 34..43: size filename name qualname linetable
	 * firstlineno argcount localsplusnames localspluskinds adaptive */
	put(b, 34, 200); put(b, 35, 112); put(b, 36, 120); put(b, 37, 128);
	put(b, 38, 136); put(b, 39, 68); put(b, 43, 200);
	/* pyobject 44..45 */
	put(b, 44, 16); put(b, 45, 8);
	/* type 46..49, tuple 50..52, list 53..55, dict 56..58, float
	 * 59..60, long 61..63, bytes 64..66, unicode 67..70, gc 71..72 */
	put(b, 64, 33); put(b, 65, 16); put(b, 66, 32);
	put(b, 67, 40); put(b, 68, 32); put(b, 69, 16); put(b, 70, 40);
	return 73 * 8;
}

/* 3.14: the same values where 3.14 moved the words */
static size_t blob_314(uint64_t *b, uint64_t version)
{
	memset(b, 0, 1024);
	memcpy(b, "xdebugpy", 8);
	put(b, 1, version);
	put(b, 3, 24); put(b, 5, 632);
	/* interpreter_state 6..21 (threads_main after threads_head) */
	put(b, 6, 8000); put(b, 8, 0); put(b, 9, 7344);
	/* thread_state 22..30 */
	put(b, 22, 400); put(b, 24, 8); put(b, 26, 72); put(b, 27, 152);
	put(b, 28, 160);
	/* interpreter_frame 31..38: ... owner stackpointer tlbc_index */
	put(b, 31, 80); put(b, 32, 8); put(b, 33, 0); put(b, 34, 56);
	put(b, 35, 80); put(b, 36, 74);
	/* code_object 39..49 (co_tlbc last) */
	put(b, 39, 208); put(b, 40, 112); put(b, 41, 120); put(b, 42, 128);
	put(b, 43, 136); put(b, 44, 68); put(b, 48, 208);
	/* pyobject 50..51 */
	put(b, 50, 16); put(b, 51, 8);
	/* type 52..55, tuple 56..58, list 59..61, set 62..65, dict 66..68,
	 * float 69..70, long 71..73, bytes 74..76, unicode 77..80 */
	put(b, 74, 33); put(b, 75, 16); put(b, 76, 32);
	put(b, 77, 40); put(b, 78, 32); put(b, 79, 16); put(b, 80, 40);
	return 95 * 8;
}

static void test_debug_offsets(void)
{
	uint64_t b[128];
	struct py_layout L;
	char why[96];
	size_t n;

	n = blob_313(b, 0x030d00f0, 0);
	CHECK_EQ(n, 584);	/* 3.13.0's sizeof(_Py_DebugOffsets) */
	CHECK_EQ(py_layout__from_debug(0x030d00f0, b, n, &L, why,
				       sizeof(why)), 0);
	CHECK_EQ(L.rt_interp_head, 632);
	CHECK_EQ(L.is_threads_head, 7344);
	CHECK_EQ(L.ts_frame, 72);
	CHECK_EQ(L.cf_current, -1);
	CHECK_EQ(L.ts_thread_id, 152);
	CHECK_EQ(L.fr_code, 0);
	CHECK_EQ(L.fr_previous, 8);
	CHECK_EQ(L.fr_instr, 56);
	CHECK_EQ(L.fr_entry, 70);
	CHECK_EQ(L.co_firstlineno, 68);
	CHECK_EQ(L.co_code_adaptive, 200);
	CHECK_EQ(L.u_ascii_size, 40);
	CHECK_EQ(L.u_compact_size, 56);
	CHECK_EQ(L.rt_tss_key, 2164);
	CHECK_EQ(L.code_mask, 0);
	CHECK_EQ(L.entry_kind, TPROF_PY_ENTRY_SENTINEL);

	n = blob_314(b, 0x030e00f0);
	CHECK_EQ(py_layout__from_debug(0x030e00f0, b, n, &L, why,
				       sizeof(why)), 0);
	CHECK_EQ(L.fr_entry, 74);
	CHECK_EQ(L.code_mask, 3);
	CHECK_EQ(L.co_code_adaptive, 208);
	CHECK_EQ(L.ts_thread_id, 152);
	CHECK_EQ(L.rt_tss_key, -1);
	/* the 3.13 struct read as 3.14's: out of range somewhere */
	n = blob_313(b, 0x030e00f0, 0);
	CHECK(py_layout__from_debug(0x030e00f0, b, 95 * 8, &L, why,
				    sizeof(why)) != 0);

	n = blob_313(b, 0x030d00f0, 0);
	memcpy(b, "xdebugpx", 8);
	CHECK_EQ(py_layout__from_debug(0x030d00f0, b, n, &L, why,
				       sizeof(why)), -EINVAL);
	CHECK_STR(why, "no debug offsets (bad cookie)");
	n = blob_313(b, 0x030c00f0, 0);		/* 3.12's in a 3.13 */
	CHECK_EQ(py_layout__from_debug(0x030d00f0, b, n, &L, why,
				       sizeof(why)), -EINVAL);
	CHECK_STR(why, "debug offsets of version 3.12");
	n = blob_313(b, 0x030d00f0, 1);
	CHECK_EQ(py_layout__from_debug(0x030d00f0, b, n, &L, why,
				       sizeof(why)), -EINVAL);
	CHECK_STR(why, "a free-threaded build");
	CHECK_EQ(py_layout__from_debug(0x030d00f0, b, 100, &L, why,
				       sizeof(why)), -EINVAL);
	/* unknown minors */
	CHECK_EQ(py_layout__from_debug(0x030f00a0, b, n, &L, why,
				       sizeof(why)), -ENOTSUP);
	CHECK_EQ(py_layout__builtin(0x030a0cf0, &L), -ENOTSUP);
	CHECK_EQ(py_layout__builtin(0x030d00f0, &L), -ENOTSUP);
}

/* the descriptor installed for Debian's 3.11 (key 0), python-frames.md 5 */
static void test_walk_311(void)
{
	struct tprof_urec_pyproc pp;
	struct tprof_ioc_uwalk w;
	struct py_layout L;

	py_layout__builtin(0x030b02f0, &L);
	py_layout__walk(&L, 42, false, 0x318, &w, &pp);
	CHECK_EQ(w.size, sizeof(w));
	CHECK_EQ(w.start, TPROF_UWALK_START_TP);
	CHECK_EQ(w.start_addr, 0x318);
	CHECK_EQ(w.flags, TPROF_UWALK_F_GUARD_TP);
	CHECK_EQ(w.guard_off, 152);
	CHECK_EQ(w.nr_steps, 2);
	CHECK_EQ(w.steps[0], 56);
	CHECK_EQ(w.steps[1], 8);
	CHECK_EQ(w.next_off, 48);
	CHECK_EQ(w.nr_fields, 3);
	CHECK_EQ(w.fields[0].off, 32);
	CHECK_EQ(w.fields[1].off, 56);
	CHECK_EQ(w.fields[2].off, 68);
	CHECK_EQ(w.fields[2].len, 2);
	CHECK_EQ(w.code_field, 0);
	CHECK_EQ(w.nr_code_offs, 2);
	/* co_filename, co_qualname: the words that say which code */
	CHECK_EQ(w.code_offs[0], 112);
	CHECK_EQ(w.code_offs[1], 128);
	CHECK_EQ(w.max_frames, TPROF_UWALK_MAX_FRAMES);
	CHECK(w.max_bytes <= TPROF_UWALK_MAX_BYTES);
	CHECK_EQ(pp.w_code, 0);
	CHECK_EQ(pp.w_instr, 1);
	CHECK_EQ(pp.w_entry, 2);
	CHECK_EQ(pp.w_check, 3);
	CHECK_EQ(pp.code_adaptive, 184);
	CHECK_EQ(pp.entry_kind, TPROF_PY_ENTRY_FLAG);
	py_layout__walk(&L, 42, true, 0, &w, &pp);
	CHECK_EQ(w.start, TPROF_UWALK_START_TID);
	CHECK_EQ(w.start_addr, 0);
}

/* ---- the walker oracle ---- */

/*
 * The module's walk (kmod/uapi/tprof.h, above TPROF_UWALK_START_TP), in
 * userspace over /proc/PID/mem: TPROF_UWALK_* status, words of *nf frames.
 */
static int oracle_walk(const struct py_mem *m, const struct tprof_ioc_uwalk *w,
		       uint64_t tp, uint64_t *words, unsigned int *nf)
{
	unsigned int wpf = w->nr_fields + w->nr_code_offs, i, f = 0;
	uint64_t p, v;

	*nf = 0;
	if (py_mem__u64(m, tp + w->start_addr, &p))
		return TPROF_UWALK_FAULT_START;
	if (!p)
		return TPROF_UWALK_NO_START;
	if ((w->flags & TPROF_UWALK_F_GUARD_TP) &&
	    (py_mem__u64(m, p + w->guard_off, &v) || v != tp))
		return TPROF_UWALK_GUARD;
	for (i = 0; i < w->nr_steps; i++) {
		if (py_mem__u64(m, p + w->steps[i], &p))
			return TPROF_UWALK_FAULT_START;
		if (!p)
			return TPROF_UWALK_NO_START;
	}
	while (p) {
		uint64_t *fw = words + f * wpf, next, q;

		if (f >= w->max_frames || (f + 1) * wpf * 8 > w->max_bytes)
			return TPROF_UWALK_TRUNCATED;
		for (i = 0; i < w->nr_fields; i++) {
			fw[i] = 0;
			if (py_mem__read(m, p + w->fields[i].off, &fw[i],
					 w->fields[i].len))
				return TPROF_UWALK_FAULT;
		}
		q = fw[w->code_field] & ~w->code_mask;
		for (i = 0; i < w->nr_code_offs; i++)
			if (py_mem__u64(m, q + w->code_offs[i],
					&fw[w->nr_fields + i]))
				fw[w->nr_fields + i] = 0;
		*nf = ++f;
		if (py_mem__u64(m, p + w->next_off, &next))
			return TPROF_UWALK_FAULT;
		if (next == p)
			break;
		p = next;
	}
	return TPROF_UWALK_OK;
}

/* thread tid's fs_base, from ptrace (the target is our child) */
static int fs_base_of(int tid, uint64_t *fs)
{
	struct user_regs_struct regs;
	int st, ret = 0;

	if (ptrace(PTRACE_SEIZE, tid, 0, 0))
		return -errno;
	if (ptrace(PTRACE_INTERRUPT, tid, 0, 0) ||
	    waitpid(tid, &st, __WALL) != tid ||
	    ptrace(PTRACE_GETREGS, tid, 0, &regs))
		ret = -errno;
	else
		*fs = regs.fs_base;
	ptrace(PTRACE_DETACH, tid, 0, 0);
	return ret;
}

struct child {
	pid_t pid;
	FILE *out;		/* its stdout */
	FILE *in;		/* its stdin */
};

static bool spawn_with(struct child *c, const char *py, const char *script)
{
	int o[2], i[2];

	if (pipe(o) || pipe(i))
		return false;
	c->pid = fork();
	if (c->pid == 0) {
		dup2(o[1], 1);
		dup2(i[0], 0);
		close(o[0]);
		close(i[1]);
		execl(py, py, script, (char *)NULL);
		_exit(127);
	}
	close(o[1]);
	close(i[0]);
	c->out = fdopen(o[0], "r");
	c->in = fdopen(i[1], "w");
	return c->pid > 0;
}

static bool spawn_py(struct child *c, const char *script)
{
	return spawn_with(c, PY311, script);
}

static void reap(struct child *c)
{
	kill(c->pid, SIGKILL);
	waitpid(c->pid, NULL, 0);
	fclose(c->out);
	fclose(c->in);
}

/* What the target process is: its layout, runtime, PyCode_Type, slot. */
struct target {
	struct py_mem mem;
	struct py_layout L;
	struct py_elf pe;
	struct tprof_ioc_uwalk w;
	struct tprof_urec_pyproc pp;
};

static bool target_setup(struct target *t, struct objects *objs, int pid)
{
	uint32_t version, key;
	int64_t slot0 = PY_TSD_SLOT0_DEFAULT;

	if (py_elf__inspect(objects__file(objs, PY311, NULL), PY_ELF_EXE,
			    &t->pe) || py_mem__open(&t->mem, pid))
		return false;
	/* ET_EXEC: no load bias */
	if (py_mem__read(&t->mem, t->pe.py_version, &version, 4) ||
	    py_layout__builtin(version, &t->L) ||
	    py_mem__read(&t->mem, t->pe.runtime + t->L.rt_tss_key, &key, 4))
		return false;
	if (libc_path())
		py_elf__tsd_slot0(objects__file(objs, libc_path(), NULL),
				  &slot0);
	py_layout__walk(&t->L, pid, false, slot0 + 16 * key, &t->w, &t->pp);
	return true;
}

/* one frame of the target's own view */
struct pyframe {
	char qualname[256], filename[512];
	int first, line;
};

/* "T tid" blocks until END: the expected frames, per thread */
struct pythread {
	int tid;
	struct pyframe f[32];
	int n;
};

static int read_expected(FILE *fp, struct pythread *t, int max)
{
	char line[1024];
	int n = -1;

	while (fgets(line, sizeof(line), fp)) {
		line[strcspn(line, "\n")] = 0;
		if (!strcmp(line, "END"))
			return n + 1;
		if (line[0] == 'T' && n + 1 < max) {
			t[++n].tid = atoi(line + 2);
			t[n].n = 0;
		} else if (line[0] == 'F' && n >= 0 && t[n].n < 32) {
			struct pyframe *f = &t[n].f[t[n].n++];
			char *q = line + 2, *fn = strchr(q, '\t'), *a;

			if (!fn)
				return -1;
			*fn++ = 0;
			a = strchr(fn, '\t');
			if (!a)
				return -1;
			*a++ = 0;
			snprintf(f->qualname, sizeof(f->qualname), "%.255s", q);
			snprintf(f->filename, sizeof(f->filename), "%.511s", fn);
			sscanf(a, "%d\t%d", &f->first, &f->line);
		}
	}
	return -1;
}

/* gdb's native eval-loop activations per thread (LWP tid): n */
static int gdb_evals(int pid, int tid)
{
	char *out = NULL, *p, key[48];
	int n = -1;

	if (run_fmt(&out, "gdb -p %d -batch -ex 'thread apply all bt' 2>/dev/null",
		    pid) || !out) {
		free(out);
		return -1;
	}
	snprintf(key, sizeof(key), "(LWP %d)", tid);
	p = strstr(out, key);
	if (p) {
		char *end = strstr(p + 1, "\nThread ");

		n = 0;
		while ((p = strstr(p, "_PyEval_EvalFrameDefault")) &&
		       (!end || p < end)) {
			n++;
			p++;
		}
	}
	free(out);
	return n;
}

/* frames the walk gives for one thread, checked against the target's */
static void check_thread(struct target *t, const struct pythread *exp,
			 int pid, int *segments)
{
	unsigned int wpf = t->w.nr_fields + t->w.nr_code_offs, nf, i;
	uint64_t words[PY_WALK_MAX_FRAMES * 8], fs = 0;
	int k = 0, st;

	*segments = 0;
	CHECK_EQ(fs_base_of(exp->tid, &fs), 0);
	st = oracle_walk(&t->mem, &t->w, fs, words, &nf);
	CHECK_EQ(st, TPROF_UWALK_OK);
	for (i = 0; i < nf; i++) {
		const uint64_t *fw = words + i * wpf;
		uint64_t code = fw[t->pp.w_code];
		struct pyc_want want;
		struct pyc_read c;
		struct pylines pl;
		int line;

		if (t->pp.entry_kind == TPROF_PY_ENTRY_SENTINEL) {
			/* 3.12+: a sentinel starts each activation */
			if ((fw[t->pp.w_entry] & 0xff) >= t->pp.entry_value) {
				(*segments)++;
				continue;
			}
		} else if (fw[t->pp.w_entry] & 0xff) {
			(*segments)++;
		}
		want = (struct pyc_want){ fw[PY_WORD_FILENAME],
					  fw[PY_WORD_QUALNAME] };
		pyc__read(&t->mem, &t->L, t->pe.code_type, code, &want, &c);
		CHECK(!c.stale);
		if (c.stale || k >= exp->n) {
			k++;
			pyc__free(&c);
			continue;
		}
		CHECK_STR(c.qualname, exp->f[k].qualname);
		CHECK_STR(c.filename, exp->f[k].filename);
		CHECK_EQ(c.first_line, exp->f[k].first);
		CHECK_EQ(pylines__decode(&pl, c.linetable, c.linetable_len,
					 c.first_line), 0);
		line = pylines__line(&pl, (int64_t)(fw[t->pp.w_instr] - code -
						    t->pp.code_adaptive));
		CHECK_EQ(line, exp->f[k].line);
		pylines__free(&pl);
		pyc__free(&c);
		k++;
	}
	CHECK_EQ(k, exp->n);
	(void)pid;
}

static void test_oracle(void)
{
	/* segments (is_entry frames) per thread, in the order started:
	 * Thread.run's call of the target begins an activation, and so do
	 * a generator resumed by FOR_ITER, sorted()'s key, a class body */
	static const int want_segments[] = { 2, 2, 2, 3, 3, 3 };
	struct pythread exp[8];
	struct objects *objs;
	struct target t = { .mem.fd = -1 };
	struct child c;
	int n, i, seg;

	if (access(PY311, X_OK)) {
		SKIP("no " PY311);
		return;
	}
	CHECK(spawn_py(&c, root_path("tests/progs/py/parked.py")));
	n = read_expected(c.out, exp, 8);
	CHECK_EQ(n, 6);
	objs = objects__new();
	CHECK(target_setup(&t, objs, c.pid));
	for (i = 0; i < n && i < 6 && t.mem.fd >= 0; i++) {
		int g;

		check_thread(&t, &exp[i], c.pid, &seg);
		CHECK_EQ(seg, want_segments[i]);
		/* gdb's own count of native eval frames, where it runs */
		if (i < 6 && have_cmd("gdb") && (i == 0 || i == 4)) {
			g = gdb_evals(c.pid, exp[i].tid);
			if (g >= 0)
				CHECK_EQ(seg, g);
		}
	}
	py_mem__close(&t.mem);
	objects__free(objs);
	reap(&c);
}

/*
 * A pyenv build (python3.X launching libpython3.X.so): its library's
 * load address from the target's maps, the layout as tprof-read makes it
 * (3.12's table; 3.13's _Py_DebugOffsets read from the target).
 */
static bool target_setup_lib(struct target *t, struct objects *objs, int pid,
			     const char *lib)
{
	char path[64], line[4600], why[96];
	unsigned long long lo = 0, off;
	unsigned char blob[PY_DEBUG_OFFSETS_MAX];
	uint32_t version, key;
	int64_t slot0 = PY_TSD_SLOT0_DEFAULT;
	uint64_t bias = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f))
		if (strstr(line, lib) &&
		    sscanf(line, "%llx-%*x %*s %llx", &lo, &off) == 2 && !off)
			break;
	if (f)
		fclose(f);
	if (!lo || py_elf__inspect(objects__file(objs, lib, NULL), PY_ELF_LIB,
				   &t->pe) || py_mem__open(&t->mem, pid))
		return false;
	bias = lo;	/* the library's first PT_LOAD is at 0 */
	t->pe.runtime += bias;
	t->pe.code_type += bias;
	t->pe.str_type += bias;
	if (py_mem__read(&t->mem, t->pe.py_version + bias, &version, 4))
		return false;
	if (py_layout__needs_debug(version)) {
		if (py_mem__read(&t->mem, t->pe.runtime, blob, sizeof(blob)) ||
		    py_layout__from_debug(version, blob, sizeof(blob), &t->L,
					  why, sizeof(why)))
			return false;
	} else if (py_layout__builtin(version, &t->L)) {
		return false;
	}
	if (py_mem__read(&t->mem, t->pe.runtime + t->L.rt_tss_key, &key, 4))
		return false;
	if (libc_path())
		py_elf__tsd_slot0(objects__file(objs, libc_path(), NULL),
				  &slot0);
	py_layout__walk(&t->L, pid, false, slot0 + 16 * key, &t->w, &t->pp);
	return true;
}

/*
 * The walker oracle on 3.12 and 3.13 (the host's pyenv builds; skipped
 * where missing): the walk tprof-read installs for each names the frames
 * sys._current_frames() names, line for line, past the sentinels.
 */
static void test_oracle_312_313(void)
{
	static const char *const vers[] = { "3.12.1", "3.12", "3.13.0", "3.13" };
	unsigned int v;

	for (v = 0; v < ARRAY_SIZE(vers); v += 2) {
		char py[256], lib[256];
		struct pythread exp[8];
		struct objects *objs;
		struct target t = { .mem.fd = -1 };
		struct child c;
		int n, i, seg;

		snprintf(py, sizeof(py), "/root/.pyenv/versions/%s/bin/python%s",
			 vers[v], vers[v + 1]);
		snprintf(lib, sizeof(lib),
			 "/root/.pyenv/versions/%s/lib/libpython%s.so.1.0",
			 vers[v], vers[v + 1]);
		if (access(py, X_OK) || access(lib, R_OK)) {
			printf("    skip: no %s\n", py);
			continue;
		}
		CHECK(spawn_with(&c, py, root_path("tests/progs/py/parked.py")));
		n = read_expected(c.out, exp, 8);
		CHECK_EQ(n, 6);
		objs = objects__new();
		CHECK(target_setup_lib(&t, objs, c.pid, lib));
		CHECK_EQ(t.pp.entry_kind, TPROF_PY_ENTRY_SENTINEL);
		for (i = 0; i < n && i < 6 && t.mem.fd >= 0; i++) {
			check_thread(&t, &exp[i], c.pid, &seg);
			CHECK(seg >= 1);
		}
		printf("    %s: %d threads walked\n", vers[v], n);
		py_mem__close(&t.mem);
		objects__free(objs);
		reap(&c);
	}
}

/* "C addr filename qualname name file" of reuse.py: the walk's words */
struct reused {
	unsigned long long addr, fn, qn;
	char name[64], file[64];
};

static bool read_reused(FILE *out, struct reused *r)
{
	char line[512];

	return fgets(line, sizeof(line), out) &&
	       sscanf(line, "C %llu %llu %llu %63s %63s", &r->addr, &r->fn,
		      &r->qn, r->name, r->file) == 5;
}

static void go_on(struct child *c)
{
	fputs("go\n", c->in);
	fflush(c->in);
}

/*
 * A freed and reused code object: stale under the old words, never the
 * new one's name. Then the same source under two file names, the second
 * at the first's address with the first's qualname pointer (the only word
 * the walk used to copy): the filename pointer tells them apart.
 */
static void test_stale(void)
{
	struct objects *objs;
	struct target t = { .mem.fd = -1 };
	struct reused r0, r1;
	struct pyc_want w;
	struct pyc_read r;
	struct child c;

	if (access(PY311, X_OK)) {
		SKIP("no " PY311);
		return;
	}
	CHECK(spawn_py(&c, root_path("tests/progs/py/reuse.py")));
	objs = objects__new();
	if (!read_reused(c.out, &r0) || !target_setup(&t, objs, c.pid)) {
		CHECK(!"reuse.py started");
		goto out;
	}
	w = (struct pyc_want){ r0.fn, r0.qn };
	pyc__read(&t.mem, &t.L, t.pe.code_type, r0.addr, &w, &r);
	CHECK(!r.stale);
	CHECK_STR(r.qualname, "uniq_0");
	CHECK_STR(r.filename, "gen0.py");
	CHECK_EQ(r.first_line, 1);
	pyc__free(&r);
	go_on(&c);
	if (!read_reused(c.out, &r1)) {
		CHECK(!"a code object reused the address");
		goto out;
	}
	CHECK_EQ(r1.addr, r0.addr);
	CHECK(r1.qn != r0.qn);
	/* the walk's old words: stale, never uniq_N */
	pyc__read(&t.mem, &t.L, t.pe.code_type, r0.addr, &w, &r);
	CHECK(r.stale);
	CHECK(!r.qualname);
	pyc__free(&r);
	w = (struct pyc_want){ r1.fn, r1.qn };
	pyc__read(&t.mem, &t.L, t.pe.code_type, r1.addr, &w, &r);
	CHECK(!r.stale);
	CHECK_STR(r.qualname, r1.name);
	pyc__free(&r);
	/* not a code object at all */
	pyc__read(&t.mem, &t.L, t.pe.code_type, r1.qn, &w, &r);
	CHECK(r.stale);
	pyc__free(&r);

	/* the same source as same0.py, then sameN.py at its address */
	go_on(&c);
	if (!read_reused(c.out, &r0)) {
		CHECK(!"same0.py compiled");
		goto out;
	}
	CHECK_STR(r0.file, "same0.py");
	go_on(&c);
	if (!read_reused(c.out, &r1)) {
		CHECK(!"a code object of the same source reused the address");
		goto out;
	}
	CHECK_EQ(r1.addr, r0.addr);
	CHECK_EQ(r1.qn, r0.qn);		/* the old check word: no help */
	CHECK(r1.fn != r0.fn);
	CHECK(strcmp(r1.file, "same0.py") != 0);
	w = (struct pyc_want){ r0.fn, r0.qn };
	pyc__read(&t.mem, &t.L, t.pe.code_type, r0.addr, &w, &r);
	CHECK(r.stale);
	pyc__free(&r);
	w = (struct pyc_want){ r1.fn, r1.qn };
	pyc__read(&t.mem, &t.L, t.pe.code_type, r1.addr, &w, &r);
	CHECK(!r.stale);
	CHECK_STR(r.qualname, "same");
	CHECK_STR(r.filename, r1.file);
	pyc__free(&r);
	/* its strings alone, as for code freed before its read */
	pyc__read_names(&t.mem, &t.L, t.pe.str_type, &w, &r);
	CHECK(!r.stale && r.names_only);
	CHECK_STR(r.qualname, "same");
	CHECK_STR(r.filename, r1.file);
	pyc__free(&r);
	/* a pointer that is no str: nothing */
	w.filename = r1.addr;
	pyc__read_names(&t.mem, &t.L, t.pe.str_type, &w, &r);
	CHECK(r.stale && !r.qualname);
	pyc__free(&r);
out:
	py_mem__close(&t.mem);
	objects__free(objs);
	reap(&c);
}

/* ---- the live reader's retries, over this process's own memory ---- */

/* A compact ASCII str as 3.11 lays it out (ob_type 8, length 16, state
 * 32, the characters at 48). */
struct fake_str {
	uint64_t w[6];
	char text[32];
};

static void fake_str(struct fake_str *o, uint64_t type, const char *text)
{
	memset(o, 0, sizeof(*o));
	o->w[1] = type;
	o->w[2] = strlen(text);
	o->w[4] = 1U << 6 | 1U << 5 | 1U << 2;	/* ascii, compact, kind 1 */
	snprintf(o->text, sizeof(o->text), "%s", text);
}

/* A UWALK record of one 3.11 frame (the live walk's 5 words). */
static void fake_uwalk(struct tprof_record *r, unsigned char *buf,
		       const uint64_t *words)
{
	struct tprof_rec_uwalk u = {
		.hdr = { .type = TPROF_REC_UWALK, .size = sizeof(u) + 40 },
		.words_per_frame = 5, .nr_frames = 1,
	};

	memcpy(buf, &u, sizeof(u));
	memcpy(buf + sizeof(u), words, 40);
	memset(r, 0, sizeof(*r));
	r->hdr = u.hdr;
	r->raw = buf;
}

/*
 * A code object gone when its first sample is read (a module body): its
 * names from its strings at once, then, when a later sample shows the
 * same words and the object is there (its address reused by code of the
 * same strings), the whole record: retried, never marked seen after a
 * stale read; at most every 5 ms; never again once read whole.
 */
static void test_retry(void)
{
	static uint64_t code[32], code_type = 0x11, str_type = 0x22;
	static struct fake_str fn, qn;
	static struct { uint64_t w[4]; unsigned char lt[4]; } lt;
	unsigned char buf[128];
	struct tprof_record r;
	struct python_live pl;
	struct recorder rc;
	struct profile prof;
	struct pyl_proc *p;
	uint64_t words[5];
	int i, first_line = 7;

	fake_str(&fn, (uint64_t)(uintptr_t)&str_type, "mod3.py");
	fake_str(&qn, (uint64_t)(uintptr_t)&str_type, "<module>");
	memset(&lt, 0, sizeof(lt));
	lt.w[2] = 2;			/* ob_size */
	lt.lt[0] = 0x80 | 13 << 3 | 7;	/* 8 units, line + svarint */
	lt.lt[1] = 2;			/* +1 */
	memset(code, 0, sizeof(code));
	code[112 / 8] = (uintptr_t)&fn;
	code[128 / 8] = (uintptr_t)&qn;
	code[136 / 8] = (uintptr_t)&lt;
	memcpy((char *)code + 72, &first_line, 4);
	code[1] = 0x99;		/* freed: not PyCode_Type */

	profile__init(&prof);
	recorder__init(&rc, &prof);
	python_live__init(&pl, &rc, NULL, NULL);
	GROW(pl.procs, pl.capprocs, 1);
	p = &pl.procs[pl.nprocs++];
	memset(p, 0, sizeof(*p));
	p->pid = getpid();
	p->state = PYP_ON;
	py_layout__builtin(0x030b02f0, &p->L);
	p->code_type = (uintptr_t)&code_type;
	p->str_type = (uintptr_t)&str_type;
	CHECK_EQ(py_mem__open(&p->mem, getpid()), 0);
	words[0] = (uintptr_t)code;
	words[1] = (uintptr_t)code + 184 + 4;
	words[2] = 1;
	words[3] = (uintptr_t)&fn;
	words[4] = (uintptr_t)&qn;
	fake_uwalk(&r, buf, words);

	python_live__uwalk(&pl, p->pid, &r);
	CHECK_EQ(prof.py.ncodes, 1);
	CHECK_EQ(pl.names_only, 1);
	if (prof.py.ncodes == 1) {
		const struct py_code *c = &prof.py.codes[0];

		CHECK(!c->stale);
		CHECK_EQ(c->linetable_len, 0);
		CHECK_STR(prof.py.funcs[c->func - 1].qualname, "<module>");
		CHECK_STR(prof.py.funcs[c->func - 1].filename, "mod3.py");
		CHECK_EQ(c->check, py_check_fold(words + 3, 2));
	}
	/* the object is back: not read again within 5 ms of the last */
	code[1] = (uintptr_t)&code_type;
	python_live__uwalk(&pl, p->pid, &r);
	CHECK_EQ(prof.py.ncodes, 1);
	usleep(6000);
	python_live__uwalk(&pl, p->pid, &r);
	CHECK_EQ(prof.py.ncodes, 2);
	CHECK_EQ(pl.retried, 1);
	if (prof.py.ncodes == 2) {
		const struct py_code *c = &prof.py.codes[1];

		CHECK(!c->stale);
		CHECK_EQ(c->linetable_len, 2);
		CHECK_EQ(prof.py.funcs[c->func - 1].first_line, 7);
		CHECK_STR(prof.py.funcs[c->func - 1].filename, "mod3.py");
	}
	/* read whole: never again */
	for (i = 0; i < 3; i++) {
		usleep(6000);
		python_live__uwalk(&pl, p->pid, &r);
	}
	CHECK_EQ(prof.py.ncodes, 2);
	/* a str pointer that is no str: stale, no names */
	words[0] = (uintptr_t)code + 8;	/* another address: a new key */
	words[3] = (uintptr_t)code;
	code[1] = 0x99;
	fake_uwalk(&r, buf, words);
	python_live__uwalk(&pl, p->pid, &r);
	CHECK_EQ(prof.py.ncodes, 3);
	if (prof.py.ncodes == 3)
		CHECK(prof.py.codes[2].stale);
	python_live__free(&pl);
	recorder__free(&rc);
	profile__free(&prof);
}

/* A script at build_path(name) whose first line is line; its path. */
static const char *script(const char *name, const char *line)
{
	const char *path = build_path(name);
	FILE *f = fopen(path, "w");

	if (f) {
		fprintf(f, "%s\nimport time\ntime.sleep(30)\n", line);
		fclose(f);
		chmod(path, 0755);
	}
	return path;
}

/*
 * Is the target CPython before ENABLE (its snapshots' size): commands as
 * exec runs them (PATH, symlinks, #! and env, a launcher needing
 * libpython), and a pid by its maps.
 */
static void test_pytarget(void)
{
	const char *lib312 = "/root/.pyenv/versions/3.12.1/bin/python3.12";
	char what[4096], *path = getenv("PATH");
	pid_t pid;
	int i;

	if (access("/usr/bin/python3.11", X_OK)) {
		SKIP("no /usr/bin/python3.11");
		return;
	}
	CHECK(pytarget__command("/usr/bin/python3.11", what, sizeof(what)));
	/* python3: a symlink found along PATH */
	path = xstrdup(path ? path : "");
	setenv("PATH", "/nonexistent:/usr/bin", 1);
	CHECK(pytarget__command("python3", what, sizeof(what)));
	CHECK_STR(what, "/usr/bin/python3.11");
	CHECK(pytarget__command(script("unit/py-direct", "#!/usr/bin/python3"),
				what, sizeof(what)));
	CHECK(pytarget__command(script("unit/py-env", "#!/usr/bin/env -S python3 -u"),
				what, sizeof(what)));
	CHECK_STR(what, "/usr/bin/python3.11");
	CHECK(!pytarget__command(script("unit/py-sh", "#!/bin/sh"), what,
				 sizeof(what)));
	CHECK(!pytarget__command("sh", what, sizeof(what)));
	CHECK(!pytarget__command("no-such-command-here", what, sizeof(what)));
	CHECK(!pytarget__command(script("unit/py-loop", "#!/nonexistent/x"),
				 what, sizeof(what)));
	if (!access(lib312, X_OK)) {
		/* a launcher: python3.12 by name; by DT_NEEDED as another */
		CHECK(pytarget__command(lib312, what, sizeof(what)));
	}
	CHECK(!pytarget__pid(getpid(), what, sizeof(what)));
	pid = fork();
	if (!pid) {
		execl("/usr/bin/python3.11", "python3.11", "-c",
		      "import time; time.sleep(30)", (char *)NULL);
		_exit(127);
	}
	/* its maps name python3.11 from the exec on */
	for (i = 0; i < 200 && !pytarget__pid(pid, what, sizeof(what)); i++)
		usleep(10000);
	CHECK_STR(what, "/usr/bin/python3.11");
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	setenv("PATH", path, 1);
	free(path);
}

const struct unit_test python_live_tests[] = {
	{ "python live: names of interpreters", test_names },
	{ "python live: names that are no python3.X, read within them",
	  test_names_not_python },
	{ "python live: CPython by its contents, whatever its name",
	  test_probe },
	{ "python live: Debian 3.11's ELF and glibc's TSD slot", test_elf_311 },
	{ "python live: libpython3.12 and its launcher", test_elf_libpython },
	{ "python live: 3.11 table = offsetof() on the headers", test_layout_311 },
	{ "python live: _Py_DebugOffsets 3.13/3.14 and refusals",
	  test_debug_offsets },
	{ "python live: the 3.11 walk descriptor", test_walk_311 },
	{ "python live: walker oracle = sys._current_frames()", test_oracle },
	{ "python live: walker oracle on 3.12 and 3.13", test_oracle_312_313 },
	{ "python live: a reused code object reads stale", test_stale },
	{ "python live: a stale read retried, a freed one named by its strings",
	  test_retry },
	{ "python live: CPython targets known before ENABLE", test_pytarget },
	{ NULL, NULL },
};
