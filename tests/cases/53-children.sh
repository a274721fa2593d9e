#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 900
# Process trees (issue 14): tprof-read -- CMD follows the processes CMD
# forks, and theirs. Truth is the kernel's own accounting of each process:
# a child's sum_exec_runtime once it is all done, read from its zombie by
# the parent (tree.c's reap(): "tree-X wrap", a gcc -wrapper around cc1,
# the server), its own CPU clock, or wait4()'s rusage:
#  - a shell fan-out of three binaries: each one's hot function by name,
#    each process's CPU within 2%;
#  - 2000 short-lived children: the tree's total within 2% of rusage,
#    every process accounted, none dropped;
#  - make -j4 of a small C project: cc1's CPU within 2% of what the
#    wrapper read;
#  - an unprivileged tree with a setuid child: no sample of its code, one
#    line saying why, the rest of the tree profiled;
#  - -p PID --children on a pre-fork server: workers it had and workers it
#    forks after attach.
# On a kernel the harness runs with a timeout scale (the lockdep+KASAN
# debug kernel, 5x slower) the module's paths run with fewer processes:
# 100 short-lived children (300 took 100 s there), no make, no 1,100 at once, and hot functions
# checked by name only. Rows marked short (tests/kernels) leave out the
# 1,100 at once and make -j4 (62 s of a 6.12 row under TCG): those run the
# same paths of the module as the 2000 children, and tprof-read's as the
# fan-out, at another size; and they run 500 short-lived children, not
# 2000 (21-58 s of each short row): the same paths, fewer times. 6.12 runs
# it all.
. "$TPROF_ROOT/tests/cases/lib.sh"

B=$TPROF_BUILD
light=0; [ "${CASE_TIMEOUT_SCALE:-1}" -gt 1 ] && light=1
nforks=2000; [ "${CASE_SHORT:-0}" = 1 ] && nforks=500
[ $light = 1 ] && nforks=100
hot_tol=5; [ $light = 1 ] && hot_tol=50
# the debug kernel's exit tail can sleep past reap()'s 40 ms of quiet
# (+7% on a 650 ms worker seen): there a worker's total is looser
tot_tol=2; [ $light = 1 ] && tot_tol=10
TR=$B/tprof-read
SUM=$B/lab/pprofsum	# google/pprof's parser, not tprof-read
[ -x "$TR" ] && [ -x "$B/progs/tree-a" ] || { skip "trees: build/tprof-read or progs missing"; exit 0; }
[ -x "$SUM" ] || { skip "trees: pprofsum not built (make lab)"; exit 0; }

