#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 600
# JIT code by name (issue 13 item 5): Node with --perf-basic-prof writes
# /tmp/perf-PID.map as it compiles; tprof-read names the hot JavaScript
# function (hotLoop, "JS:*hotLoop FILE:LINE:COL" in V8's words) from it,
# with most of the samples: launched, attached to a running node, and
# replayed from --save-raw after the map file is gone (PERFMAP records).
. "$TPROF_ROOT/tests/cases/lib.sh"

TR=$TPROF_BUILD/tprof-read
NODE=$(command -v nodejs || command -v node)
export HOME=$PWD
[ -x "$TR" ] || { skip "JIT names: tprof-read not built"; exit 0; }
[ -n "$NODE" ] || { skip "JIT names: nodejs not installed (.ci/packages)"; exit 0; }
command -v go >/dev/null || { skip "JIT names: go tool pprof: golang-go missing"; exit 0; }

cat > hot.js <<'JS'
'use strict';
// Most of the CPU in one JavaScript function, compiled by V8's JIT.
function hotLoop(n) {
	let x = 0;
	for (let i = 0; i < n; i++)
		x = (x * 31 + i) % 1000003;
	return x;
}
// A CPU-time budget (ms) of all node's threads, counted from here: under
// emulation node's start-up took 4.5 to 7.5 s before it (6.4 s of 15.9 s
// once, and enough on a loaded CI host that hotLoop fell to 48% when the
// budget counted from the exec), so launched runs get 12 s after it.
const budget = Number(process.argv[2] || 3000) * 1000;
const cpu = () => { const u = process.cpuUsage(); return u.user + u.system; };
const t0 = cpu();
let s = 0;
// 1e6 a call: node's cpuUsage() between calls took 0.4 s at 1e5
while (cpu() - t0 < budget)
	s += hotLoop(1e6);
console.log(s);
JS

# flat% of the functions whose name holds hotLoop (V8 tiers: ~ ^ *), summed,
# of the main thread's samples (tid = pid): V8's compiler and GC threads
# took 1.7 s of the 12 s budget, none of it JavaScript
hot_share() {
	local pid
	pid=$(go tool pprof -tags "$1" 2>/dev/null |
		awk '/^ *pid:/{p=1;next} p && /%\)/{print $NF; exit}')
	go tool pprof -top -nodecount=1000 -symbolize=none \
		-tagfocus="tid=${pid:-0}" -relative_percentages "$1" 2>/dev/null |
		awk '/flat%/{f=1;next} f && /hotLoop/{sub("%","",$2); s+=$2} END{printf "%d", s}'
}
# check_hot NAME PROFILE: hotLoop by name with at least half the samples
# of the main thread
check_hot() {
	local share
	share=$(hot_share "$2")
	if [ "${share:-0}" -ge 50 ]; then
		ok "$1: JS hotLoop named from perf-PID.map with $share% of the main thread's samples"
	else
		fail "$1: JS hotLoop has ${share:-0}% of the main thread's samples (want >= 50%)"
		go tool pprof -top -symbolize=none "$2" 2>&1 | head -15 | sed 's/^/    /'
	fi
}

# launch: the map is read as it grows, and at the exit stop
if "$TR" --save-raw node.raw -o node.pb.gz -- "$NODE" --perf-basic-prof hot.js 12000 \
		> /dev/null 2> node.err; then
	ok "launch: node --perf-basic-prof exits 0"
else
	fail "launch: node --perf-basic-prof"; sed 's/^/    /' node.err | head
fi
cp node.pb.gz node.raw "$TPROF_OUT/" 2>/dev/null
check_hot "launch" node.pb.gz

# replay on a "later day": no map file left, the stream has its lines
rm -f /tmp/perf-*.map
if "$TR" --input node.raw -o replay.pb.gz 2> replay.err; then
	check_hot "replay without the map file" replay.pb.gz
else
	fail "replay: tprof-read --input"; sed 's/^/    /' replay.err | head
fi

# attach: hotLoop was compiled (and its map line written) before the session
"$NODE" --perf-basic-prof hot.js 60000 > /dev/null &
pid=$!
sleep 3
if "$TR" -p $pid -d 2 -o attach.pb.gz 2> attach.err; then
	check_hot "attach" attach.pb.gz
else
	fail "attach: -d 2 on node"; sed 's/^/    /' attach.err | head
fi
kill $pid 2>/dev/null; wait $pid 2>/dev/null
cp attach.pb.gz "$TPROF_OUT/node-attach.pb.gz" 2>/dev/null
rm -f /tmp/perf-*.map
exit 0
