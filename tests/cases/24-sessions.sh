#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 600
# Two and eight concurrent sessions, EBUSY, a reader killed mid-session.
. "$TPROF_ROOT/tests/cases/lib.sh"
kt=$TPROF_BUILD/kmod-tests/tprof-ktest
"$kt" multi 2 || fail "tprof-ktest multi 2 exited $?"
"$kt" multi 8 || fail "tprof-ktest multi 8 exited $?"
"$kt" kill-reader || fail "tprof-ktest kill-reader exited $?"
