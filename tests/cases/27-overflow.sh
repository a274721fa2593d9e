#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 300
# A 4 KiB ring at 50 kHz: lost > 0, delivered + lost weight == on-CPU time.
. "$TPROF_ROOT/tests/cases/lib.sh"
kt=$TPROF_BUILD/kmod-tests/tprof-ktest
"$kt" overflow || fail "tprof-ktest overflow exited $?"
