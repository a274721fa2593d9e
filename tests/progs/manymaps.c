// SPDX-License-Identifier: GPL-2.0
/*
 * tprof test program: a process with thousands of mappings whose samples
 * all carry an address no mapping covers, the load that made tprof-read
 * re-read /proc/PID/maps at almost every sample (issue 13, item 9).
 *
 * Maps N pages of a file one by one, alternately read-only and read-write,
 * so that no two merge (N + the usual few lines in /proc/PID/maps, printed
 * as "mappings M"), then spins SECONDS of its CPU time in manymaps_hot with
 * its frame pointer on a made-up frame whose return address is unmapped:
 * each sample's stack is manymaps_hot, then 0xdead000 (what a frame-pointer
 * walk through code built without frame pointers routinely yields).
 *
 * Usage: manymaps N SECONDS FILE
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* { next frame pointer (none), return address (unmapped) } */
static uintptr_t fake_frame[2] = { 0, 0xdead000 };

/*
 * Built without a frame pointer of its own, so rbp is free: it points at
 * fake_frame while the loop runs (the compiler saves and restores it).
 */
__attribute__((noinline, optimize("omit-frame-pointer")))
unsigned long manymaps_hot(unsigned long x, long n);
__attribute__((noinline, optimize("omit-frame-pointer")))
unsigned long manymaps_hot(unsigned long x, long n)
{
	unsigned long m = 6364136223846793005UL;

	asm volatile("lea %[ff], %%rbp\n\t"
		     "1:\n\t"
		     "imul %[m], %[x]\n\t"
		     "add $1, %[x]\n\t"
		     "dec %[n]\n\t"
		     "jnz 1b"
		     : [x] "+r"(x), [n] "+r"(n)
		     : [m] "r"(m), [ff] "m"(fake_frame)
		     : "rbp", "cc");
	return x;
}

static int count_maps(void)
{
	FILE *f = fopen("/proc/self/maps", "r");
	int c, n = 0;

	if (!f)
		return -1;
	while ((c = getc(f)) != EOF)
		n += c == '\n';
	fclose(f);
	return n;
}

int main(int argc, char **argv)
{
	long page = sysconf(_SC_PAGESIZE), n, i;
	unsigned long x = 1;
	double end;
	char *base;
	int fd;

	if (argc != 4) {
		fprintf(stderr, "usage: manymaps N SECONDS FILE\n");
		return 2;
	}
	n = atol(argv[1]);
	fd = open(argv[3], O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || ftruncate(fd, n * page)) {
		perror(argv[3]);
		return 1;
	}
	/* one reservation, then each page of the file over its own page */
	base = mmap(NULL, n * page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (base == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	for (i = 0; i < n; i++)
		if (mmap(base + i * page, page,
			 i & 1 ? PROT_READ | PROT_WRITE : PROT_READ,
			 MAP_PRIVATE | MAP_FIXED, fd, i * page) == MAP_FAILED) {
			perror("mmap page");
			return 1;
		}
	close(fd);
	printf("mappings %d\n", count_maps());
	fflush(stdout);
	end = cpu_now() + atof(argv[2]);
	do
		x = manymaps_hot(x, 10000000);
	while (cpu_now() < end);
	printf("%lu\n", x & 1);
	return 0;
}
