#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 300
# Wakers' stacks as the module writes them (issue 35, TPROF_F_WAKER_STACKS;
# tests/kmod/wakers.c, tprof-ktest waker-stacks): a producer thread's
# stacks at its wakeups of a consumer, read in its own context (its chain
# through its thread function, its snapshot holding the return into the
# function that wrote), joined by wait number to the consumer's sampled
# waits, taken only for waits at their sample point, counted in STATS;
# and a consumer that polls with timeouts: its timed-out waits chain into
# the wait the producer ends and carry its number, the producer's own
# timed naps (a chain no thread ends) none. Plain TCG on every kernel,
# the debug kernel's lockdep and KASAN included; what tprof-read makes of
# it is 73-wakers-read.sh's, in an exact guest.
. "$TPROF_ROOT/tests/cases/lib.sh"

B=$TPROF_BUILD
"$B/kmod-tests/tprof-ktest" waker-stacks || fail "tprof-ktest waker-stacks exited $?"
exit 0
