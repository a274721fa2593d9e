// SPDX-License-Identifier: GPL-2.0
/*
 * tprof test program: a plugin reload. dlopen LIB_A, spin SECONDS_A in it,
 * dlclose it, dlopen LIB_B (another build of the same source, see
 * dlreuse-lib.c), spin SECONDS_B in it. Prints the base address of each from
 * /proc/self/maps ("base A 0x... B 0x..."): when they are equal, the same
 * addresses ran one library's hot function and then the other's. LIB_B is
 * reopened up to 10 times until it lands where LIB_A was.
 *
 * Usage: dlreuse LIB_A SECONDS_A LIB_B SECONDS_B
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef unsigned long (*spin_fn)(unsigned long, double);

/* lowest start address of a mapping of PATH in /proc/self/maps, 0 if none */
static unsigned long base_of(const char *path)
{
	unsigned long lo, best = 0;
	char line[4096];
	FILE *f = fopen("/proc/self/maps", "r");
	size_t n = strlen(path);

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		size_t len = strcspn(line, "\n");

		line[len] = 0;
		if (len >= n && !strcmp(line + len - n, path) &&
		    sscanf(line, "%lx-", &lo) == 1 && (!best || lo < best))
			best = lo;
	}
	fclose(f);
	return best;
}

static void *open_lib(const char *path, spin_fn *fn)
{
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);

	if (!h) {
		fprintf(stderr, "dlreuse: %s\n", dlerror());
		exit(1);
	}
	*fn = (spin_fn)(unsigned long)dlsym(h, "reuse_spin");
	if (!*fn) {
		fprintf(stderr, "dlreuse: %s: no reuse_spin\n", path);
		exit(1);
	}
	return h;
}

int main(int argc, char **argv)
{
	unsigned long x = 1, a, b = 0;
	spin_fn fn;
	void *h;
	int i;

	if (argc != 5) {
		fprintf(stderr, "usage: dlreuse LIB_A SECONDS_A LIB_B SECONDS_B\n");
		return 2;
	}
	h = open_lib(argv[1], &fn);
	a = base_of(argv[1]);
	x = fn(x, atof(argv[2]));
	dlclose(h);
	if (base_of(argv[1])) {
		fprintf(stderr, "dlreuse: %s still mapped after dlclose\n", argv[1]);
		return 1;
	}
	for (i = 0; i < 10; i++) {
		h = open_lib(argv[3], &fn);
		b = base_of(argv[3]);
		if (b == a)
			break;
		dlclose(h);
	}
	if (b != a)
		h = open_lib(argv[3], &fn);
	printf("base A 0x%lx B 0x%lx\n", a, b);
	fflush(stdout);
	x = fn(x, atof(argv[4]));
	dlclose(h);
	printf("%lu\n", x & 1);
	return 0;
}
