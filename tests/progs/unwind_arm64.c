// SPDX-License-Identifier: GPL-2.0
/*
 * arm64 workloads for tests/unit/test_arm64.c, cross-built and run under
 * qemu-user, which cannot be ptraced as the arm64 program it runs: the
 * program samples itself instead. A SIGPROF handler takes what tprof.ko
 * records for an arm64 sample from the signal's context: x19-x30, sp and
 * pc (enum tprof_ureg_arm64, lr and pc PAC-stripped), the frame-record
 * walk from x29 with the link register first (TPROF_RF_USER_LR), and the
 * stack from sp; after N samples it writes them with its maps
 * (tests/progs/arm64_snap.h).
 *   leaf   main -> caller -> hot_leaf, a leaf with no frame record
 *   qsort  main -> sort_round -> libc's qsort -> cmp_ints
 *   plt    main -> plt_loop -> rand_r through its PLT entry; run with
 *          LD_BIND_NOT=1 every call is resolved again: ld.so's
 *          _dl_runtime_resolve, entered from PLT0, which pushed x16
 *          and x30 (the return into plt_loop) below plt_loop's frame
 * Built -O2 -fno-omit-frame-pointer -mbranch-protection=standard: main,
 * caller and sort_round sign the return address they save (paciasp).
 * Usage: unwind_arm64 leaf|qsort|plt NSAMPLES OUT
 */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <ucontext.h>
#include <unistd.h>

#include "arm64_snap.h"
#include "unwind_work.h"

#define MAX_SAMPLES 1000

/* the program's text (GNU ld): a return address into it is into main,
 * sort_round or caller */
extern char __executable_start[], etext[];

static struct arm64_snap *snaps;
static volatile unsigned int nsnaps;
static unsigned int want;
static uint64_t stack_lo, stack_hi;
static uint64_t signed_lr, stripped_lr, main_ret_seen, main_ret_plain;

/* xpaclri: the PAC of x30 stripped (a NOP without pointer auth) */
static uint64_t strip(uint64_t v)
{
	register uint64_t x30 __asm__("x30") = v;

	__asm__ volatile("hint #7" : "+r"(x30));
	return x30;
}

/* the word at addr, if it lies on the stack */
static int stack_word(uint64_t addr, uint64_t *v)
{
	if (addr < stack_lo || addr + 8 > stack_hi || (addr & 7))
		return 0;
	memcpy(v, (const void *)addr, 8);
	return 1;
}

/* as kmod's arm64 walk: pc, lr, then the frame records from x29 */
static void on_prof(int sig, siginfo_t *si, void *ucv)
{
	ucontext_t *uc = ucv;
	mcontext_t *mc = &uc->uc_mcontext;
	struct arm64_snap *s;
	uint64_t fp, sp = mc->sp, n, into_main = 0, prev = 0;
	int i, in_prog, prev_in_prog = 0;

	(void)sig;
	(void)si;
	if (nsnaps >= want)
		return;
	s = &snaps[nsnaps];
	for (i = 0; i < 10; i++)
		s->regs[i] = mc->regs[19 + i];
	s->regs[10] = mc->regs[29];
	s->regs[11] = strip(mc->regs[30]);
	s->regs[12] = sp;
	s->regs[13] = strip(mc->pc);
	s->ips[0] = s->regs[13];
	s->ips[1] = s->regs[11];
	s->nips = 2;
	fp = mc->regs[29];
	while (fp && s->nips < ARM64_SNAP_IPS) {
		uint64_t next, ret, plain;

		if (!stack_word(fp, &next) || !stack_word(fp + 8, &ret) ||
		    !ret)
			break;
		plain = strip(ret);
		if (!signed_lr && plain != ret) {
			signed_lr = ret;
			stripped_lr = plain;
		}
		/*
		 * The return into main: one into the program right before
		 * main's into libc (signed; _start's further out, after
		 * libc's frames, is into the program too, then the end)
		 */
		in_prog = plain >= (uint64_t)__executable_start &&
			  plain < (uint64_t)etext;
		if (!into_main && prev_in_prog && !in_prog && plain != ret)
			into_main = prev;
		prev = ret;
		prev_in_prog = in_prog;
		s->ips[s->nips++] = plain;
		if (next <= fp)
			break;
		fp = next;
	}
	if (into_main) {
		main_ret_seen++;
		if (strip(into_main) == into_main)
			main_ret_plain++;
	}
	n = sp < stack_hi ? stack_hi - sp : 0;
	if (n > ARM64_SNAP_BYTES)
		n = ARM64_SNAP_BYTES;
	if (sp >= stack_lo)
		memcpy(s->stack, (const void *)sp, n);
	else
		n = 0;
	s->nbytes = (uint32_t)n;
	nsnaps++;
}

