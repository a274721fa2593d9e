#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 300
# Kernel stacks of samples taken at switch-out (deferred by the timer, or
# passed between timer checks) show the sampled context, never tprof.ko's
# own frames.
. "$TPROF_ROOT/tests/cases/lib.sh"
"$TPROF_BUILD/kmod-tests/tprof-ktest" kstack-own || fail "tprof-ktest kstack-own exited $?"
