# SPDX-License-Identifier: GPL-2.0
# Shared by bench/guest/NN-*.sh (sourced, in the guest): run one workload
# unprofiled, under tprof-read or under perf record, and append one line of
# key=value pairs per run to $BENCH_OUT/results.txt.
# Settings come from $TPROF_BUILD/bench/guest.conf (written by bench.sh):
# BENCH_REPS, BENCH_CPU_MS (target CPU time of one spin thread), BENCH_QUICK,
# BENCH_PERF (0: no perf runs), BENCH_BASE_KO (a baseline module, see below).
. "$TPROF_ROOT/tests/cases/lib.sh"
BW=$TPROF_BUILD/bench/bench-work
TR=$TPROF_BUILD/tprof-read
BENCH_OUT=$TPROF_OUT/bench
mkdir -p "$BENCH_OUT"
# No transparent huge pages. Debian's 6.1 runs THP "always": a thread's
# glibc stack whose mapping ends within a page above a 2 MiB boundary
# (address randomization: about 2 runs in 512 for each thread) takes a huge
# page at its first touch, and that one fault zeroes 2 MiB twice
# (init_on_alloc, then clear_huge_page): 4.5 million instructions, 8-9 ms
# at icount shift=1, in the workload's own CPU time whoever profiles it
# (the twins that differed by 8 ms in the run of 2026-12-05). 6.12 gives
# MAP_STACK mappings no huge pages. Each run's thp_fault_alloc is in its
# result line.
thp=/sys/kernel/mm/transparent_hugepage/enabled
[ -w "$thp" ] && echo never > "$thp"
# No address randomization either: where the stacks, heap and libraries
# land changes a run's instruction count (page-crossing copies, alignment
# paths), so a row's twins differed with the layout: unprofiled Python
# 398.9 or 405.0 ms, under tprof 425.4-430.9 ms in one 6.12 boot; with
# randomize_va_space=0, 404.95 and 425.79-425.85 ms. Every run then gets
# the same layout (one sample of it, not an average over layouts).
aslr=/proc/sys/kernel/randomize_va_space
[ -w "$aslr" ] && echo 0 > "$aslr"
BENCH_REPS=5 BENCH_CPU_MS=1000 BENCH_QUICK=0 BENCH_PERF=1 BENCH_BASE_KO=
# shellcheck disable=SC1091
[ -r "$TPROF_BUILD/bench/guest.conf" ] && . "$TPROF_BUILD/bench/guest.conf"
# BENCH_BASE_KO (bench.sh, BENCH_BASE=REV): a baseline tprof.ko. The cases
# of the per-switch table (issue 12) measure their tprof runs with each
# module in turn, run by run in this boot (bench_mods, bench_use); every
# results line carries mod=head (this tree's module) or mod=base.
bench_mods() { echo head; [ -z "$BENCH_BASE_KO" ] || echo base; }
bench_use() {	# bench_use head|base: have that module loaded
	local ko=$TPROF_KO
	[ "$1" = base ] && ko=$BENCH_BASE_KO
	if [ "$(cat /tmp/bench-ko 2>/dev/null || echo "$TPROF_KO")" != "$ko" ]; then
		rmmod tprof && insmod "$ko" || { echo "# bench: cannot load $ko"; return 1; }
		echo "$ko" > /tmp/bench-ko
	fi
	BENCH_MOD=$1
}
# every case starts with this tree's module
bench_use head || { fail "bench: insmod $TPROF_KO"; exit 0; }
[ -s "$BENCH_OUT/guest-info" ] || {
	echo "kernel=$(uname -r)"
	echo "ncpu=$(nproc)"
	echo "cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n1)"
	echo "perf=$(perf --version 2>/dev/null)"
	echo "clockcheck=$(taskset -c 0 "$BW" clock 500)"
	echo "clocksource=$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"
	echo "mod_head=$TPROF_KO"
	echo "mod_base=$BENCH_BASE_KO"
	echo "default_ring=$(sed -n "s/.*TPROF_DEFAULT_RING_BYTES[[:space:]]*\(.*\)/\1/p" "$TPROF_ROOT"/kmod/*.h | head -n1)"
} > "$BENCH_OUT/guest-info"

