#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 600
# Off-CPU and wall time (issue 15): tprof-read --mode wall samples where
# each thread waits, and why. Truth is what the kernel says of each worker
# thread of tests/progs/offcpu.c, read by the thread around its worker
# function (the samples compared are those under it): schedstats' sleep
# time plus schedstat's run delay is the kernel's own off-CPU time there;
# the time the function ran (CLOCK_MONOTONIC) less its CPU time (its own
# CPU clock: sum_exec_runtime) is the same, where the kernel leaves no irq
# time out of task time. Profiles are read with lab/pprofsum (google/
# pprof's parser).
#  - 50 ms spinning, 50 ms nanosleep: off-CPU samples within 1% of the
#    kernel's off-CPU time, asleep, under sleep_phase() calling nanosleep;
#  - 8 threads on one pthread_mutex: the wait under take_lock() calling
#    pthread_mutex_lock, each thread's on- plus off-CPU samples within 1%
#    of its lifetime;
#  - O_DIRECT reads of a loop device: the wait is uninterruptible, under
#    read_direct() calling pread, between schedstats' block time and the
#    reader's lifetime less its CPU time; >= 95% of it woken by a hard or
#    soft interrupt or a kernel thread (waker_kind), none by a user thread;
#  - 2 x NCPU spinners: their off-CPU time is runnable (preempted), within
#    1% of the kernel's off-CPU time, and within 3% of schedstat's run
#    delay (which also counts the wakeup latency of the waits they have);
#  - --mode off-cpu: no CPU sample, the same off-CPU samples;
#  - -p PID of a process asleep all along: its whole time in the profile,
#    asleep (THREAD_OFF of a thread that never ran).
# The debug kernel accounts irq time apart (CONFIG_IRQ_TIME_ACCOUNTING):
# there a thread's lifetime is its CPU time, its waits and that irq time
# (tprof's THREAD_OFF irq_ns), so lifetimes are compared with the kernel's
# CPU time plus waits, and the off-CPU stamps are the probe's clock, which
# under emulation can lag the scheduler's by a descheduled vCPU's turn and
# lockdep's and KASAN's work in __schedule(): the tolerance is 10% there
# (-5% seen for 6 sleeps of 50 ms), and for the spinners, preempted for
# about as long as that work takes, only their state is checked.
. "$TPROF_ROOT/tests/cases/lib.sh"

B=$TPROF_BUILD
TR=$B/tprof-read
SUM=$B/lab/pprofsum
P=$B/progs/offcpu
light=0; [ "${CASE_TIMEOUT_SCALE:-1}" -gt 1 ] && light=1
tol=1; [ $light = 1 ] && tol=10
# The debug kernel runs the module's paths (switches both ways, the
# irq_work, no CPU timer, a thread that never runs) with less work, and
# not the O_DIRECT reads and the spinners: the same paths again, for
# checks its stamps are too coarse for (10 minutes of its 15 here).
sleeps=20 iters=400 reads=3000 spin_ms=800
[ $light = 1 ] && sleeps=10 iters=100
# 8 threads sampled 2000 times a second of their lives: rings that hold
# a burst (none may be lost for the sums to hold); the debug kernel's
# reader is slower still: 4 ms periods there
mutex_opts=(--ring-bytes 2M)
[ $light = 1 ] && mutex_opts+=(-F 250 --off-cpu-period 4ms)
[ -x "$TR" ] && [ -x "$P" ] || { skip "off-cpu: build/tprof-read or progs/offcpu missing"; exit 0; }
[ -x "$SUM" ] || { skip "off-cpu: pprofsum not built (make lab)"; exit 0; }
# schedstats' sleep and block times (the kernel's own split of a wait)
old_ss=$(cat /proc/sys/kernel/sched_schedstats 2>/dev/null || echo 0)
echo 1 > /proc/sys/kernel/sched_schedstats 2>/dev/null
loopdev=
cleanup() {
	echo "$old_ss" > /proc/sys/kernel/sched_schedstats 2>/dev/null
	[ -n "$loopdev" ] && losetup -d "$loopdev" 2>/dev/null
}
trap cleanup EXIT

