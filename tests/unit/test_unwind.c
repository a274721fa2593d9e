// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests: unwinding real user stack snapshots without the module.
 * A test program (tests/progs/unwind*.c, goleaf) runs; ptrace stops its
 * threads at random times (PTRACE_INTERRUPT), and each stop becomes what
 * tprof.ko writes for a sample with TPROF_F_USER_SNAPSHOT: a SAMPLE with
 * the frame-pointer chain walked as the kernel walks it, and a USTACK
 * record with the registers and the stack from sp. tprof-read --input turns the stream
 * into a profile, whose stacks are checked: the frameless leaf's caller,
 * libc's qsort and C++ without frame pointers up to main, signal frames,
 * sigaltstack, partial copies, IA32, and Go (.debug_frame) with the edge
 * Go PGO reads, whose share is compared with a runtime/pprof profile of
 * the same run.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "analyze/cfi.h"
#include "lib/buildid.h"
#include "model/maps.h"
#include "object/object.h"
#include "pbload.h"
#include "testlib.h"
#include "lib/util.h"

#define NSAMPLES 600
#define PERIOD_NS 1000000ULL

struct rec_opts {
	const char *prog;	/* under build/progs */
	const char *mode;	/* its argv[1], or NULL */
	const char *arg2;	/* its argv[2], or NULL */
	const char *arg3;	/* its argv[3], or NULL */
	unsigned int nsamples;
	unsigned int snap_bytes;
	unsigned int cut;	/* > 0: copy at most this much (PARTIAL) */
	bool below;		/* TPROF_F_SNAPSHOT_BELOW: the red zone too */
	bool no_snapshot;	/* SAMPLE records only (a --call-graph fp session) */
	bool dwarf;		/* SESSION says --call-graph dwarf */
	/*
	 * Multi-threaded programs (Go): a stop is a sample only when the
	 * thread's pc is in one of these functions; NULL: every stop.
	 */
	const char *const *keep;
	/*
	 * > 0: sample the run until the program has used this much CPU time
	 * (nsamples is a cap), then detach and let it end by itself (it must
	 * run longer), e.g. to write its own runtime/pprof profile. Every
	 * thread's stops count, except those in a system call: that thread
	 * is off CPU (Go's idle threads and sysmon wait in futex and
	 * nanosleep), and a CPU profiler would not sample it. A sample
	 * weighs the CPU time its thread used since its last sample (as
	 * tprof.ko samples by a thread's own CPU time): on a busy host a
	 * thread that waited for a CPU (runnable, not running) between two
	 * stops weighs what it ran, not a whole period (fixed weights, on a
	 * CI host with two CPUs, gave main.crunch -> main.mix 9 points less
	 * than runtime/pprof).
	 */
	uint64_t until_cpu_ns;
	/* until_cpu_ns: the samples' weights, summed and squared, out */
	struct rec_weights *weights;
};

/*
 * until_cpu_ns: the heaviest sample kept (record()); a sample weighs
 * about one round, 0.3-1 ms
 */
#define MAX_WEIGHT_NS 20000000ULL

struct rec_weights {
	double sum, sum_sq;
	unsigned int n;
	unsigned int dropped;	/* heavier than MAX_WEIGHT_NS */
	uint64_t dropped_ns;
};

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static bool mem_read(int memfd, uint64_t addr, void *buf, size_t n)
{
	return pread(memfd, buf, n, (off_t)addr) == (ssize_t)n;
}

/* The kernel's walk (kmod/stack.c tprof_stack_user), over /proc/PID/mem. */
static unsigned int fp_walk(int memfd, bool ia32, uint64_t ip, uint64_t bp,
			    uint64_t *ips, unsigned int max, uint16_t *flags)
{
	unsigned int n = 0, w = ia32 ? 4 : 8;
	uint64_t fp = bp;

	ips[n++] = ip;
	while (fp) {
		uint64_t next = 0, ret = 0;
		unsigned char f[16];

		if (n == max) {
			*flags |= TPROF_RF_USER_TRUNCATED;
			break;
		}
		if (fp % w || !mem_read(memfd, fp, f, 2 * w)) {
			*flags |= TPROF_RF_USER_FAULT;
			break;
		}
		memcpy(&next, f, w);
		memcpy(&ret, f + w, w);
		if (!ret)
			break;
		ips[n++] = ret;
		if (next <= fp) {
			if (next)	/* a bad link, not the chain's end */
				*flags |= TPROF_RF_USER_FAULT;
			break;
		}
		fp = next;
	}
	return n;
}

/* Up to want bytes from sp, a page at a time, as far as they read. */
static uint32_t stack_copy(int memfd, uint64_t sp, unsigned char *buf,
			   uint32_t want)
{
	uint32_t got = 0;

	while (got < want) {
		uint64_t a = sp + got;
		uint32_t chunk = 4096 - (a & 4095);
		ssize_t n;

		if (chunk > want - got)
			chunk = want - got;
		n = pread(memfd, buf + got, chunk, (off_t)a);
		if (n <= 0)
			break;
		got += n;
	}
	return got;
}

/* The CPU time (user + system) process pid has used, 0 when unknown. */
static uint64_t proc_cpu_ns(int pid)
{
	char path[64], buf[1024], *p;
	unsigned long ut = 0, st = 0;
	long hz = sysconf(_SC_CLK_TCK);
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0 || hz <= 0)
		return 0;
	buf[n] = 0;
	p = strrchr(buf, ')');	/* comm may hold spaces */
	/* fields 3 (state) to 13, then utime and stime */
	if (!p || sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu",
			 &ut, &st) != 2)
		return 0;
	return (uint64_t)(ut + st) * (1000000000ULL / hz);
}

/* BUILDID records for the executable file mappings of the maps text. */
static void add_buildids(struct sbuf *b, int pid, const char *maps,
			 uint64_t t)
{
	const char *s = maps;

	while (*s) {
		const char *eol = strchr(s, '\n');
		char line[4096], perms[8], path[4096] = "";
		unsigned int maj, min;
		unsigned long long ino;
		size_t len = eol ? (size_t)(eol - s) : strlen(s);

		snprintf(line, sizeof(line), "%.*s", (int)len, s);
		s += len + (eol ? 1 : 0);
		if (sscanf(line, "%*x-%*x %7s %*x %x:%x %llu %4095s", perms, &maj,
			   &min, &ino, path) == 5 && perms[2] == 'x' &&
		    path[0] == '/') {
			unsigned char bits[BUILDID_MAX];
			int fd = open(path, O_RDONLY | O_CLOEXEC), n;

			if (fd < 0)
				continue;
			n = buildid__from_fd(fd, bits);
			close(fd);
			if (n >= 0)
				sb_buildid(b, pid, maj, min, ino, path, bits, n, t);
		}
	}
}

/*
 * Stop tid (ptrace-seized) where it runs: 0, 1 when a signal was on its
 * way (delivered now: the stop that follows is at the handler's entry, not
 * at a random time, so it is no sample), or -1 (it is gone).
 */
static int interrupt(int tid)
{
	int st, sigs = 0, w, waited = 0;

	if (ptrace(PTRACE_INTERRUPT, tid, 0, 0))
		return -1;
	for (;;) {
		/*
		 * Never block: an interrupt that a signal stop raced was
		 * seen lost once (a Go thread asleep in a futex, the test
		 * waiting for good). Ask again every second; 10 s: gone.
		 * The stop of a running thread comes in microseconds: poll
		 * every 20 us for the first 2 ms, then every ms (a 1 ms
		 * first sleep made each stop cost a ms, and the recorder
		 * took a few hundred samples where it meant thousands).
		 */
		while (!(w = waitpid(tid, &st, __WALL | WNOHANG))) {
			if (++waited % 1100 == 0 &&
			    ptrace(PTRACE_INTERRUPT, tid, 0, 0))
				return -1;
			if (waited >= 11000)
				return -1;
			usleep(waited < 100 ? 20 : 1000);
		}
		if (w != tid || !WIFSTOPPED(st))
			return -1;
		if ((st >> 16) == PTRACE_EVENT_STOP)
			return sigs ? 1 : 0;
		/* a signal stop (SIGPROF, Go's SIGURG): deliver it, keep waiting */
		if (ptrace(PTRACE_CONT, tid, 0, WSTOPSIG(st)))
			return -1;
		sigs++;
	}
}

