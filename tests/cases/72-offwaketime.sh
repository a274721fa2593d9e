#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 420
# Beside bcc's offwaketime (issue 35): Debian's bpfcc-tools (the host's,
# through the shared root) and tprof-read --mode off-cpu watch the same
# run of tests/progs/wakers.c's pipe (a producer thread writes a pipe
# every 10 ms, a consumer thread reads it), and the consumer's total wait
# per waker comm agrees within 5% for its waker, the producer.
# What each counts:
#  - offwaketime: a wait runs from the thread's switch-out (the next
#    task's finish_task_switch(), after the switch) to its own
#    finish_task_switch() when it runs again, in whole microseconds (each
#    wait truncated), summed per (waker, wakee, stacks); its waker is the
#    last caller of try_to_wake_up() on the thread before that switch-in
#    (its kprobe fires on every call, also on a thread that runs, so a
#    preemption has no waker, an empty comm, unless one came while it ran);
#  - tprof: from where the scheduler stops the thread's runtime to where
#    it starts it again (se.exec_start: its CPU clock's complement),
#    sampled every 100 us of it (a wait's sampled time is within a period
#    of its own), each sample labelled with the waker its module kept at
#    the wakeup (sched_waking): waker_comm.
# So offwaketime's wait is longer by the way from picking the thread to
# its finish_task_switch() (the sched_switch probes, tprof's among them,
# and the switch itself), less the same way out, a time per wait: in a
# scratch BCC probe under TCG, sched_switch to finish_task_switch() took
# 15 us at the consumer's switch-in and 8 at its switch-out on 6.12, 67
# and 9 on 6.12-rt. With 2 ms waits offwaketime read 2.6% over the
# program's own time on 6.12-rt alone and 3.6-4.4% beside tprof (tprof
# 3.9-4.7% under it); 10 ms waits make it 0.8-0.9% and 0.7-1.6%.
# Both are summed over every wait of the consumer's tid (its pipe reads,
# and any other), not only those under consumer_read(); the program's own
# off-CPU time in its reads (wall less CPU time) is printed beside them.
# Two runs of the pipe, each a shell that writes its pid and blocks on a
# FIFO, then execs wakers: "tprof" launched by tprof-read, and "alone"
# (the control: offwaketime against the program's own, without tprof).
# offwaketime -p TPROF,ALONE attaches (BCC compiles its BPF C with its
# LLVM 14 against /lib/modules/KVER/build, the host's linux-headers, as
# Debian's kernels have no CONFIG_IKHEADERS: 36-70 s under TCG, most of
# the case's 57-80 s) and says so; then one run at a time is let go, so
# both tools follow it from its first instruction. offwaketime prints its
# sums when sent SIGINT (-U: user stacks only, which spares it
# /proc/kallsyms; the comms do not depend on stacks). tprof's sum was
# 0.15-0.90% under offwaketime's on 6.12 and 6.1, 1.7-1.9% on 6.12-rt;
# offwaketime alone 0.1-0.3% over the program on 6.12 and 6.1. A kernel
# without its headers (the debug kernel's) skips.
. "$TPROF_ROOT/tests/cases/lib.sh"

B=$TPROF_BUILD
TR=$B/tprof-read
SUM=$B/lab/pprofsum
P=$B/progs/wakers
OW=$(command -v offwaketime-bpfcc)
[ -x "$TR" ] && [ -x "$P" ] && [ -x "$SUM" ] ||
	{ skip "offwaketime: tprof-read, progs/wakers or pprofsum missing"; exit 0; }
[ -n "$OW" ] || { skip "offwaketime: offwaketime-bpfcc not installed on the host (bpfcc-tools, .ci/packages)"; exit 0; }
[ -e "/lib/modules/$(uname -r)/build/include" ] ||
	{ skip "offwaketime: no kernel headers at /lib/modules/$(uname -r)/build (linux-headers-$(uname -r))"; exit 0; }
# BCC reads tracefs (kprobe names, their blacklist) at
# /sys/kernel/debug/tracing, in the debugfs init mounts, else at
# /sys/kernel/tracing
[ -d /sys/kernel/debug/tracing/events ] || grep -q ' /sys/kernel/tracing tracefs ' /proc/mounts ||
	mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
# 100 waits of 10 ms: the tools' boundaries differ by a time per wait
# (header), which 2 ms waits made 4-5% on 6.12-rt
np=100 us=10000
tp='' ap='' op='' held="tprof alone"
# cleanup: offwaketime, tprof-read, and the shells still held on their FIFOs
cleanup() {
	local p
	for p in $held; do [ -s "pid.$p" ] && kill "$(cat "pid.$p")" 2>/dev/null; done
	for p in $op $tp $ap; do kill "$p" 2>/dev/null; done
}
trap cleanup EXIT

# the two runs, stopped on their FIFOs
mkfifo go.tprof go.alone
"$TR" --mode off-cpu --off-cpu-period 100us --ring-bytes 2M -o "$PWD/tprof.pb.gz" \
	-- sh -c 'echo $$ > pid.tprof; read x < go.tprof; exec "$0" pipe "$1" "$2"' "$P" $np $us \
	> tprof.txt 2> tprof.err &
