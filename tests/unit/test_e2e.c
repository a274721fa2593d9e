// SPDX-License-Identifier: GPL-2.0
/* Unit tests: tprof-read --input replay end to end. */
#include "testlib.h"

const struct unit_test e2e_tests[] = {
	{ NULL, NULL },
};
