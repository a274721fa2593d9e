#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 3000
# `make bias` runs this in the guest: the whole lab, raw results into
# $TPROF_OUT/lab for the host to analyze. The gates are enforced by make
# test (tests/cases/50-bias-gates.sh, with gate-sized work); here they are
# only reported, since the lab's runs are smaller.
. "$TPROF_ROOT/tests/cases/lab-case.sh"
lab_case "$TPROF_OUT/lab" --report-only
