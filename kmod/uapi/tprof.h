/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * tprof: per-thread CPU-time sampling profiler. The only contract between
 * tprof.ko and userspace (tprof-read, tests).
 *
 * Everything here is fixed-width and naturally aligned, with no pointers or
 * longs, so the same layout serves 32- and 64-bit callers (compat_ioctl).
 * Growable ioctl structs start with `size` (the caller's sizeof) and end with
 * must-be-zero reserved fields; unknown non-zero bytes get -EINVAL.
 */
#ifndef _UAPI_TPROF_H
#define _UAPI_TPROF_H

#include <linux/types.h>
#include <linux/ioctl.h>

/* Bumped on any incompatible change; tprof-read refuses a mismatch. */
#define TPROF_ABI_VERSION	1
/* Bumped when a record layout changes; new record types do not bump it. */
#define TPROF_RECORD_VERSION	1

#define TPROF_DEVICE		"/dev/tprof"
#define TPROF_IOC_MAGIC		0xD6	/* unused in ioctl-number.rst (6.12) */

/* Limits enforced by ENABLE and SET_THREAD_PERIOD (-EINVAL outside them). */
#define TPROF_MIN_PERIOD_NS	10000ULL	/* 10 us, perf's task-clock floor */
#define TPROF_DEFAULT_PERIOD_NS	1000000ULL	/* 1 kHz of CPU time */
#define TPROF_DEFAULT_USER_FRAMES	127	/* PERF_MAX_STACK_DEPTH */
#define TPROF_MAX_USER_FRAMES	512
#define TPROF_MAX_KERNEL_FRAMES	128
/* User stack snapshots (TPROF_F_USER_SNAPSHOT): bytes copied from sp up. */
#define TPROF_DEFAULT_SNAPSHOT_BYTES	8192	/* perf --call-graph dwarf */
#define TPROF_MAX_SNAPSHOT_BYTES	65528	/* perf's sample_stack_user */
/* Processes a TPROF_F_CHILDREN session follows at once (PROC DROPPED past it). */
#define TPROF_MAX_PROCS		1024
/* A TPROF_F_CGROUP session's, unless tprof.ko's cgroup_procs_bits says else */
#define TPROF_DEFAULT_CGROUP_PROCS	8192

/**
 * struct tprof_ioc_info - TPROF_IOC_INFO reply; needs no session.
 * @size: sizeof(struct tprof_ioc_info) as the kernel knows it.
 * @abi_version: TPROF_ABI_VERSION of the running module.
 * @record_version: TPROF_RECORD_VERSION of the running module.
 * @nr_cpu_ids: number of possible CPU ids (one ring each).
 * @page_size: PAGE_SIZE.
 * @max_user_frames: TPROF_MAX_USER_FRAMES.
 * @max_kernel_frames: TPROF_MAX_KERNEL_FRAMES.
 * @default_ring_bytes: per-CPU ring size used when ENABLE passes 0.
 * @min_period_ns: the shortest period ENABLE and SET_THREAD_PERIOD accept
 *	from this caller: TPROF_MIN_PERIOD_NS, or for an unprivileged one
 *	the module parameter unpriv_min_period_us if longer.
 * @ring_kb_per_cpu: module parameter: the locked memory (KiB per possible
 *	CPU) each user may hold in unprivileged sessions' rings on top of
 *	RLIMIT_MEMLOCK; 0 in replies of modules that predate it.
 * @max_user_sessions: module parameter: unprivileged sessions one user may
 *	hold at once.
 * @user_sessions: unprivileged sessions the caller's user holds now.
 * @nr_rings: rings per session (possible CPUs); each is ring_bytes.
 * @user_locked_kb: locked memory charged to the caller's user now (by tprof,
 *	perf and io_uring alike: user_struct.locked_vm).
 * @e_machine: the ELF machine of the module's kernel, EM_X86_64 (62) or
 *	EM_AARCH64 (183): which TPROF_ABI_* its samples can carry.
 * @__reserved: zero.
 * @user_pac_mask: arm64 with pointer authentication: the bits of a user
 *	code address that hold its PAC (ptrauth_user_pac_mask()); the module
 *	strips them from the addresses it records, the reader strips them
 *	from return addresses it finds in snapshots. 0 elsewhere.
 * The fields from @e_machine on are new; TPROF_IOC_INFO_V1 answers without
 * them (and modules that predate them know only that form).
 */
struct tprof_ioc_info {
	__u32 size;
	__u32 abi_version;
	__u32 record_version;
	__u32 nr_cpu_ids;
	__u32 page_size;
	__u32 max_user_frames;
	__u32 max_kernel_frames;
	__u32 default_ring_bytes;
	__u64 min_period_ns;
	__u32 ring_kb_per_cpu;
	__u32 max_user_sessions;
	__u32 user_sessions;
	__u32 nr_rings;
	__u64 user_locked_kb;
	__u32 e_machine;
	__u32 __reserved;
	__u64 user_pac_mask;
};

/* TPROF_IOC_INFO_V1's reply: struct tprof_ioc_info up to @user_locked_kb. */
#define TPROF_SIZEOF_IOC_INFO_V1	64

/* ENABLE flags */
#define TPROF_F_KERNEL_STACK	0x1U	/* needs CAP_PERFMON/CAP_SYS_ADMIN */
#define TPROF_F_AUXV_PROOF	0x2U	/* auxv_fd proves ptrace-read access */
#define TPROF_F_PATH_TIMING	0x4U	/* time the sampling path (STATS) */
#define TPROF_F_USER_SNAPSHOT	0x8U	/* USTACK records: user regs + stack */
#define TPROF_F_MEM_PROOF	0x10U	/* mem_fd proves ptrace-attach access */
#define TPROF_F_CHILDREN	0x20U	/* follow descendant processes too */
#define TPROF_F_OFF_CPU		0x40U	/* sample off-CPU time too */
#define TPROF_F_NO_CPU_SAMPLES	0x80U	/* account CPU time, sample none of it */
/* snapshots start TPROF_SNAPSHOT_BELOW_BYTES below sp (TPROF_RF_USTACK_BELOW) */
#define TPROF_F_SNAPSHOT_BELOW	0x100U
/*
 * With TPROF_F_USER_SNAPSHOT: a 64-bit task's frame-pointer chain goes in
 * its USTACK record (TPROF_RF_USTACK_CHAIN), not its SAMPLE's ips: the
 * frame records that lie in the snapshot are the reader's to walk there,
 * the rest follow stack[]. The module reads the chain in the snapshot it
 * copied, not in user memory again (what perf's dwarf mode skips).
 */
#define TPROF_F_USTACK_CHAIN	0x200U
/* the processes of a cgroup v2 subtree (@cgroup_fd), not @pid's tree */
#define TPROF_F_CGROUP		0x400U
/*
 * With TPROF_F_OFF_CPU: a waker that the session may sample (a thread it
 * follows, its WAKER record names it) also gives its user stack, taken in
 * its own context at the wakeup (sched_waking), as a group of WAKER
 * (TPROF_RF_WAKER_WAKEUP) and a SAMPLE of the waker (TPROF_RF_WAKE_STACK),
 * its USTACK and UWALK as a sample's; only for a wait that has crossed,
 * or nearly, its next sample point (STATS waker_stacks). The WAKER record
 * of the woken thread's off-CPU SAMPLE repeats the wait's @seq.
 *
 * Timed-out waits chain: an interruptible wait that an interrupt or a
 * kernel thread ended (a timeout) gets a wait number at its switch-in; a
 * wait that the thread then enters at the same user call site (the same
 * syscall return address and user stack pointer) within 1 ms of CPU and
 * 10 ms of time continues it and keeps that number (waits elsewhere in
 * between are their own), as the wakeup that ends the chain does. So
 * several off-CPU SAMPLEs' WAKER records (the timeouts', kind
 * TPROF_WAKER_HARDIRQ, _SOFTIRQ or _KTHREAD, and the last one's) may carry
 * one @seq, which one wakeup's WAKER (TPROF_RF_WAKER_WAKEUP), if any,
 * names: a reader may give the whole chain that waker (CPython's
 * take_gil() waits 5 ms at a time; the thread that drops the GIL ends
 * the last). A chain no thread ends has no such record.
 */
#define TPROF_F_WAKER_STACKS	0x800U
#define TPROF_F_ALL		(TPROF_F_KERNEL_STACK | TPROF_F_AUXV_PROOF | \
				 TPROF_F_PATH_TIMING | TPROF_F_USER_SNAPSHOT | \
				 TPROF_F_MEM_PROOF | TPROF_F_CHILDREN | \
				 TPROF_F_OFF_CPU | TPROF_F_NO_CPU_SAMPLES | \
				 TPROF_F_SNAPSHOT_BELOW | TPROF_F_USTACK_CHAIN | \
				 TPROF_F_CGROUP | TPROF_F_WAKER_STACKS)