# below_re SUMFILE NAME REGEX: weight of samples under NAME whose callee
# (the frame right below it) matches REGEX
below_re() { awk -F'\t' -v n="$2" -v re="$3" '$1 == "below" && $2 == n && $3 ~ re { s += $4 } END { printf "%.0f\n", s }' "$1"; }
# run NAME ARGS...: tprof-read --report [ARGS] -- offcpu ..., into NAME.*
run() {
	local name=$1 st
	shift
	"$TR" --report -o "$name.pb.gz" "$@" > "$name.txt" 2> "$name.err"
	st=$?
	save "$name.pb.gz" "$name.err" "$name.txt"
	if [ $st = 0 ] && [ -s "$name.pb.gz" ] && grep -q '^worker ' "$name.txt"; then
		ok "$name: tprof-read $* exits 0"
		return 0
	fi
	fail "$name: tprof-read $* exits 0 (status $st)"
	sed 's/^/    /' "$name.err" | tail -20
	return 1
}
# no_loss NAME: NAME.err's total line says no sample was lost
no_loss() {
	local lost
	lost=$(sed -n 's/^total: .* \([0-9]*\) lost .*/\1/p' "$1.err")
	if [ "$lost" = 0 ]; then ok "$1: no sample lost"
	else fail "$1: ${lost:-?} samples lost (the rings overflowed)"; fi
}
# sums NAME WORKER CALLSITE: NAME.off and NAME.cpu, pprofsum by off_cpu
# and cpu, split by the worker function and the call site that waits
sums() {
	"$SUM" -sample_index off_cpu -label state -func "$2,$3" -below "$3" "$1.pb.gz" > "$1.off" 2>&1 ||
		sed 's/^/    /' "$1.off" | tail -5
	"$SUM" -sample_index cpu -func "$2" "$1.pb.gz" > "$1.cpu" 2>&1 || sed 's/^/    /' "$1.cpu" | tail -5
	save "$1.off" "$1.cpu"
}

