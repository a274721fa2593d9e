// SPDX-License-Identifier: GPL-2.0
/* Unit tests: Go binary symbolization vs the program's own runtime/pprof. */
#include "testlib.h"

const struct unit_test go_tests[] = {
	{ NULL, NULL },
};
