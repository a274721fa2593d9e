#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 600
# Serial-then-parallel equal work (golang/go#35057): each phase's sampled CPU
# within 3% of its kernel-accounted CPU, at 1 and 4 kHz.
. "$TPROF_ROOT/tests/cases/lib.sh"
kt=$TPROF_BUILD/kmod-tests/tprof-ktest
# at 1 kHz and 4 kHz (periods in microseconds)
for us in 1000 250; do
	"$kt" phases $us || fail "tprof-ktest phases $us exited $?"
done