# ---- 50 ms spinning, 50 ms asleep ----
# 2 MiB rings, as below: CI's loaded host once left the sleeper's samples
# 1.14% short of its lifetime less its CPU time with the default rings
# (the kernel's sleep and run delay within 1%), and the run did not say
# whether any were lost
if run sleep --mode wall --ring-bytes 2M -- "$P" sleep $sleeps; then
	sums sleep sleeper sleep_phase
	no_loss sleep
	# the session starts at the command's exec: nothing of tprof-read's
	# child waiting for the go-ahead (it showed under launch__fork)
	"$SUM" -sample_index off_cpu -functions sleep.pb.gz > sleep.fns 2>&1
	save sleep.fns
	if grep -q 'launch__' sleep.fns; then
		fail "sleep: launched, the profile holds tprof-read's own child before the exec: $(grep 'launch__' sleep.fns | head -2 | tr '\n' ' ')"
	elif ! grep -q 'sleep_phase' sleep.fns; then
		fail "sleep: -functions lists no sleep_phase: $(head -3 sleep.fns | tr '\n' ' ')"
	else
		ok "sleep: launched, the profile holds the command alone (no launch__ frame of tprof-read's child)"
	fi
	read -r _ tid life cpu delay _ slept < <(grep '^worker ' sleep.txt)
	truth=$((slept + delay))
	got=$(sumval sleep.off tidfunc "$tid" sleeper)
	if within "$got" "$truth" $tol; then ok "sleep: worker $tid off-CPU sampled $got ns, kernel $truth ns asleep and waiting to run ($(diffpct "$got" "$truth"))"
	else fail "sleep: worker $tid off-CPU sampled $got ns, kernel $truth ns asleep and waiting to run ($(diffpct "$got" "$truth"))"; fi
	if [ $light = 0 ]; then
		if within "$got" $((life - cpu)) 1; then ok "sleep: and its lifetime less its CPU time: $((life - cpu)) ns ($(diffpct "$got" $((life - cpu))))"
		else fail "sleep: and its lifetime less its CPU time: $((life - cpu)) ns ($(diffpct "$got" $((life - cpu))))"; fi
	fi
	# asleep: from the kernel's sleep time to it plus the run delay (a
	# wait's wakeup latency is the wait's, here; preemptions while
	# spinning are runnable)
	asleep=$(sumval sleep.off labelfunc sleeping sleep_phase)
	if awk -v a="$asleep" -v lo="$slept" -v hi=$((slept + delay)) \
		'BEGIN { exit !(a >= 0.99 * lo - 2000000 && a <= 1.01 * hi + 2000000) }'; then
		ok "sleep: $asleep ns asleep under sleep_phase: the kernel's $slept ns asleep, $delay ns waiting to run"
	else
		fail "sleep: $asleep ns asleep under sleep_phase: the kernel's $slept ns asleep, $delay ns waiting to run"
		grep -E '^(label|below)' sleep.off | sed 's/^/    /'
	fi
	ns=$(below_re sleep.off sleep_phase 'nanosleep')
	if within "$ns" "$(sumval sleep.off func sleep_phase)" 1; then ok "sleep: sleep_phase's off-CPU time is in the nanosleep it calls ($ns ns)"
	else fail "sleep: sleep_phase's off-CPU time is in the nanosleep it calls ($ns ns)"; grep '^below' sleep.off | sed 's/^/    /'; fi
	on=$(sumval sleep.cpu tidfunc "$tid" sleeper)
	[ $light = 1 ] && life=$((cpu + truth))
	if within $((on + got)) "$life" $tol; then ok "sleep: on- plus off-CPU samples $((on + got)) ns, its lifetime $life ns ($(diffpct $((on + got)) "$life"))"
	else fail "sleep: on- plus off-CPU samples $((on + got)) ns, its lifetime $life ns ($(diffpct $((on + got)) "$life"))"; fi
	# the report: the kernel's exact split fills its time in the session
	sumpct=$(awk -v t="$tid" '$1 == t && NF == 12 { print $10 }' sleep.err)
	if awk -v p="${sumpct:-0}" -v tol=$tol 'BEGIN { exit !(p >= 100 - tol && p <= 100 + tol) }'; then ok "sleep: --report: on-CPU, off-CPU and irq time are $sumpct% of the thread's time"
	else fail "sleep: --report: on-CPU, off-CPU and irq time are ${sumpct:-no row}% of the thread's time"; grep -A30 'ON-CPU' sleep.err | sed 's/^/    /' | head -8; fi
fi

# ---- 8 threads, one mutex ----
if run mutex --mode wall "${mutex_opts[@]}" -- "$P" mutex 8 $iters 200; then
	sums mutex contender take_lock
	# STATS: CPU and off-CPU samples alike
	no_loss mutex
	nbad=0 woff=0
	while read -r _ tid life cpu delay _ slept; do
		off=$(sumval mutex.off tidfunc "$tid" contender)
		on=$(sumval mutex.cpu tidfunc "$tid" contender)
		woff=$((woff + off))
		[ $light = 1 ] && life=$((cpu + slept + delay))
		if ! within $((on + off)) "$life" $tol; then
			nbad=$((nbad + 1))
			echo "    tid $tid: on $on + off $off = $((on + off)) ns, lifetime $life ns ($(diffpct $((on + off)) "$life"))"
		fi
	done < <(grep '^worker ' mutex.txt)
	n=$(grep -c '^worker ' mutex.txt)
	if [ "$n" = 8 ] && [ $nbad = 0 ]; then ok "mutex: each of 8 threads' on- plus off-CPU samples within $tol% of its lifetime"
	else fail "mutex: $nbad of $n threads' on- plus off-CPU samples not within $tol% of their lifetime"; fi
	waited=$(sumval mutex.off labelfunc sleeping take_lock)
	inlock=$(below_re mutex.off take_lock 'pthread_mutex_lock|lll_lock')
	if [ "$waited" -gt 0 ] && awk -v a="$waited" -v b="$woff" 'BEGIN { exit !(a >= 0.8 * b) }'; then ok "mutex: $waited of the workers' $woff ns off-CPU asleep under take_lock"
	else fail "mutex: $waited of the workers' $woff ns off-CPU asleep under take_lock"; grep -E '^(label|below)' mutex.off | sed 's/^/    /'; fi
	if within "$inlock" "$(sumval mutex.off func take_lock)" 1; then ok "mutex: take_lock's wait is in the pthread_mutex_lock it calls"
	else fail "mutex: take_lock's wait is in the pthread_mutex_lock it calls ($inlock ns)"; grep '^below' mutex.off | sed 's/^/    /'; fi
