/* SPDX-License-Identifier: GPL-2.0 */
/* tprof-read: decode and validate tprof records from a byte stream. */
#ifndef _TPROF_RECORDS_H
#define _TPROF_RECORDS_H

#include <stddef.h>
#include <stdint.h>

#include "uapi/tprof.h"

/*
 * Userspace-only pseudo-records. tprof-read writes them into --save-raw
 * streams next to the kernel's records so that --input can replay a session
 * exactly (maps snapshots, start time, stats). The kernel never emits types
 * at or above TPROF_UREC_BASE; readers skip unknown types by hdr.size, so a
 * saved stream is still a valid record stream.
 */
#define TPROF_UREC_BASE		0xF000
#define TPROF_UREC_SESSION	0xF001
#define TPROF_UREC_MAPS		0xF002
#define TPROF_UREC_STATS	0xF003
#define TPROF_UREC_KALLSYMS	0xF004
#define TPROF_UREC_BUILDID	0xF005
#define TPROF_UREC_VDSO		0xF006
#define TPROF_UREC_PYPROC	0xF007
#define TPROF_UREC_PYCODE	0xF008
#define TPROF_UREC_PERFMAP	0xF010	/* 0xF009..: left to other records */
#define TPROF_UREC_MACHINE	0xF011
#define TPROF_UREC_CGROUP	0xF012

#define TPROF_RAW_MAGIC		0x5746415250525054ULL	/* "TPRPRAFW" */

/* First record of every saved stream. */
struct tprof_urec_session {
	struct tprof_rec_hdr hdr;
	__u64 magic;		/* TPROF_RAW_MAGIC */
	__u64 realtime_ns;	/* CLOCK_REALTIME at ENABLE */
	__u64 period_ns;	/* session default period */
	__u32 pid;
	__u32 flags;		/* TPROF_F_* passed to ENABLE, and
				 * TPROF_SESSION_F_* */
	__u32 abi_version;
	__u32 record_version;
};

/*
 * SESSION flags of tprof-read's own, above every TPROF_F_* bit: how a
 * replay unwinds the USTACK records (--call-graph dwarf; without it,
 * hybrid), so that --input gives the profile the live run gave.
 */
#define TPROF_SESSION_F_DWARF	0x80000000U

/*
 * The machine the session ran on, from INFO (after SESSION): a replay on
 * another machine (an arm64 stream read on x86-64) knows how the return
 * addresses in its snapshots are signed. Streams without it: the reader
 * strips an arm64 return address to a 48-bit user address.
 */
struct tprof_urec_machine {
	struct tprof_rec_hdr hdr;
	__u32 e_machine;	/* tprof_ioc_info.e_machine; 0: not known */
	__u32 __pad;
	__u64 user_pac_mask;	/* tprof_ioc_info.user_pac_mask */
};

/* A /proc/PID/maps snapshot; hdr.time_ns = CLOCK_MONOTONIC when read. */
struct tprof_urec_maps {
	struct tprof_rec_hdr hdr;
	__u32 pid;
	__u32 len;		/* bytes of text that follow */
	/* char text[len], then padding to 8 */
};

/*
 * A process's /proc/PID/cgroup, read when it joined the session (PROC),
 * exec'd (EXEC) or was first read (the target): its cgroup v2 path is the
 * cgroup label of its samples from hdr.time_ns on (the model's; written
 * only when it differs from the process's last one).
 */
struct tprof_urec_cgroup {
	struct tprof_rec_hdr hdr;
	__u32 pid;
	__u32 len;		/* bytes of text that follow */
	/* char text[len], then padding to 8 */
};

struct tprof_urec_stats {
	struct tprof_rec_hdr hdr;
	struct tprof_ioc_stats stats;
};

/*
 * The GNU build-id of a mapped file, written when a MAPS snapshot first
 * shows the file (path, dev and inode as in /proc/PID/maps), read from the
 * target's own view of it. A replay symbolizes only from a file with this
 * build-id, so a file replaced since is never named. bid_len 0: the file
 * has no GNU build-id (nothing to check).
 */
struct tprof_urec_buildid {
	struct tprof_rec_hdr hdr;
	__u32 pid;
	__u32 dev_major;
	__u32 dev_minor;
	__u32 path_len;
	__u64 inode;
	__u32 bid_len;		/* <= 64 */
	__u32 __pad;
	/* __u8 bid[bid_len], char path[path_len], then padding to 8 */
};

/*
 * The kernel's symbols when the session records kernel stacks: the text of
 * /proc/kallsyms, then of /proc/modules. A replay after a reboot (KASLR
 * moves the kernel) or on another machine names kernel frames from these.
 */
struct tprof_urec_kallsyms {
	struct tprof_rec_hdr hdr;
	__u32 len;		/* bytes of kallsyms text that follow */
	__u32 modules_len;	/* then bytes of modules text */
	/* char kallsyms[len], char modules[modules_len], padding to 8 */
};

/*
 * The target's vDSO image (from /proc/PID/mem), written when a snapshot
 * first shows its [vdso] mapping at start: a replay on another kernel names
 * vDSO frames from this image, not from its own kernel's.
 */
