#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 300
# Who made each thread wait, with the waker's stack (issue 35; the module's
# TPROF_F_WAKER_STACKS, tprof-read --mode wakers).
#  - the module (tprof-ktest waker-stacks, tests/kmod/wakers.c): a
#    producer thread's stacks at its wakeups of a consumer, read in its
#    own context, joined by wait number to the consumer's sampled waits,
#    taken only for waits at their sample point; STATS counts them.
. "$TPROF_ROOT/tests/cases/lib.sh"

B=$TPROF_BUILD
"$B/kmod-tests/tprof-ktest" waker-stacks || fail "tprof-ktest waker-stacks exited $?"
exit 0
