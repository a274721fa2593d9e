/* SPDX-License-Identifier: GPL-2.0 */
/* tprof unit tests: tiny test framework and a record stream builder. */
#ifndef _TPROF_TESTLIB_H
#define _TPROF_TESTLIB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "stream/records.h"

extern int t_checks_failed;
extern const char *t_skip_reason;

#define CHECK(cond)							\
	do {								\
		if (!(cond)) {						\
			fprintf(stderr, "    %s:%d: CHECK(%s) failed\n",	\
				__FILE__, __LINE__, #cond);		\
			t_checks_failed++;				\
		}							\
	} while (0)

#define CHECK_EQ(a, b)							\
	do {								\
		long long _a = (long long)(a), _b = (long long)(b);	\
		if (_a != _b) {						\
			fprintf(stderr, "    %s:%d: %s == %lld, expected %s == %lld\n", \
				__FILE__, __LINE__, #a, _a, #b, _b);	\
			t_checks_failed++;				\
		}							\
	} while (0)

#define CHECK_STR(a, b)							\
	do {								\
		const char *_a = (a), *_b = (b);			\
		if (!_a || !_b || strcmp(_a, _b)) {			\
			fprintf(stderr, "    %s:%d: %s == \"%s\", expected \"%s\"\n", \
				__FILE__, __LINE__, #a, _a ? _a : "(null)", \
				_b ? _b : "(null)");			\
			t_checks_failed++;				\
		}							\
	} while (0)

/* CHECK that the text s (NULL: none) holds want. */
#define CHECK_HAS(s, want) t_check_has(__FILE__, __LINE__, #s, (s), (want))
void t_check_has(const char *file, int line, const char *expr, const char *s,
		 const char *want);

/* Mark the running test skipped (return right after). */
#define SKIP(reason) (t_skip_reason = (reason))

struct unit_test {
	const char *name;
	void (*fn)(void);
};

/* each test file defines one array, terminated by { NULL, NULL } */
extern const struct unit_test records_tests[], maps_tests[], pprof_tests[],
	symbolize_tests[], go_tests[], e2e_tests[], device_tests[], utf8_tests[],
	options_tests[], output_tests[], resolve_tests[], jit_tests[],
	debuginfod_tests[], scale_tests[], nosym_tests[], unwind_tests[],
	symtab_tests[], object_tests[], stream_tests[], summary_tests[],
	model_tests[];

/* A whole file in a malloc'd buffer (*len its size); NULL if unreadable. */
unsigned char *read_whole(const char *path, size_t *len);

/* $TPROF_BUILD (default "build") + "/" + rel, in a static buffer ring */
const char *build_path(const char *rel);
const char *root_path(const char *rel);
bool have_cmd(const char *cmd);
/* errno of execv(path) on this host (0: it runs). ENOEXEC for a 32-bit
 * program where the host kernel has no IA32 emulation. */
int exec_errno(const char *path);
/* the newest Go >= 1.21 toolchain (PGO, DW_AT_decl_line), e.g. Debian
 * golang-1.23-go, as /usr/lib/go-1.N/bin/go; NULL: none */
const char *modern_go(void);
/* build/unit/unwind_arm64, tests/progs/unwind_arm64.c cross-built once
 * (test_arm64.c); NULL with the running test skipped (no toolchain or
 * qemu-user, saying which) or failed (the cross-build) */
const char *arm64_program(void);
/* Write text to the file path (made or emptied); 0, or -1 (CHECKed). */
int write_text(const char *path, const char *text);
/* run a shell command, capture stdout (malloc'd); returns exit status */
int run_capture(const char *cmd, char **out);
/* run_capture() of a printf-formatted command */
int run_fmt(char **out, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* $TPROF_READ, else build_path("tprof-read") */
const char *tprof_read_bin(void);

/* ---- shared setup: run tprof-read, show what it said ---- */
/* run_fmt() of tprof_read_bin() with the printf-formatted arguments */
int run_read(char **out, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/*
 * run_fmt() of tprof-read live on the fake device dev: preload (NULL:
 * unit/fakedev.so) LD_PRELOAD'ed, env (e.g. "FAKEDEV_ENDLESS=1") set,
 * "--device dev" and then the printf-formatted arguments.
 */
int run_fake_read(char **out, const char *env, const char *preload,
		  const char *dev, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
/* Show out (what a command printed) on stderr if the running test failed;
 * then free it. */
void out_done(char *out);
/* false, the running test skipped for why, where path is not readable */
bool need_file(const char *path, const char *why);
/* need_file() of each path of the NULL-terminated list, one why for all */
bool need_files(const char *why, ...) __attribute__((sentinel));
/* false, the running test skipped for why, where cmd is not on $PATH */
bool need_cmd(const char *cmd, const char *why);
/* The fake device for run_fake_read(): false (the running test skipped)
 * where unit/fakedev.so is not built, else dev made an empty file. */
bool need_fakedev(const char *dev);

/* ---- record stream builder ---- */
struct sbuf {
	unsigned char *p;
	size_t len, cap;
};

void sb_free(struct sbuf *b);
void sb_raw(struct sbuf *b, const void *p, size_t n);
void sb_session(struct sbuf *b, uint32_t pid, uint64_t period_ns,
		uint64_t realtime_ns, uint64_t time_ns);
/*
 * A record of a fixed part rec (rec_size bytes, its header set here to
 * type and time_ns) and then text[0..len), padded to 8 bytes.
 */
void sb_text_rec(struct sbuf *b, void *rec, size_t rec_size,
		 unsigned int type, const char *text, size_t len,
		 uint64_t time_ns);
void sb_maps(struct sbuf *b, uint32_t pid, uint64_t time_ns,
	     const char *text);
/* a BUILDID record: file (dev, inode, path) has build-id bid[0..bid_len) */
/* A CGROUP record: pid's /proc/PID/cgroup text. */
void sb_cgroup(struct sbuf *b, uint32_t pid, uint64_t time_ns,
	       const char *text);
void sb_buildid(struct sbuf *b, uint32_t pid, uint32_t dev_major,
		uint32_t dev_minor, uint64_t inode, const char *path,
		const unsigned char *bid, uint32_t bid_len, uint64_t time_ns);
void sb_thread(struct sbuf *b, uint32_t pid, uint32_t tid, const char *comm,
	       uint64_t time_ns);
void sb_exec(struct sbuf *b, uint32_t pid, const char *comm,
	     uint64_t time_ns);
/* An MMAP record: executable [start, end) of file inode (dev 08:01, as
 * fake_maps() writes) at pgoff. */
void sb_mmap(struct sbuf *b, uint32_t pid, uint64_t start, uint64_t end,
	     uint64_t pgoff, uint64_t inode, uint64_t time_ns);
void sb_sample(struct sbuf *b, uint32_t pid, uint32_t tid, uint64_t period_ns,
	       uint64_t weight_ns, uint64_t time_ns, unsigned int nk,
	       const uint64_t *kips, unsigned int nu, const uint64_t *uips);
/*
 * A SAMPLE with TPROF_RF_GROUP and its USTACK record, as the module writes
 * them with TPROF_F_USER_SNAPSHOT: user ips uips[0..nu) (the FP chain),
 * registers regs (enum tprof_ureg), stack[0..stack_bytes) of stack_req
 * asked for (fewer: TPROF_RF_USTACK_PARTIAL).
 */
void sb_sample_ustack(struct sbuf *b, uint32_t pid, uint32_t tid,
		      uint32_t abi, uint64_t period_ns, uint64_t time_ns,
		      unsigned int nu, const uint64_t *uips, uint16_t sflags,
		      const uint64_t regs[TPROF_UREG_NR], uint32_t stack_req,
		      const void *stack, uint32_t stack_bytes);
/*
 * A SAMPLE (the pc alone) and its USTACK record with the frame-pointer
 * chain (TPROF_RF_USTACK_CHAIN): nr_inner records in stack[] from fp,
 * then outer[]; stack_bytes a multiple of 8. Returns the USTACK's offset.
 */
size_t sb_sample_uchain(struct sbuf *b, uint32_t pid, uint32_t tid,
			uint32_t abi, uint64_t time_ns, uint64_t pc,
			const uint64_t *stack, uint32_t stack_bytes,
			uint64_t sp, uint64_t fp, uint32_t nr_inner,
			const uint64_t *outer, uint32_t nr_outer);
/* An off-CPU SAMPLE (TPROF_RF_OFF_CPU) of state TPROF_OFF_*, user ips only. */
void sb_off_sample(struct sbuf *b, uint32_t pid, uint32_t tid, uint32_t state,
		   uint64_t period_ns, uint64_t weight_ns, uint64_t time_ns,
		   unsigned int nu, const uint64_t *uips);
/*
 * A WAKER record (TPROF_F_OFF_CPU): the thread (pid, tid) woken by a
 * waker of kind (TPROF_WAKER_*; waker_tid 0: none named, comm NULL or
 * ""), seq the wait's number (0: no stack taken); flags its hdr.flags
 * (TPROF_RF_WAKER_WAKEUP: written at the wakeup, before its stack).
 */
void sb_waker(struct sbuf *b, uint32_t pid, uint32_t tid, uint32_t kind,
	      uint32_t waker_pid, uint32_t waker_tid, const char *comm,
	      uint32_t seq, uint16_t flags, uint64_t time_ns);
/*
 * A waker's stack at a wakeup (TPROF_F_WAKER_STACKS): the WAKER record
 * (TPROF_RF_WAKER_WAKEUP) of the wait (pid, tid, seq) woken by waker_tid
 * (TPROF_WAKER_TASK when of pid, else SESSION), then the waker's SAMPLE
 * (TPROF_RF_WAKE_STACK, weight 0) of user ips uips[0..nu).
 */
void sb_wake_stack(struct sbuf *b, uint32_t pid, uint32_t tid, uint32_t seq,
		   uint32_t waker_pid, uint32_t waker_tid, const char *comm,
		   uint64_t time_ns, unsigned int nu, const uint64_t *uips);
/* A THREAD_OFF record: ns[] by TPROF_OFF_* - 1, then irq time. */
void sb_thread_off(struct sbuf *b, uint32_t pid, uint32_t tid,
		   uint64_t begin_ns, const uint64_t ns[3], uint64_t irq_ns,
		   uint64_t samples, uint64_t weight_ns, uint64_t period_ns,
		   uint64_t time_ns);
void sb_stat(struct sbuf *b, unsigned int type, uint32_t pid, uint32_t tid,
	     uint64_t on_cpu_ns, uint64_t samples, uint64_t weight_ns,
	     uint64_t lost_samples, uint64_t lost_weight_ns,
	     uint64_t period_ns, const char *comm, uint64_t time_ns);
void sb_lost(struct sbuf *b, uint64_t n, uint64_t w, uint64_t recs,
	     uint64_t time_ns);
void sb_proc_exit(struct sbuf *b, uint32_t pid, int code, uint64_t time_ns);
/* A PROC record: pid joined (forked by ppid), or with flags DROPPED not. */
void sb_proc(struct sbuf *b, uint32_t pid, uint32_t ppid, const char *comm,
	     uint16_t flags, uint64_t time_ns);
/* A VDSO record: pid's vDSO image img[0..len) mapped at start. */
void sb_vdso(struct sbuf *b, uint32_t pid, uint64_t start, const void *img,
	     uint32_t len, uint64_t time_ns);
void sb_denied(struct sbuf *b, uint32_t pid, uint32_t reason, uint64_t time_ns);
/* a record of a type this reader does not know, with body_len payload bytes */
/* A record type no module writes (readers skip it by its size). */
#define TEST_REC_UNKNOWN	0x0777
void sb_unknown(struct sbuf *b, unsigned int type, size_t body_len,
		uint64_t time_ns);
int sb_write(const struct sbuf *b, const char *path);

/*
 * Synthetic /proc/PID/maps text for an ELF file as if loaded at base
 * (ignored for ET_EXEC). Returns malloc'd text, NULL on error.
 */
char *fake_maps(const char *path, uint64_t base);
/* ELF symbol value and size from .symtab; 0 on success */
int elf_symbol(const char *path, const char *name, uint64_t *value,
	       uint64_t *size);

#endif /* _TPROF_TESTLIB_H */
