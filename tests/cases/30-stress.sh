#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 600
# 200 threads at 10 kHz switching constantly for a few seconds, with CPU
# hotplug during the session; the harness checks dmesg for WARN/lockdep/RCU.
. "$TPROF_ROOT/tests/cases/lib.sh"
kt=$TPROF_BUILD/kmod-tests/tprof-ktest
"$kt" stress 200 3 || fail "tprof-ktest stress exited $?"
