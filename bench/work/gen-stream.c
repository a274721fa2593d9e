// SPDX-License-Identifier: GPL-2.0
/*
 * gen-stream: a synthetic saved record stream for `tprof-read --input`, for
 * the reader benchmark: SAMPLES samples over STACKS distinct user stacks of
 * DEPTH frames, spread over 8 threads, with addresses in BINARY's text
 * mapped at a PIE base so that symbolization has real work to do. Each
 * stack is sampled on one thread (when STACKS is a multiple of 8), so the
 * profile has STACKS distinct samples.
 *   gen-stream OUT SAMPLES STACKS DEPTH BINARY
 * Records come from the unit tests' stream builder (tests/unit/testlib.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testlib.h"

#define PID	4242
#define BASE	0x555555554000ULL
#define POOL	512
#define NTHREADS 8
#define PERIOD	1000000ULL

int main(int argc, char **argv)
{
	struct sbuf b = { 0 };
	unsigned long long n, nstacks, i, lo = 0, hi = 0, pool[POOL];
	unsigned int depth, f, t;
	uint64_t *ips;
	char *maps, *line;
	FILE *out;

	if (argc != 6) {
		fprintf(stderr, "usage: gen-stream OUT SAMPLES STACKS DEPTH BINARY\n");
		return 2;
	}
	n = strtoull(argv[2], NULL, 0);
	nstacks = strtoull(argv[3], NULL, 0);
	depth = atoi(argv[4]);
	maps = fake_maps(argv[5], BASE);
	if (!maps || !nstacks || depth < 2 || depth > TPROF_MAX_USER_FRAMES)
		return 2;
	/* the executable mapping's range */
	for (line = maps; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
		char perms[8] = "";

		if (sscanf(line, "%llx-%llx %7s", &lo, &hi, perms) == 3 &&
		    !strcmp(perms, "r-xp"))
			break;
		lo = hi = 0;
	}
	if (hi <= lo)
		return 2;
	for (i = 0; i < POOL; i++)
		pool[i] = lo + 16 + (hi - lo - 32) / POOL * i;
	ips = calloc(depth, sizeof(*ips));
	out = fopen(argv[1], "w");
	if (!out || !ips)
		return 1;

	sb_session(&b, PID, PERIOD, 1700000000000000000ULL, 1000);
	sb_maps(&b, PID, 1001, maps);
	for (t = 0; t < NTHREADS; t++)
		sb_thread(&b, PID, PID + t, t ? "worker" : "main", 1002 + t);
	for (i = 0; i < n; i++) {
		/* a fixed pseudo-random walk over the stacks */
		unsigned long long s = (i * 2654435761ULL) % nstacks;

		/* leaf and caller pick the stack; outer frames are shared */
		ips[0] = pool[s % 100];
		ips[1] = pool[100 + (s / 100) % 100] + 1;
		for (f = 2; f < depth; f++)
			ips[f] = pool[200 + (f * 7 + s % 3) % (POOL - 200)] + 1;
		/* past 10,000 stacks, frames 2 and 3 tell them apart (the
		 * memory benchmark's 1M distinct stacks); below, unchanged */
		ips[2] += 4 * ((s / 10000) % 1000);
		if (depth > 3)
			ips[3] += 4 * (s / 10000 / 1000);
		sb_sample(&b, PID, PID + i % NTHREADS, PERIOD, PERIOD, 2000 + i,
			  0, NULL, depth, ips);
		if (b.len > (32u << 20)) {
			if (fwrite(b.p, b.len, 1, out) != 1)
				return 1;
			b.len = 0;
		}
	}
	for (t = 0; t < NTHREADS; t++)
		sb_stat(&b, TPROF_REC_THREAD_STAT, PID, PID + t,
			n / NTHREADS * PERIOD, n / NTHREADS, n / NTHREADS * PERIOD,
			0, 0, PERIOD, t ? "worker" : "main", 2000 + n + t);
	sb_proc_exit(&b, PID, 0, 3000 + n);
	if (b.len && fwrite(b.p, b.len, 1, out) != 1)
		return 1;
	sb_free(&b);
	free(maps);
	free(ips);
	return fclose(out) ? 1 : 0;
}
