#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 600
# Threads created after ENABLE; 1000 short-lived threads under one period.
. "$TPROF_ROOT/tests/cases/lib.sh"
kt=$TPROF_BUILD/kmod-tests/tprof-ktest
"$kt" late || fail "tprof-ktest late exited $?"
"$kt" short || fail "tprof-ktest short exited $?"
