#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 600
# N spinning threads (N = NCPU and 2*NCPU): per-thread sample weight within
# one period of the module's on-CPU ns, which is within 1% of schedstat.
. "$TPROF_ROOT/tests/cases/lib.sh"
kt=$TPROF_BUILD/kmod-tests/tprof-ktest
"$kt" spin "$NCPU" || fail "tprof-ktest spin $NCPU exited $?"
"$kt" spin $((2 * NCPU)) || fail "tprof-ktest spin $((2 * NCPU)) exited $?"
