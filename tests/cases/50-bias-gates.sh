#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 1200
# tprof's bias gates (issue 5): serial-then-parallel on 8 threads at 1 kHz,
# each phase's sampled CPU within 3% of the kernel's accounting, threads with
# >= 1000 samples within 2%, churn total within 2% of rusage, nothing lost.
. "$TPROF_ROOT/tests/cases/lab-case.sh"
LAB_QUICK=1 lab_case "$TPROF_OUT/lab-gates"
