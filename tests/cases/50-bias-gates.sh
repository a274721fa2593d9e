#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 1200
# tprof's bias gates (issue 5): serial-then-parallel on 8 threads at 1 kHz,
# each phase's sampled CPU within 3% of the kernel's accounting, threads with
# >= 1000 samples within 2%, churn total within 2% of rusage, nothing lost
# (with 1 MiB rings: see lab/run-lab.sh). Plain TCG, not an exact guest:
# with two or more vCPUs under icount, churn's threads were sampled 1.6-5.4%
# over their kernel-accounted CPU (tests/vm/README.md; 0.1-0.7% here), and
# 6.1 does not boot SMP under icount.
. "$TPROF_ROOT/tests/cases/lab-case.sh"
LAB_QUICK=1 lab_case "$TPROF_OUT/lab-gates"
