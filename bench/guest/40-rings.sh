#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 3600
# Benchmark 4: lost samples and reader CPU at 10 kHz x 16 threads with the
# default ring size (tprof-read's CPU = the tree's CPU - the workload's).
. "$(dirname "$0")/lib.sh"
units=$(calibrate_units) || { fail "rings: calibration"; exit 0; }
units=$(( units / 8 + 1 ))	# 16 threads on one host thread
profs=tprof
have_perf && profs="tprof perf" || skip "rings: perf: perf record does not work here"
reps=$(( BENCH_REPS > 3 ? 3 : BENCH_REPS ))
bad=0
for rep in $(seq "$reps"); do
	tags="exp=rings threads=16 depth=30 rep=$rep"
	for p in $profs; do
		measure "$tags" none 0 -- "$BW" spin 16 30 "$units" || bad=$((bad + 1))
		measure "$tags" "$p" 10000 -- "$BW" spin 16 30 "$units" || bad=$((bad + 1))
	done
	measure "$tags" none 0 -- "$BW" spin 16 30 "$units" || bad=$((bad + 1))
done
[ $bad = 0 ] && ok "rings: every run completed" || fail "rings: $bad runs failed"
