#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 900
# The end of a session: 24 threads exiting at once from a 128 MiB mm
# (PROC_EXIT must come after every THREAD_EXIT, although signal->live drops
# before the exit probes), and ENABLE racing the target's immediate exit.
. "$TPROF_ROOT/tests/cases/lib.sh"
kt=$TPROF_BUILD/kmod-tests/tprof-ktest
"$kt" exit-order 8 || fail "tprof-ktest exit-order exited $?"
"$kt" enable-death 150 || fail "tprof-ktest enable-death exited $?"
