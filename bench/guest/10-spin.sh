#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 5400
# Benchmark 1: slowdown of a CPU-bound program with 30-frame stacks on 1 and
# 8 threads at 100 Hz, 1 kHz and 10 kHz: unprofiled, tprof-read, perf record
# -g. Variants interleave within each repetition so drift hits all alike.
# The one-thread runs are pinned to CPU 0 with their profiler.
. "$(dirname "$0")/lib.sh"
units=$(calibrate_units) || { fail "spin: calibration"; exit 0; }
echo "# spin: $units units per thread (~${BENCH_CPU_MS} ms of CPU)"
profs=tprof
have_perf && profs="tprof perf" || skip "spin: perf: perf record does not work here"
bad=0
for rep in $(seq "$BENCH_REPS"); do
	for t in 1 8; do
		# one thread: the profiler shares its CPU (see measure in lib.sh)
		pin=
		[ "$t" = 1 ] && pin=0
		BENCH_PIN=$pin measure "exp=spin threads=$t depth=30 rep=$rep" none 0 -- \
			"$BW" spin "$t" 30 "$units" || bad=$((bad + 1))
		for hz in 100 1000 10000; do
			for p in $profs; do
				BENCH_PIN=$pin measure "exp=spin threads=$t depth=30 rep=$rep" "$p" "$hz" -- \
					"$BW" spin "$t" 30 "$units" || bad=$((bad + 1))
			done
		done
	done
done
[ $bad = 0 ] && ok "spin: every run completed" || fail "spin: $bad runs failed"
