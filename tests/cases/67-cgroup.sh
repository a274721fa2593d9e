#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 600
# Cgroup targets (issue 34): tprof-read --cgroup DIR samples every process
# of a cgroup v2 subtree: a 4-thread program in a child cgroup, a shell
# loop that starts short processes, a process moved in after the start,
# one moved out mid-way. The cgroup is frozen (cgroup.freeze) while the
# session starts and ends, so that the truth is exact: the cgroup's own
# cpu.stat usage_usec over the session for the total, each process's
# threads' sum_exec_runtime (/proc/PID/task/*/schedstat) read while it is
# frozen or stopped (SIGSTOP around each move) for the processes. Checks:
#  - the profile's total within 3% of usage_usec's delta (edges: up to a
#    period per thread, and the short processes' first budgets);
#  - the program, the moved-in process (from its move) and the moved-out
#    one (up to its move: its samples stop there) within 2% plus a few
#    periods of their CPU time inside;
#  - a spinner outside the cgroup is not in the profile;
#  - each sample's cgroup label is the cgroup the case put its process in
#    (as /proc/PID/cgroup says it: from the cgroup v2 root), the program's
#    its child cgroup's, the moved-in one's from its move; the shell loop
#    runs in a child named like a systemd service (tprof-test.service),
#    which its samples' systemd_unit label names; a command launched in
#    it (tprof-read -- CMD) the same; --all's processes their own;
#  - processes reaped while the reader was stopped (their /proc/PID gone
#    when it reads their PROC records) still carry their cgroup's label,
#    from the records' cgroup_id;
#  - an unprivileged --cgroup and a directory that is not a cgroup v2 one
#    are refused with one line each;
#  - --all (the cgroup v2 root's session): a process there at the start in
#    the root cgroup and one started later in a child cgroup, each within
#    2% of its CPU inside (stopped at the edges), other processes too; an
#    unprivileged --all refused with one line.
. "$TPROF_ROOT/tests/cases/lib.sh"

B=$TPROF_BUILD
TR=$B/tprof-read
SUM=$B/lab/pprofsum
[ -x "$TR" ] && [ -x "$B/progs/tree-a" ] && [ -x "$B/lab/lab-work" ] ||
	{ skip "cgroup: build/tprof-read, progs or lab-work missing"; exit 0; }
[ -x "$SUM" ] || { skip "cgroup: pprofsum not built (make lab)"; exit 0; }

cg2_mount || { skip "cgroup: cannot mount cgroup2 at $CG"; exit 0; }
D=$CG/tprof67
SVC=$D/tprof-test.service
mkdir -p $D/sub $SVC || { skip "cgroup: cannot make $D"; exit 0; }
# the labels' truth: the cgroups made here, from the cgroup v2 root
rel() { echo "${1#$CG}"; }
pids=()
cleanup() {
	echo 0 > $D/cgroup.freeze 2>/dev/null
	kill -9 "${pids[@]}" 2>/dev/null
	sleep 0.5
	wait "${pids[@]}" 2>/dev/null
	rmdir $D/many $D/gone $D/sub $SVC $D 2>/dev/null
	[ $mounted = 1 ] && umount $CG
}
trap cleanup EXIT

# start_in DIR CMD...: CMD in cgroup DIR from its first instruction
start_in() {
	local dir=$1
	shift
	sh -c 'echo $$ > "$0/cgroup.procs" && exec "$@"' "$dir" "$@" &
	pids+=($!)
}
# a process's CPU time so far (ns): its threads' sum_exec_runtime
cpu_of() { proc_cpu_ns "$1"; }
# ended NAME PID: the tprof-read (PID) writing NAME.pb.gz and NAME.err ends
# (SIGINT), its status in $st; its profile's sums in NAME.sum, by cgroup
# label in NAME.lab; all kept
ended() {
	kill -INT "$2"
	wait "$2"
	st=$?
	"$SUM" "$1.pb.gz" > "$1.sum" 2>&1
	"$SUM" -label cgroup "$1.pb.gz" > "$1.lab" 2>&1
	save "$1.pb.gz" "$1.err" "$1.sum" "$1.lab"
}
usage_ns() { cg_usage_ns $D; }
# freeze 1|0: freeze or thaw the cgroup and wait until it is so
freeze() { cg_freeze $D "$1"; }