struct tprof_urec_vdso {
	struct tprof_rec_hdr hdr;
	__u32 pid;
	__u32 len;		/* bytes of image that follow */
	__u64 start;		/* the mapping's start in the target */
	/* __u8 image[len], then padding to 8 */
};

/*
 * Lines of the target's JIT symbol map (/tmp/perf-PID.map in its own /tmp,
 * named by its pid in its own pid namespace), whole lines only, read while
 * the target runs and at its end: a replay names JIT code without the file,
 * which is gone with the container or rewritten by then. Records of one pid
 * are in file order; a rewritten file starts again at offset 0 and its
 * lines, newer, win where they overlap older ones.
 */
struct tprof_urec_perfmap {
	struct tprof_rec_hdr hdr;
	__u32 pid;		/* the target's pid, as tprof-read sees it */
	__u32 len;		/* bytes of text that follow */
	__u64 offset;		/* where the text starts in the file */
	/* char text[len], then padding to 8 */
};

/*
 * A CPython interpreter found in a process (its executable or libpython),
 * written when tprof-read installs its frame walk (TPROF_IOC_SET_UWALK):
 * how to read that process's UWALK records. Again after each EXEC that
 * finds one. The words are those of one frame, by index.
 */
#define TPROF_PY_ENTRY_FLAG	1	/* 3.11: byte != 0 ends a segment after
					 * the frame (is_entry) */
#define TPROF_PY_ENTRY_SENTINEL	2	/* 3.12+: byte >= entry_value is a
					 * sentinel between segments (owner) */
struct tprof_urec_pyproc {
	struct tprof_rec_hdr hdr;
	__u32 pid;
	__u32 version;		/* PY_VERSION_HEX, e.g. 0x030b02f0 */
	__u64 code_adaptive;	/* offset of the bytecode in a code object */
	__u64 code_mask;	/* tag bits of the code word (3.14: 1) */
	__u8 w_code;		/* word: the frame's code object */
	__u8 w_instr;		/* word: its instruction pointer */
	__u8 w_entry;		/* word: its entry byte (see entry_kind) */
	__u8 w_check;		/* word: the code object's validation word */
	__u8 entry_kind;	/* TPROF_PY_ENTRY_* */
	__u8 entry_shift;	/* the byte is (word >> entry_shift) & 0xff */
	__u8 entry_value;	/* ENTRY_SENTINEL: its least owner value */
	__u8 nr_ranges;		/* eval-loop code ranges that follow */
	/* struct { __u64 start, end; } ranges[nr_ranges]: the interpreter's
	 * _PyEval_EvalFrameDefault in the target (hot and .cold parts) */
};

/*
 * What tprof-read read of one code object in a process, while it ran:
 * a replay names the Python frames of UWALK records from these, with no
 * process to read. @check is the validation word as the walk records it
 * (the co_qualname pointer): a frame whose (code, check) pair has no
 * PYCODE record is never named from another one's.
 */
#define TPROF_PYCODE_F_STALE	0x1U	/* not a code object (any more): no
					 * names follow */
struct tprof_urec_pycode {
	struct tprof_rec_hdr hdr;	/* time_ns: when read */
	__u32 pid;
	__u32 first_line;	/* co_firstlineno */
	__u64 addr;		/* the code object in the target */
	__u64 check;
	__u32 flags;		/* TPROF_PYCODE_F_* */
	__u32 qualname_len;
	__u32 filename_len;
	__u32 linetable_len;
	/* char qualname[], char filename[] (UTF-8), __u8 linetable[]
	 * (co_linetable, PEP 626 format), then padding to 8 */
};

/* Largest record accepted (maps text of huge processes included). */
#define TPROF_REC_MAX_SIZE	(64U << 20)

/*
 * One decoded record. Fixed parts are copied out (the input need not be
 * aligned); variable parts point into the input buffer.
 */