/*
 * x86-64's red zone: a leaf may keep data in the 128 bytes below sp, and
 * some code's CFI finds the caller's frame there (OpenSSL's SHA-256 keeps
 * its saved sp at sp - 8). TPROF_F_SNAPSHOT_BELOW copies them too.
 */
#define TPROF_SNAPSHOT_BELOW_BYTES	128

/**
 * struct tprof_ioc_enable - TPROF_IOC_ENABLE argument: start a session on
 * the open file for every thread (current and future) of a process.
 *
 * Who may: a caller with CAP_PERFMON or CAP_SYS_ADMIN (a privileged
 * session), or one that proves ptrace-read access with TPROF_F_AUXV_PROOF
 * (or ptrace-attach access with TPROF_F_MEM_PROOF) on a target whose mm is
 * dumpable as SUID_DUMP_USER (an unprivileged session). Raw stack bytes
 * (TPROF_F_USER_SNAPSHOT) can hold secrets: an unprivileged session needs
 * TPROF_F_MEM_PROOF for them, as ptrace needs attach access to read them.
 * An unprivileged session samples, and reports user data, only while
 * the target stays dumpable as SUID_DUMP_USER with the uids and gids
 * it had at ENABLE, and never while an exec is switching its mm and
 * credentials; when that stops holding, it ends with a DENIED record.
 *
 * With TPROF_F_CHILDREN the session follows process trees: every
 * descendant of @pid that exists at ENABLE, and every process any followed
 * process forks (fork/clone without CLONE_THREAD), from its first
 * instruction. Each has its PROC record, its threads, EXEC, MMAP and
 * PROC_EXIT records. The rule above holds per process: one that stops
 * qualifying (a setuid exec) leaves the session with a DENIED record of its
 * own, and nothing more of it, or of what it forks, is reported; it is
 * then free for another session (root's, say). The session ends when the
 * last process left (PROC_EXIT or DENIED). At most TPROF_MAX_PROCS
 * processes are followed at once; a fork past that gets a PROC record with
 * TPROF_RF_PROC_DROPPED and is not followed, and the descendants ENABLE
 * finds past it are counted in one PROC record (TPROF_RF_PROC_COUNT).
 *
 * A descendant is profiled only as far as the caller may ptrace it, as
 * its proof stands for (attach with TPROF_F_USER_SNAPSHOT, read
 * otherwise). Privileged sessions need no proof. In an unprivileged one,
 * a process forked by an admitted process is admitted when the caller is
 * an ancestor of the target (what it may ptrace of the parent, it may of
 * the child: same ids, LSM label and dumpability, and still its
 * descendant); every other descendant joins pending (TPROF_RF_PROC_PENDING):
 * its CPU time is accounted, and nothing of it (THREAD, EXEC, MMAP,
 * SAMPLE) is reported until the caller proves it with TPROF_IOC_PROVE.
 *
 * With TPROF_F_OFF_CPU each thread also has an off-CPU clock: the time
 * from each switch-out to its next switch-in (the scheduler's clock), by
 * the state it left in (TPROF_OFF_*). It has sample points every
 * @off_cpu_period_ns, the first at random, as CPU time has; a switch-in
 * whose time away crossed any takes one SAMPLE (TPROF_RF_OFF_CPU) weighted
 * with all of them, once the thread is back on the CPU and before it
 * returns to user space: the user stack it blocked with, the kernel stack
 * it slept in. Each THREAD_EXIT and THREAD_STAT then comes with its
 * thread's THREAD_OFF record (exact totals by state). TPROF_F_NO_CPU_SAMPLES
 * (only with TPROF_F_OFF_CPU) arms no CPU-time timer: CPU time is still
 * accounted exactly, and not sampled.
 *
 * With TPROF_F_CGROUP (CAP_PERFMON or CAP_SYS_ADMIN only, as perf -G) the
 * session follows the processes of a cgroup v2 subtree instead of @pid's
 * tree (@pid must be 0, no proofs): @cgroup_fd is an open directory of
 * the cgroup2 filesystem, its root for the subtree. Every process whose
 * main thread is in the subtree at ENABLE joins (PROC with
 * TPROF_RF_PROC_EXISTING); so does every process forked into it later
 * (PROC, from its first instruction, CLONE_INTO_CGROUP included), and
 * every process moved into it (PROC with TPROF_RF_PROC_MOVED; a thread
 * running then is accounted from a moment later, its next switch-in at
 * the latest). A process moved out of it leaves with a DENIED record
 * (TPROF_DENIED_CGROUP): none of its samples after the move, its
 * accounting up to at most one period after it (THREAD_STAT, THREAD_EXIT).
 * One that moves back in is not followed again by this session. A
 * process another session follows is not taken. The session implies
 * TPROF_F_CHILDREN (its records; its process limit is the module's
 * cgroup_procs_bits parameter's, 8192 by default, not TPROF_MAX_PROCS: a
 * cgroup may be the whole machine) but does not end when its
 * last process leaves: an empty cgroup may fill again; only DISABLE or
 * close ends it. Membership is by process, as cgroup.procs moves
 * processes: a thread moved alone (threaded cgroups) counts where its
 * main thread is.
 *
 * Errors: -EPERM (no privilege or proof; target not dumpable; kernel stacks
 * without CAP_PERFMON or under lockdown; snapshots without CAP_PERFMON or
 * TPROF_F_MEM_PROOF; TPROF_F_CGROUP without CAP_PERFMON), -EBADF
 * (TPROF_F_CGROUP: @cgroup_fd is not an open cgroup v2 directory),
 * -EOPNOTSUPP (TPROF_F_CGROUP on a kernel whose cgroup_attach_task
 * tracepoint the module cannot find), -ESRCH (no such process), -EBUSY
 * (another session profiles the target, or the caller's user holds
 * max_user_sessions unprivileged sessions), -ENOSPC (no free session; the
 * module keeps some for privileged callers only), -ENOMEM (an unprivileged session's rings,
 * nr_rings * ring_bytes, exceed RLIMIT_MEMLOCK plus ring_kb_per_cpu *
 * nr_rings less what the user holds already; or no memory), -EINVAL.
 * @size: sizeof(struct tprof_ioc_enable) as the caller knows it.
 * @flags: TPROF_F_*; unknown bits -EINVAL.
 * @pid: target thread-group id in the caller's pid namespace; 0 with
 *	TPROF_F_CGROUP.
 * @auxv_fd: with TPROF_F_AUXV_PROOF, an fd of /proc/@pid/auxv opened by
 *	the caller (procfs grants it only after a PTRACE_MODE_READ check);
 *	otherwise must be 0.
 * @period_ns: default sampling period in ns of each thread's CPU time;
 *	0 means TPROF_DEFAULT_PERIOD_NS; below TPROF_MIN_PERIOD_NS -EINVAL.
 * @max_user_frames: 0 means TPROF_DEFAULT_USER_FRAMES; at most
 *	TPROF_MAX_USER_FRAMES.
 * @max_kernel_frames: 0 with no TPROF_F_KERNEL_STACK; else 1 to
 *	TPROF_MAX_KERNEL_FRAMES (0 means TPROF_MAX_KERNEL_FRAMES).
 * @ring_bytes: per-CPU ring size; 0 means the default; else a power of two
 *	between 4096 and 64 MiB.
 * @snapshot_bytes: with TPROF_F_USER_SNAPSHOT, bytes of user stack each
 *	sample copies from its sp (a multiple of 8, at most
 *	TPROF_MAX_SNAPSHOT_BYTES; 0 means TPROF_DEFAULT_SNAPSHOT_BYTES),
 *	plus, with TPROF_F_SNAPSHOT_BELOW, the TPROF_SNAPSHOT_BELOW_BYTES
 *	below it; otherwise must be 0 (and TPROF_F_SNAPSHOT_BELOW unset).
 * @mem_fd: with TPROF_F_MEM_PROOF, an fd of /proc/@pid/mem opened by the
 *	caller (procfs grants it only after a PTRACE_MODE_ATTACH check);
 *	otherwise must be 0.
 * @__pad: zero.
 * @off_cpu_period_ns: with TPROF_F_OFF_CPU, the off-CPU sampling period;
 *	0 means @period_ns (after its default); otherwise must be 0.
 * @refused: out only (TPROF_IOC_ENABLE, not TPROF_IOC_ENABLE_V1; what the
 *	caller passes in is ignored, and all four out fields are written
 *	back whatever ENABLE returns): which limit refused it,
 *	TPROF_REFUSED_*, or 0 when none of them did (see the error).
 * @need_kb, @held_kb, @limit_kb: out only, with TPROF_REFUSED_MEMLOCK:
 *	what the session would pin (its rings and its thread and process
 *	tables), what the caller's user had locked already (all its
 *	processes: other sessions, io_uring, perf buffers), and the limit
 *	(the caller's RLIMIT_MEMLOCK plus ring_kb_per_cpu per possible CPU),
 *	in KiB.
 * @cgroup_fd: with TPROF_F_CGROUP, an fd of a cgroup v2 directory
 *	(open(path, O_RDONLY | O_DIRECTORY)); otherwise must be 0.
 * @__pad2: zero.
 * The fields from @cgroup_fd on are new: ENABLE takes a struct of
 * TPROF_SIZEOF_IOC_ENABLE_V1 bytes (all older callers) as one with them 0.
 */
