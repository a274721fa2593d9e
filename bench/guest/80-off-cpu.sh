#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 1800
# Benchmark 8 (issue 15): what off-CPU sampling adds to a context switch.
# A pipe ping-pong between two threads of one process, pinned to CPU 0
# with tprof-read, ROUNDS round trips (two switches each, every one a
# wait of a few microseconds), profiled at 1 kHz:
#   cpu:      --mode cpu (CPU time only, as before issue 15)
#   wall:     --mode wall (CPU and off-CPU time, 1 ms periods both)
#   off-cpu:  --mode off-cpu (off-CPU only: no CPU-time timer)
#   none:     unprofiled, before and after each (bracketing)
# Each profiled run's line has the timer operations (counted(), lib.sh),
# STATS sched_ins and timer_arms, and off_samples (off-CPU SAMPLE records:
# one stack walk and one irq_work each) from its --save-raw stream.
. "$(dirname "$0")/lib.sh"
[ "$COUNT_OK" = 1 ] || { skip "off-cpu: no tracefs event triggers"; exit 0; }
rounds=20000
[ "$BENCH_QUICK" = 1 ] && rounds=10000
bad=0
for rep in $(seq "$BENCH_REPS"); do
	tags="exp=offcpu rounds=$rounds rep=$rep"
	for mode in cpu wall off-cpu; do
		BENCH_PIN=0 counted "$tags case=none" none 0 -- \
			"$BW" pingpong thread "$rounds" || bad=$((bad + 1))
		BENCH_PIN=0 counted "$tags case=$mode" tprof 1000 --mode "$mode" \
			--save-raw @D@/raw -- "$BW" pingpong thread "$rounds" || bad=$((bad + 1))
	done
	BENCH_PIN=0 counted "$tags case=none" none 0 -- \
		"$BW" pingpong thread "$rounds" || bad=$((bad + 1))
done
[ $bad = 0 ] && ok "off-cpu: every run completed" || fail "off-cpu: $bad runs failed"