kv() {	# kv FILE KEY: the last KEY=value in FILE
	sed -n "s/.*\\b$2=\\([^ ]*\\).*/\\1/p" "$1" | tail -n1
}

# Work units of bench-work spin for about BENCH_CPU_MS of one thread's CPU
# time in this guest (median of three 100-unit runs, one pinned thread).
calibrate_units() {
	local f=/tmp/bench-cal.$$ i ns
	[ -s "$BENCH_OUT/units" ] && { cat "$BENCH_OUT/units"; return; }
	for i in 1 2 3; do
		BENCH_RESULT=$f taskset -c 0 "$BW" spin 1 30 100 || return 1
	done
	ns=$(sed -n 's/.*work_cpu_ns=\([0-9]*\).*/\1/p' "$f" | sort -n | sed -n 2p)
	rm -f "$f"
	echo $(( BENCH_CPU_MS * 1000000 * 100 / (ns > 0 ? ns : 1) + 1 )) | tee "$BENCH_OUT/units"
}

# huge pages allocated at a fault so far (none while THP is off, above)
thp_faults() {
	awk '$1 == "thp_fault_alloc" { print $2 }' /proc/vmstat
}

# irq_counts: "SOURCE: N" per line of /proc/interrupts, N over all CPUs
irq_counts() {
	awk '{ n = 0; for (i = 2; i <= NF && $i ~ /^[0-9]+$/; i++) n += $i; print $1, n }' \
		/proc/interrupts
}

