#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 300
# A reader behind its target still names what a fork then an exec run.
# `sh -c 'a & b & c'`, each "tree-X wrap" forking a child that execs
# "tree-X work": on a 1-vCPU exact guest the drain thread gets to a child's
# PROC record (its fork) only after the child exec'd, so the maps it reads
# there are already the new program's; the read at the EXEC record is the
# same text. tprof-read kept only the first, stamped before the exec, and
# names a sample after an exec only from maps stamped since: every sample
# of the workers was <unknown> (2 of 3 trees on 6.12-arm64, all 3 in the
# next run; 1 of 3 on 6.12). Truth: each worker's own CPU clock in its hot
# function (it prints it), against that function's samples by name.
# mode: icount 1 cpus 1
. "$TPROF_ROOT/tests/cases/lib.sh"

B=$TPROF_BUILD
TR=$B/tprof-read
SUM=$B/lab/pprofsum
[ -x "$TR" ] && [ -x "$B/progs/tree-a" ] || { skip "exec names: build/tprof-read or progs missing"; exit 0; }
[ -x "$SUM" ] || { skip "exec names: pprofsum not built (make lab)"; exit 0; }

w() { echo "$B/progs/tree-$1 wrap $B/progs/tree-$1 work $2 > $1.txt"; }
for run in 1 2; do
	"$TR" --report -o "run$run.pb.gz" --save-raw "run$run.raw" -- sh -c "$(w a 600) & $(w b 500) & $(w c 400); wait" 2> "run$run.err" ||
		fail "run $run: tprof-read -- sh -c 'a & b & c; wait' exits $?"
	save "run$run.pb.gz" "run$run.err" "run$run.raw"
	"$SUM" -label process -func "hot_a,hot_b,hot_c" "run$run.pb.gz" > "run$run.sum" 2>&1
	for x in a b c; do
		read -r _ pid inhot < $x.txt
		hot=$(sumval "run$run.sum" labelfunc "tree-$x" "hot_$x")
		# late timers and the hot phase's edges: a few periods
		if within "$hot" "$inhot" 5; then
			ok "run $run: tree-$x (pid $pid) after its exec: hot_$x by name $hot ns, its own clock in it $inhot ns ($(diffpct "$hot" "$inhot"))"
		else
			fail "run $run: tree-$x (pid $pid) after its exec: hot_$x by name $hot ns, its own clock in it $inhot ns ($(diffpct "$hot" "$inhot"))"
			grep "tree-$x" "run$run.sum" | sed 's/^/    /'
			# where the rest of its time went
			go tool pprof -top -tagfocus="pid=$pid" "run$run.pb.gz" 2>/dev/null | sed -n '/flat%/,+8p' | sed 's/^/    /'
		fi
	done
done
exit 0
