#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 300
# mode: icount 1 cpus 1
# Wakers' stacks as the module writes them (issue 35, TPROF_F_WAKER_STACKS;
# tests/kmod/wakers.c, tprof-ktest waker-stacks): a producer thread's
# stacks at its wakeups of a consumer, read in its own context (its chain
# through its thread function, its snapshot holding the return into the
# function that wrote), joined by wait number to the consumer's sampled
# waits, taken only for waits at their sample point, counted in STATS;
# and a consumer that polls with timeouts: its timed-out waits chain into
# the wait the producer ends and carry its number, the producer's own
# timed naps (a chain no thread ends) none. In an exact guest (icount, one
# vCPU) on every kernel, the debug kernel's lockdep and KASAN included:
# under plain TCG the poll phase's counts follow the host's load (a CI
# run's 6.12-rt guest beside three others: 83 of 300 rounds ended by the
# producer, the kernel seeing 1.28 sleeps a timeout; alone, 139-148 and
# 1.0). What tprof-read makes of it is 73-wakers-read.sh's.
. "$TPROF_ROOT/tests/cases/lib.sh"

B=$TPROF_BUILD
"$B/kmod-tests/tprof-ktest" waker-stacks || fail "tprof-ktest waker-stacks exited $?"
exit 0