long=100000000
start_in $D/sub env LAB_TRUTH=/dev/null "$B/lab/lab-work" shares $long
P=${pids[-1]}
start_in $SVC sh -c "while :; do $B/progs/tree-b work 20 > /dev/null; done"
L=${pids[-1]}
start_in $D "$B/progs/tree-a" work $long
O=${pids[-1]}
start_in $CG "$B/progs/tree-c" work $long
M=${pids[-1]}
start_in $CG "$B/progs/tree-c" work $long
X=${pids[-1]}
sleep 1

freeze 1 || { fail "cgroup: $D does not freeze"; exit 0; }
u0=$(usage_ns); o0=$(cpu_of $O); p0=$(cpu_of $P)
"$TR" -v --report -o cg.pb.gz --cgroup $D 2> cg.err &
trp=$!
if ! attached cg.err; then
	fail "cgroup: tprof-read --cgroup $D did not start"
	tail -5 cg.err | sed 's/^/    /'
	kill -9 $trp 2>/dev/null
	exit 0
fi
freeze 0
sleep 2
# moved in while stopped: its CPU from here is inside
kill -STOP $M
m0=$(cpu_of $M)
echo $M > $D/cgroup.procs
kill -CONT $M
sleep 2
# moved out while stopped: its CPU up to here was inside
kill -STOP $O
o1=$(cpu_of $O)
echo $O > $CG/cgroup.procs
kill -CONT $O
sleep 2
freeze 1 || fail "cgroup: $D does not freeze at the end"
u1=$(usage_ns); m1=$(cpu_of $M); p1=$(cpu_of $P)
# the spinners outside would share the vCPUs with what follows
kill -9 "$O" "$X" 2>/dev/null
ended cg $trp
"$SUM" -label systemd_unit cg.pb.gz > cg.unit 2>&1
"$SUM" -label container_id cg.pb.gz > cg.cid 2>&1
save cg.unit cg.cid

if [ $st = 0 ] && [ -s cg.pb.gz ]; then ok "cgroup: tprof-read --cgroup exits 0 at SIGINT"
else fail "cgroup: tprof-read --cgroup exits 0 (status $st)"; grep -v '^ *[0-9]' cg.err | tail -10 | sed 's/^/    /'; fi

got=$(sumval cg.sum total)
ru=$((u1 - u0))
if within "$got" "$ru" 3; then ok "cgroup: profile total $got ns, the cgroup's usage_usec delta $ru ns ($(diffpct "$got" "$ru"))"
else fail "cgroup: profile total $got ns, the cgroup's usage_usec delta $ru ns ($(diffpct "$got" "$ru"))"; grep '^pid' cg.sum | sed 's/^/    /' | head -20; fi

# name PID TRUTH: a process's profile against its CPU time inside; 4 ms of
# slack for each of P's 4 threads' edges, 2 ms for the others
proc_check() {
	local name=$1 pid=$2 truth=$3 slack=$4 v
	v=$(sumval cg.sum pid "$pid")
	if within "$v" "$truth" 2 "$slack"; then ok "cgroup: $name (pid $pid): profile $v ns, its CPU inside $truth ns ($(diffpct "$v" "$truth"))"
	else fail "cgroup: $name (pid $pid): profile $v ns, its CPU inside $truth ns ($(diffpct "$v" "$truth"))"; fi
}
proc_check "4 threads in a child cgroup" $P $((p1 - p0)) 16000000
proc_check "moved in after the start" $M $((m1 - m0)) 4000000
proc_check "moved out mid-way, none after" $O $((o1 - o0)) 4000000
x=$(sumval cg.sum pid "$X")
if [ "$x" = 0 ]; then ok "cgroup: a process outside the cgroup is not in the profile"
else fail "cgroup: a process outside the cgroup has $x ns in the profile"; fi
# labels: each process's samples carry the cgroup it was in (P alone in
# sub; M from its move in, O up to its move out, in D itself), the loop's
# short processes theirs (read at each one's PROC record)
lab_check() {
	local name=$1 path=$2 want=$3 v
	v=$(sumval cg.lab label "$path")
	if [ "$want" -gt 0 ] && [ "$v" = "$want" ]; then ok "cgroup: label cgroup=$path: $v ns, $name's $want ns"
	else fail "cgroup: label cgroup=$path: $v ns, $name's $want ns"; sed 's/^/    /' cg.lab; fi
}
lab_check "the program's (pid $P)" "$(rel $D/sub)" "$(sumval cg.sum pid $P)"
lab_check "the moved-in and moved-out ones' (pids $M, $O)" "$(rel $D)" \
	$(( $(sumval cg.sum pid $M) + $(sumval cg.sum pid $O) ))