# ---- a shell fan-out of three binaries ----
# Each runs under "tree-X wrap", whose wait4() gives its whole CPU time; it
# prints the part spent in its hot function itself.
w() { echo "$B/progs/tree-$1 wrap $B/progs/tree-$1 work $2 > $1.txt"; }
: > fan.log
TREE_LOG=$PWD/fan.log "$TR" --report -o fan.pb.gz -- sh -c "$(w a 1500) & $(w b 1200) & $(w c 1000); wait" 2> fan.err
st=$?
save fan.pb.gz fan.err
if [ $st = 0 ] && [ -s fan.pb.gz ]; then ok "fan-out: tprof-read -- sh -c 'a & b & c; wait' exits 0"
else fail "fan-out: tprof-read exits 0 (status $st)"; sed 's/^/    /' fan.err | tail -20; fi
"$SUM" -label process -func "hot_a,hot_b,hot_c,[lost]" fan.pb.gz > fan.sum 2>&1 || sed 's/^/    /' fan.sum | tail -5
for x in a b c; do
	read -r _ pid inhot < $x.txt
	ru=$(awk -v n="tree-$x" '$1 == n { print $2 }' fan.log)
	got=$(sumval fan.sum pid "$pid")
	hot=$(sumval fan.sum labelfunc "tree-$x" "hot_$x")
	if within "$got" "$ru" 2; then ok "fan-out: tree-$x (pid $pid): profile $got ns, kernel $ru ns ($(diffpct "$got" "$ru"))"
	else fail "fan-out: tree-$x (pid $pid): profile $got ns, kernel $ru ns ($(diffpct "$got" "$ru"))"; fi
	# A sample's weight is the CPU time since the point before it: a
	# timer that fires late credits it to the code running then. Under
	# TCG, a stalled vCPU makes that milliseconds at each edge of the hot
	# phase (7% seen on a 300 ms phase with 4 guests on 2 CPUs, under 2%
	# on 600 ms with 3, and 7% again on 600 ms with 2 on 6.12-rt, whose
	# samples there weighed 2.9 periods on average): the shortest phase
	# is 1000 ms; the process's total above is exact regardless.
	# The debug kernel's timer interrupts come tens of ms late (see its
	# irq slack in tests/kernels): there the name is what is checked.
	# A lost sample's stack is not known: the process's [lost] may be
	# its hot function's (a loaded host filled the rings: 113 ms of
	# tree-c's 1,012 ms once, with three guests on 2 CPUs)
	lost=$(awk -F'\t' -v p="$pid" '$1 == "tidfunc" && $2 == p && $3 == "[lost]" { s += $4 } END { printf "%.0f\n", s }' fan.sum)
	if within "$hot" "$inhot" $hot_tol ||
		{ [ "$hot" -lt "$inhot" ] && within $((hot + lost)) "$inhot" $hot_tol; }; then
		ok "fan-out: tree-$x's hot_$x by name: $hot ns, its CPU clock in it $inhot ns ($(diffpct "$hot" "$inhot"); ${lost:-0} ns [lost])"
	else fail "fan-out: tree-$x's hot_$x by name: $hot ns, its CPU clock in it $inhot ns ($(diffpct "$hot" "$inhot"); ${lost:-0} ns [lost])"; grep "tree-$x" fan.sum | sed 's/^/    /'
		go tool pprof -top -tagfocus="pid=$pid" fan.pb.gz 2>/dev/null | sed -n '/flat%/,+8p' | sed 's/^/    /'; fi
done
if [ "$(grep -c '^label' fan.sum)" -ge 4 ] && grep -q 'processes: [4-9]' fan.err; then
	ok "fan-out: a process label per program and a process table in --report"
else
	fail "fan-out: a process label per program and a process table in --report"
	grep '^label' fan.sum | sed 's/^/    /'
fi

# ---- 2000 short-lived children ----
"$TR" --report -o forks.pb.gz -- "$B/progs/tree-b" forks $nforks 1 > forks.txt 2> forks.err
st=$?
save forks.pb.gz forks.err
read -r _ n self kids < forks.txt
ru=$((self + kids))
"$SUM" forks.pb.gz > forks.sum 2>&1
got=$(sumval forks.sum total)
if [ $st = 0 ] && within "$got" "$ru" 2; then ok "$nforks children: profile $got ns, the tree's kernel $ru ns ($(diffpct "$got" "$ru"))"
else fail "$nforks children: profile $got ns, the tree's kernel $ru ns ($(diffpct "$got" "$ru")) (status $st)"; tail -5 forks.err | sed 's/^/    /'; fi
procs=$(sed -n 's/^processes: \([0-9]*\), \([0-9]*\) not followed, \([0-9]*\) denied$/\1 \2 \3/p' forks.err)
if [ "$procs" = "$((nforks + 1)) 0 0" ]; then
	ok "$nforks children: all $((nforks + 1)) processes accounted, none dropped or denied"
else
	fail "$nforks children: processes, not followed, denied: '$procs' (want $((nforks + 1)) 0 0)"
fi
lost=$(sed -n 's/^total: .* \([0-9]*\) lost (.*$/\1/p' forks.err)
if [ "$lost" = 0 ]; then ok "$nforks children: no sample lost"; else fail "$nforks children: $lost samples lost"; fi