fi

# ---- O_DIRECT reads of a loop device ----
dio_case() {
	modprobe loop 2>/dev/null
	dd if=/dev/zero of=dio.img bs=1M count=8 status=none
	loopdev=$(losetup -f --show dio.img 2>losetup.err)
	if [ -z "$loopdev" ]; then
		fail "dio: a loop device for the O_DIRECT reads: $(cat losetup.err)"
	elif run dio --mode wall --off-cpu-period 50us -- "$P" dio "$loopdev" $reads; then
		sums dio dio_reader read_direct
		read -r _ tid life cpu delay block _ < <(grep '^worker ' dio.txt)
		off=$(sumval dio.off tid "$tid")
		d=$(sumval dio.off labelfunc uninterruptible read_direct)
		# Time spent runnable after each completion (the run delay) is
		# not a wait for the device: on a loaded guest it was 29% of
		# the reader's off-CPU time. What is left must be the reads.
		r=$(sumval dio.off labelfunc runnable dio_reader)
		if [ "$d" -gt 0 ] && awk -v a="$d" -v b="$off" -v r="$r" 'BEGIN { exit !(a >= 0.9 * (b - r)) }'; then
			ok "dio: $d of the reader's $off ns off-CPU ($r ns of it runnable) uninterruptible under read_direct"
		else fail "dio: $d of the reader's $off ns off-CPU ($r ns of it runnable) uninterruptible under read_direct"; grep -E '^(label|below|tid)' dio.off | sed 's/^/    /'; fi
		inread=$(below_re dio.off read_direct 'pread')
		if within "$inread" "$(sumval dio.off func read_direct)" 1; then ok "dio: read_direct's wait is in the pread it calls"
		else fail "dio: read_direct's wait is in the pread it calls ($inread ns)"; grep '^below' dio.off | sed 's/^/    /'; fi
		# The wait from blocking to wakeup, and then to running again:
		# at least schedstats' block time, at most the reader's
		# lifetime less its CPU time. Not schedstats' block time plus
		# the run delay: a wait woken while __schedule() dequeues the
		# reader has no block time at all (update_stats_dequeue_fair()
		# reads __state after ttwu() made it TASK_WAKING: "XXX racy
		# against TTWU"), and fast completions make that common. On 6.1
		# the kernel's block time plus run delay fell 10.5 ms short of
		# the reader's lifetime less its CPU time (280.5 of 291.0 ms),
		# where tprof's exact off-CPU time was 291.2 ms.
		dall=$(sumval dio.off labelfunc uninterruptible dio_reader)
		if [ "${block:--1}" -ge 0 ] && awk -v a="$dall" -v lo="$block" -v hi=$((life - cpu)) \
			'BEGIN { exit !(a >= 0.97 * lo - 100000 && a <= 1.01 * hi + 100000) }'; then
			ok "dio: uninterruptible $dall ns, between schedstats' block time $block ns and the lifetime less the CPU time $((life - cpu)) ns"
		else
			fail "dio: uninterruptible $dall ns, not between schedstats' block time ${block:-?} ns and the lifetime less the CPU time $((life - cpu)) ns"
		fi
		# Who ended each read (issue 35): the I/O's completion, in an
		# interrupt or a kernel thread (the loop driver's worker), never
		# a user thread (which would be a stack to show)
		"$SUM" -sample_index off_cpu -label waker_kind -func read_direct dio.pb.gz > dio.wk 2>&1
		save dio.wk
		kern=$(( $(sumval dio.wk labelfunc hardirq read_direct) +
			 $(sumval dio.wk labelfunc softirq read_direct) +
			 $(sumval dio.wk labelfunc 'kernel thread' read_direct) ))
		user=$(( $(sumval dio.wk labelfunc thread read_direct) +
			 $(sumval dio.wk labelfunc 'followed process' read_direct) +
			 $(sumval dio.wk labelfunc 'other process' read_direct) ))
		if [ "$user" = 0 ] && [ "$d" -gt 0 ] && awk -v a="$kern" -v b="$d" 'BEGIN { exit !(a >= 0.95 * b) }'; then
			ok "dio: $kern of the $d ns uninterruptible under read_direct woken by an interrupt or a kernel thread, none by a user thread"
		else
			fail "dio: $kern of the $d ns uninterruptible under read_direct woken by an interrupt or a kernel thread, $user ns by a user thread"
			grep '^label' dio.wk | sed 's/^/    /'
		fi
	fi
}
if [ $light = 1 ]; then
	skip "dio: O_DIRECT reads: the debug kernel runs these paths above"
