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
T=/sys/kernel/tracing
[ -e "$T/events/timer" ] || mount -t tracefs nodev "$T" 2> /dev/null
[ -e "$T/events/timer" ] || T=/sys/kernel/debug/tracing
ev_start=$T/events/timer/hrtimer_start/trigger
ev_cancel=$T/events/timer/hrtimer_cancel/trigger
ev_switch=$T/events/sched/sched_switch/trigger
[ -w "$ev_start" ] || { skip "switches: no tracefs event triggers"; exit 0; }
# the CPU as a hist key: common_cpu since 5.15, cpu before
cpuk=common_cpu
echo "hist:keys=$cpuk" > "$ev_switch" 2> /dev/null || cpuk=cpu
echo "!hist:keys=$cpuk" > "$ev_switch" 2> /dev/null
h_start="hist:keys=$cpuk,function.sym,hrtimer.hex:vals=hitcount:size=4096"
h_cancel="hist:keys=$cpuk,hrtimer.hex:vals=hitcount:size=4096"
h_switch="hist:keys=$cpuk,next_comm:vals=hitcount:size=4096"

count_start() {
	echo "$h_start" > "$ev_start" && echo "$h_cancel" > "$ev_cancel" &&
		echo "$h_switch" > "$ev_switch"
}
# count_stop: remove the triggers, print the counts as key=value
count_stop() {
	local d
	d=$(mktemp -d /tmp/hist.XXXXXX)
	cp "${ev_start%trigger}hist" "$d/start"
	cp "${ev_cancel%trigger}hist" "$d/cancel"
	cp "${ev_switch%trigger}hist" "$d/switch"
	echo "!$h_start" > "$ev_start"
	echo "!$h_cancel" > "$ev_cancel"
	echo "!$h_switch" > "$ev_switch"
	cat "$d"/* >> "$BENCH_OUT/logs/switches-hist.log"
	awk -v bw="$(basename "$BW" | cut -c1-15)" '
	function field(k,   m) {
		if (match($0, k ": *[^ ,}]+")) {
			m = substr($0, RSTART, RLENGTH); sub(/^[^:]*: */, "", m); return m
		}
		return ""
	}
	FNR == 1 { f++ }
	/^\{/ {
		cpu = field("(common_)?cpu"); hr = field("hrtimer"); n = field("hitcount") + 0
		if (f == 1) {
			if (cpu == 0) hs0 += n
			if ($0 ~ /tprof_timer_fn/) { tp[hr] = 1; ts += n; if (cpu == 0) ts0 += n }
		} else if (f == 2) {
			if (cpu == 0) hc0 += n
			can[cpu " " hr] += n
		} else {
			if (cpu == 0) { sw0 += n; if (field("next_comm") == bw) swin0 += n }
		}
	}
	END {
		for (k in can) {
			split(k, a, " ")
			if (a[2] in tp) { tc += can[k]; if (a[1] == 0) tc0 += can[k] }
		}
		printf "sw0=%d swin0=%d tp_start=%d tp_cancel=%d tp_start0=%d tp_cancel0=%d hr_start0=%d hr_cancel0=%d\n",
			sw0, swin0, ts, tc, ts0, tc0, hs0, hc0
	}' "$d/start" "$d/cancel" "$d/switch"
	rm -rf "$d"
}
# counted TAGS PROF HZ [ARGS] -- CMD: measure with the counters around it
counted() {
	local rc c
	mkdir -p "$BENCH_OUT/logs"
	count_start || { echo "# switches: cannot set the hist triggers"; return 1; }
	measure "$@"
	rc=$?
	c=$(count_stop)
	sed -i "\$s/\$/ $c/" "$BENCH_OUT/results.txt"
	echo "# counts: $c"
	return $rc
}

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
