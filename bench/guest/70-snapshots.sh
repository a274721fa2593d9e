#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 3600
# Benchmark 7 (issue 16): user stack snapshots by --call-graph mode, at
# 1 kHz x 16 threads with the default ring: bytes per sample and lost
# samples (from the saved stream and STATS), tprof.ko's sampling path per
# sample (STATS, TPROF_F_PATH_TIMING), the workload's extra CPU per sample
# in every mode and with perf --call-graph dwarf, bracketed by unprofiled
# runs as everywhere else.
. "$(dirname "$0")/lib.sh"
units=$(calibrate_units) || { fail "snapshots: calibration"; exit 0; }
units=$(( units / 8 + 1 ))	# 16 threads on one host thread
reps=$(( BENCH_REPS > 3 ? 3 : BENCH_REPS ))
have_perf || skip "snapshots: perf: perf record does not work here"
bad=0
for rep in $(seq "$reps"); do
	for mode in fp hybrid dwarf; do
		tags="exp=snap threads=16 depth=30 rep=$rep mode=$mode"
		measure "$tags" none 0 -- "$BW" spin 16 30 "$units" || bad=$((bad + 1))
		BENCH_PATH_TIMING=1 measure "$tags" tprof 1000 --call-graph "$mode" \
			--save-raw @D@/raw -- "$BW" spin 16 30 "$units" || bad=$((bad + 1))
	done
	if have_perf; then
		tags="exp=snap threads=16 depth=30 rep=$rep mode=perf-dwarf"
		measure "$tags" none 0 -- "$BW" spin 16 30 "$units" || bad=$((bad + 1))
		measure "$tags" perf 1000 --call-graph dwarf -- "$BW" spin 16 30 "$units" ||
			bad=$((bad + 1))
	fi
	measure "exp=snap threads=16 depth=30 rep=$rep mode=none" none 0 -- \
		"$BW" spin 16 30 "$units" || bad=$((bad + 1))
done
[ $bad = 0 ] && ok "snapshots: every run completed" || fail "snapshots: $bad runs failed"
