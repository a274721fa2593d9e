#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 1000000
# The exact-guest cost table (bench/exact/run.sh boots this on 1 vCPU under
# QEMU's -icount: guest time is a count of instructions, so a fixed workload
# takes the same CPU time run after run, whatever the host does).
# Every row runs, in this boot and in this order, twice: unprofiled, tprof,
# perf (or the row's peer), unprofiled, tprof, perf. One vCPU: the profiler
# and the target take turns on it, so the target's CPU time holds only what
# profiling costs the target itself (its sampling interrupts and switch
# probes; Debian's kernels have no IRQ time accounting), and the profiler's
# own CPU is the tree's less the target's.
# The timeout is the host's (bench/exact/run.sh's VM_TIMEOUT): an exact
# guest's clock leaps ahead whenever every vCPU is idle, as while perf
# reads files from the host, so guest seconds mean nothing there.
# Results: one line per run in $BENCH_OUT/results.txt (lib.sh's measure);
# bench/exact/report.py turns them into docs/benchmarks.md.
. "$TPROF_ROOT/bench/guest/lib.sh"
[ "$(nproc)" = 1 ] || { fail "exact: needs a 1-vCPU guest (has $(nproc))"; exit 0; }
case $VM_MODE in icount*) ;; *) fail "exact: needs an exact guest (mode $VM_MODE)"; exit 0 ;; esac
have_perf || { fail "exact: perf record does not work here"; exit 0; }
PY=/usr/bin/python3
PYSPY=$TPROF_BUILD/py-spy/bin/py-spy

units=$(calibrate_units) || { fail "exact: calibration"; exit 0; }
# BENCH_EXPS (bench/exact/run.sh): the rows to run, all by default
want() { [ -z "${BENCH_EXPS:-}" ] || [[ " $BENCH_EXPS " == *" $1 "* ]]; }
# 30 frames deep, as the issue's figures; 120 for the deep rows
bad=0
# row NAME WORKLOAD-ARGS... -- PROF:HZ:ARGS|...: two rounds of
# none, then each profiler variant, all on the same workload
row() {
	local tags=$1 r v prof hz args
	shift
	local work=() variants=()
	while [ "$1" != -- ]; do work+=("$1"); shift; done
	shift
	variants=("$@")
	for r in 1 2; do
		measure "$tags round=$r variant=none" none 0 -- "${work[@]}" || bad=$((bad + 1))
		for v in "${variants[@]}"; do
			IFS=: read -r prof hz args <<<"$v"
			# shellcheck disable=SC2086 # args is a word list
			measure "$tags round=$r variant=$prof:${args// /_}" "$prof" "$hz" $args -- \
				"${work[@]}" || bad=$((bad + 1))
		done
	done
}

# per sample, by mode and depth (1 kHz); perf's dwarf is its default 8 KiB
for depth in 30 120; do
	want sample || continue
	row "exp=sample depth=$depth" "$BW" spin 1 "$depth" "$units" -- \
		"tprof:1000:--call-graph fp" "perf:1000:" \
		"tprof:1000:--call-graph fp --kernel-stacks" \
		"tprof:1000:" \
		"tprof:1000:--call-graph dwarf" "perf:1000:--call-graph dwarf"
done
# per context switch: a pipe ping-pong between two threads of the
# profiled process (self), and between two processes while the profiler
# follows an unrelated sleeping one (unrelated: the probe's cost to others),
# or a cgroup that holds one (tprof-cg, perf-cg: perf -a -G); tprof-wall:
# an off-CPU session, whose wakers probe sees every wakeup too. Self also
# --mode off-cpu and --mode wakers: the same off-CPU session with and
# without the wakers' stacks (issue 35), one per sampled wait.
# SCHED_FIFO (bench-work's fifo): each round is two sleeps in every run;
# under SCHED_OTHER a run settles early on one sleep a round (the woken
# thread preempts) or two, 20% apart in CPU time, and a profiler's cost
# tips it either way (6.12: tprof's runs 300-309 ms or 366-371 ms).
f=/tmp/pp-cal.$$
BENCH_RESULT=$f "$BW" pingpong thread 2000 fifo
ns=$(sed -n 's/.*work_cpu_ns=\([0-9]*\).*/\1/p' "$f")
rounds=$(( BENCH_CPU_MS * 1000000 * 2000 / (ns > 0 ? ns : 1) + 1 ))
rm -f "$f"
want switch-self && row "exp=switch-self rounds=$rounds" "$BW" pingpong thread "$rounds" fifo -- \
	"tprof:1000:--call-graph fp" "perf:1000:" \
	"tprof:1000:--call-graph fp --mode wall" "perf-switch:1000:" \
	"tprof:1000:--call-graph fp --mode off-cpu" \
	"tprof:1000:--call-graph fp --mode wakers"
for r in 1 2; do
	want switch-unrelated || break
	for bg in none tprof perf tprof-wall tprof-cg perf-cg; do
		bg_start "$bg"
		measure "exp=switch-unrelated rounds=$rounds round=$r variant=$bg" none 0 -- \
			"$BW" pingpong proc "$rounds" fifo || bad=$((bad + 1))
		bg_stop
	done
done
# tprof-agent (issue 34): the per-sample row's work under the agent's
# cgroup session, one window over the whole run, beside tprof-read's
# default and perf in the same boot: the target's cost and the agent's CPU
# per sample
want agent && row "exp=agent" "$BW" spin 1 30 "$units" -- \
	"agent:1000:" "tprof:1000:" "perf:1000:"
# 10 kHz x 16 threads
u16=$(( units / 16 + 1 ))
want 16x10k && row "exp=16x10k" "$BW" spin 16 30 "$u16" -- \
	"tprof:10000:--call-graph fp" "perf:10000:"
# Python: the interpreter's own frames (the default), against fp (native
# frames only), cProfile (deterministic) and py-spy (sampling, 1 kHz; it
# reads the target from another process)
cat > /tmp/exact-py.py <<'EOF'
import os, sys, time
def leaf(n):
    s = 0
    for i in range(n):
        s += i * i
    return s
def mid(d, n):
    return leaf(n) if d == 0 else mid(d - 1, n)
def main(rounds):
    t = 0
    for _ in range(rounds):
        t += mid(20, 200)
    return t
t0 = time.process_time_ns()
main(int(sys.argv[1]))
# the work's own CPU time (bench-work's convention, lib.sh's measure)
with open(os.environ.get("BENCH_RESULT", "/dev/null"), "a") as f:
    f.write("work_cpu_ns=%d\n" % (time.process_time_ns() - t0))
EOF
f=/tmp/py-cal.$$
BENCH_RESULT=$f "$PY" /tmp/exact-py.py 200
ns=$(sed -n 's/.*work_cpu_ns=\([0-9]*\).*/\1/p' "$f")
pyrounds=$(( BENCH_CPU_MS * 1000000 * 200 / (ns > 0 ? ns : 1) + 1 ))
rm -f "$f"
py_variants=("tprof:1000:" "tprof:1000:--call-graph fp" "perf:1000:")
[ -x "$PYSPY" ] && py_variants+=("pyspy:1000:")
py_variants+=("cprofile:0:")
want python && row "exp=python rounds=$pyrounds" "$PY" /tmp/exact-py.py "$pyrounds" -- "${py_variants[@]}"
[ -x "$PYSPY" ] || skip "exact: py-spy: not installed (bench/exact/run.sh installs it)"

[ $bad = 0 ] && ok "exact: every run completed" || fail "exact: $bad runs failed"