struct tprof_ioc_enable {
	__u32 size;
	__u32 flags;
	__s32 pid;
	__s32 auxv_fd;
	__u64 period_ns;
	__u32 max_user_frames;
	__u32 max_kernel_frames;
	__u32 ring_bytes;
	__u32 snapshot_bytes;
	__s32 mem_fd;
	__u32 __pad;
	__u64 off_cpu_period_ns;
	__u32 refused;
	__u32 need_kb;
	__u32 held_kb;
	__u32 limit_kb;
	__s32 cgroup_fd;
	__u32 __pad2;
};

/* struct tprof_ioc_enable up to @limit_kb: the least ENABLE accepts. */
#define TPROF_SIZEOF_IOC_ENABLE_V1	72

/* struct tprof_ioc_enable.refused: the limit that refused an ENABLE */
#define TPROF_REFUSED_MEMLOCK		1 /* -ENOMEM: the user's locked memory */
#define TPROF_REFUSED_NOMEM		2 /* -ENOMEM: the kernel had no memory */
#define TPROF_REFUSED_USER_SESSIONS	3 /* -EBUSY: max_user_sessions */
#define TPROF_REFUSED_TARGET_BUSY	4 /* -EBUSY: another session has it */

/**
 * struct tprof_ioc_thread_period - TPROF_IOC_SET_THREAD_PERIOD argument.
 * Applies from the thread's next budget (its current budget runs out first).
 * @tid: thread id in the caller's pid namespace; must belong to the target.
 * @__pad: zero.
 * @period_ns: new period; 0 restores the session default.
 */
struct tprof_ioc_thread_period {
	__s32 tid;
	__u32 __pad;
	__u64 period_ns;
};

/**
 * struct tprof_ioc_prove - TPROF_IOC_PROVE argument: the caller's proof
 *	that it may ptrace a pending descendant (TPROF_RF_PROC_PENDING) as
 *	the session's own proof stands for.
 * @pid: the process, as its PROC record gave it (the ENABLE caller's pid
 *	namespace).
 * @fd: an open /proc/@pid/mem (sessions with snapshots or
 *	TPROF_F_MEM_PROOF: an attach proof stands for user-memory walks too)
 *	or /proc/@pid/auxv or mem (others) of its current mm: procfs opened it only after the
 *	kernel's ptrace check of the caller (Yama, LSMs, capabilities); or
 *	-1: the caller could not open one, and the process is denied
 *	(DENIED, TPROF_DENIED_PTRACE).
 *
 * Return: 0 (admitted: THREAD records of its threads follow, and its
 * samples), -ESRCH (not a pending process of the session), -EPERM (@fd
 * proves nothing of its current mm: it exec'd since, say; it stays
 * pending), a DENIED record and 0 when it fails the session's rule (ids,
 * dumpability) or @fd is -1, -EINVAL.
 */
struct tprof_ioc_prove {
	__s32 pid;
	__s32 fd;
};

/*
 * User-memory walks (TPROF_IOC_SET_UWALK): a bounded walk of a followed
 * process's own memory that each of its samples with user context (CPU and
 * off-CPU) runs in the sampled thread's context with nofault reads, and
 * writes as a TPROF_REC_UWALK record paired with the SAMPLE. tprof-read
 * describes the walk (CPython's frame chain, say); the module knows nothing
 * of what it walks. All loads are native-endian u64 unless a field says
 * otherwise; an address is never dereferenced outside the user range.
 *
 *   base = TP:   the thread pointer (x86-64 fs_base, arm64 TPIDR_EL0)
 *                plus @start_addr (signed); p = *(base)
 *          ADDR: p = *(@start_addr)
 *          TID:  p = the address TPROF_IOC_SET_UWALK_TID registered for
 *                the sampled thread (no load; no address: status NO_START)
 *   p == 0: status NO_START (the thread has no state to walk yet)
 *   TPROF_UWALK_F_GUARD_TP: *(p + @guard_off) must equal the thread
 *          pointer, else status GUARD (a stale or foreign slot)
 *   p = *(p + @steps[i]) for i < @nr_steps (0 at any step: NO_START)
 *   then frame by frame while p != 0:
 *     words[i] = @fields[i].len bytes at p + @fields[i].off, zero-extended,
 *          for i < @nr_fields;
 *     with @code_field < @nr_fields: q = words[@code_field] & ~@code_mask,
 *          and one more word per @code_offs[j] (j < @nr_code_offs): the u64
 *          at q + @code_offs[j] (0 with no read when q is 0; one that
 *          cannot be read ends the walk before this frame: FAULT);
 *     p = *(p + @next_off); the walk ends at p == 0, or at p equal to the
 *          frame just walked (status OK).
 * It stops before a frame past @max_frames, or one whose words would pass
 * @max_bytes (status TRUNCATED: a chain of exactly @max_frames frames is
 * OK), or at a fault reading a frame or its code words (status FAULT:
 * the frames before it are kept); a failed read is never retried.
 *
 * Both ends of a long chain (@tail_frames): the walk records at most
 * @tail_frames fewer frames from the start (the head), then follows only
 * the next pointers (one 8-byte read a frame, at most @tail_skip of them)
 * to the chain's end, and records its last @tail_frames frames (the tail,
 * innermost first): a recursion deeper than the cap keeps its outermost
 * callers. The record's @nr_tail says how many of its frames are the
 * tail, with frames left out between head and tail; a chain that ends
 * within the head's room and @tail_frames more is recorded whole
 * (nr_tail 0, status OK). Not found within @tail_skip: the head alone,
 * status TRUNCATED (nr_tail 0); a next pointer that faults: the head,
 * status FAULT. The
 * walk reads with IRQs off and never faults a page in: a page not present
 * reads as unmapped, and so do pages ptrace's own access refuses
 * (memfd_secret(2) memory, VM_IO/VM_PFNMAP mappings) and the shared zero
 * page (memory never written). A sample makes at most
 * TPROF_UREAD_MAX_FAULTS failed reads in all (STATS uread_*).
 *
 * Which samples walk: those with user context (SAMPLE nr_user > 0; not
 * the exit path's) of a thread of the process, taken while that thread
 * is current on the CPU (CPU samples in the timer and at switch-out,
 * off-CPU samples right after the switch-in), in the mm the walk was set
 * for; each gets exactly one UWALK record, the last of its group. A
 * sample taken where current is not the sampled thread gets none (the
 * module takes none so today). On x86-64 the thread pointer is fs_base;
 * a compat (ia32) task has none: TP walks end NO_START, guards GUARD.
 * A group whose words do not fit in the ring is dropped whole (one lost
 * sample).
 */
#define TPROF_UWALK_START_TP	1
#define TPROF_UWALK_START_ADDR	2
#define TPROF_UWALK_START_TID	3

#define TPROF_UWALK_F_GUARD_TP	0x1U

#define TPROF_UWALK_MAX_STEPS	4
#define TPROF_UWALK_MAX_FIELDS	4
#define TPROF_UWALK_MAX_CODE_OFFS	2
#define TPROF_UWALK_NO_CODE	0xffffffffU	/* @code_field: no code deref */
#define TPROF_UWALK_DEFAULT_FRAMES	128
#define TPROF_UWALK_MAX_FRAMES	256
#define TPROF_UWALK_DEFAULT_BYTES	4096
#define TPROF_UWALK_MAX_BYTES	16384
#define TPROF_UWALK_MAX_TAIL	16
#define TPROF_UWALK_MAX_SKIP	8192

/**
 * struct tprof_uwalk_field - bytes one frame's walk records.
 * @off: offset from the frame's address.
 * @len: 1, 2, 4 or 8.
 */
struct tprof_uwalk_field {
	__u16 off;
	__u16 len;
};

