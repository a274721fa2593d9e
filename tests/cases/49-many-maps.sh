#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 600
# A target with more than 5,000 mappings whose every sample has a frame no
# mapping covers (issue 13 item 9), live: manymaps maps 6,000 pages of a
# file one by one (alternating protections, so none merge; it counts its
# own /proc/self/maps lines) and spins in manymaps_hot with its frame
# pointer on a made-up frame returning to 0xdead000. tprof-read at 2 kHz,
# launched and attached (-p, -d 2), keeps up and is done in reasonable
# time: --report counts every sample the module took and 0 lost (the
# module's STATS after the drain), the run takes at most 30 s more than the
# same program without tprof-read (attached: 30 s past -d), and
# manymaps_hot is named (with >= 80% of the 2 s it spun launched, of the
# samples attached), its stack cut right above it. Before the fix each
# such sample re-read the 6,000-line maps: the reader fell behind, the
# ring overflowed and a 300 s budget was not enough. --call-graph fp: the
# made-up frame is on the frame-pointer chain only (CFI unwinding from a
# snapshot finds the real caller, main); the reader still sees it, but
# manymaps_hot keeps no frame pointer (its CFI says so), so the chain's
# join to it is not made: [truncated] (it was the unmapped 0xdead000).
. "$TPROF_ROOT/tests/cases/lib.sh"

B=$TPROF_BUILD
TR=$B/tprof-read
PROG=$B/progs/manymaps
SUM=$B/lab/pprofsum
N=6000
SLACK=$((30 * ${CASE_TIMEOUT_SCALE:-1}))
[ -x "$TR" ] || { skip "many mappings: tprof-read not built (make userspace)"; exit 0; }
[ -x "$SUM" ] || { skip "many mappings: pprofsum not built (make lab)"; exit 0; }
[ -x "$PROG" ] || { skip "many mappings: progs/manymaps not built (make progs)"; exit 0; }

# now_ms: wall clock in ms
now_ms() { echo $(( $(date +%s%N) / 1000000 )); }
# report_check TAG ERRFILE: the --report total line says 0 lost, and so does
# every thread's LOST column
report_check() {
	local tot lost
	tot=$(grep '^total:' "$2")
	lost=$(sed -n 's/^total: [0-9]* samples, .* sampled, \([0-9]*\) lost.*/\1/p' "$2")
	if [ "$lost" = 0 ] && awk '/^total:/ { f = 0 } f && NF >= 8 && $NF != 0 { bad = 1 } /^ *TID / { f = 1 } END { exit bad }' "$2"; then
		ok "$1: --report: $tot"
	else
		fail "$1: --report: lost ${lost:-?} (want 0)"; sed 's/^/    /' "$2" | head -20
	fi
}
# hot_check TAG PROFILE [MIN_NS]: manymaps_hot named, called from the
# unmapped frame; with >= 80% of the samples, or with MIN_NS of CPU time
hot_check() {
	local total hot unm caller hotns
	"$SUM" -func manymaps_hot -leaf manymaps_hot "$2" > "$1.sum" 2>&1
	save "$1.sum"
	total=$(awk -F'\t' '$1 == "total" { print $3 }' "$1.sum")
	hot=$(awk -F'\t' '$1 == "func" { print $4 }' "$1.sum")
	unm=$(awk -F'\t' '$1 == "leaf" && $3 == "[truncated]" { n += $5 } END { print n + 0 }' "$1.sum")
	caller=$(awk -F'\t' '$1 == "leaf" { print $3 }' "$1.sum" | sort -u | xargs)
	hotns=$(awk -F'\t' '$1 == "func" { print $3 }' "$1.sum")
	if [ -n "${3-}" ]; then
		if [ "${hotns:-0}" -ge "$3" ]; then
			ok "$1: manymaps_hot has ${hotns} ns of CPU, $((hot * 100 / total))% of $total samples (the rest: mapping the pages)"
		else
			fail "$1: manymaps_hot has ${hotns:-0} ns of CPU (want >= $3)"; sed 's/^/    /' "$1.sum" | head
		fi
	elif [ "${total:-0}" -gt 0 ] && [ $((hot * 100 / total)) -ge 80 ]; then
		ok "$1: manymaps_hot has $((hot * 100 / total))% of $total samples"
	else
		fail "$1: manymaps_hot has ${hot:-0} of ${total:-0} samples (want >= 80%)"; sed 's/^/    /' "$1.sum" | head
	fi
	if [ "${hot:-0}" -gt 0 ] && [ $((unm * 100 / hot)) -ge 80 ]; then
		ok "$1: manymaps_hot's stack cut right above it ([truncated]: no frame pointer of its own) in $((unm * 100 / hot))% of its samples (callers: $caller)"
	else
		fail "$1: manymaps_hot's stack cut right above it in $unm of ${hot:-0} samples (callers: $caller)"
	fi
}

