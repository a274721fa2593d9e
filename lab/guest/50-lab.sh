#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 3000
# `make bias` runs this in the guest: the whole lab, raw results into
# $TPROF_OUT/lab for the host to analyze. tprof's gates are printed as
# result lines too, so a bias run that misses them is visible.
. "$TPROF_ROOT/tests/cases/lab-case.sh"
lab_case "$TPROF_OUT/lab"