sv=$(sumval cg.lab label "$(rel $SVC)")
un=$(sumval cg.unit label tprof-test.service)
nolab=$(sumval cg.lab label -)
if [ "$sv" -gt 0 ] && [ "$un" = "$sv" ] &&
	[ "$(sumval cg.unit label -)" = "$((got - un))" ] &&
	[ "$(sumval cg.cid label -)" = "$got" ]; then
	ok "cgroup: the loop's processes in $(rel $SVC): $sv ns, systemd_unit=tprof-test.service on the same $un ns, no other unit, no container_id"
else
	fail "cgroup: $(rel $SVC) $sv ns, systemd_unit=tprof-test.service $un ns (want the same, > 0), the rest without: $(sumval cg.unit label -) ns (want $((got - un))), container_id: none on $(sumval cg.cid label -) of $got ns"
	sed 's/^/    /' cg.unit
fi
# unlabeled: only the loss no thread claims (a process gone before its
# cgroup was read would be here too)
if awk -v a="$nolab" -v b="$got" 'BEGIN { exit !(a <= b / 100) }'; then ok "cgroup: $nolab ns of $got without a cgroup label"
else fail "cgroup: $nolab ns of $got without a cgroup label (want < 1%)"; fi

n=$(awk -F'\t' '$1 == "pid" { n++ } END { print n + 0 }' cg.sum)
if [ "$n" -ge 6 ] && grep -q "processes: .*, 0 not followed, 0 denied" cg.err &&
	! grep -q "non-profilable" cg.err; then
	ok "cgroup: the loop's short processes are in it ($n pids), none denied, no line for the move out"
else
	fail "cgroup: pids in the profile $n (want >= 6), the process table line: $(grep '^processes:' cg.err)"
	grep -i "profilable\|left" cg.err | head -5 | sed 's/^/    /'
fi

# with the cgroup's spinners gone (a fatal signal ends a frozen task):
# thawed, they took 45 s of the refusals' vCPUs on a CI host
kill -9 "${pids[@]}" 2>/dev/null
wait "${pids[@]}" 2>/dev/null
# empty now: thawed, so that what starts in it below runs (a cgroup made
# under a frozen one, and a process moved into one, are frozen too)
freeze 0

# ---- reaped before the reader got to them ----
# The reader stopped (SIGSTOP) while a shell in a cgroup of its own runs
# three short processes one after the other and reaps them: when it reads
# their PROC records /proc/PID is gone, and only the records' cgroup_id
# (the directory outlives them) names their cgroup. Every sample of the
# session is in that cgroup, and carries its label.
mkdir -p $D/gone
"$TR" -v -o gone.pb.gz --cgroup $D/gone 2> gone.err &
grp=$!
attached gone.err ||
	{ fail "cgroup: tprof-read --cgroup $D/gone did not start"; kill -9 $grp; }
kill -STOP $grp
start_in $D/gone sh -c "for i in 1 2 3; do $B/progs/tree-b work 30 > /dev/null; done"
G=${pids[-1]}
wait $G
# each of them reaped: nothing of theirs left in /proc
left=$(cat $D/gone/cgroup.procs | wc -l)
kill -CONT $grp
# its end (SIGINT) drains every record left: nothing to wait for here
ended gone $grp
gt=$(sumval gone.sum total)
gl=$(sumval gone.lab label "$(rel $D/gone)")
gn=$(awk -F'\t' '$1 == "pid" && $(NF - 1) > 0 { n++ } END { print n + 0 }' gone.sum)
if [ $st = 0 ] && [ "$left" = 0 ] && [ "$gn" -ge 3 ] && [ "$gt" -gt 0 ] &&
	[ "$gl" = "$gt" ]; then
	ok "cgroup: processes reaped before the reader read their records: cgroup=$(rel $D/gone) on all $gt ns ($gn pids)"
