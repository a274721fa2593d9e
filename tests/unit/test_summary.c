// SPDX-License-Identifier: GPL-2.0
/* Unit tests: output facts computed once (lost, periods, sampled against exact) and the folded format. */
#include "testlib.h"

const struct unit_test summary_tests[] = {
	{ NULL, NULL },
};
