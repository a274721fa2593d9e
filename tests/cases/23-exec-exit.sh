#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 600
# exec by the leader and by another thread; target exit gives PROC_EXIT and
# EOF to a blocking reader.
. "$TPROF_ROOT/tests/cases/lib.sh"
kt=$TPROF_BUILD/kmod-tests/tprof-ktest
"$kt" exec || fail "tprof-ktest exec exited $?"
"$kt" exec-thread || fail "tprof-ktest exec-thread exited $?"
"$kt" eof || fail "tprof-ktest eof exited $?"