else
	dio_case
fi

# ---- 2 x NCPU spinners ----
spin_case() {
	# A busy guest leaves tprof-read little CPU to drain the rings: bigger
	# rings and 4 ms CPU periods, so that nothing is lost.
	nsp=$((2 * ${NCPU:-1}))
	if run spin --mode wall -F 250 --off-cpu-period 1ms --ring-bytes 2M -- "$P" spin $nsp $spin_ms; then
		sums spin spinner spin_cpu
		truth=0 delays=0 woff=0 wall=0 wcpu=0
		while read -r _ tid life cpu delay _ slept; do
			truth=$((truth + slept + delay))
			life_cpu=$((${life_cpu:-0} + life - cpu))
			delays=$((delays + delay))
			woff=$((woff + $(sumval spin.off tidfunc "$tid" spinner)))
			wcpu=$((wcpu + $(sumval spin.off tidfunc "$tid" spin_cpu)))
			wall=$((wall + $(sumval spin.off tid "$tid")))
		done < <(grep '^worker ' spin.txt)
		no_loss spin
		# the kernel's figures are read around spinner(), and a busy guest
		# preempts a reader there as anywhere: 2%. Not on the debug kernel:
		# its stamps are the probe's (see above), and a preemption there is
		# often shorter than lockdep's work in the switch around it.
		# A reader preempted between its schedstat read and its clock
		# read counts that wait on one side: schedstat's figure can
		# only grow past the lifetime less the CPU time (CI on a loaded
		# host: +3.4%, with tprof-read within 0.01% of the lifetime's),
		# never fall short of it. So: within 2%, or above by at most 5%
		# while the lifetime's figure agrees with the samples (life_ok).
		# The lifetime is clocked inside spinner() around spin_cpu(),
		# so it lies between the off-CPU time sampled under spin_cpu()
		# and that under spinner() (1% each way): spinner()'s holds
		# preemptions outside the window too (16 spinners on 8 CPUs: 13
		# ms a thread seen on 6.12-rt, +1.01% in all), and the window
		# holds some outside spin_cpu(): in truth_begin()'s CPU clock
		# read, and at the call after spin_cpu() returns (CI's 6.1-arm64
		# guest: 123 ms in 16 threads, spin_cpu()'s alone -1.09%).
		# Each thread's last part of an off-CPU period is not sampled
		# (THREAD_OFF's unsampled_ns): up to a period a thread, 1 ms
		# here, the sampled figures' slack besides the percentages (16
		# spinners that waited 0.43 s in all, once: 13 ms short, 3%).
		slack=$((nsp * 1000000))
		life_ok() { [ "$wcpu" -le $((life_cpu + life_cpu / 100)) ] &&
			[ "$life_cpu" -le $((woff + woff / 100 + slack)) ]; }
		skew_ok() { within "$1" "$2" 2 "$slack" ||
			{ [ "$2" -ge "$1" ] && within "$1" "$2" 5 "$slack" &&
			  life_ok; }; }
		if [ $light = 0 ]; then
			if skew_ok "$woff" "$truth"; then ok "spin: $nsp spinners' off-CPU sampled $woff ns, kernel $truth ns ($(diffpct "$woff" "$truth"))"
			else fail "spin: $nsp spinners' off-CPU sampled $woff ns, kernel $truth ns ($(diffpct "$woff" "$truth"))"; fi
			if life_ok; then ok "spin: their lifetimes less their CPU time, $life_cpu ns, between the samples under spin_cpu, $wcpu ns ($(diffpct "$wcpu" "$life_cpu")), and under spinner, $woff ns ($(diffpct "$woff" "$life_cpu"))"
			else fail "spin: their lifetimes less their CPU time, $life_cpu ns, not between the samples under spin_cpu, $wcpu ns ($(diffpct "$wcpu" "$life_cpu")), and under spinner, $woff ns ($(diffpct "$woff" "$life_cpu"))"; fi
		fi
		inrun=$(sumval spin.off labelfunc runnable spinner)
		if [ "$woff" -gt 0 ] && within "$inrun" "$woff" 2; then ok "spin: $inrun of it runnable (preempted)"
		else fail "spin: $inrun of $woff ns runnable (preempted)"; grep -E '^label' spin.off | sed 's/^/    /'; fi
		# the run delay from just before to just after spinner(), read
		# around it: a preemption while reading it is on one side only
		# (a few ms a thread: hence the long spin); it also counts the
		# wakeup latency of the few waits a spinner has (here: their state)
		runnable=$inrun
		if [ $light = 0 ]; then
			if within "$runnable" "$delays" 3 || skew_ok "$runnable" "$delays"; then ok "spin: runnable $runnable ns, schedstat's run delay $delays ns ($(diffpct "$runnable" "$delays"))"
			else fail "spin: runnable $runnable ns, schedstat's run delay $delays ns ($(diffpct "$runnable" "$delays"))"; fi
		fi
	fi
}
if [ $light = 1 ]; then
	skip "spin: oversubscribed spinners: the debug kernel runs these paths above"