else
	fail "cgroup: processes reaped before the reader read their records: cgroup=$(rel $D/gone) on $gl of $gt ns, $gn pids (want >= 3), $left left in it, status $st"
	sed 's/^/    /' gone.lab | head -5
	grep -v '^ *[0-9]' gone.err | tail -5 | sed 's/^/    /'
fi
rmdir $D/gone 2>/dev/null

# ---- refusals, one line each ----
as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
# /dev/tprof opened up, as the udev rule does for group tprof
mode=$(stat -c %a /dev/tprof)
chmod 0666 /dev/tprof
as_nobody "$TR" --cgroup $D -d 1 -o /tmp/nobody-cg.pb.gz > /dev/null 2> unpriv.err
st=$?
as_nobody "$TR" --all -d 1 -o /tmp/nobody-all.pb.gz > /dev/null 2> unpriv-all.err
st_all=$?
chmod "$mode" /dev/tprof
if [ $st_all != 0 ] && [ "$(wc -l < unpriv-all.err)" = 1 ] &&
	grep -q "^tprof-read: --all: Operation not permitted: profiling every process needs root or CAP_PERFMON" unpriv-all.err; then
	ok "all: unprivileged --all is refused (EPERM) with one line"
else
	fail "all: unprivileged --all: status $st_all, $(wc -l < unpriv-all.err) lines"
	sed 's/^/    /' unpriv-all.err | head -5
fi
if [ $st != 0 ] && [ "$(wc -l < unpriv.err)" = 1 ] &&
	grep -q "needs root or CAP_PERFMON" unpriv.err && grep -q "Operation not permitted" unpriv.err; then
	ok "cgroup: unprivileged --cgroup is refused (EPERM) with one line"
else
	fail "cgroup: unprivileged --cgroup: status $st, $(wc -l < unpriv.err) lines"
	sed 's/^/    /' unpriv.err | head -5
fi
"$TR" --cgroup /tmp -d 1 -o /tmp/notcg.pb.gz > /dev/null 2> notcg.err
st=$?
if [ $st != 0 ] && [ "$(wc -l < notcg.err)" = 1 ] && grep -q "not a cgroup v2 directory" notcg.err; then
	ok "cgroup: --cgroup /tmp is refused with one line"
else
	fail "cgroup: --cgroup /tmp: status $st"; sed 's/^/    /' notcg.err | head -5
fi

# ---- more processes than a tree's limit (1024): a cgroup session's
# table holds 8192 (tprof.ko's cgroup_procs_bits); 6.12 only (short=) ----
if [ "${CASE_SHORT:-0}" != 1 ]; then
	mkdir -p $D/many
	"$TR" -v --report -o many.pb.gz --cgroup $D/many > /dev/null 2> many.err &
	trp=$!
	attached many.err
	# 1100 children forked into it, all alive at once, then killed
	sh -c 'echo $$ > "$0/cgroup.procs" && exec "$@"' $D/many \
		"$B/progs/tree-a" wide 1100 > many.out
	kill -INT $trp
	wait $trp
	st=$?
	save many.err
	procs=$(sed -n 's/^processes: \([0-9]*\), \([0-9]*\) not followed, \([0-9]*\) denied$/\1 \2 \3/p' many.err)
	if [ $st = 0 ] && [ "$(cat many.out)" = "wide 1100" ] && [ "$procs" = "1101 0 0" ] &&
		! grep -q "were not followed" many.err; then
		ok "cgroup: 1101 processes at once (a tree's limit is 1024): every one followed, no warning"
	else
		fail "cgroup: 1101 processes at once: processes, not followed, denied: '$procs' (want 1101 0 0), status $st, $(cat many.out)"
		grep -v '^ *[0-9]' many.err | tail -5 | sed 's/^/    /'
	fi
	rmdir $D/many 2>/dev/null
fi

