#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 240
# A target SIGKILLed while its threads spin: the CPU time of their way out
# (do_exit(), after the user stack went with the mm) is the module's
# TPROF_RF_EXITING samples, which tprof-read names [process exit], under the
# kernel's frames with --kernel-stacks; no sample of it is [no stack].
# Threads that leave while their process lives on (progs/threadexit's,
# joined one by one) are the module's TPROF_RF_THREAD_EXIT samples:
# [thread exit], never [process exit] (issue 33: a live http.server's
# worker threads showed 851 ms of "process exit").
. "$TPROF_ROOT/tests/cases/lib.sh"

B=$TPROF_BUILD
TR=$B/tprof-read
PROG=$B/progs/inlines
[ -x "$TR" ] && [ -x "$PROG" ] || { skip "process exit: build/tprof-read or progs missing (make userspace)"; exit 0; }


for ks in "" --kernel-stacks; do
	name=exit${ks:+-kstacks}
	"$PROG" -t 4 -s 1000 > /dev/null &
	pid=$!
	"$TR" -v $ks -p $pid --format folded -o "$PWD/$name.folded" 2> "$name.err" &
	tr=$!
	attached "$name.err" $pid
	sleep 2
	kill -KILL $pid
	wait $pid 2>/dev/null
	wait $tr
	st=$?
	save "$name.folded" "$name.err"
	exits=$(grep -c '^[^ ]*;\[process exit\]' "$name.folded")
	nostack=$(grep -c '\[no stack\]' "$name.folded")
	if [ "$st" = 0 ] && [ "$exits" -gt 0 ] && [ "$nostack" = 0 ]; then
		ok "process exit${ks:+ ($ks)}: SIGKILLed while 4 threads spin: $exits stacks of the exit path under [process exit], none [no stack]"
	else
		fail "process exit${ks:+ ($ks)}: status $st, [process exit] stacks $exits (want > 0), [no stack] $nostack (want 0)"
		sed 's/^/    /' "$name.err" | tail -5
		grep -E 'process exit|no stack' "$name.folded" | head -5 | sed 's/^/    /'
	fi
	if [ -n "$ks" ]; then
		# the kernel's frames of the exit path are under it
		if grep -qE '^[^ ]*;\[process exit\];.*do_exit' "$name.folded"; then
			ok "process exit (--kernel-stacks): do_exit is among its kernel frames"
		else
			fail "process exit (--kernel-stacks): no do_exit under [process exit]"
			grep 'process exit' "$name.folded" | head -5 | sed 's/^/    /'
		fi
	fi
done

# ---- a thread's exit is no process's ----
# The workers leave by exit(2) (their kernel frames: sys_exit, do_exit),
# the process by exit_group(2) at main's return (sys_exit_group,
# do_group_exit); --kernel-stacks tells the two apart.
TE=$B/progs/threadexit
# the debug kernel (a timeout scale) runs the same paths with fewer threads
# (4,000 threads took 33 s of a 6.12 row under TCG; a thousand show the
# same split)
nthr=1000; [ "${CASE_TIMEOUT_SCALE:-1}" -gt 1 ] && nthr=100
if [ -x "$TE" ]; then
	"$TR" -v --kernel-stacks --format folded -o "$PWD/te.folded" -- \
		"$TE" $nthr 20 200 > te.out 2> te.err
	st=$?
	save te.folded te.err
	texit=$(awk '/;\[thread exit\];.*sys_exit;do_exit/ { n += $NF } END { printf "%.0f\n", n }' te.folded)
	twrong=$(grep -c ';\[thread exit\];.*sys_exit_group' te.folded)
	pwrong=$(grep -c ';\[process exit\];.*sys_exit;do_exit' te.folded)
	if [ "$st" = 0 ] && grep -q "^threads $nthr\$" te.out && [ "$texit" -gt 0 ] &&
		[ "$twrong" = 0 ] && [ "$pwrong" = 0 ]; then
		ok "thread exit: $nthr threads left by exit(2) while the process ran on: $texit ns of their exit paths (sys_exit, do_exit) under [thread exit], none under [process exit]; exit_group(2) never under [thread exit]"
	else
		fail "thread exit: status $st, exit(2) under [thread exit] $texit ns (want > 0), under [process exit] $pwrong stacks, exit_group(2) under [thread exit] $twrong stacks (want 0 and 0)"
		sed 's/^/    /' te.err | tail -5
		grep -E 'thread exit|process exit' te.folded | head -5 | sed 's/^/    /'
	fi
else
	skip "thread exit: build/progs/threadexit missing (make progs)"
fi
