// SPDX-License-Identifier: GPL-2.0
/* Unit tests: the model: maps over time, processes and threads, looked up without linear scans. */
#include "testlib.h"

const struct unit_test model_tests[] = {
	{ NULL, NULL },
};
