#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 1800
# Benchmark 6 (issue 12): timer operations per context switch, counted
# exactly with tracefs hist triggers on timer:hrtimer_start,
# timer:hrtimer_cancel and sched:sched_switch (the events `perf stat -e`
# would count, but keyed by CPU, hrtimer and callback, so tprof's own timer
# operations are told apart from the kernel's: an hrtimer_start whose
# function is tprof_timer_fn, and any hrtimer_cancel of one of those
# hrtimers). A pipe ping-pong pinned to CPU 0, ROUNDS round trips:
#   self:        two threads of one process profiled at 1 kHz (with
#                tprof-read on CPU 0 too); STATS timer_arms and sched_ins too
#   unrel-idle:  two unprofiled processes while a session profiles a
#                sleeping process
#   unrel-spin:  the same while a session profiles a thread spinning on CPU 1
#   none:        no session (the kernel's own timers, for reference)
# With BENCH_BASE_KO, the profiled runs are repeated with the baseline module.
# Appends to each run's results line: sw0 (sched_switch on CPU 0), swin0
# (switch-ins of bench-work threads on CPU 0), tp_start/tp_cancel (tprof's
# hrtimer starts/cancels, all CPUs), tp_start0/tp_cancel0 (on CPU 0),
# hr_start0/hr_cancel0 (every hrtimer's, on CPU 0).
. "$(dirname "$0")/lib.sh"
[ "$COUNT_OK" = 1 ] || { skip "switches: no tracefs event triggers"; exit 0; }
rounds=20000
[ "$BENCH_QUICK" = 1 ] && rounds=10000
reps=$(( BENCH_REPS > 2 ? 2 : BENCH_REPS ))
units=$(calibrate_units) || { fail "switches: calibration"; exit 0; }
bad=0
for rep in $(seq "$reps"); do
	tags="exp=switch rounds=$rounds rep=$rep"
	BENCH_PIN=0 counted "$tags case=none" none 0 -- \
		"$BW" pingpong thread "$rounds" || bad=$((bad + 1))
	for m in $(bench_mods); do
		bench_use "$m" || { bad=$((bad + 1)); continue; }
		BENCH_PIN=0 counted "$tags case=self" tprof 1000 --save-raw @D@/raw -- \
			"$BW" pingpong thread "$rounds" || bad=$((bad + 1))
		bg_start tprof 0
		counted "$tags case=unrel-idle bg=tprof" none 0 -- \
			"$BW" pingpong proc "$rounds" || bad=$((bad + 1))
		bg_stop
		# a target spinning on CPU 1 until bg_stop (tp_start - tp_start0
		# shows its session's timer ran there meanwhile)
		bg_start tprof 1 "$BW" spin 1 30 $(( units * 1000 ))
		counted "$tags case=unrel-spin bg=tprof" none 0 -- \
			"$BW" pingpong proc "$rounds" || bad=$((bad + 1))
		bg_stop
	done
	bench_use head
done
[ $bad = 0 ] && ok "switches: every run completed" || fail "switches: $bad runs failed"