/*
 * The traced threads of a process. Go programs start threads as they go
 * and move goroutines between them, so the task list is read again
 * before each round of stops; threads that exit are dropped.
 */
#define MAX_TASKS 64
#define MAX_KEEP 8

struct tracee {
	int pid;
	int tids[MAX_TASKS];
	uint64_t ran_ns[MAX_TASKS];	/* tids[k]'s CPU time at its last sample */
	unsigned int n;
};

/* The CPU time thread tid has run (schedstat's first field), 0 if unknown. */
static uint64_t task_cpu_ns(int pid, int tid)
{
	char path[96];
	unsigned long long ns = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/schedstat", pid, tid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	if (fscanf(f, "%llu", &ns) != 1)
		ns = 0;
	fclose(f);
	return ns;
}

/* Seize the threads not seized yet. -1 when the main thread cannot be. */
static int seize_new(struct tracee *t, struct sbuf *b)
{
	char path[64];
	struct dirent *e;
	DIR *d;
	int ret = 0;

	snprintf(path, sizeof(path), "/proc/%d/task", t->pid);
	d = opendir(path);
	if (!d)
		return -1;
	while ((e = readdir(d)) && t->n < MAX_TASKS) {
		int tid = atoi(e->d_name);
		unsigned int k;

		for (k = 0; k < t->n && t->tids[k] != tid; k++)
			;
		if (tid <= 0 || k < t->n)
			continue;
		if (ptrace(PTRACE_SEIZE, tid, 0, 0)) {
			if (tid == t->pid) {
				fprintf(stderr, "    PTRACE_SEIZE %d: %s\n", tid,
					strerror(errno));
				ret = -1;
			}
			continue;
		}
		t->ran_ns[t->n] = task_cpu_ns(t->pid, tid);
		t->tids[t->n++] = tid;
		sb_thread(b, t->pid, tid, "unwind", mono_ns());
	}
	closedir(d);
	return ret;
}

/* SIGKILL the process and reap every traced thread, the leader last. */
static void kill_tracee(struct tracee *t)
{
	unsigned int k;

	kill(t->pid, SIGKILL);
	for (k = 0; k < t->n; k++)
		if (t->tids[k] != t->pid)
			waitpid(t->tids[k], NULL, __WALL);
	waitpid(t->pid, NULL, __WALL);
}

/*
 * Detach every traced thread (each stopped first, as PTRACE_DETACH
 * needs) and wait, up to 30 s, for the program to end by itself. Its
 * exit status, or -1.
 */
static int detach_and_wait(struct tracee *t)
{
	unsigned int k;
	int st, w = 0, tries;

	for (k = 0; k < t->n; k++) {
		if (interrupt(t->tids[k]) < 0) {
			if (t->tids[k] == t->pid)
				goto out_kill;
			continue;	/* it exited */
		}
		if (ptrace(PTRACE_DETACH, t->tids[k], 0, 0))
			goto out_kill;
	}
	t->n = 0;
	for (tries = 0; tries < 3000; tries++) {
		w = waitpid(t->pid, &st, WNOHANG);
		if (w)
			break;
		usleep(10000);
	}
	if (w == t->pid && WIFEXITED(st))
		return WEXITSTATUS(st);
	fprintf(stderr, "    %d did not exit by itself\n", t->pid);
	if (w)
		return -1;
out_kill:
	kill_tracee(t);
	return -1;
}

/* pc ranges [lo, hi) of rec_opts.keep */
struct keep {
	uint64_t lo[MAX_KEEP], hi[MAX_KEEP];
	unsigned int n;
};

static bool kept(const struct keep *kp, uint64_t pc)
{
	unsigned int k;

	if (!kp->n)
		return true;
	for (k = 0; k < kp->n; k++)
		if (pc >= kp->lo[k] && pc < kp->hi[k])
			return true;
	return false;
}

/*
 * The SAMPLE and USTACK records of stopped thread tid, as tprof.ko writes
 * them: the FP chain walked as kmod/stack.c walks it, the registers, and
 * up to o->snap_bytes of stack from sp.
 */
static void snapshot(struct sbuf *b, const struct rec_opts *o, int memfd,
		    int pid, int tid, const struct user_regs_struct *r,
		    uint64_t weight_ns)
{
	static unsigned char stack[TPROF_MAX_SNAPSHOT_BYTES +
				   TPROF_SNAPSHOT_BELOW_BYTES];
	uint64_t regs[TPROF_UREG_NR] = { 0 }, ips[TPROF_DEFAULT_USER_FRAMES];
	uint16_t flags = 0;
	uint32_t got, want = o->snap_bytes, below = 0;
	size_t ustack_at;
	unsigned int nu;
	bool ia32 = r->cs == 0x23;	/* __USER32_CS */

	regs[TPROF_UREG_AX] = r->rax;
	regs[TPROF_UREG_BX] = r->rbx;
	regs[TPROF_UREG_CX] = r->rcx;
	regs[TPROF_UREG_DX] = r->rdx;
	regs[TPROF_UREG_SI] = r->rsi;
	regs[TPROF_UREG_DI] = r->rdi;
	regs[TPROF_UREG_BP] = r->rbp;
	regs[TPROF_UREG_SP] = r->rsp;
	regs[TPROF_UREG_IP] = r->rip;
	regs[TPROF_UREG_FLAGS] = r->eflags;
	if (!ia32) {
		regs[TPROF_UREG_R8] = r->r8;
		regs[TPROF_UREG_R9] = r->r9;
		regs[TPROF_UREG_R10] = r->r10;
		regs[TPROF_UREG_R11] = r->r11;
		regs[TPROF_UREG_R12] = r->r12;
		regs[TPROF_UREG_R13] = r->r13;
		regs[TPROF_UREG_R14] = r->r14;
		regs[TPROF_UREG_R15] = r->r15;
	}
	nu = fp_walk(memfd, ia32, r->rip, r->rbp, ips,
		     TPROF_DEFAULT_USER_FRAMES, &flags);
	if (o->no_snapshot) {	/* --call-graph fp: the chain alone */
		size_t at = b->len;

		sb_sample(b, pid, tid, PERIOD_NS, weight_ns, mono_ns(), 0, NULL,
			  nu, ips);
		((struct tprof_rec_hdr *)(b->p + at))->flags |= flags;
		((struct tprof_rec_sample *)(b->p + at))->abi =
			ia32 ? TPROF_ABI_IA32 : TPROF_ABI_X86_64;
		return;
	}
	ustack_at = b->len + sizeof(struct tprof_rec_sample) + 8 * nu;
	/* as kmod/sampler.c: the red zone first, when all of it reads */
	if (o->below && !ia32 &&
	    stack_copy(memfd, r->rsp - TPROF_SNAPSHOT_BELOW_BYTES, stack,
		       TPROF_SNAPSHOT_BELOW_BYTES) == TPROF_SNAPSHOT_BELOW_BYTES)
		below = TPROF_SNAPSHOT_BELOW_BYTES;
	got = below + stack_copy(memfd, r->rsp, stack + below, want);
	if (o->cut && got > o->cut)
		got = o->cut;
	sb_sample_ustack(b, pid, tid, ia32 ? TPROF_ABI_IA32 : TPROF_ABI_X86_64,
			 weight_ns, mono_ns(), nu, ips, flags, regs,
			 below + want, stack, got);
	if (below)	/* the USTACK record sb_sample_ustack() just wrote */
		((struct tprof_rec_hdr *)(b->p + ustack_at))->flags |=
			TPROF_RF_USTACK_BELOW;
}

