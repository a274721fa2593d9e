#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 300
# Who ended each wait (issue 35, the module's WAKER records): tprof-read
# --mode off-cpu labels each off-CPU sample with waker_kind, waker_tid and
# waker_comm. Truth is tests/progs/wakers.c's own: its tids (gettid()),
# its comms, and its own wait times, measured inside the function that
# waits: OFF, its time off the CPU (wall time less its CPU clock), and of
# it SLEPT, the time asleep (less its run delay: a preempted thread has no
# waker, and a woken one's wait for a CPU counts with its wait, the
# waker's); the mutex's waits attributed by the program to the holder
# that released:
#  - pipe: a consumer's reads, woken by a producer thread's writes: >= 95%
#    of the consumer's time asleep in them is labelled with the producer's
#    tid and comm (the samples under consumer_read()), and all of its
#    off-CPU samples there are within 5% of OFF;
#  - mutex: a waiter blocked on a pthread_mutex that two holders release
#    in turn, holding it 10 and 20 ms: tprof's wait time under lock_wait()
#    per waker tid within 2% of the program's per-holder sums;
#  - sleep: nanosleep, woken by the timer: >= 95% of SLEPT is a hard
#    interrupt's (on PREEMPT_RT, where a sleeper's timer expires in the
#    timer softirq: a softirq's or a kernel thread's), none of it with a
#    tid or a comm;
#  - trust: an unprivileged user's off-CPU session on a FIFO that a root
#    process writes: >= 95% of SLEPT is "other process", and neither the
#    writer's tid nor its comm is anywhere in the profile; root's session
#    on the same pair names the writer (the labels are the rule's doing);
#  - exit: threads that wait in do_exit() (for the mmap lock a "locker"
#    thread holds) carry the locker's tid under "[thread exit]".
# Off-CPU period 100 us (the unprivileged floor): a wait's sampled time is
# within a period of its own. 30-34 s on 6.12 under TCG; the short rows
# (6.1, 6.12-rt: CASE_SHORT) run half the waits (90 s on 6.12-rt in full).
. "$TPROF_ROOT/tests/cases/lib.sh"

B=$TPROF_BUILD
TR=$B/tprof-read
SUM=$B/lab/pprofsum
P=$B/progs/wakers
[ -x "$TR" ] && [ -x "$P" ] || { skip "wakers: build/tprof-read or progs/wakers missing"; exit 0; }
[ -x "$SUM" ] || { skip "wakers: pprofsum not built (make lab)"; exit 0; }
mode=$(stat -c %a /dev/tprof)
writer=
cleanup() {
	chmod "$mode" /dev/tprof
	[ -n "$writer" ] && kill "$writer" 2>/dev/null
}
trap cleanup EXIT
as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
# waits of each run: pipe, mutex, sleep, fifo; threads that leave
np=300 nm=60 ns=100 nf=200 ne=40
[ "${CASE_SHORT:-0}" = 1 ] && np=150 nm=30 ns=50 nf=100 ne=20
rt=0
[ -e /sys/kernel/realtime ] && [ "$(cat /sys/kernel/realtime)" = 1 ] && rt=1

# run NAME ARGS... -- CMD...: tprof-read --mode off-cpu into NAME.pb.gz,
# the command's output into NAME.txt
run() {
	local name=$1 st
	shift
	"$TR" --mode off-cpu --off-cpu-period 100us --ring-bytes 2M \
		-o "$name.pb.gz" "$@" > "$name.txt" 2> "$name.err"
	st=$?
	save "$name.pb.gz" "$name.err" "$name.txt"
	if [ $st = 0 ] && [ -s "$name.pb.gz" ]; then
		ok "$name: tprof-read --mode off-cpu exits 0"
		return 0
	fi
	fail "$name: tprof-read --mode off-cpu $* exits 0 (status $st)"
	sed 's/^/    /' "$name.err" | tail -20
	return 1
}
# by NAME KEY FUNC: pprofsum of NAME's off-CPU time by label KEY, under
# FUNC, into NAME.KEY
by() {
	"$SUM" -sample_index off_cpu -label "$2" -func "$3" "$1.pb.gz" > "$1.$2" 2>&1 ||
		sed 's/^/    /' "$1.$2" | tail -5
	save "$1.$2"
}
# share A B MIN_PCT: A >= MIN_PCT% of B (B > 0)
share() { awk -v a="$1" -v b="$2" -v p="$3" 'BEGIN { exit !(b > 0 && a >= b * p / 100) }'; }