/**
 * struct tprof_ioc_uwalk - TPROF_IOC_SET_UWALK argument: set (or, with
 *	@start 0, remove) the user-memory walk of a process the session
 *	follows. An exec of the process removes it (its memory is new): no
 *	sample walks from the exec's switch to the new mm on, and the
 *	reader sets it again after the EXEC record if it wants walks.
 *	Needs what snapshots need: a privileged session, or one enabled with
 *	TPROF_F_MEM_PROOF (the walk reads what ptrace attach could; the
 *	descendants of such a session are proven with /proc/PID/mem too).
 *	Errors: -EPERM (neither), -ESRCH (@pid is not a process the session
 *	reports: one it follows, admitted, not denied, not exiting; a
 *	pending descendant (TPROF_RF_PROC_PENDING) is not, until proven),
 *	-EINVAL (a bad descriptor; reserved fields not zero; the session is
 *	not enabled or has stopped). @size as ENABLE's: at least this
 *	struct, bytes past it zero. With @start 0 only @pid is looked at.
 * @size: sizeof(struct tprof_ioc_uwalk) as the caller knows it.
 * @pid: the process (the ENABLE caller's pid namespace).
 * @start: TPROF_UWALK_START_*, or 0 to remove the walk.
 * @flags: TPROF_UWALK_F_*.
 * @start_addr: TP: signed offset from the thread pointer; ADDR: the
 *	address (nonzero, in the user range); TID: 0.
 * @guard_off: with TPROF_UWALK_F_GUARD_TP, where the thread pointer must be
 *	found from the start's p (signed); else 0.
 * @nr_steps: dereferences after the start, at most TPROF_UWALK_MAX_STEPS.
 * @steps: their offsets (signed); unused ones 0.
 * @next_off: where a frame holds the address of the next one (signed).
 * @nr_fields: 1 to TPROF_UWALK_MAX_FIELDS.
 * @fields: what each frame records; unused ones 0.
 * @code_field: index into @fields of a pointer to follow once per frame,
 *	or TPROF_UWALK_NO_CODE.
 * @nr_code_offs: words read at that pointer, 1 to
 *	TPROF_UWALK_MAX_CODE_OFFS (0 with TPROF_UWALK_NO_CODE).
 * @code_offs: their offsets (signed); unused ones 0.
 * @code_mask: bits cleared from the pointer before it is followed (tags);
 *	0 with TPROF_UWALK_NO_CODE.
 * @max_frames: 0 means TPROF_UWALK_DEFAULT_FRAMES; at most
 *	TPROF_UWALK_MAX_FRAMES.
 * @max_bytes: bytes of words a record may carry; 0 means
 *	TPROF_UWALK_DEFAULT_BYTES; at most TPROF_UWALK_MAX_BYTES, at least
 *	one frame's words.
 * @tail_frames: the outermost frames of a longer chain to keep, at most
 *	TPROF_UWALK_MAX_TAIL, fewer than the frames @max_frames and
 *	@max_bytes allow; 0: none (a module before it refuses nonzero with
 *	-EINVAL).
 * @tail_skip: with @tail_frames, the frames past the head the walk may
 *	follow to find the end, 1 to TPROF_UWALK_MAX_SKIP; else 0.
 * @__reserved: zero.
 */
struct tprof_ioc_uwalk {
	__u32 size;
	__s32 pid;
	__u32 start;
	__u32 flags;
	__s64 start_addr;
	__s32 guard_off;
	__u32 nr_steps;
	__s32 steps[TPROF_UWALK_MAX_STEPS];
	__s32 next_off;
	__u32 nr_fields;
	struct tprof_uwalk_field fields[TPROF_UWALK_MAX_FIELDS];
	__u32 code_field;
	__u32 nr_code_offs;
	__s32 code_offs[TPROF_UWALK_MAX_CODE_OFFS];
	__u64 code_mask;
	__u32 max_frames;
	__u32 max_bytes;
	__u32 tail_frames;
	__u32 tail_skip;
	__u64 __reserved;
};

/**
 * struct tprof_ioc_uwalk_tid - TPROF_IOC_SET_UWALK_TID argument: the start
 *	address of one thread's walk (TPROF_UWALK_START_TID), for targets whose
 *	per-thread state the thread pointer cannot find.
 * @pid: the process.
 * @tid: its thread (the ENABLE caller's pid namespace).
 * @addr: the address the walk starts at (the thread's state); 0 forgets it.
 * Kept for the thread until it exits or its process execs, whether or not
 * the process has a walk yet. A thread that has not run since ENABLE
 * gets it at its first switch-in.
 * Errors: -ESRCH (@tid is not a live thread of @pid, or @pid not a process
 * the session reports), -ENOSPC (64 threads that have not
 * run yet wait with addresses already), -EPERM and -EINVAL as
 * TPROF_IOC_SET_UWALK.
 */
struct tprof_ioc_uwalk_tid {
	__s32 pid;
	__s32 tid;
	__u64 addr;
};

/**
 * struct tprof_ioc_stats - TPROF_IOC_STATS reply (session-wide totals).
 * @samples: SAMPLE records written (with TPROF_F_OFF_CPU, off-CPU ones too:
 *	THREAD_OFF counts those per thread).
 * @samples_weight_ns: sum of their weight_ns.
 * @lost_samples: samples dropped (ring full or record too large).
 * @lost_weight_ns: CPU time those samples stood for.
 * @lost_records: non-sample records dropped (THREAD, EXEC, ...).
 * @user_stack_faults: user walks ended by an unreadable frame, or by a
 *	record pointing down the stack (TPROF_RF_USER_FAULT).
 * @user_stack_truncated: user walks cut at max_user_frames.
 * @kernel_stack_truncated: kernel walks cut at max_kernel_frames.
 * @threads_seen: distinct threads that ran while enabled.
 * @threads_dropped: threads not tracked because the table was full.
 * @on_cpu_ns: exact on-CPU time of all tracked threads while enabled.
 * @sample_path_ns: with TPROF_F_PATH_TIMING, total time spent taking
 *	samples (stack walks and ring writes), for overhead measurements.
 * @sample_path_calls: number of samples it timed.
 * @late_timer_periods: periods folded into a later sample because the timer
 *	fired late (their weight is in that sample, never dropped).
 * @timer_arms: hrtimer (re)starts at switch-in (the callback's own
 *	re-arms are not counted: they need no reprogramming of their own).
 * @sched_ins: switch-ins of target threads (and starts of running ones).
 * @uwalks: UWALK records written (user-memory walks run; not those of
 *	groups a full ring dropped).
 * @uwalk_frames: frames those records carry.
 * @uwalk_faults: of them, walks ended by an unreadable start, step,
 *	frame or code word (FAULT_START, FAULT): each ends at its first.
 * @uwalk_truncated: of them, walks cut at max_frames or max_bytes.
 * @uwalk_path_ns: with TPROF_F_PATH_TIMING, of @sample_path_ns, the time
 *	spent in the walks.
 *
 * @uread_samples: samples that read user memory (a frame-pointer walk,
 *	a snapshot or a user-memory walk): what the next ones count over.
 * @uread_reads: user reads they made: each one copy of at most a page
 *	(a window of stack frames, a snapshot's piece, a walk's span or
 *	word), never faulting a page in.
 * @uread_faults: of them, reads that could not be made: a fault, or a
 *	page refused before the read (not present, or memory ptrace's own
 *	access refuses: memfd_secret(2) pages, VM_IO/VM_PFNMAP mappings).
 *	Each ends its walk (a snapshot: its copy).
 * @uread_page_checks: pages looked up before reading them (at most one
 *	per read; a sample remembers the last few it allowed).
 * @uread_capped: samples that reached the per-sample bound of failed
 *	reads (TPROF_UREAD_MAX_FAULTS); their later reads were not tried.
 * @uread_max_reads: the most reads one sample made.
 * @uread_max_faults: the most failed reads in one sample (at most
 *	TPROF_UREAD_MAX_FAULTS).
 *
 * @wakers: wakeups of followed threads whose waker was kept
 *	(TPROF_F_OFF_CPU: the sched_waking probe), the wait's latest.
 * @waker_records: WAKER records written, each before an off-CPU SAMPLE.
 * @wakers_dropped: WAKER records lost with their SAMPLE (ring full, or
 *	the sample could not be taken then).
 * @waker_stacks: wakers' stacks written (TPROF_F_WAKER_STACKS), each a
 *	WAKER (TPROF_RF_WAKER_WAKEUP) and SAMPLE (TPROF_RF_WAKE_STACK) group.
 * @waker_stacks_dropped: those lost (ring full, or a user-memory walk
 *	that could not be written).
 *
 * The fields from @uwalks on are new in TPROF_IOC_STATS_V2, those from
 * @uread_samples on in TPROF_IOC_STATS_V3, those from @wakers on in
 * TPROF_IOC_STATS_V4, those from @waker_stacks on in TPROF_IOC_STATS;
 * TPROF_IOC_STATS_V1 replies with the ones before @uwalks,
 * TPROF_IOC_STATS_V2 with those before @uread_samples,
 * TPROF_IOC_STATS_V3 with those before @wakers, TPROF_IOC_STATS_V4 with
 * those before @waker_stacks.
 */
