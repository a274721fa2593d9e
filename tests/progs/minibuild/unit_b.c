// SPDX-License-Identifier: GPL-2.0
#include "work.h"
UNIT(unit_b)