tp=$!
sh -c 'echo $$ > pid.alone; read x < go.alone; exec "$0" pipe "$1" "$2"' "$P" $np $us > alone.txt &
ap=$!
for ((i = 0; i < 300; i++)); do [ -s pid.tprof ] && [ -s pid.alone ] && break; sleep 0.1; done
if ! [ -s pid.tprof ] || ! [ -s pid.alone ]; then
	fail "offwaketime: the workload's shells did not start (under tprof-read and alone)"
	sed 's/^/    /' tprof.err | tail
	exit 0
fi
pids=$(cat pid.tprof),$(cat pid.alone)
t0=$SECONDS
# a background job of a script ignores SIGINT, which offwaketime ends on:
# the subshell restores it
( trap - INT; PYTHONUNBUFFERED=1 exec "$OW" -U -p "$pids" ) > ow.txt 2> ow.err &
op=$!
# (5 minutes at most: guests side by side on a loaded host compile slower)
while ((SECONDS - t0 < 300)); do
	grep -q '^Tracing' ow.txt && break
	kill -0 "$op" 2>/dev/null || break
	sleep 0.1
done
ready=$((SECONDS - t0))
if ! grep -q '^Tracing' ow.txt; then
	save ow.txt ow.err
	skip "offwaketime: offwaketime-bpfcc did not start in ${ready}s: $(cat ow.err ow.txt | grep -v '^ *$' | tail -1)"
	sed 's/^/    /' ow.err | tail -20
	exit 0
fi
ok "offwaketime: offwaketime-bpfcc -p $pids traces after ${ready}s (BCC's compile and attach)"
# go NAME: let run NAME's shell exec wakers
go() { exec 4> "go.$1"; exec 4>&-; held=${held/$1/}; }
t1=$SECONDS
go tprof
wait "$tp"
st=$?
tp=
go alone
wait "$ap"
ap=
t2=$SECONDS
kill -INT "$op"
wait "$op"
ost=$?
op=
save tprof.pb.gz tprof.err tprof.txt alone.txt ow.txt ow.err
if [ $st != 0 ] || [ ! -s tprof.pb.gz ]; then
	fail "offwaketime: tprof-read exits 0 (status $st)"
	sed 's/^/    /' tprof.err | tail -20
	exit 0
fi
if [ $ost != 0 ] || ! grep -q 'target:' ow.txt; then
	fail "offwaketime: offwaketime-bpfcc prints its waits (status $ost)"
	sed 's/^/    /' ow.err | tail -20
	exit 0
fi
ok "offwaketime: both tools saw the runs ($((t2 - t1))s; offwaketime's sums $((SECONDS - t2))s after them)"
read -r _ prod cons off slept n < <(grep '^pipe ' tprof.txt)
read -r _ _ acons aoff _ _ < <(grep '^pipe ' alone.txt)

# owcomm TID: offwaketime's waits of thread TID by waker comm
# (COMM<TAB>ns). Its blocks: "waker: COMM TID", stacks, "--", stacks,
# "target: COMM TID", the microseconds (an interrupt's wakeup has the
# comm it interrupted; a preemption's an empty one, "-" here)
owcomm() {
	awk -v t="$1" '
		$1 == "waker:" { w = (NF >= 3) ? $2 : "-" }
		$1 == "target:" { tt = $NF; getline; if (tt == t) s[w] += $1 * 1000 }
		END { for (w in s) printf "%s\t%.0f\n", w, s[w] }' ow.txt | sort
}
owcomm "$cons" > ow.comm
owcomm "$acons" > alone.comm
"$SUM" -sample_index off_cpu -tag "tid=$cons" -label waker_comm tprof.pb.gz > tprof.comm 2>&1
save ow.comm alone.comm tprof.comm
echo "# consumer $cons, producer $prod, $n reads; the program's own: $off ns off the CPU in its reads, $slept ns asleep"
echo "# waker comm: offwaketime ns / tprof ns"
for w in $(cut -f1 ow.comm; awk -F'\t' '$1 == "label" { print $2 }' tprof.comm); do echo "$w"; done | sort -u |
while read -r w; do
	echo "#   $w: $(awk -F'\t' -v w="$w" '$1 == w { print $2 }' ow.comm) / $(sumval tprof.comm label "$w")"
done
a=$(awk -F'\t' '$1 == "producer" { print $2 }' alone.comm)
echo "# without tprof (consumer $acons): offwaketime's producer ${a:-0} ns, the program's own $aoff ns off the CPU ($(diffpct "${a:-0}" "$aoff"))"
o=$(awk -F'\t' '$1 == "producer" { print $2 }' ow.comm)
g=$(sumval tprof.comm label producer)
if [ -n "$o" ] && within "$g" "$o" 5; then
	ok "offwaketime: the consumer's wait woken by producer: offwaketime $o ns, tprof $g ns ($(diffpct "$g" "$o")); the program's own $off ns (offwaketime $(diffpct "$o" "$off"), tprof $(diffpct "$g" "$off"))"
else
	fail "offwaketime: the consumer's wait woken by producer: offwaketime '$o' ns, tprof $g ns ($(diffpct "$g" "${o:-0}")); the program's own $off ns"
	sed 's/^/    /' ow.comm tprof.comm | head -20
fi
exit 0
