// SPDX-License-Identifier: GPL-2.0
/* tprof unit tests: runner. Prints "N passed, M failed" last. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testlib.h"

extern const struct unit_test python_live_tests[];
extern const struct unit_test pylines_tests[], python_merge_tests[];
extern const struct unit_test arm64_tests[];
extern const struct unit_test live_tests[];
extern const struct unit_test agent_tests[];
extern const struct unit_test agg_tests[];
extern const struct unit_test evict_tests[];
extern const struct unit_test cgroup_tests[];
extern const struct unit_test wakers_tests[];

int main(int argc, char **argv)
{
	const struct unit_test *suites[] = {
		records_tests, maps_tests, pprof_tests, symbolize_tests,
		go_tests, e2e_tests, device_tests, utf8_tests, options_tests, output_tests,
		resolve_tests, jit_tests, debuginfod_tests,
		scale_tests, nosym_tests, unwind_tests, symtab_tests,
		object_tests, stream_tests, summary_tests, model_tests,
		python_live_tests,
		pylines_tests, python_merge_tests, arm64_tests, live_tests,
		agent_tests,
		agg_tests,
		evict_tests,
		cgroup_tests,
		wakers_tests,
	};
	int passed = 0, failed = 0, skipped = 0;
	size_t s;

	setvbuf(stdout, NULL, _IOLBF, 0);
	for (s = 0; s < sizeof(suites) / sizeof(suites[0]); s++) {
		const struct unit_test *t;

		for (t = suites[s]; t->name; t++) {
			if (argc > 1 && !strstr(t->name, argv[1]))
				continue;
			t_checks_failed = 0;
			t_skip_reason = NULL;
			t->fn();
			fflush(stderr);
			if (t_checks_failed) {
				printf("not ok - %s\n", t->name);
				failed++;
			} else if (t_skip_reason) {
				printf("skip - %s: %s\n", t->name, t_skip_reason);
				skipped++;
			} else {
				printf("ok - %s\n", t->name);
				passed++;
			}
		}
	}
	if (skipped)
		printf("(%d skipped)\n", skipped);
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