# ---- pipe: a producer thread wakes the consumer ----
if run pipe -- "$P" pipe $np 2000; then
	read -r _ prod cons wait slept n < <(grep '^pipe ' pipe.txt)
	by pipe waker_tid consumer_read
	by pipe waker_comm consumer_read
	got=$(sumval pipe.waker_tid labelfunc "$prod" consumer_read)
	all=$(sumval pipe.waker_tid func consumer_read)
	if share "$got" "$slept" 95 && within "$all" "$wait" 5; then
		ok "pipe: $got ns of consumer $cons's reads ($n; $slept ns asleep) name producer $prod ($(diffpct "$got" "$slept")); all its read waits $all ns, its own $wait ns ($(diffpct "$all" "$wait"))"
	else
		fail "pipe: $got ns of consumer $cons's reads ($n; $slept ns asleep) name producer $prod ($(diffpct "$got" "$slept")); all its read waits $all ns, its own $wait ns ($(diffpct "$all" "$wait"))"
		grep -E '^(label|func)' pipe.waker_tid | sed 's/^/    /' | head
	fi
	got=$(sumval pipe.waker_comm labelfunc producer consumer_read)
	if share "$got" "$slept" 95; then ok "pipe: and its comm, producer ($got ns)"
	else fail "pipe: and its comm, producer ($got ns of $slept asleep)"; grep '^label' pipe.waker_comm | sed 's/^/    /'; fi
fi

