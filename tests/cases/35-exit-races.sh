#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 900
# The end of a session: 24 threads exiting at once from a 128 MiB mm
# (PROC_EXIT must come after every THREAD_EXIT, although signal->live drops
# before the exit probes), and ENABLE racing the target's immediate exit.
. "$TPROF_ROOT/tests/cases/lib.sh"
# The debug kernel (timeout-scale) runs the same paths fewer times: each
# exit-order round faults in 128 MiB under KASAN (7 s a round there).
kt=$TPROF_BUILD/kmod-tests/tprof-ktest
rounds=8 deaths=150
[ "${CASE_TIMEOUT_SCALE:-1}" -gt 1 ] && rounds=3 deaths=60
"$kt" exit-order $rounds || fail "tprof-ktest exit-order exited $?"
"$kt" enable-death $deaths || fail "tprof-ktest enable-death exited $?"