struct tprof_ioc_stats {
	__u64 samples;
	__u64 samples_weight_ns;
	__u64 lost_samples;
	__u64 lost_weight_ns;
	__u64 lost_records;
	__u64 user_stack_faults;
	__u64 user_stack_truncated;
	__u64 kernel_stack_truncated;
	__u64 threads_seen;
	__u64 threads_dropped;
	__u64 on_cpu_ns;
	__u64 sample_path_ns;
	__u64 sample_path_calls;
	__u64 late_timer_periods;
	__u64 timer_arms;
	__u64 sched_ins;
	__u64 uwalks;
	__u64 uwalk_frames;
	__u64 uwalk_faults;
	__u64 uwalk_truncated;
	__u64 uwalk_path_ns;
	__u64 uread_samples;
	__u64 uread_reads;
	__u64 uread_faults;
	__u64 uread_page_checks;
	__u64 uread_capped;
	__u64 uread_max_reads;
	__u64 uread_max_faults;
	__u64 wakers;
	__u64 waker_records;
	__u64 wakers_dropped;
	__u64 waker_stacks;
	__u64 waker_stacks_dropped;
};

/* Failed user reads one sample may make, at most (STATS uread_capped). */
#define TPROF_UREAD_MAX_FAULTS	4

/* TPROF_IOC_STATS_V1's reply: struct tprof_ioc_stats up to @sched_ins. */
#define TPROF_SIZEOF_IOC_STATS_V1	128
/* TPROF_IOC_STATS_V2's reply: up to @uwalk_path_ns. */
#define TPROF_SIZEOF_IOC_STATS_V2	168
/* TPROF_IOC_STATS_V3's reply: up to @uread_max_faults. */
#define TPROF_SIZEOF_IOC_STATS_V3	224
/* TPROF_IOC_STATS_V4's reply: up to @wakers_dropped. */
#define TPROF_SIZEOF_IOC_STATS_V4	248

#define TPROF_IOC_INFO		_IOR(TPROF_IOC_MAGIC, 0, struct tprof_ioc_info)
#define TPROF_IOC_INFO_V1	_IOC(_IOC_READ, TPROF_IOC_MAGIC, 0, \
				     TPROF_SIZEOF_IOC_INFO_V1)
#define TPROF_IOC_ENABLE	_IOWR(TPROF_IOC_MAGIC, 1, struct tprof_ioc_enable)
/* ENABLE as the first modules numbered it: the same, with nothing out */
#define TPROF_IOC_ENABLE_V1	_IOW(TPROF_IOC_MAGIC, 1, struct tprof_ioc_enable)
#define TPROF_IOC_SET_THREAD_PERIOD \
	_IOW(TPROF_IOC_MAGIC, 2, struct tprof_ioc_thread_period)
#define TPROF_IOC_DISABLE	_IO(TPROF_IOC_MAGIC, 3)
#define TPROF_IOC_STATS		_IOR(TPROF_IOC_MAGIC, 4, struct tprof_ioc_stats)
#define TPROF_IOC_PROVE		_IOW(TPROF_IOC_MAGIC, 5, struct tprof_ioc_prove)
#define TPROF_IOC_STATS_V1	_IOC(_IOC_READ, TPROF_IOC_MAGIC, 4, \
				     TPROF_SIZEOF_IOC_STATS_V1)
/* STATS as the walk-capable modules numbered it: up to @uwalk_path_ns */
#define TPROF_IOC_STATS_V2	_IOC(_IOC_READ, TPROF_IOC_MAGIC, 4, \
				     TPROF_SIZEOF_IOC_STATS_V2)
/* STATS as the modules before wakers numbered it: up to @uread_max_faults */
#define TPROF_IOC_STATS_V3	_IOC(_IOC_READ, TPROF_IOC_MAGIC, 4, \
				     TPROF_SIZEOF_IOC_STATS_V3)
/* STATS as the modules before waker stacks numbered it: up to @wakers_dropped */
#define TPROF_IOC_STATS_V4	_IOC(_IOC_READ, TPROF_IOC_MAGIC, 4, \
				     TPROF_SIZEOF_IOC_STATS_V4)
#define TPROF_IOC_SET_UWALK	_IOW(TPROF_IOC_MAGIC, 6, struct tprof_ioc_uwalk)
#define TPROF_IOC_SET_UWALK_TID	\
	_IOW(TPROF_IOC_MAGIC, 7, struct tprof_ioc_uwalk_tid)

/*
 * Records, returned by read() whole (never split), native-endian, each
 * starting on an 8-byte boundary; hdr.size includes the header and padding.
 * Readers skip types they do not know by hdr.size. All pids/tids are in the
 * pid namespace of the process that called ENABLE.
 */
enum tprof_rec_type {
	TPROF_REC_SAMPLE	= 1,
	TPROF_REC_LOST		= 2,
	TPROF_REC_THREAD	= 3,
	TPROF_REC_THREAD_EXIT	= 4,
	TPROF_REC_THREAD_STAT	= 5,
	TPROF_REC_EXEC		= 6,
	TPROF_REC_PROC_EXIT	= 7,
	TPROF_REC_DENIED	= 8,
	TPROF_REC_USTACK	= 9,
	TPROF_REC_MMAP		= 10,
	TPROF_REC_PROC		= 11,
	TPROF_REC_THREAD_OFF	= 12,
	TPROF_REC_THROTTLE	= 13,
	TPROF_REC_UWALK		= 14,
	TPROF_REC_WAKER		= 15,
};

/*
 * Any record type: the record right after this one (same ring, next in
 * the stream) belongs to it; read() returns both or neither, and a full
 * ring drops both. A SAMPLE's USTACK record follows it so.
 */
#define TPROF_RF_GROUP			0x8000U

/**
 * struct tprof_rec_hdr - common record header.
 * @type: enum tprof_rec_type.
 * @flags: per-type TPROF_RF_* flags.
 * @size: bytes of the record including this header; multiple of 8.
 * @time_ns: CLOCK_MONOTONIC ns when the record was produced.
 */
struct tprof_rec_hdr {
	__u16 type;
	__u16 flags;
	__u32 size;
	__u64 time_ns;
};

/* SAMPLE flags */
#define TPROF_RF_USER_TRUNCATED		0x1U  /* hit max_user_frames */
/*
 * The user walk ended on a fault, or on a frame record whose next frame
 * pointer is not 0 and not above it (a frame pointer that was none: code
 * built without them left a value there): not at the ABI's end of the
 * chain, a zero frame pointer. The reader marks such a chain cut.
 */
#define TPROF_RF_USER_FAULT		0x2U
#define TPROF_RF_KERNEL_TRUNCATED	0x4U
#define TPROF_RF_LATE			0x8U  /* weight_ns > period_ns */
#define TPROF_RF_OFF_CPU		0x10U /* off-CPU time: see off_state */
#define TPROF_RF_EXITING		0x20U /* in do_exit(): the exit path */
/*
 * TPROF_ABI_ARM64/ARM32: ips[nr_kernel + 1] is the interrupted link register
 * (x30, PAC stripped; AArch32: lr), not a frame record's return address.
 * A frameless leaf, or a function before its prologue stores its frame
 * record, has its caller only there: the frame-pointer chain that follows
 * starts at the caller's record. Elsewhere it is stale: an address in the
 * function at ips[nr_kernel] (a call it made returned there), or the same
 * address as the chain's first entry; the reader drops it then.
 */
#define TPROF_RF_USER_LR		0x40U
/*
 * With TPROF_RF_EXITING: only this thread was leaving, the rest of its
 * process lived on (no group exit in progress, another thread live): a
 * reader says "thread exit", not "process exit". A reader that does not
 * know the flag sees the exit path as before.
 */
#define TPROF_RF_THREAD_EXIT		0x80U
/*
 * arm64: ips[1] is the interrupted kernel link register (x30, PAC
 * stripped), not a frame record's return address: a frameless kernel leaf
 * (__arch_clear_user) has its caller only there, and the frame records
 * from x29 start at the caller's. As TPROF_RF_USER_LR, it is stale where
 * it points into the function at ips[0] or equals ips[2]; the reader,
 * which has the kernel's symbols, drops it then. Only with ips[0] the
 * interrupted pc (a timer sample in kernel mode).
 */
#define TPROF_RF_KERNEL_LR		0x100U
/*
 * TPROF_F_WAKER_STACKS: not a sample of CPU or off-CPU time but the stack
 * of a waker at a wakeup (weight_ns and period_ns 0), right after the
 * WAKER record (TPROF_RF_WAKER_WAKEUP) of that wakeup, in its group; a
 * reader that does not join it to a wait must not count it.
 */
#define TPROF_RF_WAKE_STACK		0x200U

/* Off-CPU states: how a thread left the CPU (SAMPLE off_state, THREAD_OFF). */
#define TPROF_OFF_SLEEPING	1	/* blocked, interruptible (S, also T) */
#define TPROF_OFF_BLOCKED	2	/* blocked, uninterruptible (D): I/O */
#define TPROF_OFF_RUNNABLE	3	/* preempted, still runnable (R) */