# ---- mutex: two holders release, each from its own function ----
if run mutex --report -- "$P" mutex $nm 10000 20000; then
	by mutex waker_tid lock_wait
	by mutex waker_kind lock_wait
	while read -r _ htid hwait _ hcount; do
		got=$(sumval mutex.waker_tid labelfunc "$htid" lock_wait)
		if within "$got" "$hwait" 2; then
			ok "mutex: waits released by holder $htid: tprof $got ns, the program's $hwait ns over $hcount ($(diffpct "$got" "$hwait"))"
		else
			fail "mutex: waits released by holder $htid: tprof $got ns, the program's $hwait ns over $hcount ($(diffpct "$got" "$hwait"))"
			grep '^label' mutex.waker_tid | sed 's/^/    /'
		fi
	done < <(grep '^holder ' mutex.txt)
	# --report's table of each waiting thread's time by waker: the
	# waiter's rows of each holder (a row per comm the holder had when it
	# woke the waiter: a wakeup can come before its prctl() name) sum to
	# the profile's samples of the waiter with that waker_tid (its lock
	# waits, and its waits on the semaphore a holder posts once it holds
	# the lock)
	wtid=$(sed -n 's/^waiter \([0-9]*\).*/\1/p' mutex.txt)
	"$SUM" -sample_index off_cpu -tag "tid=$wtid" -label waker_tid mutex.pb.gz > mutex.waiter 2>&1
	save mutex.waiter
	while read -r _ htid hwait _ hcount; do
		got=$(awk -v t="$wtid" -v h="$htid" '
			function ns(s) {
				if (s ~ /us$/) return s * 1e3; if (s ~ /ms$/) return s * 1e6
				if (s ~ /ns$/) return s + 0; return s * 1e9 }
			$1 == t && / thread / { for (i = 2; i < NF; i++)
				if ($i == "thread" && $(i + 1) == h) { s += ns($(NF - 1)); f = 1 } }
			END { if (f) printf "%.0f\n", s }' mutex.err)
		want=$(sumval mutex.waiter label "$htid")
		if [ -n "$got" ] && [ "$got" = "$want" ] && [ "$got" -ge "$hwait" ]; then
			ok "mutex: --report's row of waiter $wtid woken by $htid: $got ns, as its samples with that waker_tid (its lock waits alone: $hwait ns by the program's clock)"
		else
			fail "mutex: --report's row of waiter $wtid woken by $htid: '$got' ns, its samples with that waker_tid $want ns, its lock waits $hwait ns"
			grep -A4 "WOKEN BY" mutex.err | sed 's/^/    /'
		fi
	done < <(grep '^holder ' mutex.txt)
	got=$(sumval mutex.waker_kind labelfunc thread lock_wait)
	all=$(sumval mutex.waker_kind func lock_wait)
	if share "$got" "$all" 99; then ok "mutex: the waker is a thread of the same process ($got of $all ns)"
	else fail "mutex: the waker is a thread of the same process ($got of $all ns)"; grep '^label' mutex.waker_kind | sed 's/^/    /'; fi
fi

# ---- sleep: the timer ends it ----
if run sleep -- "$P" sleep $ns 2000; then
	read -r _ stid wait slept n < <(grep '^sleep ' sleep.txt)
	by sleep waker_kind sleep_wait
	by sleep waker_tid sleep_wait
	by sleep waker_comm sleep_wait
	all=$(sumval sleep.waker_kind func sleep_wait)
	if [ $rt = 1 ]; then
		kinds="hardirq, softirq or kernel thread (PREEMPT_RT)"
		got=$(( $(sumval sleep.waker_kind labelfunc hardirq sleep_wait) +
			$(sumval sleep.waker_kind labelfunc softirq sleep_wait) +
			$(sumval sleep.waker_kind labelfunc 'kernel thread' sleep_wait) ))
	else
		kinds=hardirq
		got=$(sumval sleep.waker_kind labelfunc hardirq sleep_wait)
	fi
	if share "$got" "$slept" 95 && within "$all" "$wait" 5; then
		ok "sleep: $got ns of thread $stid's nanosleep ($slept ns asleep, $wait ns off the CPU) woken by a $kinds ($(diffpct "$got" "$slept")); all $all ns"
	else
		fail "sleep: $got ns of thread $stid's nanosleep ($slept ns asleep, $wait ns off the CPU) woken by a $kinds ($(diffpct "$got" "$slept")); all $all ns"
		grep '^label' sleep.waker_kind | sed 's/^/    /'
	fi
	# only a kernel thread (root's session may sample it) has a name
	kthr=$(sumval sleep.waker_kind labelfunc 'kernel thread' sleep_wait)
	named=$(awk -F'\t' '$1 == "labelfunc" && $2 != "-" && $3 == "sleep_wait" { s += $4 } END { print s + 0 }' sleep.waker_comm)
	tids=$(awk -F'\t' '$1 == "labelfunc" && $2 != "-" && $3 == "sleep_wait" { s += $4 } END { print s + 0 }' sleep.waker_tid)
	if [ "$named" -le "$kthr" ] && [ "$tids" -le "$kthr" ]; then
		ok "sleep: an interrupt's wakeup carries no tid and no comm ($tids ns with a tid, $named ns with a comm: a kernel thread's $kthr ns)"
	else
		fail "sleep: an interrupt's wakeup carries no tid and no comm ($tids ns with a tid, $named ns with a comm; a kernel thread's $kthr ns)"
		grep '^label' sleep.waker_comm sleep.waker_tid | sed 's/^/    /'
	fi
fi

# ---- exit: a wait in do_exit(), with no user context left ----
# Threads that leave while the locker holds the mmap lock wait for it in
# exit_mm(), with PF_EXITING: the sample owed at their switch-in has a
# WAKER and no user registers (which once oopsed the module: the group's
# snapshot read a NULL pt_regs). Its time is "[thread exit]"'s, woken by
# the locker. 256 MiB: each mprotect() lasts ticks (a leaving thread runs
# when the locker is preempted; with 64 MiB, 2-3 ms under TCG, some of
# the 20 threads of 6.1's short run waited).
if run exit -- "$P" exit $ne 256; then
	read -r _ ltid n mp < <(grep '^exit ' exit.txt)
	by exit waker_tid '[thread exit]'
	got=$(sumval exit.waker_tid labelfunc "$ltid" '[thread exit]')
	if [ "$got" -gt 0 ]; then
		ok "exit: $got ns of $n threads' waits in do_exit() name the locker $ltid (its mprotect()s $mp ns)"
	else
		fail "exit: no wait in do_exit() names the locker $ltid ($n threads, its mprotect()s $mp ns)"
		grep -E '^(label|func)' exit.waker_tid | sed 's/^/    /' | head
	fi
fi

# ---- trust: root's writer, an unprivileged reader ----
# trust NAME RUNNER...: the writer as root in the background, the reader
# under tprof-read run by RUNNER; the writer's "fifowrite TID" in NAME.w
trust() {
	local name=$1 st
	shift
	rm -f fifo
	mkfifo -m 0666 fifo
	"$P" fifo-write "$PWD/fifo" $nf 2000 > "$name.w" &
	writer=$!
	"$@" "$TR" --mode off-cpu --off-cpu-period 100us -o "$PWD/$name.pb.gz" \
		-- "$P" fifo-read "$PWD/fifo" $nf > "$name.txt" 2> "$name.err"
	st=$?
	wait "$writer"
	writer=
	save "$name.pb.gz" "$name.err" "$name.txt" "$name.w"
	if [ $st = 0 ] && [ -s "$name.pb.gz" ]; then
		ok "$name: tprof-read exits 0"
		return 0
	fi
	fail "$name: tprof-read exits 0 (status $st)"
	sed 's/^/    /' "$name.err" | tail -20
	return 1
}
chmod 0666 /dev/tprof
chmod 0777 "$PWD"
if trust trust as_nobody; then
	read -r _ wtid < trust.w
	read -r _ rtid wait slept n < <(grep '^fiforead ' trust.txt)
	by trust waker_kind fifo_wait
	by trust waker_tid fifo_wait
	by trust waker_comm fifo_wait
	got=$(sumval trust.waker_kind labelfunc 'other process' fifo_wait)
	if share "$got" "$slept" 95; then ok "trust: $got ns of reader $rtid's reads ($slept ns asleep) are another process's ($(diffpct "$got" "$slept"))"
	else fail "trust: $got ns of reader $rtid's reads ($slept ns asleep) are another process's"; grep '^label' trust.waker_kind | sed 's/^/    /'; fi
	if ! awk -F'\t' -v t="$wtid" '$1 == "label" && $2 == t { f = 1 } END { exit !f }' trust.waker_tid &&
	   ! awk -F'\t' '$1 == "label" && $2 != "-" { f = 1 } END { exit !f }' trust.waker_comm; then
		ok "trust: the unprivileged profile names no waker: no tid, no comm (root's writer $wtid)"
	else
		fail "trust: the unprivileged profile names a waker it may not sample"
		grep '^label' trust.waker_tid trust.waker_comm | sed 's/^/    /'
	fi
fi
if trust trustroot env; then
	read -r _ wtid < trustroot.w
	read -r _ rtid wait slept n < <(grep '^fiforead ' trustroot.txt)
	by trustroot waker_comm fifo_wait
	by trustroot waker_tid fifo_wait
	got=$(sumval trustroot.waker_comm labelfunc rootwriter fifo_wait)
	gtid=$(sumval trustroot.waker_tid labelfunc "$wtid" fifo_wait)
	if share "$got" "$slept" 95 && share "$gtid" "$slept" 95; then ok "trust: root's session names the writer: comm rootwriter, tid $wtid ($got ns; $slept ns asleep)"
	else fail "trust: root's session names the writer: comm rootwriter $got ns, tid $wtid $gtid ns, of $slept ns asleep"; grep '^label' trustroot.waker_comm trustroot.waker_tid | sed 's/^/    /'; fi
fi
exit 0