/*
 * Run the program, take o->nsamples snapshots, write the stream to path.
 * Each round stops every thread in turn, at a random time; a stop is a
 * sample when the pc is in one of o->keep's functions (all stops without
 * o->keep). 0 or -1 (the reason on stderr).
 */
static int record(const struct rec_opts *o, const char *path)
{
	const char *prog = build_path(o->prog);
	struct tracee t = { 0 };
	struct keep kp = { 0 };
	struct sbuf b = { 0 };
	struct tprof_urec_session *ss;
	char memp[64], *maps = NULL;
	size_t mlen;
	unsigned int i = 0, round;
	int pid, memfd = -1, ret = -1;
	uint64_t now;

	/* Go's default build is ET_EXEC: symbol values are addresses */
	for (kp.n = 0; o->keep && o->keep[kp.n] && kp.n < MAX_KEEP; kp.n++) {
		uint64_t v, sz;

		if (elf_symbol(prog, o->keep[kp.n], &v, &sz) || !sz) {
			fprintf(stderr, "    %s: no symbol %s\n", prog,
				o->keep[kp.n]);
			return -1;
		}
		kp.lo[kp.n] = v;
		kp.hi[kp.n] = v + sz;
	}
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);

		if (null >= 0)	/* goleaf prints when it ends */
			dup2(null, STDOUT_FILENO);
		execl(prog, prog, o->mode, o->arg2, o->arg3, (char *)NULL);
		_exit(127);
	}
	t.pid = pid;
	usleep(100000);	/* past the dynamic linker, into the loop */
	now = mono_ns();
	sb_session(&b, pid, PERIOD_NS, 1, now);
	ss = (struct tprof_urec_session *)b.p;
	ss->flags = (o->no_snapshot ? 0 : TPROF_F_USER_SNAPSHOT) |
		    (o->dwarf ? TPROF_SESSION_F_DWARF : 0);
	if (seize_new(&t, &b))
		goto out_kill;
	if (proc_maps_read(pid, &maps, &mlen))
		goto out_kill;
	sb_maps(&b, pid, now, maps);
	add_buildids(&b, pid, maps, now);
	snprintf(memp, sizeof(memp), "/proc/%d/mem", pid);
	memfd = open(memp, O_RDONLY | O_CLOEXEC);
	if (memfd < 0)
		goto out_kill;
	srand(o->nsamples ^ o->snap_bytes);
	for (round = 0; i < o->nsamples && round < 20 * o->nsamples; round++) {
		unsigned int k;

		usleep(100 + rand() % 400);
		if (o->until_cpu_ns && proc_cpu_ns(pid) >= o->until_cpu_ns)
			break;
		if ((o->keep || o->until_cpu_ns) && seize_new(&t, &b))
			goto out_kill;
		for (k = 0; k < t.n && i < o->nsamples; k++) {
			struct user_regs_struct r;
			int tid = t.tids[k];

			switch (interrupt(tid)) {
			case 0:
				break;
			case 1:
				if (ptrace(PTRACE_CONT, tid, 0, 0))
					goto out_kill;
				continue;
			default:
				if (tid == pid)
					goto out_kill;
				/* it exited */
				t.ran_ns[k] = t.ran_ns[t.n - 1];
				t.tids[k--] = t.tids[--t.n];
				continue;
			}
			if (ptrace(PTRACE_GETREGS, tid, 0, &r))
				goto out_kill;
			if (!o->until_cpu_ns) {
				if (kept(&kp, r.rip)) {
					snapshot(&b, o, memfd, pid, tid, &r,
						 PERIOD_NS);
					i++;
				}
			} else if (r.orig_rax == ~0ULL && kept(&kp, r.rip)) {
				/*
				 * A sample when it is on CPU, not in a system
				 * call (orig_rax >= 0), weighing what it ran
				 * since its last sample: a stop in a system
				 * call (a thread that ran, then slept) or in
				 * a signal leaves its time to the next one,
				 * as the module's budget carries on. Past
				 * MAX_WEIGHT_NS the rounds stalled (another
				 * thread's stop took long): that sample is
				 * dropped and counted, its time with it.
				 */
				uint64_t ran = task_cpu_ns(pid, tid);
				uint64_t w = ran > t.ran_ns[k] ?
					     ran - t.ran_ns[k] : 0;

				if (w)
					t.ran_ns[k] = ran;
				if (w > MAX_WEIGHT_NS) {
					if (o->weights) {
						o->weights->dropped++;
						o->weights->dropped_ns += w;
					}
				} else if (w) {
					snapshot(&b, o, memfd, pid, tid, &r, w);
					i++;
					if (o->weights) {
						o->weights->sum += w;
						o->weights->sum_sq += (double)w * w;
						o->weights->n++;
					}
				}
			}
			if (ptrace(PTRACE_CONT, tid, 0, 0))
				goto out_kill;
		}
	}
	if (o->until_cpu_ns) {
		close(memfd);
		memfd = -1;
		ret = detach_and_wait(&t);	/* its own profile is written */
		if (ret)
			fprintf(stderr, "    %s: exit status %d\n", prog, ret);
		else
			ret = sb_write(&b, path);
		goto out;
	}
	if (i < o->nsamples)
		fprintf(stderr, "    %s: %u of %u samples in %u rounds\n", prog,
			i, o->nsamples, round);
	ret = sb_write(&b, path);
out_kill:
	if (memfd >= 0)
		close(memfd);
	kill_tracee(&t);
out:
	free(maps);
	sb_free(&b);
	return ret;
}

/* ---- reading the profile back ---- */

static const char *S(const PbProfile *p, int64_t i)
{
	return i >= 0 && (size_t)i < p->n_string_table ? p->string_table[i] : "?";
}

#define MAX_NAMES 600

/* want, or a C++ function of that name: "key" is "key(unsigned long)" */
static bool name_is(const char *name, const char *want)
{
	size_t n = strlen(want);

	return !strncmp(name, want, n) && (!name[n] || name[n] == '(');
}

/* The sample's function names, leaf first (inline chains flattened). */
static size_t names_of(const PbProfile *p, const Perftools__Profiles__Sample *s,
		       const char **names)
{
	size_t i, k, n = 0;

	for (i = 0; i < s->n_location_id && n < MAX_NAMES; i++) {
		const Perftools__Profiles__Location *l =
			p->location[s->location_id[i] - 1];

		for (k = 0; k < l->n_line && n < MAX_NAMES; k++)
			names[n++] = S(p, p->function[l->line[k]->function_id - 1]->name);
	}
	return n;
}

struct shape {
	uint64_t leaf;		/* samples with the leaf */
	uint64_t next;		/* ... and then the expected caller */
	uint64_t main;		/* ... and main somewhere above */
	uint64_t truncated;	/* ... and "[truncated]" at the root */
	uint64_t order;		/* ... and want[] in this order */
	uint64_t whole;		/* ... in order, and rooted at _start */
};

/*
 * Profile the stream in mode (NULL: as recorded) and count the leaf's
 * samples by shape. want: names that must follow the leaf in order (not
 * necessarily adjacent), NULL-terminated.
 */
static int shape_of(const char *raw, const char *mode, const char *leaf,
		    const char *next, const char *const *want,
		    struct shape *sh)
{
	const char *pb = build_path("unit/unwind.pb.gz");
	const char *names[MAX_NAMES];
	PbProfile *p;
	char *out = NULL;
	size_t i, j, n, w;
	int st;