# ---- more processes at once than the module follows ----
# Not on a slow kernel: there 1,100 forks took 167 s (the debug kernel);
# the full table's path (procs.c's refused claim, counted) is short.
if [ $light = 1 ] || [ "${CASE_SHORT:-0}" = 1 ]; then
	skip "1100 children at once: a slow kernel or a short row runs the module's paths only (see above)"
else
	"$TR" --report -o wide.pb.gz -- "$B/progs/tree-a" wide 1100 > wide.txt 2> wide.err
	st=$?
	save wide.err
	procs=$(sed -n 's/^processes: \([0-9]*\), \([0-9]*\) not followed, \([0-9]*\) denied$/\1 \2 \3/p' wide.err)
	# the launched process and 1023 children fill TPROF_MAX_PROCS (1024); the
	# counts are the module's own totals (its last PROC record), exact on every
	# kernel even where the ring was full and a PROC record lost (the debug
	# kernel's 1100 76 0, issue 22 item 8)
	want="1101 77 0"
	if [ $st = 0 ] && [ "$procs" = "$want" ] &&
		grep -q "^tprof-read: warning: $(echo "$want" | cut -d' ' -f2) processes of the tree were not followed" wide.err; then
		ok "1100 children at once: 1024 followed, 77 counted as not followed, and a warning says so"
	else
		fail "1100 children at once: processes, not followed, denied: '$procs' (want 1101 77 0), status $st"
		grep -v '^ *[0-9]' wide.err | tail -5 | sed 's/^/    /'
	fi
fi

# ---- make -j4 of a small C project, cc1 timed by a gcc -wrapper ----
if [ $light = 1 ] || [ "${CASE_SHORT:-0}" = 1 ]; then
	skip "make -j4: a slow kernel or a short row runs the module's paths only (see above)"
elif command -v gcc >/dev/null && command -v make >/dev/null; then
	cp -r "$TPROF_ROOT/tests/progs/minibuild" mb
	: > cc1.log
	TREE_LOG=$PWD/cc1.log "$TR" --report -o make.pb.gz -- make -C mb -j4 \
		CC=gcc WRAP="-wrapper $B/progs/tree-c,wrap" > make.out 2> make.err
	st=$?
	save make.pb.gz make.err cc1.log
	"$SUM" -label process make.pb.gz > make.sum 2>&1
	ru=$(awk '$1 == "cc1" { s += $2; n++ } END { print s + 0 }' cc1.log)
	ncc=$(grep -c '^cc1 ' cc1.log)
	got=$(sumval make.sum label cc1)
	if [ $st = 0 ] && [ "$ncc" -ge 5 ] && within "$got" "$ru" 2; then
		ok "make -j4: $ncc cc1 processes: profile $got ns, their kernel $ru ns ($(diffpct "$got" "$ru"))"
	else
		fail "make -j4: $ncc cc1 processes: profile $got ns, their kernel $ru ns ($(diffpct "$got" "$ru")) (status $st)"
		tail -5 make.err | sed 's/^/    /'
		grep '^label' make.sum | sed 's/^/    /'
	fi
	sed -n '/^ *PID  *PPID/,$p' make.err | head -30 > "$TPROF_OUT/make-report.txt" 2>/dev/null
else
	skip "make -j4: no gcc or make"
fi

# ---- an unprivileged tree with a setuid child ----
mode=$(stat -c %a /dev/tprof)
chmod 0666 /dev/tprof
trap 'chmod "$mode" /dev/tprof; kill "$srv" 2>/dev/null' EXIT
install -o root -g root -m 4755 "$B/kmod-tests/secret" ./secret-suid
install -m 0755 "$B/progs/tree-a" ./tree-a
chmod 0777 "$PWD"
setpriv --reuid=65534 --regid=65534 --clear-groups "$TR" --report -o "$PWD/suid.pb.gz" -- \
	sh -c "./tree-a work 300 > suid-a.txt; ./secret-suid 300 3> secret.range; ./tree-a work 300 >> suid-a.txt" 2> suid.err
