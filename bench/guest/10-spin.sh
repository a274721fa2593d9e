#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 7200
# Benchmark 1: slowdown of a CPU-bound program with 30-frame stacks on 1 and
# 8 threads at 100 Hz, 1 kHz and 10 kHz: unprofiled, tprof-read, perf record
# -g. An unprofiled run brackets every profiled one (see lib.sh). The
# one-thread runs are pinned to CPU 0 with their profiler.
. "$(dirname "$0")/lib.sh"
units=$(calibrate_units) || { fail "spin: calibration"; exit 0; }
echo "# spin: $units units per thread (~${BENCH_CPU_MS} ms of CPU)"
profs=tprof
have_perf && profs="tprof perf" || skip "spin: perf: perf record does not work here"
bad=0
for rep in $(seq "$BENCH_REPS"); do
	for t in 1 8; do
		# 8 threads share one host thread under single-threaded TCG: a
		# quarter of the work each keeps a run about as long as 2 x 1 thread
		pin= u=$(( units / 4 + 1 ))
		[ "$t" = 1 ] && pin=0 u=$units
		tags="exp=spin threads=$t depth=30 rep=$rep"
		BENCH_PIN=$pin measure "$tags" none 0 -- "$BW" spin "$t" 30 "$u" ||
			bad=$((bad + 1))
		for hz in 100 1000 10000; do
			for p in $profs; do
				BENCH_PIN=$pin measure "$tags" "$p" "$hz" -- \
					"$BW" spin "$t" 30 "$u" || bad=$((bad + 1))
				BENCH_PIN=$pin measure "$tags" none 0 -- \
					"$BW" spin "$t" 30 "$u" || bad=$((bad + 1))
			done
		done
	done
done
[ $bad = 0 ] && ok "spin: every run completed" || fail "spin: $bad runs failed"