# measure TAGS PROF HZ [PROFILER-ARGS...] -- WORKLOAD...
#   PROF: none | tprof | perf | perf-switch (and sched_switch) | pyspy |
#   cprofile (the last two: a Python workload) | agent (tprof-agent
#   --cgroup, measure_agent). TAGS: key=value pairs that identify the run.
#   "@D@" in a profiler argument is the run's scratch folder (--save-raw @D@/raw).
#   BENCH_PATH_TIMING=1: tprof-read's ENABLE asks for STATS path timing
#   (TPROF_F_PATH_TIMING, through bench/work/path-timing.c).
# Appends "TAGS prof=PROF hz=HZ seq=N work_cpu_ns=... tree_cpu_ns=... ..." to
# results.txt; tree is the profiler and the workload together (rusage, as
# wait4 gives it), seq orders the runs of one boot: the host is shared, so
# bench/report.py compares each profiled run with the unprofiled runs just
# before and after it (bracketing), and the scripts run one around each.
measure() {
	local tags=$1 prof=$2 hz=$3 d res line extra=() rc
	shift 3
	d=$(mktemp -d /tmp/bench.XXXXXX)
	# @D@ in a profiler argument is this run's scratch folder
	while [ $# -gt 0 ] && [ "$1" != -- ]; do extra+=("${1//@D@/$d}"); shift; done
	shift
	res=$d/res
	export BENCH_RESULT=$res
	# BENCH_PIN=CPUS: the profiler and the workload share these CPUs, so
	# the reader's work displaces the workload instead of running on
	# another vCPU (which, under single-threaded TCG, would inflate the
	# workload's CPU time while it waits for its turn on the host thread).
	local pin=()
	[ -n "${BENCH_PIN:-}" ] && pin=(taskset -c "$BENCH_PIN")
	local pre=()
	[ "${BENCH_PATH_TIMING:-0}" = 1 ] && pre=(env "LD_PRELOAD=$TPROF_BUILD/bench/path-timing.so")
	# Settle first. A per-task perf event (perf record's, a run or two
	# back) turns on perf's context-switch hooks (the perf_sched_events
	# static key: __perf_event_task_sched_in/out at every switch, about 100
	# instructions); freeing the last one turns them off only through a
	# delayed work, HZ (1 s) later, on a CFS kworker that a SCHED_FIFO
	# workload starves until it ends. A run started within that second
	# (an unprofiled ping-pong after a perf run: 378.7 against 373.2 ms,
	# 6.1) pays perf's hooks at every switch; an idle guest's 2 s lets the
	# work run (a guest clock under icount sleep=off leaps over idle).
	sleep 2
	# the guest's interrupts over the run, by source: where a run's
	# extra CPU went that its twin did not spend (no IRQ time accounting:
	# an interrupt's time is the interrupted task's)
	irq_counts > "$d/irq0"
	local thp0
	thp0=$(thp_faults)
	case $prof in
	none) "$BW" run "$res" -- "${pin[@]}" "$@" > "$d/out" 2>&1 ;;
	tprof) "$BW" run "$res" -- "${pin[@]}" "${pre[@]}" "$TR" -F "$hz" --report "${extra[@]}" \
		-o "$d/p.pb.gz" -- "$@" > "$d/out" 2>&1 ;;
	perf) "$BW" run "$res" -- "${pin[@]}" perf record -e task-clock \
		-c $((1000000000 / hz)) -g "${extra[@]}" -o "$d/perf.data" -- "$@" \
		> "$d/out" 2>&1 ;;
	# perf's off-CPU recipe: a callchain at every context switch
	perf-switch) "$BW" run "$res" -- "${pin[@]}" perf record \
		-e "task-clock/period=$((1000000000 / hz))/" -e sched:sched_switch \
		-g "${extra[@]}" -o "$d/perf.data" -- "$@" > "$d/out" 2>&1 ;;
	# Python's peers (bench/exact): the workload is INTERPRETER SCRIPT...
	pyspy) "$BW" run "$res" -- "${pin[@]}" "$TPROF_BUILD/py-spy/bin/py-spy" record \
		-r "$hz" -f raw -o "$d/pyspy.txt" "${extra[@]}" -- "$@" > "$d/out" 2>&1 ;;
	cprofile) "$BW" run "$res" -- "${pin[@]}" "$1" -m cProfile -o "$d/cprofile.out" \
		"${@:2}" > "$d/out" 2>&1 ;;
	agent) measure_agent "$res" "$d" "$hz" "${extra[@]}" -- "${pin[@]}" "$@" ;;
	esac
	rc=$?
	# irq_NAME=N for every source that fired during the run
	irq_counts | awk 'NR == FNR { a[$1] = $2; next }
		{ d = $2 - a[$1]; sub(":", "", $1) } d > 0 { printf "irq_%s=%d\n", $1, d }' \
		"$d/irq0" - >> "$res"
	echo "thp_fault_alloc=$(( $(thp_faults) - thp0 ))" >> "$res"
	unset BENCH_RESULT
	BENCH_SEQ=$(( $(cat "$BENCH_OUT/seq" 2>/dev/null || echo 0) + 1 ))
	echo "$BENCH_SEQ" > "$BENCH_OUT/seq"
	line="$tags prof=$prof hz=$hz pin=${BENCH_PIN:-no} mod=$BENCH_MOD seq=$BENCH_SEQ $(tr '\n' ' ' < "$res" 2>/dev/null)"
	case $prof in
	tprof)
		# "total: N samples, X sampled, M lost (Y)"
		line+=" samples=$(sed -n 's/^total: \([0-9]*\) samples.*/\1/p' "$d/out")"
		line+=" lost=$(sed -n 's/^total: .*, \([0-9]*\) lost.*/\1/p' "$d/out")"
		[ -s "$d/raw" ] && line+=" $("$BW" rawstats "$d/raw")"
		;;
	agent)
		line+=" samples=$(sed -n 's/^agent_samples=//p' "$d/agent.n")"
		line+=" lost=$(sed -n 's/^agent_lost=//p' "$d/agent.n")"
		;;
	perf|perf-switch)
		# "[ perf record: Captured and wrote X MB F (N samples) ]"
		line+=" samples=$(sed -n 's/.*(\([0-9]*\) samples).*/\1/p' "$d/out")"
		line+=" lost=$(sed -n 's/.* and lost \([0-9]*\) chunks.*/\1/p' "$d/out" | tail -n1)"
		;;
	esac
	[ "$rc" = 0 ] || { line+=" failed=$rc"; sed 's/^/#   /' "$d/out" | tail -n 5; }
	# the profiler's own output (tprof-read --report table, perf's summary)
	mkdir -p "$BENCH_OUT/logs"
	{ echo "== $line"; tail -n 40 "$d/out"; } >> "$BENCH_OUT/logs/$prof.log"
	echo "$line" | tr -s ' ' >> "$BENCH_OUT/results.txt"
	echo "# $line"
	rm -rf "$d"
	return "$rc"
}