	memset(sh, 0, sizeof(*sh));
	st = run_fmt(&out, "%s --input %s -o %s %s%s 2>&1", tprof_read_bin(),
		     raw, pb, mode ? "--call-graph " : "", mode ? mode : "");
	if (st) {
		fprintf(stderr, "    tprof-read: %s\n", out ? out : "");
		free(out);
		return -1;
	}
	free(out);
	p = load_profile(pb);
	if (!p)
		return -1;
	for (i = 0; i < p->n_sample; i++) {
		const Perftools__Profiles__Sample *s = p->sample[i];
		uint64_t c = s->n_value > 1 ? s->value[1] : 0;

		n = names_of(p, s, names);
		if (!n || !name_is(names[0], leaf))
			continue;
		sh->leaf += c;
		if (n > 1 && next && name_is(names[1], next))
			sh->next += c;
		for (j = 1; j < n; j++)
			if (!strcmp(names[j], "main")) {
				sh->main += c;
				break;
			}
		if (!strcmp(names[n - 1], "[truncated]"))
			sh->truncated += c;
		for (j = 1, w = 0; want && want[w] && j < n; j++)
			if (name_is(names[j], want[w]))
				w++;
		if (want && !want[w]) {
			sh->order += c;
			if (!strcmp(names[n - 1], "_start"))
				sh->whole += c;
		}
	}
	pb_free(p);
	return 0;
}

static void print_shape(const char *what, const char *mode,
			const struct shape *sh)
{
	printf("    %s, %s: %llu leaf samples, %.1f%% with the caller next, %.1f%% reach main, %.1f%% in order, %.1f%% whole, %.1f%% truncated\n",
	       what, mode ? mode : "as recorded", (unsigned long long)sh->leaf,
	       sh->leaf ? 100.0 * sh->next / sh->leaf : 0,
	       sh->leaf ? 100.0 * sh->main / sh->leaf : 0,
	       sh->leaf ? 100.0 * sh->order / sh->leaf : 0,
	       sh->leaf ? 100.0 * sh->whole / sh->leaf : 0,
	       sh->leaf ? 100.0 * sh->truncated / sh->leaf : 0);
}

/* at least pct% of the leaf's samples (and enough of them to tell) */
#define AT_LEAST(sh, field, pct) \
	((sh).leaf >= 50 && (sh).field * 100 >= (uint64_t)(pct) * (sh).leaf)

/* the leaf's own code must set up no frame, or the test proves nothing */
static bool frameless(const char *prog, const char *fn)
{
	char *out = NULL;
	bool ok;

	run_fmt(&out, "objdump -d --no-show-raw-insn --disassemble=%s %s",
		fn, build_path(prog));
	ok = out && strstr(out, fn) && !strstr(out, "push   %rbp") &&
	     !strstr(out, "mov    %rsp,%rbp");
	free(out);
	return ok;
}

static void test_leaf(void)
{
	struct rec_opts o = { .prog = "progs/unwind", .mode = "leaf",
			      .nsamples = NSAMPLES, .snap_bytes = 1024 };
	const char *raw = build_path("unit/unwind-leaf.raw");
	static const char *const want[] = { "caller", "main", NULL };
	struct shape sh;

	if (!need_cmd("objdump", "no objdump"))
		return;
	CHECK(frameless("progs/unwind", "hot_leaf"));
	CHECK_EQ(record(&o, raw), 0);
	/* the default: hybrid over 1024 bytes (HYBRID_SNAPSHOT_BYTES) */
	CHECK_EQ(shape_of(raw, NULL, "hot_leaf", "caller", want, &sh), 0);
	print_shape("leaf", "hybrid", &sh);
	CHECK(AT_LEAST(sh, next, 95));
	CHECK(AT_LEAST(sh, order, 95));
	CHECK_EQ(sh.truncated, 0);
	/*
	 * The frame-pointer chain skips the caller (the test can fail):
	 * checked against hot_leaf's CFI, the join is not made and the stack
	 * is marked there, not main right above the leaf
	 */
	CHECK_EQ(shape_of(raw, "fp", "hot_leaf", "caller", want, &sh), 0);
	print_shape("leaf", "fp", &sh);
	CHECK(sh.leaf >= 50 && sh.next * 100 <= 5 * sh.leaf);
	CHECK(AT_LEAST(sh, truncated, 95));
	CHECK(sh.main * 100 <= 5 * sh.leaf);
}

/*
 * A pc in the vDSO (clock_gettime(CLOCK_PROCESS_CPUTIME_ID) is a system
 * call made from there: a stop lands in it). The stream has no VDSO
 * record, as when the target was gone before the reader's loop read its
 * image: the unwinder takes this kernel's image, CFI and all, and keeps
 * the caller that the frame-pointer chain skips (case 64's three trees on
 * a 1-vCPU guest lost 6% of each hot function so, 53's 85% on the debug
 * kernel).
 */
static void test_vdso(void)
{
	struct rec_opts o = { .prog = "progs/tree-a", .mode = "work",
			      .arg2 = "20000", .nsamples = 3 * NSAMPLES,
			      .snap_bytes = 1024 };
	const char *raw = build_path("unit/unwind-vdso.raw");
	static const char *const want[] = { "hot_a", "main", NULL };
	struct shape sh;

	CHECK_EQ(record(&o, raw), 0);
	CHECK_EQ(shape_of(raw, NULL, "__vdso_clock_gettime", NULL, want,
			  &sh), 0);
	print_shape("vdso", "hybrid", &sh);
	CHECK(AT_LEAST(sh, order, 95));
}

/*
 * A --call-graph fp session: SAMPLE records with the chain alone, no
 * snapshot. Each join is checked against the CFI all the same: the
 * frameless leaf's stack is cut right above it, not shown under main
 * (its caller skipped), and qsort's comparator reaches main in order or
 * is marked, in every sample. Until fp_checked() ran on these too, the
 * leaf was under main in 100% and the comparator right or marked in 0%.
 */
static void test_fp_session(void)
{
	struct rec_opts leaf = { .prog = "progs/unwind", .mode = "leaf",
				 .nsamples = NSAMPLES, .no_snapshot = true };
	struct rec_opts qs = { .prog = "progs/unwind", .mode = "qsort",
			       .nsamples = NSAMPLES, .no_snapshot = true };
	const char *raw = build_path("unit/unwind-fp.raw");
	static const char *const want_leaf[] = { "caller", "main", NULL };
	static const char *const want_qs[] = { "sort_round", "main", NULL };
	struct shape sh;

	CHECK_EQ(record(&leaf, raw), 0);
	CHECK_EQ(shape_of(raw, NULL, "hot_leaf", "caller", want_leaf, &sh), 0);
	print_shape("leaf, no snapshot", "fp session", &sh);
	CHECK(AT_LEAST(sh, truncated, 95));
	CHECK(sh.main * 100 <= 5 * sh.leaf);
	CHECK_EQ(record(&qs, raw), 0);
	CHECK_EQ(shape_of(raw, NULL, "cmp_ints", NULL, want_qs, &sh), 0);
	print_shape("qsort, no snapshot", "fp session", &sh);
	CHECK(sh.leaf >= 50);
	CHECK_EQ(sh.whole + sh.truncated, sh.leaf);
	CHECK_EQ(sh.main, sh.order);
}

