// SPDX-License-Identifier: GPL-2.0
/*
 * tprof test program: -O2 -g, with a known inline chain
 * hot_outer (noinline) -> hot_mid (always_inline) -> hot_leaf (always_inline),
 * optional worker threads and a late dlopen (for mappings of code loaded
 * after start). Burns the requested CPU time, then exits.
 *
 * usage: inlines [-t THREADS] [-s CPU_SECONDS] [-l LIB.so]
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static volatile unsigned long sink;

static inline __attribute__((always_inline)) unsigned long
hot_leaf(unsigned long x)
{
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return x;
}

static inline __attribute__((always_inline)) unsigned long
hot_mid(unsigned long x)
{
	unsigned long i;

	for (i = 0; i < 64; i++)
		x = hot_leaf(x) + i;
	return x;
}

__attribute__((noinline)) unsigned long hot_outer(unsigned long seed)
{
	unsigned long x = seed, i;

	for (i = 0; i < 1000; i++)
		x = hot_mid(x);
	return x;
}

__attribute__((noinline)) unsigned long cold_func(unsigned long seed)
{
	return hot_outer(seed) + 1;
}

static double cpu_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static double budget = 0.5;

static void *worker(void *arg)
{
	unsigned long x = (unsigned long)arg + 1;
	double end = cpu_seconds() + budget;

	while (cpu_seconds() < end) {
		x = hot_outer(x);
		x = cold_func(x);
	}
	sink = x;
	return NULL;
}

int main(int argc, char **argv)
{
	const char *lib = NULL;
	pthread_t th[256];
	int i, c, nthreads = 0;

	while ((c = getopt(argc, argv, "t:s:l:")) != -1) {
		switch (c) {
		case 't':
			nthreads = atoi(optarg);
			if (nthreads < 0 || nthreads > 256)
				return 2;
			break;
		case 's':
			budget = atof(optarg);
			break;
		case 'l':
			lib = optarg;
			break;
		default:
			fprintf(stderr, "usage: %s [-t THREADS] [-s CPU_SECONDS] [-l LIB.so]\n",
				argv[0]);
			return 2;
		}
	}
	for (i = 0; i < nthreads; i++)
		if (pthread_create(&th[i], NULL, worker, (void *)(long)i))
			return 1;
	worker(NULL);
	for (i = 0; i < nthreads; i++)
		pthread_join(th[i], NULL);
	if (lib) {
		void *h = dlopen(lib, RTLD_NOW);
		unsigned long (*fn)(unsigned long, double);

		if (!h) {
			fprintf(stderr, "dlopen: %s\n", dlerror());
			return 1;
		}
		fn = (unsigned long (*)(unsigned long, double))dlsym(h, "lib_hot");
		if (!fn)
			return 1;
		sink = fn(sink, budget);
		/* the library stays mapped until exit: tprof must catch it */
	}
	printf("%lu\n", sink & 1);
	return 0;
}
