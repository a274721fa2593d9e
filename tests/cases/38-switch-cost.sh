#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 600
# The per-switch cost by design: two profiled threads ping-ponging re-arm
# the timer at no more than 0.3 of their switch-ins (STATS timer_arms /
# sched_ins; make bench counts the same with perf's timer tracepoints).
. "$TPROF_ROOT/tests/cases/lib.sh"
"$TPROF_BUILD/kmod-tests/tprof-ktest" pingpong 20000 || fail "tprof-ktest pingpong exited $?"