static void test_qsort(void)
{
	struct rec_opts o = { .prog = "progs/unwind", .mode = "qsort",
			      .nsamples = NSAMPLES, .snap_bytes = 8192,
			      .dwarf = true };
	const char *raw = build_path("unit/unwind-qsort.raw");
	static const char *const want[] = { "sort_round", "main", NULL };
	struct shape sh;

	CHECK_EQ(record(&o, raw), 0);
	CHECK_EQ(shape_of(raw, NULL, "cmp_ints", NULL, want, &sh), 0);
	print_shape("qsort", "dwarf", &sh);
	CHECK(AT_LEAST(sh, main, 95));
	CHECK(AT_LEAST(sh, order, 95));
	CHECK_EQ(shape_of(raw, "hybrid", "cmp_ints", NULL, want, &sh), 0);
	print_shape("qsort", "hybrid", &sh);
	/* libc has no frame pointers: the chain never gets out of it */
	CHECK_EQ(shape_of(raw, "fp", "cmp_ints", NULL, want, &sh), 0);
	print_shape("qsort", "fp", &sh);
	CHECK(sh.leaf >= 50 && sh.main * 100 <= 5 * sh.leaf);
}

/*
 * The default mode through libc's qsort (no frame pointers): 1024 bytes
 * end the CFI walk inside qsort, where bp is whatever main left there. A
 * stack either reaches main through sort_round (the frames in order and
 * nothing skipped) or ends in "[truncated]": a join to the frame-pointer
 * chain at a bp nothing proves to be a frame pointer would skip main
 * (__libc_start_call_main right above qsort) and look whole.
 */
static void test_qsort_hybrid(void)
{
	struct rec_opts o = { .prog = "progs/unwind", .mode = "qsort",
			      .nsamples = NSAMPLES, .snap_bytes = 1024 };
	const char *raw = build_path("unit/unwind-qsort-hybrid.raw");
	static const char *const want[] = { "sort_round", "main", NULL };
	struct shape sh;

	CHECK_EQ(record(&o, raw), 0);
	CHECK_EQ(shape_of(raw, NULL, "cmp_ints", NULL, want, &sh), 0);
	print_shape("qsort, 1024 bytes", "hybrid", &sh);
	CHECK(sh.leaf >= 50);
	/* right (sort_round, main, up to _start) or marked, every sample */
	CHECK_EQ(sh.whole + sh.truncated, sh.leaf);
	/* main with no sort_round under it: a frame skipped */
	CHECK_EQ(sh.main, sh.order);
	/*
	 * fp too: each join of the chain checked against the CFI (until
	 * fp_checked(), 0% of these were right or marked: the check can
	 * fail)
	 */
	CHECK_EQ(shape_of(raw, "fp", "cmp_ints", NULL, want, &sh), 0);
	print_shape("qsort, 1024 bytes", "fp", &sh);
	CHECK_EQ(sh.whole + sh.truncated, sh.leaf);
	CHECK_EQ(sh.main, sh.order);
	CHECK_EQ(shape_of(raw, "dwarf", "cmp_ints", NULL, want, &sh), 0);
	print_shape("qsort, 1024 bytes", "dwarf", &sh);
	CHECK_EQ(sh.whole + sh.truncated, sh.leaf);
	CHECK_EQ(sh.main, sh.order);
}

static void test_cxx(void)
{
	struct rec_opts o = { .prog = "progs/unwind_cxx",
			      .nsamples = NSAMPLES, .snap_bytes = 8192,
			      .dwarf = true };
	const char *raw = build_path("unit/unwind-cxx.raw");
	static const char *const want[] = { "run", "main", NULL };
	struct shape sh;

	CHECK_EQ(record(&o, raw), 0);
	CHECK_EQ(shape_of(raw, NULL, "key", NULL, want, &sh), 0);
	print_shape("c++ -O2", "dwarf", &sh);
	CHECK(AT_LEAST(sh, main, 95));
	CHECK(AT_LEAST(sh, order, 95));
	CHECK_EQ(shape_of(raw, "fp", "key", NULL, want, &sh), 0);
	print_shape("c++ -O2", "fp", &sh);
	CHECK(sh.leaf >= 50 && sh.main * 100 <= 5 * sh.leaf);
}

/* Whether /proc/cpuinfo lists the flag. */
static bool cpu_has(const char *flag)
{
	char line[4096], *p;
	bool has = false;
	size_t n = strlen(flag);
	FILE *f = fopen("/proc/cpuinfo", "r");

	if (!f)
		return false;
	while (!has && fgets(line, sizeof(line), f)) {
		if (strncmp(line, "flags", 5))
			continue;
		for (p = strstr(line, flag); p && !has; p = strstr(p + 1, flag))
			has = p[-1] == ' ' && (p[n] == ' ' || p[n] == '\n');
		break;
	}
	fclose(f);
	return has;
}

/*
 * The red zone: libcrypto's SHA-256 keeps its caller's sp 8 bytes below
 * its own (CFA = *(rsp - 8) + 8), as hashlib's samples showed. With the
 * 128 bytes below sp in the snapshot (TPROF_F_SNAPSHOT_BELOW) its samples
 * reach hash_loop and main; from sp alone they do not.
 */
static void test_redzone(void)
{
	struct rec_opts o = { .prog = "progs/redzone",
			      .nsamples = NSAMPLES, .snap_bytes = 8192,
			      .dwarf = true, .below = true };
	const char *raw = build_path("unit/unwind-redzone.raw");
	static const char *const want[] = { "hash_loop", "main", NULL };
	struct shape sh;

	if (!need_file("/usr/lib/x86_64-linux-gnu/libcrypto.so.3", "no libcrypto.so.3 (Debian's libssl3)"))
		return;
	/*
	 * Its SHA extensions' code has CFI from sp alone: take the AVX2
	 * code, which the guests' CPU (and Python's hashlib there) ran.
	 */
	setenv("OPENSSL_ia32cap", ":~0x20000000", 1);
	CHECK_EQ(record(&o, raw), 0);
	CHECK_EQ(shape_of(raw, NULL, "[libcrypto.so.3]", NULL, want, &sh), 0);
	print_shape("sha256, red zone", "dwarf", &sh);
	CHECK(sh.leaf >= 50);
	CHECK(AT_LEAST(sh, order, 95));
	o.below = false;
	CHECK_EQ(record(&o, raw), 0);
	CHECK_EQ(shape_of(raw, NULL, "[libcrypto.so.3]", NULL, want, &sh), 0);
	print_shape("sha256, from sp", "dwarf", &sh);
	unsetenv("OPENSSL_ia32cap");
	CHECK(sh.leaf >= 50);
	/* the control: where that code runs, sp alone does not reach main */
	if (cpu_has("avx2"))
		CHECK(sh.order * 100 <= 50 * sh.leaf);
}

/*
 * A signal handler's samples go on through libc's __restore_rt (its CFI
 * reads the interrupted registers from the ucontext) to the interrupted
 * function and main. altstack: the handler runs on a sigaltstack, so
 * the interrupted frames are not in the snapshot; the FP chain joins.
 */
static void signal_case(const char *mode, unsigned int bytes, bool dwarf)
{
	struct rec_opts o = { .prog = "progs/unwind", .mode = mode,
			      .nsamples = NSAMPLES, .snap_bytes = bytes,
			      .dwarf = dwarf };
	static const char *const want[] = { "on_prof", "spin_main", "main",
					    NULL };
	struct shape sh;
	char raw[PATH_MAX];

	/* a copy: build_path()'s buffers are reused by the calls below */
	snprintf(raw, sizeof(raw), "%s", build_path("unit/unwind-signal.raw"));
	CHECK_EQ(record(&o, raw), 0);
	CHECK_EQ(shape_of(raw, NULL, "handler_work", "on_prof", want, &sh), 0);
	for (int again = 0; sh.leaf < 50 && again < 3; again++) {
		/*
		 * the recorder caught few samples in the handler (25 once, on
		 * a host with a load of 8 on 2 CPUs): record again
		 */
		print_shape(mode, "(too few; again)", &sh);
		CHECK_EQ(record(&o, raw), 0);
		CHECK_EQ(shape_of(raw, NULL, "handler_work", "on_prof", want,
				  &sh), 0);
	}
	print_shape(mode, dwarf ? "dwarf" : "hybrid", &sh);
	CHECK(AT_LEAST(sh, next, 95));
	CHECK(AT_LEAST(sh, order, 90));
	CHECK(AT_LEAST(sh, main, 95));
	CHECK_EQ(shape_of(raw, "fp", "handler_work", "on_prof", want, &sh), 0);
	print_shape(mode, "fp", &sh);
	CHECK(sh.leaf >= 50 && sh.next * 100 <= 5 * sh.leaf);
}

