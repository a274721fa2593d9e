// SPDX-License-Identifier: GPL-2.0
/*
 * uwalktarget: the target of tprof-ktest's user-memory walk tests
 * (tests/kmod/uwalk.c). Its threads build known chains in their own
 * memory, in the shape of an interpreter's frames: a __thread slot (at a
 * fixed offset from the thread pointer: fs_base, which glibc's
 * pthread_self() equals on x86-64) points at the thread's state, whose
 * guard word is pthread_self() and whose top field points at a list of
 * frames; each frame has fields of 1, 2, 4 and 8 bytes (the 8-byte one a
 * tagged pointer to a code object) and a next pointer. The values are
 * distinct per thread and per frame. Then the threads spin (one sleeps),
 * and the target prints its layout and every thread's expected words:
 *
 *   L tls_off guard_off top_off f1 f2 f4 fcode next code0 code1 gslot mask
 *     f4far w1far
 *   T tid kind nframes state_addr       (one per thread, main included)
 *   W tid w0 w1 w2 w3 w4 w5             (one per frame, innermost first)
 *   ready
 *
 * kinds: ok (a chain), sleep (ok, sleeping: off-CPU samples), guard (its
 * guard word is wrong), nostart (its slot is 0), fault (the third frame
 * lies in unmapped memory), cycle (two frames pointing at each other),
 * self (one frame that is its own next), main (the main thread: slot 0).
 * gslot is a global slot (ADDR walks) pointing at the first ok thread's
 * state. Commands on stdin: "x" execs /proc/self/exe "spin" (the same
 * image, spinning: no walk may run after the exec), "q" quits.
 * With argument "spin": spin 1 s with the same TLS slot set, then exit.
 * With "chain N": four threads of kind ok with N frames each (the bench).
 * With "secret": the fault thread's third frame is in memfd_secret memory
 * (see secret_frame()).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define NFRAMES		6	/* frames of a chain, by default */
#define CODE_TAG	0x5ULL	/* low bits set in code pointers */
#define CODE_MASK	0x7ULL

struct code {
	uint64_t pad;
	uint64_t w0;		/* at 8 */
	uint64_t pad2;
	uint64_t w1;		/* at 24 */
	uint64_t pad3[20];
	uint64_t w1far;		/* w1 again, far from w0 */
};

struct frame {
	uint64_t pad;
	uint8_t f1;
	uint8_t pad1;
	uint16_t f2;
	uint32_t f4;
	uint64_t code;		/* tagged struct code * */
	struct frame *next;
	uint8_t far[160];
	uint32_t f4far;		/* f4 again, far from the rest */
};

struct state {
	uint64_t pad[2];
	uint64_t guard;		/* pthread_self() */
	struct frame *top;
};

enum kind { K_OK, K_SLEEP, K_GUARD, K_NOSTART, K_FAULT, K_CYCLE, K_SELF };
static const char *const kind_name[] = {
	"ok", "sleep", "guard", "nostart", "fault", "cycle", "self",
};
static const enum kind kinds[] = {
	K_OK, K_OK, K_SLEEP, K_GUARD, K_NOSTART, K_FAULT, K_CYCLE, K_SELF,
};
#define MAXTHREADS	(sizeof(kinds) / sizeof(kinds[0]))
static unsigned int nthreads = MAXTHREADS, nframes = NFRAMES;
static int bench;

static __thread struct state *slot;
struct state *gslot;
static pthread_barrier_t built;
static pthread_mutex_t out_lock = PTHREAD_MUTEX_INITIALIZER;
static void *unmapped;
static volatile int stop;

static pid_t gettid_(void)
{
	return syscall(SYS_gettid);
}

static void spin_ms(unsigned int ms)
{
	struct timespec a, b;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
	do {
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
	} while ((b.tv_sec - a.tv_sec) * 1000000000LL + b.tv_nsec - a.tv_nsec <
		 ms * 1000000LL);
}

/* The words a walk records of @f (fields, then the code words). */
static void print_frame(pid_t tid, const struct frame *f)
{
	const struct code *c = (const void *)(uintptr_t)(f->code & ~CODE_MASK);

	printf("W %d %llx %llx %llx %llx %llx %llx\n", tid,
	       (unsigned long long)f->f1, (unsigned long long)f->f2,
	       (unsigned long long)f->f4, (unsigned long long)f->code,
	       (unsigned long long)c->w0, (unsigned long long)c->w1);
}