# measure_agent RES DIR HZ [AGENT-ARGS...] -- WORKLOAD...: tprof-agent
# --cgroup of a cgroup made for the run, started first, one window over
# the whole run (curl ?seconds=3600, answered at the agent's SIGINT with
# what it holds), then the workload started in the cgroup. The agent runs
# under bench-work too: its CPU is added to the workload tree's in RES
# (tree_cpu_ns: the report's profiler CPU is the tree's less the work's),
# its samples and losses (/metrics) go to DIR/agent.n.
measure_agent() {
	local res=$1 d=$2 hz=$3 cg=/sys/fs/cgroup/bench-agent port= apid cpid rc i
	local args=() U m
	shift 3
	while [ "$1" != -- ]; do args+=("$1"); shift; done
	shift
	cg2_mount || return 1
	mkdir -p "$cg" || return 1
	ip link set lo up 2> /dev/null || busybox ifconfig lo 127.0.0.1 up
	"$BW" run "$d/agent.res" -- "$TPROF_BUILD/tprof-agent" -F "$hz" "${args[@]}" \
		--cgroup "$cg" --listen 127.0.0.1:0 2> "$d/agent.err" &
	apid=$!
	agent_port "$d/agent.err" || { cat "$d/agent.err" >> "$d/out"; kill "$apid"; wait "$apid"; return 1; }
	U=http://127.0.0.1:$port
	m() { curl -s "$U/metrics" | awk -v k="$1" '$1 == k { print $2 }'; }
	curl -s -o "$d/w.pb.gz" "$U/debug/pprof/profile?seconds=3600" &
	cpid=$!
	for i in $(seq 300); do [ "$(m tprof_windows_open)" = 1 ] && break; sleep 0.1; done
	sh -c 'echo $$ > "$0/cgroup.procs" && exec "$@"' "$cg" "$BW" run "$res" -- "$@" > "$d/out" 2>&1
	rc=$?
	{ echo "agent_samples=$(m tprof_samples_total)"
	  echo "agent_lost=$(m tprof_lost_samples_total)"; } > "$d/agent.n"
	pkill -INT -P "$apid" -x tprof-agent
	wait "$cpid"
	wait "$apid"
	[ -s "$d/w.pb.gz" ] || { echo "measure_agent: no profile" >> "$d/out"; rc=1; }
	# the profiler's CPU: the agent's tree (curl's is a few ms)
	i=$(tr ' ' '\n' < "$d/agent.res" | sed -n 's/^tree_cpu_ns=//p')
	awk -v add="${i:-0}" '{ for (k = 1; k <= NF; k++) if ($k ~ /^tree_cpu_ns=/)
		$k = sprintf("tree_cpu_ns=%.0f", substr($k, 13) + add); print }' \
		"$res" > "$res.a" && mv "$res.a" "$res"
	rmdir "$cg"
	return "$rc"
}

have_perf() { [ "$BENCH_PERF" != 0 ] && command -v perf > /dev/null && perf record -e task-clock -o /dev/null -- true > /dev/null 2>&1; }