else
	spin_case
fi

# ---- --mode off-cpu: off-CPU samples only ----
if run offonly --mode off-cpu -- "$P" sleep 6; then
	sums offonly sleeper sleep_phase
	read -r _ tid life cpu delay _ slept < <(grep '^worker ' offonly.txt)
	truth=$((slept + delay))
	got=$(sumval offonly.off tidfunc "$tid" sleeper)
	cpus=$(sumval offonly.cpu total)
	if [ "$cpus" = 0 ] && within "$got" "$truth" $tol; then ok "off-cpu mode: no CPU sample; off-CPU $got ns, kernel $truth ns ($(diffpct "$got" "$truth"))"
	else fail "off-cpu mode: CPU samples $cpus ns (want 0); off-CPU $got ns, kernel $truth ns ($(diffpct "$got" "$truth"))"; fi
fi

# ---- -p PID of a process that never runs while profiled ----
sleep 60 &
sp=$!
sleep 0.5
"$TR" --mode wall --report -d 2 -p $sp -o idle.pb.gz > /dev/null 2> idle.err
st=$?
kill $sp 2> /dev/null
wait $sp 2> /dev/null
save idle.err
# TID COMM ON-CPU SLEEPING UNINTERR RUNNABLE IRQ SUM LIFETIME SUM% ...
row=$(awk -v t=$sp '$1 == t && NF == 12' idle.err)
read -r _ _ _ slp _ _ _ _ _ pctv _ <<<"$row"
if [ $st = 0 ] && [ -n "$row" ] && [ "$slp" != 0ns ] &&
	awk -v p="$pctv" -v tol=$tol 'BEGIN { exit !(p >= 100 - tol && p <= 100 + tol) }'; then
	ok "idle: -p of a process asleep all along: $slp asleep, $pctv% of its time in the profile"
else
	fail "idle: -p of a process asleep all along: status $st, its row: ${row:-none}"
	sed 's/^/    /' idle.err | tail -8
fi
