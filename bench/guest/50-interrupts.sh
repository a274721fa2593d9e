#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 3600
# Benchmark 1b: timer interrupts per sample. One thread pinned to CPU 0 with
# its profiler, 30-frame stacks, 1 kHz and 10 kHz: the local timer
# interrupts CPU 0 took during the run (/proc/interrupts LOC) against the
# samples delivered. Appends loc_irqs=N to the run's results line.
. "$(dirname "$0")/lib.sh"
units=$(calibrate_units) || { fail "irqs: calibration"; exit 0; }
units=$(( units / 2 + 1 ))
profs=tprof
have_perf && profs="tprof perf" || skip "irqs: perf: perf record does not work here"
reps=$(( BENCH_REPS > 3 ? 3 : BENCH_REPS ))
loc0() { awk '$1 == "LOC:" { print $2 }' /proc/interrupts; }
# run TAGS PROF HZ [ARGS...]: measure, then add CPU 0's timer interrupts
run() {
	local a b rc
	a=$(loc0)
	BENCH_PIN=0 measure "$@" -- "$BW" spin 1 30 "$units"
	rc=$?
	b=$(loc0)
	sed -i "\$s/\$/ loc_irqs=$((b - a))/" "$BENCH_OUT/results.txt"
	return $rc
}
bad=0
for rep in $(seq "$reps"); do
	for hz in 1000 10000; do
		tags="exp=irqs threads=1 depth=30 rep=$rep"
		run "$tags" none 0 || bad=$((bad + 1))
		for m in $(bench_mods); do	# and the baseline module's (lib.sh)
			bench_use "$m" || { bad=$((bad + 1)); continue; }
			run "$tags" tprof "$hz" --save-raw @D@/raw || bad=$((bad + 1))
		done
		bench_use head
		case " $profs " in *" perf "*)
			run "$tags" none 0 || bad=$((bad + 1))
			run "$tags" perf "$hz" || bad=$((bad + 1)) ;;
		esac
	done
done
[ $bad = 0 ] && ok "irqs: every run completed" || fail "irqs: $bad runs failed"
