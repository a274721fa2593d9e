// SPDX-License-Identifier: GPL-2.0
/* Unit tests: the object layer: one object per (file, build-id), opened once, descriptors bounded. */
#include "testlib.h"

const struct unit_test object_tests[] = {
	{ NULL, NULL },
};