st=$?
save suid.pb.gz suid.err
# secret.c's code: its SECRET functions
"$SUM" -label process -func secret_leaf,secret_spin,hot_a suid.pb.gz > suid.sum 2>&1
leak=$(( $(sumval suid.sum func secret_leaf) + $(sumval suid.sum func secret_spin) ))
if [ $st = 0 ] && [ "$leak" = 0 ] && [ -s secret.range ]; then ok "setuid child: no sample of its code"
else fail "setuid child: $leak ns of secret functions in the profile (status $st, range '$(cat secret.range 2>/dev/null)')"; grep secret suid.sum | sed 's/^/    /'; fi
if [ "$(grep -c non-profilable suid.err)" = 1 ] &&
	grep -qE "^tprof-read: pid [0-9]+ (\(.*\) )?became non-profilable: .*ids changed.*; nothing more of it is recorded" suid.err; then
	ok "setuid child: one line says why: $(grep non-profilable suid.err)"
else
	fail "setuid child: one line says why"; sed 's/^/    /' suid.err | tail
fi
hot=$(sumval suid.sum labelfunc tree-a hot_a)
ru=$(awk '{ s += $3 } END { print s + 0 }' suid-a.txt)
if within "$hot" "$ru" $hot_tol; then ok "setuid child: the rest of the tree is profiled: hot_a $hot ns, its CPU clock in it $ru ns"
else fail "setuid child: the rest of the tree is profiled: hot_a $hot ns, its CPU clock in it $ru ns"; fi

# ---- -p PID --children on a pre-fork server ----
"$B/progs/tree-a" server 400 > srv.txt &
srv=$!
for _ in $(seq 300); do [ "$(grep -c early srv.txt)" = 2 ] && break; sleep 0.1; done
# attach once the early workers wait in pause() (S): what they ran before
# is theirs, not the session's (a worker still starting up counted 2% more)
for w in $(awk '$1 == "worker" { print $2 }' srv.txt); do
	for _ in $(seq 300); do
		[ "$(awk '{ print $3 }' /proc/$w/stat 2>/dev/null)" = S ] && break
		sleep 0.1
	done
done
"$TR" -v --report -p "$srv" --children -o "$PWD/srv.pb.gz" 2> srv.err &
tr=$!
attached srv.err $srv
# each early worker's CPU time at attach, as its kernel has it: it still
# sleeps in pause() (nothing it runs from here on is before the session)
# (a file of its own: srv.txt is the server's, written at its own offset)
: > attach.txt
for w in $(awk '$1 == "worker" && $3 == "early" { print $2 }' srv.txt); do
	echo "attach $w $(awk '{ print $1 }' /proc/$w/schedstat)" >> attach.txt
done
kill -USR1 "$srv"
wait "$tr"
st=$?
wait "$srv"
save srv.pb.gz srv.err srv.txt attach.txt
"$SUM" srv.pb.gz > srv.sum 2>&1
for w in $(awk '$1 == "worker" { print $2 ":" $3 }' srv.txt); do
	pid=${w%:*} kind=${w#*:}
	got=$(sumval srv.sum pid "$pid")
	ru=$(cat srv.txt attach.txt | awk -v p="$pid" '$1 == "done" && $2 == p { d = $3 } $1 == "attach" && $2 == p { a = $3 } END { print d - a }')
	# early workers were there at attach (their CPU time before, forking
	# and waiting, is not the session's): the kernel's count from attach
	# to their end, read while they slept. Not their own clock read as
	# they woke: under a loaded TCG host the vCPU stalls in the wake-up
	# before it, which is the thread's CPU time and the profile's (6.1
	# under CI load: +45 ms on 435). Late ones forked after attach.
	if [ $st = 0 ] && within "$got" "$ru" $tot_tol; then ok "server: $kind worker $pid: profile $got ns, kernel $ru ns ($(diffpct "$got" "$ru"))"
	else fail "server: $kind worker $pid: profile $got ns, kernel $ru ns ($(diffpct "$got" "$ru")) (status $st)"; sed 's/^/    /' srv.err | grep -v debug | tail; fi
done
exit 0