static void test_signal(void)
{
	signal_case("signal", 8192, true);
	signal_case("signal", 512, false);
}

static void test_altstack(void)
{
	signal_case("altstack", 8192, true);
	signal_case("altstack", 512, false);
}

/*
 * A copy that ended early (TPROF_RF_USTACK_PARTIAL): 16 bytes still give
 * the leaf's caller (its return address is at sp) and the chain the rest;
 * in dwarf mode a cut stack through libc is marked "[truncated]".
 */
static void test_partial(void)
{
	struct rec_opts o = { .prog = "progs/unwind", .mode = "leaf",
			      .nsamples = NSAMPLES / 2, .snap_bytes = 512,
			      .cut = 16 };
	const char *raw = build_path("unit/unwind-partial.raw");
	static const char *const want[] = { "caller", "main", NULL };
	static const char *const want_q[] = { "sort_round", "main", NULL };
	struct shape sh;

	CHECK_EQ(record(&o, raw), 0);
	CHECK_EQ(shape_of(raw, NULL, "hot_leaf", "caller", want, &sh), 0);
	print_shape("leaf, 16 bytes", "hybrid", &sh);
	CHECK(AT_LEAST(sh, next, 95));
	CHECK(AT_LEAST(sh, order, 95));

	o.mode = "qsort";
	o.snap_bytes = 8192;
	o.cut = 256;
	o.dwarf = true;
	CHECK_EQ(record(&o, raw), 0);
	CHECK_EQ(shape_of(raw, NULL, "cmp_ints", NULL, want_q, &sh), 0);
	print_shape("qsort, 256 bytes", "dwarf", &sh);
	CHECK(AT_LEAST(sh, truncated, 95));
	CHECK(sh.main * 100 <= 5 * sh.leaf);
}

/* IA32: 4-byte stack words, i386 DWARF registers, libc6-i386's CFI */
static void test_ia32(void)
{
	struct rec_opts o = { .prog = "progs/unwind32", .mode = "qsort",
			      .nsamples = NSAMPLES, .snap_bytes = 8192,
			      .dwarf = true };
	const char *raw = build_path("unit/unwind-ia32.raw");
	static const char *const want[] = { "sort_round", "main", NULL };
	struct shape sh;

	if (access(build_path("progs/unwind32"), X_OK)) {
		SKIP("no IA32 build of tests/progs/unwind.c (gcc-multilib)");
		return;
	}
	/* The guests' kernels run 32-bit tasks (cases 39 and 51 cover them);
	 * a host kernel built without IA32 emulation, or booted with
	 * ia32_emulation=0, cannot. */
	if (exec_errno(build_path("progs/unwind32")) == ENOEXEC) {
		SKIP("this host's kernel cannot run 32-bit programs (no IA32 emulation); the guests cover IA32");
		return;
	}
	CHECK_EQ(record(&o, raw), 0);
	CHECK_EQ(shape_of(raw, NULL, "cmp_ints", NULL, want, &sh), 0);
	print_shape("ia32 qsort", "dwarf", &sh);
	CHECK(AT_LEAST(sh, main, 95));
	CHECK(AT_LEAST(sh, order, 95));
	CHECK_EQ(shape_of(raw, "fp", "cmp_ints", NULL, want, &sh), 0);
	print_shape("ia32 qsort", "fp", &sh);
	CHECK(sh.leaf >= 50 && sh.main * 100 <= 5 * sh.leaf);
	/* right or marked: the chain ends at a record of libc's that points
	 * down the stack (TPROF_RF_USER_FAULT since the module says so;
	 * 0.6% were marked before) */
	CHECK_EQ(sh.whole + sh.truncated, sh.leaf);
}

/* exec_errno(), which decides test_ia32's skip, tells a program the host
 * runs from one its kernel refuses to exec */
static void test_exec_probe(void)
{
	const char *bad = build_path("unit/not-an-executable");
	FILE *f = fopen(bad, "w");

	CHECK(f != NULL);
	if (!f)
		return;
	fputs("\x7f" "ELX not a program\n", f);
	fclose(f);
	CHECK_EQ(chmod(bad, 0755), 0);
	CHECK_EQ(exec_errno(build_path("progs/unwind")), 0);
	CHECK_EQ(exec_errno(bad), ENOEXEC);
	CHECK_EQ(exec_errno(build_path("unit/no-such-program")), ENOENT);
	unlink(bad);
}

/*
 * `go tool preprofile` on profile pb: the weight of the edge
 * main.crunch -> main.mix, of all edges into main.mix and of all edges
 * (all may be NULL). 0 or -1.
 */
static int pgo_edges(const char *go, const char *pb, uint64_t *hit,
		     uint64_t *into, uint64_t *all, uint64_t *top)
{
	char *out = NULL;
	unsigned long long h = 0, a = 0, t = 0, m = 0;
	int st;

	/*
	 * after the header, triples: caller, callee, "call-site-offset
	 * weight"; an edge's weight is the sum over its call sites, and m
	 * the heaviest edge's
	 */
	st = run_fmt(&out, "'%s' tool preprofile -i '%s' -o '%s' 2>&1 && "
		     "awk 'NR > 1 { k = (NR - 2) %% 3; if (k == 0) c = $0; "
		     "else if (k == 1) e = $0; else { t += $NF; "
		     "w[c \" \" e] += $NF; "
		     "if (e == \"main.mix\") { a += $NF; "
		     "if (c == \"main.crunch\") h += $NF } } } "
		     "END { for (x in w) if (w[x] > m) m = w[x]; "
		     "printf \"%%.0f %%.0f %%.0f %%.0f\\n\", h, a, t, m }' '%s'",
		     go, pb, build_path("unit/goleaf.preprofile"),
		     build_path("unit/goleaf.preprofile"));
	if (st || !out ||
	    sscanf(out, "%llu %llu %llu %llu", &h, &a, &t, &m) != 4) {
		fprintf(stderr, "    go tool preprofile %s: %s\n", pb,
			out ? out : "");
		free(out);
		return -1;
	}
	free(out);
	*hit = h;
	*into = a;
	if (all)
		*all = t;
	if (top)
		*top = m;
	return 0;
}

/* Go >= 1.23's go command with `go tool preprofile`, or NULL */
static const char *go_preprofile(void)
{
	const char *go = modern_go();
	char *out = NULL;
	int st;

	if (!go)
		return NULL;
	st = run_fmt(&out, "'%s' tool -n preprofile >/dev/null 2>&1", go);
	free(out);
	return st ? NULL : go;
}

/*
 * Go PGO on the profiles of test_go: preprofile has the edge
 * main.crunch -> main.mix with the weight of main.mix's samples (fp: the
 * edge main.main.func2 -> main.mix instead), and `go build -pgo` builds
 * goleaf with the hybrid profile. cmd/go compiles every package of the
 * build for the preprofile output it has not seen: as all samples are in
 * main.mix, that output is the same each time (the edge, weight NSAMPLES
 * periods) and only the first run pays for it (~10 s).
 */
