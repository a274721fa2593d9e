#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 600
# Serial-then-parallel equal work (golang/go#35057): each phase's sampled CPU
# within 3% of its kernel-accounted CPU.
. "$TPROF_ROOT/tests/cases/lib.sh"
kt=$TPROF_BUILD/kmod-tests/tprof-ktest
"$kt" phases || fail "tprof-ktest phases exited $?"
