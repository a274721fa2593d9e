#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 600
# mode: icount 1 cpus 8
# Eight busy Python threads (tests/progs/py/busy8.py, Debian's python3.11)
# at tprof-read's default settings: none of their samples is lost, and
# each thread's spin() has its own CPU to 3% (its own thread clock).
# Each CPython sample is about 8.8 KB (an 8 KiB snapshot, the walk's
# frames): the module's 256 KiB ring holds some 29 ms of a busy CPU's, and
# lost 0.7-3% of eight busy threads' samples (issue 33); tprof-read gives a
# CPython target 1 MiB rings unless --ring-bytes says otherwise.
# An exact guest of 8 vCPUs (mode above): under plain TCG a loaded host
# slows the reader's vCPU while the busy threads' CPU clocks, the host's
# time, and so their samples, keep their pace (320 ms of 13.5 s lost once
# in 60-python.sh's old place, with two guests and a busy host); under
# icount each vCPU's share of the instructions, the reader's too, is what
# the guest's scheduler gives it, whatever the host's load.
. "$TPROF_ROOT/tests/cases/lib.sh"

B=$TPROF_BUILD
TR=$B/tprof-read
SUM=$B/lab/pprofsum
PY=/usr/bin/python3.11
PD=$TPROF_ROOT/tests/progs/py
[ -x "$TR" ] || { skip "python busy: build/tprof-read missing"; exit 0; }
[ -x "$PY" ] || { skip "python busy: no $PY"; exit 0; }
[ -x "$SUM" ] || { skip "python busy: pprofsum not built (make lab)"; exit 0; }

"$TR" -o busy.pb.gz -- "$PY" "$PD/busy8.py" 1.5 > busy.out 2> busy.err
st=$?
save busy.pb.gz busy.err busy.out
if [ $st = 0 ] && [ -s busy.pb.gz ]; then ok "busy8: tprof-read -- $PY busy8.py 1.5 exits 0"
else fail "busy8: tprof-read exits 0 (status $st)"; sed 's/^/    /' busy.err | tail -20; exit 0; fi
"$SUM" -func "spin,[lost]" busy.pb.gz > busy.sum 2>&1
save busy.sum
lost=$(sumval busy.sum func "[lost]")
total=$(sumval busy.sum total)
if [ "$lost" = 0 ] && [ "$total" -gt 0 ]; then ok "busy8: default rings: 0 of $total ns [lost]"
else fail "busy8: default rings: $lost of $total ns [lost]"; fi
while read -r _ tid fn own; do
	mine=$(awk -F'\t' -v t="$tid" '$1 == "tidfunc" && $2 == t && $3 == "spin" { print $4 }' busy.sum)
	if within "${mine:-0}" "$own" 3; then
		ok "busy8: thread $tid ($fn): ${mine:-0} ns under spin(), its own clock $own ns ($(diffpct "${mine:-0}" "$own"))"
	else fail "busy8: thread $tid ($fn): ${mine:-0} ns under spin(), its own clock $own ns"; fi
done < <(grep '^cpu ' busy.out)
[ "$(grep -c '^cpu ' busy.out)" = 8 ] ||
	fail "busy8: $(grep -c '^cpu ' busy.out) of 8 threads said their CPU"
exit 0
