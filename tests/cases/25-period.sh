#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 300
# Per-thread periods (SET_THREAD_PERIOD).
. "$TPROF_ROOT/tests/cases/lib.sh"
kt=$TPROF_BUILD/kmod-tests/tprof-ktest
"$kt" period || fail "tprof-ktest period exited $?"
