// SPDX-License-Identifier: GPL-2.0
/*
 * A target with a known frame-pointer chain main -> fa -> fb -> fc, built
 * 64-bit and -m32. Prints the three function addresses and the bounds of
 * the stack fa runs on, waits for a byte on stdin, burns ~150 ms of CPU in
 * fc, exits 0.
 *
 * fc keeps marker words on its stack: each holds its own address xor
 * STACK_MARK, so a snapshot of the stack can be checked against the
 * target's memory (the marker must sit at address - sp in the copy).
 *
 * With the argument "edge", fa runs on a makecontext() stack of 3 pages
 * whose top is followed by an unmapped page: a snapshot from sp reaches
 * the end of what can be read (a partial copy, to exactly the top).
 */
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#define STACK_MARK	((unsigned long)0x5a17c0de5a17c0deULL)

volatile unsigned long sink;

static unsigned long long cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

__attribute__((noinline)) void fc(unsigned long long ns)
{
	volatile unsigned long mark[2];
	unsigned long long end;
	unsigned long i;

	/* before the first call: a sample in it has fb on the chain */
	mark[0] = (unsigned long)&mark[0] ^ STACK_MARK;
	mark[1] = (unsigned long)&mark[1] ^ STACK_MARK;
	end = cpu_ns() + ns;
	while (cpu_ns() < end)
		for (i = 0; i < 2000000; i++)
			sink += i ^ (i >> 3);
	sink += mark[0] + mark[1];
}

__attribute__((noinline)) void fb(unsigned long long ns)
{
	fc(ns);
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) void fa(unsigned long long ns)
{
	fb(ns);
	__asm__ volatile("" ::: "memory");
}

static void run_fa(void)
{
	fa(150000000ULL);
}

int main(int argc, char **argv)
{
	long pg = sysconf(_SC_PAGESIZE);
	static ucontext_t back, uc;
	static char *lo;	/* not clobbered across getcontext() */
	char c;

	if (argc > 1 && !strcmp(argv[1], "edge")) {
		lo = mmap(NULL, 4 * pg, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (lo == MAP_FAILED || munmap(lo + 3 * pg, pg))
			return 1;
	}
	printf("%llx %llx %llx %llx %llx\n",
	       (unsigned long long)(unsigned long)fa,
	       (unsigned long long)(unsigned long)fb,
	       (unsigned long long)(unsigned long)fc,
	       (unsigned long long)(unsigned long)lo,
	       (unsigned long long)(unsigned long)(lo ? lo + 3 * pg : 0));
	fflush(stdout);
	if (read(0, &c, 1) != 1)
		return 1;
	if (!lo) {
		run_fa();
		return 0;
	}
	if (getcontext(&uc))
		return 1;
	uc.uc_stack.ss_sp = lo;
	uc.uc_stack.ss_size = 3 * pg;
	uc.uc_link = &back;
	makecontext(&uc, run_fa, 0);
	return swapcontext(&back, &uc) ? 1 : 0;
}
