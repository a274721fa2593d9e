/* SPDX-License-Identifier: GPL-2.0 */
/* ktest: shared helpers of the tprof.ko in-guest test client. */
#ifndef KTEST_H
#define KTEST_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "uapi/tprof.h"

typedef uint64_t u64;

#define MS	1000000ULL	/* ns */
#define US	1000ULL
typedef uint32_t u32;

extern int failures;

void ok(bool cond, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

u64 now_ns(void);
long long within_p(u64 p);
u64 thread_cpu_ns(void);
pid_t gettid_(void);
void spin_cpu(u64 ns);
void spin_iters(u64 iters);
u64 schedstat_ns(pid_t pid, pid_t tid);
void prctl_death(void);

int dev_open(void);
int enable(int fd, pid_t pid, u64 period, u32 flags, u32 ring_bytes);
int enable_raw(int fd, struct tprof_ioc_enable *e);
int disable(int fd);
int get_stats(int fd, struct tprof_ioc_stats *st);
int set_period(int fd, pid_t tid, u64 period);

/* Per-thread view of the records of one session. */
struct thr {
	u32 tid;
	u64 samples;		/* delivered SAMPLE records */
	u64 weight;		/* their weight_ns */
	u64 first_period;	/* period_ns of the first sample */
	u64 period_seen;	/* period_ns of the last sample */
	u64 bad_period;		/* samples whose weight is not k * period */
	int nthread;		/* THREAD records */
	int nexisting;		/* ... flagged EXISTING */
	int nexit;		/* THREAD_EXIT records */
	int nstat;		/* THREAD_STAT records */
	struct tprof_rec_thread_stat st;	/* the last of them */
};

/* A wait a WAKER record names (TPROF_F_WAKER_STACKS): tid and number */
struct wait_key {
	u32 tid, seq, waker_tid;
};

struct sum;
typedef void (*sample_cb)(struct sum *s, const struct tprof_rec_sample *r,
			  const u64 *ips);
/* A USTACK record and the SAMPLE it follows (the read buffer's previous). */
typedef void (*ustack_cb)(struct sum *s, const struct tprof_rec_sample *r,
			  const u64 *ips, const struct tprof_rec_ustack *u,
			  const unsigned char *stack);
/* A UWALK record (the last of its SAMPLE's group) and that SAMPLE. */
typedef void (*uwalk_cb)(struct sum *s, const struct tprof_rec_sample *r,
			 const struct tprof_rec_uwalk *w, const u64 *words);
/* A SAMPLE's group is complete: @uwalk if it had a UWALK record. */
typedef void (*group_cb)(struct sum *s, const struct tprof_rec_sample *r,
			 bool uwalk);

struct sum {
	u32 pid;
	struct thr *t;
	size_t n, cap;
	u64 samples, weight, late;
	u64 lost_recs, lost_samples, lost_weight, lost_records;
	u64 bad;		/* malformed or foreign records */
	u64 bytes;
	int nexec, nproc_exit;
	int32_t exit_code;
	int ndenied;		/* DENIED records */
	u32 denied_reason;
	u64 denied_time;
	u64 max_exit_time;	/* latest THREAD_EXIT time_ns */
	struct tprof_rec_exec exec[4];
	int nmmap;		/* MMAP records */
	struct tprof_rec_mmap mmap[16];	/* the first of them */
	u64 proc_exit_time;
	bool eof;
	u64 ustacks;		/* USTACK records right after their SAMPLE */
	u64 bad_groups;		/* a TPROF_RF_GROUP SAMPLE without its USTACK
				 * next in the same read(), or a stray USTACK */
	u64 uwalks;		/* UWALK records last in their SAMPLE's group */
	u64 uwalk_frames;	/* their nr_frames */
	u64 wakers;		/* WAKER records first in an off-CPU group */
	u64 wake_stacks;	/* SAMPLEs of a waker (TPROF_RF_WAKE_STACK) */
	/* WAKER records with a wait number: at the wakeup (with the
	 * waker's stack), at the switch-in (with the wait's sample) */
	struct wait_key *wk_up, *wk_in;
	size_t n_up, n_in, cap_up, cap_in;
	sample_cb on_sample;
	sample_cb on_wake_stack;
	ustack_cb on_ustack;
	uwalk_cb on_uwalk;
	group_cb on_group;
	void *priv;
};

void sum_init(struct sum *s, u32 pid);
void sum_free(struct sum *s);
struct thr *thr_get(struct sum *s, u32 tid);
struct thr *thr_find(struct sum *s, u32 tid);
void parse(struct sum *s, const char *buf, size_t len);
int drain(int fd, struct sum *s);
bool read_to_eof(int fd, struct sum *s, int timeout_ms);

/* Workload children (fork of this program), driven over pipes. */
struct child {
	pid_t pid;
	int go_w;
	int rep_r;
	char buf[65536];
	size_t len;
};

struct report {
	int n;
	struct {
		int tid;
		int role;
		u64 cpu;
	} e[4096];
	int ready;
	int rtid[4096];		/* tids of "R" lines */
	int rrole[4096];
	bool done;
	bool has_dead_cpu;
	u64 dead_cpu;		/* "S": CPU of the process's exited threads */
	bool has_x;		/* "X start end": a text range the child names */
	u64 x_start, x_end;
};

void spawn(struct child *c, void (*fn)(void *), void *arg);
void child_go(struct child *c);
void child_wait_go(void);
int child_report_fd(void);
void child_report(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
bool collect(struct child *c, struct report *r, int want_ready, bool want_done,
	     int timeout_ms, int fd, struct sum *s);
int child_finish(struct child *c);

/* A stacktarget process: started, its first line (five hex values) read. */
struct target {
	pid_t pid;
	int go_w;
	FILE *out;
	u64 v[5];
};

bool target_start(struct target *t, const char *prog, const char *arg);
void target_go(struct target *t);
int target_finish(struct target *t);

/* snapshot.c */
int t_snapshot(const char *prog, u32 abi);
int t_snapshot_below(const char *prog, u32 abi);
int t_snapshot_edge(const char *prog, u32 abi);
int t_snapshot_chain(const char *prog, u32 abi);
int t_snapshot_lost(const char *prog);
int t_snapshot_perm(const char *prog);

/* security.c */
int t_deny(const char *kind, const char *path);
int t_limits(void);
int t_hold_sessions(int n, int want_ok, int want_err);
int t_exit_order(int iters);
int t_enable_death(int iters);
int t_kstack_own(void);
int t_clock(void);
int t_lockdown(int locked);
int t_exec_after(int ms, const char *path);
int t_period_race(int n);
int t_pingpong(int n);
int t_mmap(void);

/* uwalk.c */
int t_uwalk(const char *prog);
int t_uwalk_perm(const char *prog);
int t_uwalk_errors(const char *prog);
int t_uwalk_bound(const char *prog);
int t_uwalk_tail(const char *prog);
int t_uwalk_secret(const char *prog);
int t_uwalk_bench(const char *prog);

/* wakers.c */
int t_waker_stacks(void);

/* budget.c */
int t_budget_reopen(void);

/* trust.c */
int t_trust_chain(int argc, char **argv);
int t_trust_denied_child(const char *path);
int t_trust_yama(void);
int t_trust_eagain(int iters, int forks, int nreaders);
int t_trust_stale_tid(void);
int t_trust_writeback(void);
int t_trust_pending_root(void);

#endif