static void *worker(void *arg)
{
	unsigned int idx = (uintptr_t)arg, i, n = nframes;
	enum kind k = bench ? K_OK : kinds[idx];
	struct state *st = calloc(1, sizeof(*st));
	struct frame *fr = calloc(nframes, sizeof(*fr));
	struct code *code = calloc(1, sizeof(*code));
	pid_t tid = gettid_();

	if (!st || !fr || !code)
		abort();
	code->w0 = 0xc0de000000000000ULL | idx << 8;
	code->w1 = 0xc0de000000000001ULL | idx << 8;
	code->w1far = code->w1;
	for (i = 0; i < nframes; i++) {
		fr[i].f1 = 0x10 * idx + i;
		fr[i].f2 = 0xa000 + 0x100 * idx + i;
		fr[i].f4 = 0xb0000000U + 0x10000U * idx + i;
		fr[i].f4far = fr[i].f4;
		fr[i].code = (uint64_t)(uintptr_t)code | CODE_TAG;
		fr[i].next = i + 1 < nframes ? &fr[i + 1] : NULL;
	}
	st->guard = (uint64_t)pthread_self();
	st->top = fr;
	switch (k) {
	case K_GUARD:
		st->guard ^= 0x1000;
		break;
	case K_FAULT:
		fr[1].next = unmapped;
		n = 2;
		break;
	case K_CYCLE:
		fr[1].next = &fr[0];
		n = 2;
		break;
	case K_SELF:
		fr[0].next = &fr[0];
		n = 1;
		break;
	default:
		break;
	}
	slot = k == K_NOSTART ? NULL : st;
	if (idx == 0)
		gslot = st;
	pthread_mutex_lock(&out_lock);
	printf("T %d %s %u %llx\n", tid, kind_name[k], n,
	       (unsigned long long)(uintptr_t)st);
	for (i = 0; i < n; i++)
		print_frame(tid, &fr[i]);
	pthread_mutex_unlock(&out_lock);
	pthread_barrier_wait(&built);
	while (!stop) {
		if (k == K_SLEEP)
			usleep(3000);
		else
			spin_ms(1);
	}
	return NULL;
}

/*
 * "secret": the fault thread's third frame lies in memfd_secret(2) memory
 * (a frame whose every word is SECRET_WORD) instead of unmapped memory:
 * no walk may read it, as /proc/PID/mem may not. Prints "S addr errno",
 * errno that of a pread of /proc/self/mem there (EIO expected), or
 * "S 0 errno" when there is no memfd_secret (then the frame is unmapped).
 */
#define SECRET_WORD	0x5ec2e75ec2e75ec2ULL

static void secret_frame(void)
{
	int fd = (int)syscall(447 /* SYS_memfd_secret */, 0);
	uint64_t *p, b;
	int mfd, err = 0;
	unsigned int i;

	if (fd < 0 || ftruncate(fd, 4096)) {
		printf("S 0 %d\n", errno);
		return;
	}
	p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		printf("S 0 %d\n", errno);
		return;
	}
	for (i = 0; i < 4096 / 8; i++)
		p[i] = SECRET_WORD;
	mfd = open("/proc/self/mem", O_RDONLY);
	if (mfd < 0 || pread(mfd, &b, 8, (off_t)(uintptr_t)p) == 8)
		err = 0;
	else
		err = errno;
	if (mfd >= 0)
		close(mfd);
	unmapped = p;
	printf("S %llx %d\n", (unsigned long long)(uintptr_t)p, err);
}

int main(int argc, char **argv)
{
	pthread_t th[MAXTHREADS];
	struct state st = { .top = NULL };
	char cmd;
	unsigned int i;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc > 1 && !strcmp(argv[1], "spin")) {
		/* the new image: a state like the old one, never to be walked */
		st.guard = (uint64_t)pthread_self();
		slot = &st;
		spin_ms(1000);
		return 0;
	}
	if (argc > 2 && !strcmp(argv[1], "chain")) {
		bench = 1;
		nthreads = 4;
		nframes = atoi(argv[2]);
		if (nframes < 1)
			abort();
	}
	unmapped = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
			-1, 0);
	if (unmapped == MAP_FAILED || munmap(unmapped, 4096))
		abort();
	if (argc > 1 && !strcmp(argv[1], "secret"))
		secret_frame();
	printf("L %lld %zu %zu %zu %zu %zu %zu %zu %d %d %llx %llx %zu %zu\n",
	       (long long)((char *)&slot - (char *)pthread_self()),
	       offsetof(struct state, guard), offsetof(struct state, top),
	       offsetof(struct frame, f1), offsetof(struct frame, f2),
	       offsetof(struct frame, f4), offsetof(struct frame, code),
	       offsetof(struct frame, next), (int)offsetof(struct code, w0),
	       (int)offsetof(struct code, w1),
	       (unsigned long long)(uintptr_t)&gslot,
	       (unsigned long long)CODE_MASK, offsetof(struct frame, f4far),
	       offsetof(struct code, w1far));
	pthread_barrier_init(&built, NULL, nthreads + 1);
	for (i = 0; i < nthreads; i++)
		if (pthread_create(&th[i], NULL, worker, (void *)(uintptr_t)i))
			abort();
	pthread_barrier_wait(&built);
	printf("T %d main 0 0\n", gettid_());
	printf("ready\n");
	while (read(0, &cmd, 1) == 1) {
		if (cmd == 'x') {
			execl("/proc/self/exe", argv[0], "spin", (char *)NULL);
			abort();
		}
		if (cmd == 'q')
			break;
	}
	stop = 1;
	for (i = 0; i < nthreads; i++)
		pthread_join(th[i], NULL);
	return 0;
}