struct tprof_record {
	struct tprof_rec_hdr hdr;
	union {
		struct tprof_rec_sample sample;
		struct tprof_rec_ustack ustack;
		struct tprof_rec_lost lost;
		struct tprof_rec_thread thread;
		struct tprof_rec_thread_stat stat;
		struct tprof_rec_exec exec;
		struct tprof_rec_mmap mmap;
		struct tprof_rec_proc proc;
		struct tprof_rec_thread_off thread_off;
		struct tprof_rec_throttle throttle;
		struct tprof_rec_proc_exit proc_exit;
		struct tprof_rec_denied denied;
		struct tprof_rec_uwalk uwalk;
		struct tprof_rec_waker waker;
		struct tprof_urec_session session;
		struct tprof_urec_machine machine;
		struct tprof_urec_maps maps;
		struct tprof_urec_cgroup cgroup;
		struct tprof_urec_stats stats;
		struct tprof_urec_buildid buildid;
		struct tprof_urec_vdso vdso;
		struct tprof_urec_kallsyms kallsyms;
		struct tprof_urec_perfmap perfmap;
		struct tprof_urec_pyproc pyproc;
		struct tprof_urec_pycode pycode;
	} u;
	const unsigned char *ips;	/* SAMPLE: nr_kernel + nr_user u64s */
	const char *text;		/* MAPS: u.maps.len bytes; CGROUP:
					 * u.cgroup.len bytes; BUILDID: the
					 * path, u.buildid.path_len bytes;
					 * KALLSYMS: u.kallsyms.len bytes, then
					 * modules_len bytes; PERFMAP:
					 * u.perfmap.len bytes; PYCODE: the
					 * qualname, then the filename */
	const unsigned char *bid;	/* BUILDID: u.buildid.bid_len bytes */
	const unsigned char *image;	/* VDSO: u.vdso.len bytes */
	const unsigned char *stack;	/* USTACK: u.ustack.stack_bytes */
	/* UWALK: nr_frames * words_per_frame u64s; PYPROC: nr_ranges
	 * (start, end) u64 pairs; USTACK with TPROF_RF_USTACK_CHAIN: the
	 * chain's chain.nr_outer ips (tprof_record_word()) */
	const unsigned char *words;
	struct tprof_ustack_chain chain;	/* USTACK: its header, or 0 */
	const unsigned char *linetable;	/* PYCODE: linetable_len bytes */
	const unsigned char *raw;	/* the whole record, hdr.size bytes */
	/* SAMPLE: the WAKER record of its group (model/profile.c sets it,
	 * not the decoder); kind 0: none */
	struct tprof_rec_waker waker;
	const char *fault;		/* a malformed record: what is wrong */
};

/* ip i of a SAMPLE (0 .. nr_kernel + nr_user - 1), kernel ips first. */
uint64_t tprof_record_ip(const struct tprof_record *r, unsigned int i);
/* u64 i of r->words (UWALK: frame f's word w is f * words_per_frame + w) */
uint64_t tprof_record_word(const struct tprof_record *r, unsigned int i);
/*
 * The return addresses of a USTACK record's chain (TPROF_RF_USTACK_CHAIN),
 * at most max of them, into ips: their count, 0 without a chain.
 */
unsigned int tprof_record_chain_ips(const struct tprof_record *us,
				    uint64_t pac_bits, uint64_t *ips,
				    unsigned int max);
/*
 * The SAMPLE s with the frame-pointer chain of its USTACK record us
 * (TPROF_RF_USTACK_CHAIN) after its pc (and link register), as a module
 * without TPROF_F_USTACK_CHAIN writes it: out, its ips in ips (room for
 * TPROF_MAX_KERNEL_FRAMES + TPROF_MAX_USER_FRAMES); s itself when us is
 * NULL or has no chain. pac_bits: cleared from arm64 return addresses read
 * in the snapshot (the module strips the ones it reads). The user ips stop
 * at TPROF_MAX_USER_FRAMES (a stream the module did not write may say more).
 */
const struct tprof_record *
tprof_record_join_chain(const struct tprof_record *s,
			const struct tprof_record *us, uint64_t pac_bits,
			struct tprof_record *out, uint64_t *ips);

/*
 * Decode the record at buf[0..len), by the table of record types in
 * records.c. Returns its size (> 0) on success, 0 when len == 0, -ENODATA
 * when buf holds only part of a record (more bytes may complete it),
 * -EINVAL for a malformed record whose size can still be trusted (hdr is
 * set and buf holds all hdr.size bytes: skip them and go on), -EBADMSG when
 * the header's size cannot be trusted (the framing is lost: nothing after
 * it can be found). On either error r->fault says what is wrong. Records
 * of unknown type decode with only hdr and raw set.
 */
long tprof_record_decode(const void *buf, size_t len, struct tprof_record *r);

/* "SAMPLE", "MAPS", ...; "unknown" for a type not in the table */
const char *tprof_record_type_name(unsigned int type);
/* the size of type's fixed part (its struct), 0 for an unknown type */
size_t tprof_record_min_size(unsigned int type);

/*
 * Build a userspace pseudo-record: fixed[0..fixed_size) is the type's
 * struct, header included (type, size and time_ns are set here), then
 * tail[0..tail_len) (text, image; the struct's length fields are the
 * caller's), zero-padded to 8. *out is malloc'd; returns its size.
 */
size_t tprof_urec_build(unsigned char **out, unsigned int type,
			uint64_t time_ns, const void *fixed, size_t fixed_size,
			const void *tail, size_t tail_len);

/*
 * Is buf[0..len) the start of a stream this tprof-read replays: a SESSION
 * record (with TPROF_RAW_MAGIC) of the ABI and record versions it reads?
 * 0 if so; -ENODATA when more bytes could decide; -EINVAL when it is not a
 * tprof stream; -EPROTO for a version it does not read. why (may be NULL)
 * gets a clause for "FILE: ..." on failure.
 */
int tprof_stream_check(const void *buf, size_t len, char *why, size_t wlen);

/*
 * Why a DENIED record ended the session (TPROF_DENIED_*), as a clause for
 * "pid N became non-profilable: ...".
 */
const char *tprof_denied_reason(unsigned int reason);

#endif /* _TPROF_RECORDS_H */