/* SAMPLE abi */
#define TPROF_ABI_NONE		0	/* no user context (kernel-only) */
#define TPROF_ABI_X86_64	1
#define TPROF_ABI_IA32		2	/* 32-bit compat task: ips are u32 values */
#define TPROF_ABI_ARM64		3
/*
 * AArch32 compat task on arm64: ips are u32 values, the pc and (flag
 * TPROF_RF_USER_LR) lr only: Debian's armhf code is Thumb-2, whose frame
 * pointer (r7) no walk can trust, and its samples carry no USTACK.
 */
#define TPROF_ABI_ARM32		4

/**
 * struct tprof_rec_sample - one sample, followed by
 *	__u64 ips[nr_kernel + nr_user]: kernel ips first (innermost first),
 *	then user ips (ips[nr_kernel] is the interrupted user pc, the rest are
 *	return addresses, innermost first).
 * @hdr: type TPROF_REC_SAMPLE.
 * @pid: thread-group id.
 * @tid: thread id.
 * @cpu: CPU the sample was taken on.
 * @nr_user: number of user ips.
 * @nr_kernel: number of kernel ips.
 * @weight_ns: CPU time this sample stands for: normally @period_ns; more
 *	when the timer fired late (the whole elapsed budget is credited).
 *	With TPROF_RF_OFF_CPU: off-CPU time, a multiple of @period_ns (every
 *	point the time away crossed).
 * @period_ns: the thread's period when the sample was taken (off-CPU
 *	period for TPROF_RF_OFF_CPU).
 * @abi: TPROF_ABI_*.
 * @off_state: with TPROF_RF_OFF_CPU, TPROF_OFF_*: how the thread left the
 *	CPU before the time away (a wait's wakeup latency counts with it);
 *	else 0. The stacks are those of that switch-out: kernel ips from
 *	the scheduler (the walk starts in the switch-in that resumes it),
 *	user ips where it entered the kernel.
 *
 * With TPROF_F_USER_SNAPSHOT, a sample with user context has
 * TPROF_RF_GROUP and its TPROF_REC_USTACK record comes right after it.
 * When its process has a user-memory walk (TPROF_IOC_SET_UWALK), the
 * sample's TPROF_REC_UWALK record comes last in the group (after the
 * USTACK, which then has TPROF_RF_GROUP too).
 */
struct tprof_rec_sample {
	struct tprof_rec_hdr hdr;
	__u32 pid;
	__u32 tid;
	__u32 cpu;
	__u16 nr_user;
	__u16 nr_kernel;
	__u64 weight_ns;
	__u64 period_ns;
	__u32 abi;
	__u32 off_state;
};

/* USTACK flags */
#define TPROF_RF_USTACK_PARTIAL		0x1U  /* copy ended at an unreadable page */
/*
 * TPROF_F_SNAPSHOT_BELOW, 64-bit tasks: stack[] starts at regs[SP] -
 * TPROF_SNAPSHOT_BELOW_BYTES, and @stack_req and @stack_bytes count those
 * bytes too. Without it (an ia32 task, or the bytes below sp could not be
 * read) stack[] starts at regs[SP].
 */
#define TPROF_RF_USTACK_BELOW		0x2U
/*
 * TPROF_F_USTACK_CHAIN: the SAMPLE's user ips are the pc (and the link
 * register) only; its frame-pointer chain is here. After stack[] and its
 * padding come a struct tprof_ustack_chain and __u64 ips[nr_outer]. The
 * chain is: @nr_inner frame records {next, return address} walked in
 * stack[] from the frame pointer of regs[] (TPROF_UREG_BP, TPROF_AREG_FP),
 * each at an 8-byte aligned address with its 16 bytes in stack[] (arm64:
 * return addresses with their PAC stripped, as the SAMPLE's), then ips[].
 * The SAMPLE's TPROF_RF_USER_TRUNCATED and TPROF_RF_USER_FAULT are the
 * whole chain's.
 */
#define TPROF_RF_USTACK_CHAIN		0x4U

/* struct tprof_rec_ustack regs[]: perf's PERF_REG_X86_* without segments. */
enum tprof_ureg {
	TPROF_UREG_AX, TPROF_UREG_BX, TPROF_UREG_CX, TPROF_UREG_DX,
	TPROF_UREG_SI, TPROF_UREG_DI, TPROF_UREG_BP, TPROF_UREG_SP,
	TPROF_UREG_IP, TPROF_UREG_FLAGS,
	TPROF_UREG_R8, TPROF_UREG_R9, TPROF_UREG_R10, TPROF_UREG_R11,
	TPROF_UREG_R12, TPROF_UREG_R13, TPROF_UREG_R14, TPROF_UREG_R15,
	TPROF_UREG_NR
};

/*
 * struct tprof_rec_ustack regs[] for TPROF_ABI_ARM64: the registers an
 * AArch64 CFI unwinder needs, in the first TPROF_AREG_NR slots (the rest 0):
 * the callee-saved x19-x28, the frame record's x29 (fp) and x30 (lr, PAC
 * stripped), sp and pc. The caller-saved x0-x18 do not survive a call, so no
 * frame's CFI above the innermost can need them, and the innermost frame's
 * rules use sp or x29 (perf's --call-graph dwarf records all 33; a CFA rule
 * on x0-x18 ends the walk here).
 */
enum tprof_ureg_arm64 {
	TPROF_AREG_X19, TPROF_AREG_X20, TPROF_AREG_X21, TPROF_AREG_X22,
	TPROF_AREG_X23, TPROF_AREG_X24, TPROF_AREG_X25, TPROF_AREG_X26,
	TPROF_AREG_X27, TPROF_AREG_X28, TPROF_AREG_FP, TPROF_AREG_LR,
	TPROF_AREG_SP, TPROF_AREG_PC,
	TPROF_AREG_NR
};

/**
 * struct tprof_rec_ustack - user registers and the top of the user stack
 *	of one sample (TPROF_F_USER_SNAPSHOT), for unwinding with the
 *	binaries' CFI; follows its SAMPLE record (which has TPROF_RF_GROUP),
 *	followed by __u8 stack[@stack_bytes] (the user memory from
 *	regs[TPROF_UREG_SP] up), then zero padding to 8 bytes.
 * @hdr: type TPROF_REC_USTACK; time_ns is the sample's.
 * @tid: thread id (the sample's).
 * @abi: TPROF_ABI_X86_64, or TPROF_ABI_IA32: registers are the 32-bit
 *	ones zero-extended (r8-r15 are 0) and the stack holds 4-byte words,
 *	or TPROF_ABI_ARM64. It names the register set of @regs.
 * @regs: the user registers the sample interrupted (or, for a sample taken
 *	in the kernel, those saved at its entry), by enum tprof_ureg (x86) or
 *	enum tprof_ureg_arm64.
 * @stack_req: bytes asked for: snapshot_bytes, less where the user address
 *	space ends first.
 * @stack_bytes: bytes copied, at most @stack_req; fewer (flag
 *	TPROF_RF_USTACK_PARTIAL) when the copy reached a page it could not
 *	read without faulting (unmapped, or not present: no fault is taken
 *	while sampling).
 */
struct tprof_rec_ustack {
	struct tprof_rec_hdr hdr;
	__u32 tid;
	__u32 abi;
	__u64 regs[TPROF_UREG_NR];
	__u32 stack_req;
	__u32 stack_bytes;
};

/**
 * struct tprof_ustack_chain - the frame-pointer chain of a USTACK record
 *	with TPROF_RF_USTACK_CHAIN, after its stack[] and padding; followed by
 *	__u64 ips[@nr_outer].
 * @nr_inner: frame records to walk in stack[], innermost first.
 * @nr_outer: return addresses of the chain past them, from user memory.
 */
struct tprof_ustack_chain {
	__u32 nr_inner;
	__u32 nr_outer;
};

/* UWALK status: how the walk ended */
#define TPROF_UWALK_OK		0	/* at a 0 or repeated next frame */
#define TPROF_UWALK_NO_START	1	/* no state: a 0 start or step */
#define TPROF_UWALK_GUARD	2	/* the guard word is not the TP */
#define TPROF_UWALK_FAULT_START	3	/* start or step unreadable */
/* a frame or its code words unreadable; the frames before it kept */
#define TPROF_UWALK_FAULT	4
#define TPROF_UWALK_TRUNCATED	5	/* max_frames or max_bytes */

/**
 * struct tprof_rec_uwalk - the user-memory walk of one sample (see
 *	TPROF_IOC_SET_UWALK), last record of its SAMPLE's group; followed by
 *	__u64 words[@nr_frames * @words_per_frame], innermost frame first,
 *	each frame's words in the descriptor's order: its fields, then its
 *	code words.
 * @hdr: type TPROF_REC_UWALK; time_ns is the sample's.
 * @tid: thread id (the sample's).
 * @status: TPROF_UWALK_*.
 * @words_per_frame: nr_fields + nr_code_offs of the descriptor walked.
 * @nr_frames: frames recorded.
 * @nr_tail: of them, the last ones that are the chain's outermost
 *	(@tail_frames of the descriptor): frames were left out before them.
 *	0: the frames are one run from the start.
 * @__pad: zero.
 * @start: p after the start and guard, before the steps (the thread's
 *	state, for CPython); 0 with NO_START at the start.
 */
