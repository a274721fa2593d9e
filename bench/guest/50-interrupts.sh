#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 3600
# Benchmark 1b: timer interrupts per sample. One thread pinned to CPU 0 with
# its profiler, 30-frame stacks, 1 kHz and 10 kHz: the local timer
# interrupts CPU 0 took during the run (/proc/interrupts LOC) against the
# samples delivered. Appends loc_irqs=N to the run's results line, and
# tp_expire=N: the expiries of tprof's own hrtimer (timer:hrtimer_expire_entry
# whose function is tprof_timer_fn, counted by a tracefs hist trigger, all
# CPUs), the interrupts tprof itself caused, exactly.
. "$(dirname "$0")/lib.sh"
units=$(calibrate_units) || { fail "irqs: calibration"; exit 0; }
units=$(( units / 2 + 1 ))
profs=tprof
have_perf && profs="tprof perf" || skip "irqs: perf: perf record does not work here"
reps=$(( BENCH_REPS > 3 ? 3 : BENCH_REPS ))
loc0() { awk '$1 == "LOC:" { print $2 }' /proc/interrupts; }
T=/sys/kernel/tracing
[ -e "$T/events/timer" ] || mount -t tracefs nodev "$T" 2> /dev/null
[ -e "$T/events/timer" ] || T=/sys/kernel/debug/tracing
ev_exp=$T/events/timer/hrtimer_expire_entry
h_exp="hist:keys=function.sym:vals=hitcount"
# run TAGS PROF HZ [ARGS...]: measure, then add CPU 0's timer interrupts
run() {
	local a b rc
	local x=
	echo "$h_exp" > "$ev_exp/trigger" 2> /dev/null || x=-
	a=$(loc0)
	BENCH_PIN=0 measure "$@" -- "$BW" spin 1 30 "$units"
	rc=$?
	b=$(loc0)
	if [ -z "$x" ]; then
		x=$(awk '/tprof_timer_fn/ { n += $NF } END { print n + 0 }' "$ev_exp/hist")
		echo "!$h_exp" > "$ev_exp/trigger"
	fi
	sed -i "\$s/\$/ loc_irqs=$((b - a)) tp_expire=$x/" "$BENCH_OUT/results.txt"
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