static void go_pgo(const char *hybrid, const char *fp, uint64_t mix)
{
	const char *go = go_preprofile();
	char bin[4096], *out = NULL;
	uint64_t hit = 0, into = 0;
	int st;

	if (!go) {
		SKIP("no go tool preprofile (Go >= 1.23, e.g. golang-1.23-go)");
		return;
	}
	CHECK_EQ(pgo_edges(go, hybrid, &hit, &into, NULL, NULL), 0);
	printf("    go pgo, hybrid: main.crunch -> main.mix %.1f%% of the weight into main.mix (%llu ms of %llu; main.mix %llu samples)\n",
	       into ? 100.0 * hit / into : 0, (unsigned long long)hit / 1000000,
	       (unsigned long long)into / 1000000, (unsigned long long)mix);
	CHECK(into >= 50 * PERIOD_NS && hit * 100 >= 95 * into);
	CHECK_EQ(pgo_edges(go, fp, &hit, &into, NULL, NULL), 0);
	printf("    go pgo, fp: main.crunch -> main.mix %.1f%% of the weight into main.mix\n",
	       into ? 100.0 * hit / into : 0);
	CHECK(into >= 50 * PERIOD_NS && hit * 100 <= 5 * into);

	snprintf(bin, sizeof(bin), "%s", build_path("unit/goleaf-pgo"));
	st = run_fmt(&out, "cd '%s' && GOCACHE='%s' GOPATH='%s' GOPROXY=off "
		     "GO111MODULE=off GOTOOLCHAIN=local '%s' build -o '%s' "
		     "-pgo='%s' . 2>&1 && '%s' -s 0.01",
		     root_path("tests/progs/goleaf"),
		     build_path("gocache-modern"), build_path("gopath"), go,
		     bin, hybrid, bin);
	if (st)
		fprintf(stderr, "    go build -pgo=%s: %s\n", hybrid,
			out ? out : "");
	CHECK_EQ(st, 0);
	free(out);
}

/*
 * Go (tests/progs/goleaf): main.mix has no frame and main.crunch is its
 * only caller, run by the goroutine main.main.func2. Go programs run on
 * several threads and move goroutines between them: every thread is
 * stopped in turn and a stop is a sample when it is in main.mix. Go's CFI
 * is in .debug_frame only (compressed).
 */
static void test_go(void)
{
	static const char *const keep[] = { "main.mix", NULL };
	static const char *const want[] = { "main.crunch", "main.main.func2",
					    NULL };
	struct rec_opts o = { .prog = "progs/goleaf", .mode = "-s=60",
			      .nsamples = NSAMPLES, .snap_bytes = 1024,
			      .keep = keep };
	char raw[4096], hybrid[4096], fp[4096];	/* build_path() recycles */
	struct shape sh;
	uint64_t mix;

	if (access(build_path("progs/goleaf"), X_OK)) {
		SKIP("build/progs/goleaf not built (needs Go >= 1.21, e.g. golang-1.23-go)");
		return;
	}
	if (!need_cmd("objdump", "no objdump"))
		return;
	snprintf(raw, sizeof(raw), "%s", build_path("unit/unwind-go.raw"));
	snprintf(hybrid, sizeof(hybrid), "%s", build_path("unit/goleaf-hybrid.pb.gz"));
	snprintf(fp, sizeof(fp), "%s", build_path("unit/goleaf-fp.pb.gz"));
	CHECK(frameless("progs/goleaf", "main.mix"));
	CHECK_EQ(record(&o, raw), 0);
	CHECK_EQ(shape_of(raw, NULL, "main.mix", "main.crunch", want, &sh), 0);
	CHECK_EQ(rename(build_path("unit/unwind.pb.gz"), hybrid), 0);
	print_shape("go", "hybrid", &sh);
	CHECK(AT_LEAST(sh, next, 95));
	CHECK(AT_LEAST(sh, order, 95));
	CHECK_EQ(sh.truncated, 0);
	mix = sh.leaf;
	/* the old shape: the chain skips crunch, func2 is above mix */
	CHECK_EQ(shape_of(raw, "fp", "main.mix", "main.crunch", want, &sh), 0);
	print_shape("go", "fp", &sh);
	CHECK(sh.leaf >= 50 && sh.next * 100 <= 5 * sh.leaf);
	CHECK_EQ(shape_of(raw, "fp", "main.mix", "main.main.func2", NULL, &sh), 0);
	CHECK_EQ(rename(build_path("unit/unwind.pb.gz"), fp), 0);
	print_shape("go, main.main.func2 next", "fp", &sh);
	CHECK(AT_LEAST(sh, next, 95));
	if (!t_checks_failed)
		go_pgo(hybrid, fp, mix);
}

/*
 * Go PGO against runtime/pprof, on one run: goleaf writes its own
 * runtime/pprof profile (-cpuprofile) while the ptrace recorder samples
 * every thread that is on CPU, each sample weighing the CPU time its
 * thread ran since its last sample (as tprof.ko samples by a thread's own
 * CPU time). What PGO acts on is the hot edge: main.crunch -> main.mix is
 * the heaviest edge of preprofile's output in runtime/pprof's profile and
 * in tprof's (hybrid, the default), and the frame-pointer chain, which
 * skips crunch, gives it (next to) none of the weight.
 *
 * Its share of all edge weight (every other edge, func2 -> crunch and
 * those of the samples in crunch or the runtime, counts too) is
 * runtime/pprof's: tprof's may fall short by 4 standard errors of the
 * difference (binomial, from runtime/pprof's sample count and the
 * recorder's effective one, its weights being unequal) and 3 points.
 * The 3 points are where interrupts land: preprofile keeps only a
 * sample's leaf-most edge, so a sample in crunch's loop (~3% of them)
 * weighs func2 -> crunch, and runtime/pprof's interrupt (the tick that
 * expires its CPU timer, periodic) and the recorder's (the IPI of a
 * ptrace stop) fall differently among a few instructions. When mix was
 * one round, as short as crunch's loop, the two edges split near 50:50
 * and that alone moved tprof's share to 87% of runtime/pprof's on CI's
 * machine and 115% on another, run after run. runtime/pprof samples at
 * 1000 Hz (-hz; the kernel's tick caps it near 300), the recorder takes
 * ~2000.
 */
#define GO_SHARE_CPU "-s=5"
#define GO_SHARE_HZ "-hz=1000"
#define GO_SHARE_SAMPLED_NS 4500000000ULL