struct tprof_rec_uwalk {
	struct tprof_rec_hdr hdr;
	__u32 tid;
	__u16 status;
	__u16 words_per_frame;
	__u32 nr_frames;
	__u16 nr_tail;
	__u16 __pad;
	__u64 start;
};

/**
 * struct tprof_rec_lost - samples dropped on this CPU since the last LOST
 *	record (written before the next record that fits).
 * @hdr: type TPROF_REC_LOST.
 * @lost_samples: samples dropped.
 * @lost_weight_ns: CPU time they stood for.
 * @lost_records: other records dropped.
 */
struct tprof_rec_lost {
	struct tprof_rec_hdr hdr;
	__u64 lost_samples;
	__u64 lost_weight_ns;
	__u64 lost_records;
};

/* THREAD flags */
#define TPROF_RF_THREAD_EXISTING	0x1U  /* already running at ENABLE */

/**
 * struct tprof_rec_thread - a thread of the target: every existing thread at
 *	ENABLE, every new one at creation, and again when its comm changes at
 *	exec.
 * @hdr: type TPROF_REC_THREAD.
 * @pid: thread-group id.
 * @tid: thread id.
 * @comm: task comm, NUL-padded.
 */
struct tprof_rec_thread {
	struct tprof_rec_hdr hdr;
	__u32 pid;
	__u32 tid;
	__u8 comm[16];
};

/**
 * struct tprof_rec_thread_stat - exact accounting of one thread.
 *	TPROF_REC_THREAD_EXIT when the thread exits; TPROF_REC_THREAD_STAT for
 *	threads still alive at DISABLE (or when the session file is drained
 *	after the target exited).
 * @hdr: type TPROF_REC_THREAD_EXIT or TPROF_REC_THREAD_STAT.
 * @pid: thread-group id.
 * @tid: thread id.
 * @on_cpu_ns: the thread's exact on-CPU time while the session was enabled.
 * @samples: SAMPLE records produced for it (delivered or lost).
 * @weight_ns: sum of those samples' weight_ns (delivered or lost).
 * @lost_samples: of @samples, how many were dropped.
 * @lost_weight_ns: of @weight_ns, how much was dropped.
 * @period_ns: the thread's period at the end.
 * @comm: task comm, NUL-padded.
 */
struct tprof_rec_thread_stat {
	struct tprof_rec_hdr hdr;
	__u32 pid;
	__u32 tid;
	__u64 on_cpu_ns;
	__u64 samples;
	__u64 weight_ns;
	__u64 lost_samples;
	__u64 lost_weight_ns;
	__u64 period_ns;
	__u8 comm[16];
};

/**
 * struct tprof_rec_thread_off - exact off-CPU accounting of one thread
 *	(TPROF_F_OFF_CPU), written just before its THREAD_EXIT or
 *	THREAD_STAT record, and at the end for a thread of a followed
 *	process that never ran while the session was enabled (all of its
 *	time off-CPU, in the state it is in then, unsampled).
 *	@begin_ns to the record's hdr.time_ns is the thread's time in the
 *	session, which on-CPU time (THREAD_EXIT/STAT), the three off-CPU
 *	times and @irq_ns fill; they are the scheduler's clock, the span
 *	CLOCK_MONOTONIC.
 * @hdr: type TPROF_REC_THREAD_OFF.
 * @pid: thread-group id.
 * @tid: thread id.
 * @begin_ns: CLOCK_MONOTONIC: ENABLE, or the thread's creation if later.
 * @sleeping_ns: off-CPU time after switch-outs in TPROF_OFF_SLEEPING.
 * @blocked_ns: ditto TPROF_OFF_BLOCKED.
 * @runnable_ns: ditto TPROF_OFF_RUNNABLE (and a new thread's wait for its
 *	first run).
 * @irq_ns: neither: time the thread was on a CPU that served interrupts
 *	(and steal time), which its on-CPU time leaves out on kernels with
 *	CONFIG_IRQ_TIME_ACCOUNTING (or PARAVIRT_TIME_ACCOUNTING); else 0.
 * @samples: off-CPU SAMPLE records produced for it (delivered or lost).
 * @weight_ns: their weight.
 * @lost_samples: of @samples, how many were dropped (or could not be
 *	taken: the session may not sample the thread then).
 * @lost_weight_ns: of @weight_ns, how much was dropped.
 * @unsampled_ns: of the off-CPU time, the part past the thread's last
 *	switch-in: a wait still going on at the end, accounted, not sampled
 *	(its stack cannot be read from outside the thread).
 * @period_ns: the off-CPU period.
 */
struct tprof_rec_thread_off {
	struct tprof_rec_hdr hdr;
	__u32 pid;
	__u32 tid;
	__u64 begin_ns;
	__u64 sleeping_ns;
	__u64 blocked_ns;
	__u64 runnable_ns;
	__u64 irq_ns;
	__u64 samples;
	__u64 weight_ns;
	__u64 lost_samples;
	__u64 lost_weight_ns;
	__u64 unsampled_ns;
	__u64 period_ns;
};

/**
 * struct tprof_rec_throttle - an unprivileged session's sampling took more
 *	of a CPU than the module allows (module parameter sample_cpu_percent
 *	of each window_ns, as perf_cpu_time_max_percent): its periods are
 *	stretched by 2^@shift from each thread's next sample point on, for
 *	the rest of the session. Weights stay exact (each SAMPLE carries its
 *	period); only the sampling rate falls.
 * @hdr: type TPROF_REC_THROTTLE.
 * @cpu: the CPU whose budget it exceeded.
 * @shift: the session's stretch now (periods x 2^@shift).
 * @path_ns: time its samples took on @cpu in the window.
 * @window_ns: the window.
 * @count: throttles of the session so far (this one included).
 */
struct tprof_rec_throttle {
	struct tprof_rec_hdr hdr;
	__u32 cpu;
	__u32 shift;
	__u64 path_ns;
	__u64 window_ns;
	__u64 count;
};

/**
 * struct tprof_rec_exec - the target called execve(); mappings changed.
 * @hdr: type TPROF_REC_EXEC.
 * @pid: thread-group id.
 * @tid: the thread that exec'd (now the leader, tid == pid).
 * @old_tid: its tid before exec (differs when a non-leader exec'd).
 * @__pad: zero.
 * @comm: new comm, NUL-padded.
 */
struct tprof_rec_exec {
	struct tprof_rec_hdr hdr;
	__u32 pid;
	__u32 tid;
	__u32 old_tid;
	__u32 __pad;
	__u8 comm[16];
};

/* MMAP prot */
#define TPROF_MMAP_EXEC		0x1U	/* the mapping is executable */

/**
 * struct tprof_rec_mmap - an executable mapping of the target appeared or
 *	changed (mmap(2) of any kind, mprotect(2) to or of PROT_EXEC): code at
 *	[start, end) may differ from what /proc/PID/maps read before
 *	@hdr.time_ns showed there (a library dlopen'ed where a dlclose'd one
 *	was). Sent when the kernel reports the mapping to perf
 *	(perf_event_mmap()), by the thread that made it; not for exec (EXEC).
 *	Where the module cannot watch for them (no kprobes) it sends none and
 *	says so once in the kernel log.
 * @hdr: type TPROF_REC_MMAP.
 * @pid: thread-group id.
 * @tid: the thread that mapped.
 * @start: first address.
 * @end: first address past the mapping.
 * @pgoff: file offset of @start in bytes (0 for anonymous memory).
 * @inode: the file's inode number, 0 for anonymous memory.
 * @dev_major: the file's device, as in /proc/PID/maps.
 * @dev_minor: ditto.
 * @prot: TPROF_MMAP_*.
 * @__pad: zero.
 */
struct tprof_rec_mmap {
	struct tprof_rec_hdr hdr;
	__u32 pid;
	__u32 tid;
	__u64 start;
	__u64 end;
	__u64 pgoff;
	__u64 inode;
	__u32 dev_major;
	__u32 dev_minor;
	__u32 prot;
	__u32 __pad;
};

/* PROC flags */
#define TPROF_RF_PROC_EXISTING		0x1U  /* a descendant already there at ENABLE */
#define TPROF_RF_PROC_DROPPED		0x2U  /* not followed: TPROF_MAX_PROCS */
#define TPROF_RF_PROC_PENDING		0x4U  /* followed once proven (TPROF_IOC_PROVE) */
/* With DROPPED: @pid 0, @ppid the number of descendants ENABLE did not follow */
#define TPROF_RF_PROC_COUNT		0x8U
/*
 * The session's last PROC record (TPROF_F_CHILDREN): @pid the processes it
 * followed in all (the target included), @ppid those it did not
 * (TPROF_MAX_PROCS): exact, where a PROC record lost with a full ring
 * would leave a reader's own count short.
 */
