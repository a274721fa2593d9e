#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 300
# Accounting independent of CONFIG_IRQ_TIME_ACCOUNTING: sampled CPU per
# thread against its own CPU clock at a 200 us period. Meaningful where
# rq_clock_task lags local_clock (the debug kernel); says so elsewhere.
. "$TPROF_ROOT/tests/cases/lib.sh"
mountpoint -q /sys/kernel/debug || mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
"$TPROF_BUILD/kmod-tests/tprof-ktest" clock || fail "tprof-ktest clock exited $?"
