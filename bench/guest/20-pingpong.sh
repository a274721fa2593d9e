#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 3600
# Benchmark 2: pipe ping-pong (both ends pinned to CPU 0, CPU time of both).
# (a) two processes while the profiler profiles an unrelated sleeping
#     process: the cost of the sched_switch probe (tprof) or of perf's
#     context-switch hooks on everyone else;
# (b) two threads of one process, profiled at 1 kHz: tprof follows the
#     threads of one process (not forks), so both ends are threads; the
#     profiler is pinned to CPU 0 with them.
. "$(dirname "$0")/lib.sh"
profs=tprof
have_perf && profs="tprof perf" || skip "pingpong: perf: perf record does not work here"

# rounds for ~BENCH_CPU_MS of CPU time (from a 2000-round run)
f=/tmp/pp-cal.$$
BENCH_RESULT=$f "$BW" pingpong proc 2000
ns=$(sed -n 's/.*work_cpu_ns=\([0-9]*\).*/\1/p' "$f")
rounds=$(( BENCH_CPU_MS * 1000000 * 2000 / (ns > 0 ? ns : 1) + 1 ))
echo "# pingpong: $rounds rounds"

bad=0
for rep in $(seq "$BENCH_REPS"); do
	for p in $profs; do
		for bg in none "$p"; do
			bg_start "$bg"
			# the run itself is unprofiled: bg= names what runs in the background
			measure "exp=pp-unrelated mode=proc rep=$rep bg=$bg" none 0 -- \
				"$BW" pingpong proc "$rounds" || bad=$((bad + 1))
			bg_stop
		done
	done
	bg_start none
	measure "exp=pp-unrelated mode=proc rep=$rep bg=none" none 0 -- \
		"$BW" pingpong proc "$rounds" || bad=$((bad + 1))
	# tprof with each module (the baseline's too, see lib.sh), then perf
	for p in $(bench_mods | sed 's/^/tprof:/') ${profs#tprof}; do
		BENCH_PIN=0 measure "exp=pp-self mode=thread rep=$rep" none 0 -- \
			"$BW" pingpong thread "$rounds" || bad=$((bad + 1))
		case $p in tprof:*) bench_use "${p#tprof:}" || { bad=$((bad + 1)); continue; } ;; esac
		BENCH_PIN=0 measure "exp=pp-self mode=thread rep=$rep" "${p%:*}" 1000 -- \
			"$BW" pingpong thread "$rounds" || bad=$((bad + 1))
		bench_use head
	done
	BENCH_PIN=0 measure "exp=pp-self mode=thread rep=$rep" none 0 -- \
		"$BW" pingpong thread "$rounds" || bad=$((bad + 1))
done
[ $bad = 0 ] && ok "pingpong: every run completed" || fail "pingpong: $bad runs failed"