# bg_start PROF [CPUS [CMD...]]: PROF (none, tprof or perf) profiles CMD
# (default: an unrelated sleeping process) in the background, pinned to CPUS
# (default 0, where the ping-pongs run: under single-threaded TCG a profiler
# waking on another vCPU would stretch the ping-pong's CPU time while it
# waits its turn). bg_stop ends it. PROF tprof-wall is tprof-read --mode
# wall (off-CPU too: its sched_waking probe runs at every wakeup). PROF
# tprof-cg and perf-cg follow a
# cgroup (BG_CG) that holds CMD instead: tprof-read --cgroup, and perf's
# own cgroup recipe, system-wide events with -G (perf's cgroup switch
# hook then runs at every switch between cgroups).
BG_CG=/sys/fs/cgroup/tprof-bench-bg
bg_pid='' bg_cmd=''
bg_start() {
	local prof=$1 cpus=${2:-0}
	shift 2 2> /dev/null || shift $#
	[ $# -gt 0 ] || set -- "$BW" idle 300
	case $prof in
	none) bg_pid= ; return ;;
	tprof) taskset -c "$cpus" "$TR" -o /tmp/bg.pb.gz -- "$@" > /tmp/bg.log 2>&1 & ;;
	# an off-CPU session: its sched_waking probe (the wakers) too
	tprof-wall) taskset -c "$cpus" "$TR" --mode wall -o /tmp/bg.pb.gz -- "$@" > /tmp/bg.log 2>&1 & ;;
	perf) taskset -c "$cpus" perf record -e task-clock -c 1000000 -g -o /tmp/bg.data -- \
		"$@" > /tmp/bg.log 2>&1 & ;;
	tprof-cg|perf-cg)
		grep -q " /sys/fs/cgroup cgroup2 " /proc/mounts ||
			mount -t cgroup2 none /sys/fs/cgroup
		mkdir -p "$BG_CG"
		taskset -c "$cpus" sh -c 'echo $$ > "$0/cgroup.procs" && exec "$@"' \
			"$BG_CG" "$@" &
		bg_cmd=$!
		if [ "$prof" = tprof-cg ]; then
			taskset -c "$cpus" "$TR" -o /tmp/bg.pb.gz --cgroup "$BG_CG" > /tmp/bg.log 2>&1 &
		else
			taskset -c "$cpus" perf record -e task-clock -c 1000000 -g -a \
				-G "${BG_CG#/sys/fs/cgroup/}" -o /tmp/bg.data > /tmp/bg.log 2>&1 &
		fi
		bg_pid=$!
		sleep 2
		return ;;
	esac
	bg_pid=$!
	# until the profiler has started its target
	for _ in $(seq 100); do
		pgrep -P "$bg_pid" > /dev/null && break
		sleep 0.1
	done
	sleep 1
}
bg_stop() {
	[ -n "$bg_pid" ] || return 0
	local kids
	kids=$(pgrep -P "$bg_pid")
	kill -INT "$bg_pid" 2> /dev/null
	for _ in $(seq 100); do kill -0 "$bg_pid" 2> /dev/null || break; sleep 0.1; done
	# shellcheck disable=SC2086
	[ -n "$kids" ] && kill $kids 2> /dev/null
	wait "$bg_pid" 2> /dev/null
	if [ -n "$bg_cmd" ]; then
		kill "$bg_cmd" 2> /dev/null
		wait "$bg_cmd" 2> /dev/null
		rmdir "$BG_CG" 2> /dev/null
	fi
	rm -f /tmp/bg.pb.gz /tmp/bg.data /tmp/bg.log
	bg_pid='' bg_cmd=''
}

# Timer operations per context switch, counted exactly with tracefs hist
# triggers on timer:hrtimer_start, timer:hrtimer_cancel and
# sched:sched_switch (the events `perf stat -e` would count, but keyed by
# CPU, hrtimer and callback, so tprof's own timer operations are told apart
# from the kernel's: an hrtimer_start whose function is tprof_timer_fn, and
# any hrtimer_cancel of one of those hrtimers). COUNT_OK=1 where the
# triggers exist. counted TAGS PROF HZ [ARGS] -- CMD: measure (above) with
# the counts appended to its results line: sw0 (sched_switch on CPU 0),
# swin0 (switch-ins of bench-work threads on CPU 0), tp_start/tp_cancel
# (tprof's hrtimer starts/cancels, all CPUs), tp_start0/tp_cancel0 (on CPU
# 0), hr_start0/hr_cancel0 (every hrtimer's, on CPU 0).
T=/sys/kernel/tracing
[ -e "$T/events/timer" ] || mount -t tracefs nodev "$T" 2> /dev/null
[ -e "$T/events/timer" ] || T=/sys/kernel/debug/tracing
ev_start=$T/events/timer/hrtimer_start/trigger
ev_cancel=$T/events/timer/hrtimer_cancel/trigger
ev_switch=$T/events/sched/sched_switch/trigger
COUNT_OK=0; [ -w "$ev_start" ] && COUNT_OK=1
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
	count_start || { echo "# counted: cannot set the hist triggers"; return 1; }
	measure "$@"
	rc=$?
	c=$(count_stop)
	sed -i "\$s/\$/ $c/" "$BENCH_OUT/results.txt"
	echo "# counts: $c"
	return $rc
}