# ---- --all: every process, there at the start (A, in the root cgroup) or
# started later (B, in a child cgroup); each stopped (SIGSTOP) at the
# session's edges, so its CPU inside is exact ----
pids=()
start_in $CG "$B/progs/tree-c" work $long
A=${pids[-1]}
sleep 0.5
kill -STOP $A
a0=$(cpu_of $A)
"$TR" -v -o all.pb.gz --all 2> all.err &
trp=$!
attached all.err
kill -CONT $A
start_in $D/sub "$B/progs/tree-b" work $long
Bp=${pids[-1]}
sleep 2
kill -STOP $A $Bp
a1=$(cpu_of $A); b1=$(cpu_of $Bp)
ended all $trp
kill -9 $A $Bp 2>/dev/null
if [ $st = 0 ] && grep -q "session enabled" all.err; then
	ok "all: tprof-read --all exits 0 at SIGINT"
	proc_check2() {
		local name=$1 pid=$2 truth=$3 v
		v=$(sumval all.sum pid "$pid")
		if within "$v" "$truth" 2 4000000; then ok "all: $name (pid $pid): profile $v ns, its CPU inside $truth ns ($(diffpct "$v" "$truth"))"
		else fail "all: $name (pid $pid): profile $v ns, its CPU inside $truth ns ($(diffpct "$v" "$truth"))"; fi
	}
	proc_check2 "there at the start, root cgroup" $A $((a1 - a0))
	proc_check2 "started later, child cgroup" $Bp "$b1"
	# A's cgroup read at its PROC record (EXISTING); B's at its PROC
	# record (its fork: its shell, in the root cgroup until it moves
	# itself, 221 ms of a TCG guest's CPU once) and again at its exec:
	# all of tree-b's samples are the child cgroup's
	"$SUM" -tag pid=$A -label cgroup all.pb.gz > all-a.lab 2>&1
	"$SUM" -tag pid=$Bp -label cgroup all.pb.gz > all-b.lab 2>&1
	"$SUM" -tag process=tree-b -label cgroup all.pb.gz > all-bx.lab 2>&1
	save all-a.lab all-b.lab all-bx.lab
	va=$(sumval all-a.lab label /); ta=$(sumval all.sum pid $A)
	tb=$(sumval all-b.lab total); tx=$(sumval all-bx.lab total)
	vx=$(sumval all-bx.lab label "$(rel $D/sub)")
	vb=$(( $(sumval all-b.lab label /) + $(sumval all-b.lab label "$(rel $D/sub)") ))
	if [ "$ta" -gt 0 ] && [ "$va" = "$ta" ]; then ok "all: label cgroup=/ on all of pid $A's $ta ns"
	else fail "all: label cgroup=/ on $va of pid $A's $ta ns"; sed 's/^/    /' all-a.lab; fi
	if [ "$tx" -gt 0 ] && [ "$vx" = "$tx" ] && [ "$vb" = "$tb" ]; then
		ok "all: label cgroup=$(rel $D/sub) on all $tx ns of tree-b (pid $Bp), its shell's before the exec / ($((tb - tx)) ns)"
	else
		fail "all: label cgroup=$(rel $D/sub) on $vx of tree-b's $tx ns (pid $Bp), / or it on $vb of the pid's $tb ns"
		sed 's/^/    /' all-bx.lab all-b.lab | grep -v '^    [pt]id'
	fi
	n=$(awk -F'\t' '$1 == "pid" { n++ } END { print n + 0 }' all.sum)
	if [ "$n" -ge 3 ]; then ok "all: $n processes in the profile"
	else fail "all: $n processes in the profile (want >= 3)"; fi
else
	fail "all: tprof-read --all (status $st)"; tail -5 all.err | sed 's/^/    /'
fi

# ---- a command launched by tprof-read in a cgroup named like a systemd
# service: the target's cgroup read at the start ----
sh -c 'echo $$ > "$0/cgroup.procs" && exec "$@"' $SVC \
	"$TR" -o launch.pb.gz -- "$B/progs/tree-c" work 500 > /dev/null 2> launch.err
st=$?
"$SUM" -label cgroup launch.pb.gz > launch.lab 2>&1
"$SUM" -label systemd_unit launch.pb.gz > launch.unit 2>&1
save launch.err launch.lab launch.unit
tot=$(sumval launch.lab total)
lv=$(sumval launch.lab label "$(rel $SVC)")
uv=$(sumval launch.unit label tprof-test.service)
if [ $st = 0 ] && [ "$tot" -gt 0 ] && [ "$lv" = "$tot" ] && [ "$uv" = "$tot" ]; then
	ok "launch: cgroup=$(rel $SVC) and systemd_unit=tprof-test.service on all $tot ns"
else
	fail "launch: status $st, cgroup=$(rel $SVC) on $lv, systemd_unit=tprof-test.service on $uv, of $tot ns"
	cat launch.lab launch.unit launch.err | head -20 | sed 's/^/    /'
fi
exit 0