/* rand_r's PLT entry, lazily bound (-Wl,-z,lazy) */
__attribute__((noinline)) unsigned int plt_loop(unsigned int *seed)
{
	unsigned int x = 0, i;

	for (i = 0; i < 16; i++)
		x += (unsigned int)rand_r(seed);
	return x;
}

/* The maps text (qemu-user shows the guest's), malloc'd, NUL-ended. */
static char *read_maps(size_t *len)
{
	size_t cap = 65536, n = 0;
	char *buf = malloc(cap);
	int fd = open("/proc/self/maps", O_RDONLY);
	ssize_t r;

	if (!buf || fd < 0)
		exit(3);
	while ((r = read(fd, buf + n, cap - n - 1)) > 0) {
		n += r;
		if (n + 1 == cap && !(buf = realloc(buf, cap *= 2)))
			exit(3);
	}
	close(fd);
	buf[n] = 0;
	*len = n;
	return buf;
}

static void find_stack(void)
{
	size_t len;
	char *maps = read_maps(&len), *l;

	for (l = maps; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
		if (strstr(l, "[stack]") &&
		    (!strchr(l, '\n') || strstr(l, "[stack]") < strchr(l, '\n'))) {
			unsigned long lo, hi;

			if (sscanf(l, "%lx-%lx", &lo, &hi) == 2) {
				stack_lo = lo;
				stack_hi = hi;
			}
			break;
		}
	free(maps);
	if (!stack_hi)
		exit(4);
}

static void finish(const char *out)
{
	struct itimerval off = { { 0, 0 }, { 0, 0 } };
	struct arm64_snap_hdr h = { .magic = ARM64_SNAP_MAGIC };
	size_t len;
	char *maps;
	FILE *f;

	setitimer(ITIMER_PROF, &off, NULL);
	maps = read_maps(&len);
	h.nsamples = nsnaps;
	h.maps_len = (uint32_t)len;
	h.signed_lr = signed_lr;
	h.stripped_lr = stripped_lr;
	h.main_ret_seen = main_ret_seen;
	h.main_ret_plain = main_ret_plain;
	f = fopen(out, "wb");
	if (!f || fwrite(&h, sizeof(h), 1, f) != 1 ||
	    fwrite(snaps, sizeof(*snaps), nsnaps, f) != nsnaps ||
	    fwrite(maps, 1, len, f) != len || fclose(f))
		exit(5);
	exit(0);
}

int main(int argc, char **argv)
{
	struct itimerval it = { { 0, 2000 }, { 0, 2000 } };
	struct sigaction sa;
	unsigned long x = 1;
	unsigned int seed = 1;
	static unsigned int v[2000];

	if (argc != 4) {
		fprintf(stderr, "usage: unwind_arm64 leaf|qsort|plt NSAMPLES OUT\n");
		return 2;
	}
	want = (unsigned int)atoi(argv[2]);
	if (!want || want > MAX_SAMPLES)
		return 2;
	snaps = calloc(want, sizeof(*snaps));
	if (!snaps)
		return 3;
	find_stack();
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_prof;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigaction(SIGPROF, &sa, NULL);
	setitimer(ITIMER_PROF, &it, NULL);
	if (!strcmp(argv[1], "leaf")) {
		while (nsnaps < want)
			x = caller(x);
	} else if (!strcmp(argv[1], "qsort")) {
		while (nsnaps < want)
			sort_round(v, sizeof(v) / sizeof(v[0]), seed++);
	} else if (!strcmp(argv[1], "plt")) {
		while (nsnaps < want)
			x += plt_loop(&seed);
	} else {
		return 2;
	}
	finish(argv[3]);
	return 0;
}