static void test_go_share(void)
{
	char arg[4200], rt[4096], raw[4096], hybrid[4096], fp[4096];
	struct rec_weights wt = { 0 };
	struct rec_opts o = { .prog = "progs/goleaf", .mode = GO_SHARE_CPU,
			      .arg2 = arg, .arg3 = GO_SHARE_HZ,
			      .nsamples = 100000,
			      .snap_bytes = 1024,
			      .until_cpu_ns = GO_SHARE_SAMPLED_NS,
			      .weights = &wt };
	const char *go = go_preprofile();
	uint64_t hit[3], into[3], all[3], top[3], n[2];
	double share[3], var, short_by;
	struct shape sh;
	unsigned int k;

	if (access(build_path("progs/goleaf"), X_OK)) {
		SKIP("build/progs/goleaf not built (needs Go >= 1.21, e.g. golang-1.23-go)");
		return;
	}
	if (!go) {
		SKIP("no go tool preprofile (Go >= 1.23, e.g. golang-1.23-go)");
		return;
	}
	if (!need_file("/proc/self/schedstat", "no /proc/PID/schedstat (CONFIG_SCHED_INFO): the recorder weighs samples by it"))
		return;
	snprintf(rt, sizeof(rt), "%s", build_path("unit/goleaf-rt.pb.gz"));
	snprintf(arg, sizeof(arg), "-cpuprofile=%s", rt);
	snprintf(raw, sizeof(raw), "%s", build_path("unit/unwind-go-all.raw"));
	snprintf(hybrid, sizeof(hybrid), "%s", build_path("unit/goleaf-all-hybrid.pb.gz"));
	snprintf(fp, sizeof(fp), "%s", build_path("unit/goleaf-all-fp.pb.gz"));
	unlink(rt);
	CHECK_EQ(record(&o, raw), 0);
	CHECK_EQ(shape_of(raw, NULL, "main.mix", "main.crunch", NULL, &sh), 0);
	CHECK_EQ(rename(build_path("unit/unwind.pb.gz"), hybrid), 0);
	print_shape("go, every on-CPU stop", "hybrid", &sh);
	CHECK(AT_LEAST(sh, next, 95));
	CHECK_EQ(shape_of(raw, "fp", "main.mix", "main.crunch", NULL, &sh), 0);
	CHECK_EQ(rename(build_path("unit/unwind.pb.gz"), fp), 0);
	if (t_checks_failed)
		return;
	CHECK_EQ(pgo_edges(go, rt, &hit[0], &into[0], &all[0], &top[0]), 0);
	CHECK_EQ(pgo_edges(go, hybrid, &hit[1], &into[1], &all[1], &top[1]), 0);
	CHECK_EQ(pgo_edges(go, fp, &hit[2], &into[2], &all[2], &top[2]), 0);
	if (t_checks_failed)
		return;
	for (k = 0; k < 3; k++)
		share[k] = all[k] ? (double)hit[k] / all[k] : 0;
	printf("    go pgo, one run: main.crunch -> main.mix's share of all edge weight: runtime/pprof %.1f%% (%llu samples), tprof hybrid %.1f%% (%.1f%% of runtime/pprof's), fp %.1f%%; the heaviest edge: runtime/pprof %s, tprof %s\n",
	       100 * share[0], (unsigned long long)all[0], 100 * share[1],
	       share[0] ? 100 * share[1] / share[0] : 0, 100 * share[2],
	       hit[0] == top[0] ? "yes" : "no",
	       hit[1] == top[1] ? "yes" : "no");
	/*
	 * preprofile weighs runtime/pprof's in samples, tprof's in ns; the
	 * recorder's samples weigh unequally: their effective number is
	 * (sum w)^2 / sum w^2 (Kish), at most the count
	 */
	n[0] = all[0];
	n[1] = wt.sum_sq > 0 ? (uint64_t)(wt.sum * wt.sum / wt.sum_sq) : 0;
	var = share[0] * (1 - share[0]) / (n[0] ? n[0] : 1) +
	      share[1] * (1 - share[1]) / (n[1] ? n[1] : 1);
	short_by = share[0] - share[1];
	printf("    go pgo: %llu and %llu samples (the recorder's effective number of its %u, %u dropped: %.0f ms of %.0f); tprof short by %.1f points, %.1f allowed (4 standard errors and 3 points)\n",
	       (unsigned long long)n[0], (unsigned long long)n[1], wt.n,
	       wt.dropped, wt.dropped_ns / 1e6,
	       (wt.sum + wt.dropped_ns) / 1e6, 100 * short_by,
	       100 * (4 * sqrt(var) + 0.03));
	/*
	 * enough samples to tell (a host running 5 threads on 2 CPUs left
	 * ~750 and an effective ~420), and mix most of the CPU, as it is
	 * (96-98%)
	 */
	CHECK(n[0] >= 300 && n[1] >= 300 && share[0] > 0.8);
	CHECK(hit[0] == top[0] && hit[1] == top[1]);
	CHECK(short_by <= 4 * sqrt(var) + 0.03);
	CHECK(share[2] <= 0.05 * share[0]);
}

/*
 * The agent's bound on the CFI rows (unwinder__bound_rows()): a row per
 * pc unwound from, so unbounded they grow with the code that ever ran
 * (the soak's 18 MB in 150 s). Past the bound the cache starts over in
 * the same memory, and every row is the one an unbounded cache computes.
 */
/* elf's .text: its address and size */
static bool text_of(Elf *elf, uint64_t *addr, uint64_t *size)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	GElf_Shdr sh;

	if (!elf || elf_getshdrstrndx(elf, &shstrndx))
		return false;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *name;

		if (!gelf_getshdr(scn, &sh))
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (name && !strcmp(name, ".text")) {
			*addr = sh.sh_addr;
			*size = sh.sh_size;
			return true;
		}
	}
	return false;
}

static void test_cfi_bound(void)
{
	struct objects *objs = objects__new();
	struct object *o = objects__file(objs, build_path("progs/unwind"),
					 NULL);
	struct cfi_cache all = { 0 }, bound = { .max_rows = 16 };
	unsigned int pass, i, same = 0, ok = 0;
	uint64_t text = 0, size = 0;

	CHECK(o && object__cfi(o) && text_of(o->elf, &text, &size));
	if (!size)
		goto out;
	/* 200 pcs over .text, twice: the second pass after resets */
	for (pass = 0; pass < 2; pass++) {
		for (i = 0; i < 200; i++) {
			uint64_t va = text + size * i / 200;
			struct uw_rule a = *cfi__row(&all, o, va, 17);
			const struct uw_rule *b = cfi__row(&bound, o, va, 17);

			same += !memcmp(&a, b, sizeof(a));
			ok += a.ok;
		}
	}
	CHECK_EQ(same, 400);
	CHECK(ok >= 300);
	CHECK_EQ(all.nrules, 200);
	CHECK(bound.nrules <= 16 && bound.caprules == 16);
	CHECK_EQ(bound.resets, (400 - 1) / 16);
	CHECK_EQ(bound.computed, 400);
	cfi_cache__free(&all);
	cfi_cache__free(&bound);
out:
	objects__free(objs);
}

/* make fuzz's second seed: a few real snapshot pairs, small enough */
static void test_seed(void)
{
	struct rec_opts o = { .prog = "progs/unwind", .mode = "leaf",
			      .nsamples = 8, .snap_bytes = 256 };

	CHECK_EQ(record(&o, build_path("unit/seed-ustack.raw")), 0);
}

const struct unit_test unwind_tests[] = {
	{ "unwind: seed stream with snapshots", test_seed },
	{ "unwind: the CFI rows' bound (the agent): the cache starts over in its memory, every row as unbounded", test_cfi_bound },
	{ "unwind: a frameless leaf keeps its caller (hybrid, 1024 bytes); fp marks the cut", test_leaf },
	{ "unwind: a vDSO pc with no VDSO record keeps its caller (this kernel's image)", test_vdso },
	{ "unwind: a --call-graph fp session (no snapshots): a frameless leaf and qsort's comparator right or marked", test_fp_session },
	{ "unwind: a qsort comparator reaches main through libc (dwarf); fp does not", test_qsort },
	{ "unwind: qsort in the default mode (hybrid, 1024 bytes): every stack reaches main in order or ends in [truncated], and in fp mode", test_qsort_hybrid },
	{ "unwind: C++ -O2 without frame pointers reaches main (dwarf)", test_cxx },
	{ "unwind: red zone: libcrypto's SHA-256 reaches main with the 128 bytes below sp, not without", test_redzone },
	{ "unwind: a signal handler unwinds through __restore_rt to the interrupted code", test_signal },
	{ "unwind: a handler on a sigaltstack joins the FP chain of the interrupted code", test_altstack },
	{ "unwind: partial copies: the leaf's caller from 16 bytes; a cut libc stack is [truncated]", test_partial },
	{ "unwind: the host's exec probe (IA32's skip)", test_exec_probe },
	{ "unwind: IA32: 4-byte words and i386 registers", test_ia32 },
	{ "unwind: Go: main.mix keeps main.crunch (hybrid, .debug_frame); fp skips it; Go PGO reads the edge", test_go },
	{ "unwind: Go PGO: main.crunch -> main.mix is the heaviest edge for runtime/pprof and tprof, with runtime/pprof's share of the weight, same run", test_go_share },
	{ NULL, NULL },
};