# ---- the program alone: its mappings, its time ----
t0=$(now_ms)
if "$PROG" $N 2 bare.data > bare.out 2> bare.err; then
	bare=$(( $(now_ms) - t0 ))
	m=$(sed -n 's/^mappings //p' bare.out)
	if [ "${m:-0}" -gt 5000 ]; then ok "manymaps has $m lines in /proc/self/maps, ran ${bare} ms alone"
	else fail "manymaps has ${m:-?} mappings (want > 5000)"; fi
else
	fail "manymaps runs alone"; sed 's/^/    /' bare.err | head; exit 0
fi
rm -f bare.data

# ---- launch ----
t0=$(now_ms)
if "$TR" --call-graph fp -F 2000 --report -o launch.pb.gz -- "$PROG" $N 2 launch.data > launch.out 2> launch.err; then
	ok "launch: tprof-read -F 2000 -- manymaps $N 2 exits 0"
else
	fail "launch: tprof-read -- manymaps exits 0"; sed 's/^/    /' launch.err | head
fi
took=$(( $(now_ms) - t0 ))
save launch.pb.gz launch.err
rm -f launch.data
if [ $took -le $((bare + SLACK * 1000)) ]; then
	ok "launch: done in $took ms, the program alone $bare ms"
else
	fail "launch: took $took ms, the program alone $bare ms (want at most ${SLACK} s more)"
fi
report_check launch launch.err
n=$(sed -n 's/^total: \([0-9]*\) samples.*/\1/p' launch.err)
# 2 s of CPU at 2 kHz: about 4000 samples, all of them through the reader
if [ "${n:-0}" -ge 2000 ]; then ok "launch: $n samples read (2 s at 2 kHz)"
else fail "launch: ${n:-0} samples read (want >= 2000 of about 4000)"; fi
# it spun 2 s of its CPU time in manymaps_hot, after setting up its maps
hot_check launch launch.pb.gz 1600000000

# ---- attach to the running program ----
"$PROG" $N 100000 attach.data > attach.out 2>&1 &
pid=$!
for _ in $(seq 300); do grep -q '^mappings' attach.out 2>/dev/null && break; sleep 0.1; done
m=$(wc -l < /proc/$pid/maps)
t0=$(now_ms)
if "$TR" --call-graph fp -p $pid -d 2 -F 2000 --report -o attach.pb.gz 2> attach.err; then
	ok "attach: tprof-read -p PID -d 2 on manymaps ($m mappings) exits 0"
else
	fail "attach: tprof-read -p PID -d 2 exits 0"; sed 's/^/    /' attach.err | head
fi
took=$(( $(now_ms) - t0 ))
kill $pid 2>/dev/null; wait $pid 2>/dev/null
rm -f attach.data
save attach.pb.gz attach.err
if [ $took -le $(( (2 + SLACK) * 1000 )) ]; then ok "attach: done in $took ms (-d 2)"
else fail "attach: took $took ms for -d 2 (want at most $((2 + SLACK)) s)"; fi
report_check attach attach.err
hot_check attach attach.pb.gz
exit 0