#define TPROF_RF_PROC_TOTALS		0x10U
/* TPROF_F_CGROUP: it joined when it was moved into the cgroup subtree */
#define TPROF_RF_PROC_MOVED		0x20U

/**
 * struct tprof_rec_proc - a process joined a TPROF_F_CHILDREN session
 *	(written before its THREAD records), or, with TPROF_RF_PROC_DROPPED,
 *	was forked by a followed process and is not followed.
 * @hdr: type TPROF_REC_PROC.
 * @pid: its thread-group id.
 * @ppid: the followed process that forked it (for EXISTING: its parent).
 * @comm: its comm, NUL-padded.
 * @cgroup_id: its cgroup v2 id at the record's time (the id
 *	bpf_get_current_cgroup_id() gives: on 64-bit kernels, the inode
 *	number of its cgroup2 directory), so that a reader that gets to the
 *	record after the process is gone still names its cgroup (the
 *	directory outlives it). 0 with no comm (PENDING, DROPPED, TOTALS).
 *	New: a record of TPROF_SIZEOF_REC_PROC_V1 bytes (older modules)
 *	ends before it.
 */
struct tprof_rec_proc {
	struct tprof_rec_hdr hdr;
	__u32 pid;
	__u32 ppid;
	__u8 comm[16];
	__u64 cgroup_id;
};

/**
 * struct tprof_rec_proc_exit - a followed process exited (every thread of
 *	it); after its THREAD_EXIT records. The session's last record is the
 *	PROC_EXIT of its last process, apart from THREAD_EXIT/LOST records
 *	already queued.
 * @hdr: type TPROF_REC_PROC_EXIT.
 * @pid: thread-group id.
 * @exit_code: the group exit code as in wait(2) status.
 */
struct tprof_rec_proc_exit {
	struct tprof_rec_hdr hdr;
	__u32 pid;
	__s32 exit_code;
};

/*
 * DENIED reasons: CREDS, the target's uids or gids changed (a setuid/setgid
 * exec, a set*id() call); DUMPABLE, its mm is no longer SUID_DUMP_USER
 * (prctl(PR_SET_DUMPABLE), or an exec of a file the user may not read);
 * PTRACE, a descendant (TPROF_F_CHILDREN) the session's caller may not
 * ptrace as its proof stands for: ptrace_may_access() in attach mode for
 * snapshot sessions, read mode otherwise (Yama, LSMs, capabilities);
 * LABEL, its LSM security label changed without exec (SELinux setcon,
 * AppArmor change_profile/change_hat) or at one: the LSM may refuse the
 * caller's ptrace now, and a hard interrupt cannot ask it.
 */
#define TPROF_DENIED_CREDS	1
#define TPROF_DENIED_DUMPABLE	2
#define TPROF_DENIED_PTRACE	3
#define TPROF_DENIED_LABEL	4
#define TPROF_DENIED_CGROUP	5

/**
 * struct tprof_rec_denied - a process of an unprivileged session stopped
 *	being profilable by the caller (see struct tprof_ioc_enable), or a
 *	descendant at ENABLE was not (TPROF_F_CHILDREN); no SAMPLE, THREAD,
 *	EXEC, MMAP or PROC record of it follows. Accounting records
 *	(THREAD_EXIT, THREAD_STAT, LOST) may. Without TPROF_F_CHILDREN, or
 *	for its last process, the session ends (not a TPROF_F_CGROUP one).
 *	In a TPROF_F_CGROUP session it also says that a process moved out
 *	of the subtree (TPROF_DENIED_CGROUP).
 * @hdr: type TPROF_REC_DENIED.
 * @pid: thread-group id.
 * @reason: TPROF_DENIED_*.
 */
struct tprof_rec_denied {
	struct tprof_rec_hdr hdr;
	__u32 pid;
	__u32 reason;
};

/* WAKER kind: who or what woke the thread (sched_waking's context) */
#define TPROF_WAKER_TASK	1	/* a thread of the same process */
#define TPROF_WAKER_SESSION	2	/* a thread of another process followed */
#define TPROF_WAKER_OTHER	3	/* a thread of a process not followed */
#define TPROF_WAKER_KTHREAD	4	/* a kernel thread (idle included) */
#define TPROF_WAKER_HARDIRQ	5	/* a hard interrupt (a timer, I/O) */
#define TPROF_WAKER_SOFTIRQ	6	/* a softirq (or an NMI's irq_work) */

/*
 * WAKER flags: written at the wakeup (TPROF_F_WAKER_STACKS), in the
 * waker's context and on its CPU's ring, not at the switch-in: the SAMPLE
 * right after it in its group (TPROF_RF_WAKE_STACK, of @waker_tid, same
 * hdr.time_ns) is the waker's stack then. @pid, @tid and @seq name the
 * wait it ended, whose off-CPU SAMPLE's WAKER record has the same @seq
 * (on the woken thread's CPU's ring: the two may come in either order).
 */
#define TPROF_RF_WAKER_WAKEUP		0x1U

/**
 * struct tprof_rec_waker - who ended the wait an off-CPU SAMPLE stands
 *	for (TPROF_F_OFF_CPU): the last wakeup of the thread before it ran
 *	again, as the kernel's sched_waking tracepoint saw it, in the
 *	waker's context. Written with TPROF_RF_GROUP right before that
 *	SAMPLE (same @tid, same hdr.time_ns), in one reservation: read()
 *	returns both, a full ring drops both. Only for waits that ended
 *	with a wakeup (not a preemption: TPROF_OFF_RUNNABLE has none).
 *	Readers that do not know the type skip it; the SAMPLE stands alone.
 * @hdr: type TPROF_REC_WAKER.
 * @pid: the woken thread's thread-group id.
 * @tid: the woken thread.
 * @kind: TPROF_WAKER_*.
 * @waker_pid: the waker's thread-group id, 0 when the session may not
 *	sample it (not followed by this session and the session not
 *	privileged), for interrupts, or not in the session's pid namespace.
 * @waker_tid: ditto, its thread id.
 * @seq: with TPROF_F_WAKER_STACKS, the number of the wait (per woken
 *	thread, from 1) whose waker's stack was taken at the wakeup
 *	(TPROF_RF_WAKER_WAKEUP); 0 when none was (not asked, not allowed,
 *	the wait had not neared its sample point then, or no user context).
 *	Modules before waker stacks wrote 0 here.
 * @waker_comm: its comm, NUL-padded; empty exactly when @waker_tid is 0.
 */
struct tprof_rec_waker {
	struct tprof_rec_hdr hdr;
	__u32 pid;
	__u32 tid;
	__u32 kind;
	__u32 waker_pid;
	__u32 waker_tid;
	__u32 seq;
	__u8 waker_comm[16];
};

/*
 * Layout is ABI: the sizes are static_assert()ed on both sides of the
 * contract (kmod/dev.c and userspace), for 32- and 64-bit builds.
 */
#define TPROF_SIZEOF_IOC_INFO		80
#define TPROF_SIZEOF_IOC_ENABLE		80
#define TPROF_SIZEOF_IOC_THREAD_PERIOD	16
#define TPROF_SIZEOF_IOC_STATS		264
#define TPROF_SIZEOF_IOC_UWALK		120
#define TPROF_SIZEOF_IOC_UWALK_TID	16
#define TPROF_SIZEOF_IOC_PROVE		8
#define TPROF_SIZEOF_REC_HDR		16
#define TPROF_SIZEOF_REC_SAMPLE		56
#define TPROF_SIZEOF_REC_LOST		40
#define TPROF_SIZEOF_REC_THREAD		40
#define TPROF_SIZEOF_REC_THREAD_STAT	88
#define TPROF_SIZEOF_REC_EXEC		48
#define TPROF_SIZEOF_REC_PROC_EXIT	24
#define TPROF_SIZEOF_REC_DENIED		24
#define TPROF_SIZEOF_REC_USTACK		176
#define TPROF_SIZEOF_REC_MMAP		72
#define TPROF_SIZEOF_REC_PROC		48
/* a PROC record of older modules: up to @comm */
#define TPROF_SIZEOF_REC_PROC_V1	40
#define TPROF_SIZEOF_REC_THREAD_OFF	112
#define TPROF_SIZEOF_REC_THROTTLE	48
#define TPROF_SIZEOF_REC_UWALK		40
#define TPROF_SIZEOF_REC_WAKER		56
#define TPROF_SIZEOF_USTACK_CHAIN	8

#endif /* _UAPI_TPROF_H */
