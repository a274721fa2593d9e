#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 300
# tprof-agent (issue 34): one session of a process tree, served as Go's
# net/http/pprof serves a program's profile, read with curl and google/
# pprof's parser (lab/pprofsum). Truth is the kernel's own accounting of
# each worker, read from its zombie by "tree-a wrap" (tests/progs/tree.c):
#  - a worker that runs wholly inside a window: its CPU in the profile
#    within 1% of the kernel's, most of its samples in its hot function
#    by name, and the same in a second scraper's window over the same
#    time (one session for both: curl and go tool pprof);
#  - a worker that ran before the window: not in it;
#  - duration_nanos is the window asked for;
#  - a scraper that hangs up mid-window costs nothing: the agent serves
#    the next request, and /metrics counts what it served;
#  - bad arguments and paths: a 4xx with a one-line reason;
#  - /metrics in Prometheus' text format (promtool's check where it is
#    installed), with the samples counted;
#  - the target's end: the agent answers what it holds and exits 0.
. "$TPROF_ROOT/tests/cases/lib.sh"

B=$TPROF_BUILD
AG=$B/tprof-agent
SUM=$B/lab/pprofsum
[ -x "$AG" ] && [ -x "$B/progs/tree-a" ] || { skip "agent: build/tprof-agent or progs missing"; exit 0; }
[ -x "$SUM" ] || { skip "agent: pprofsum not built (make lab)"; exit 0; }
command -v curl > /dev/null || { skip "agent: no curl"; exit 0; }

# the guests' init leaves loopback down
ip link set lo up 2> /dev/null || busybox ifconfig lo 127.0.0.1 up

# The target: a shell that runs a worker (1.5 s of CPU in hot_a) per line
# of its fifo, each under "wrap", which logs the worker's CPU when reaped.
mkfifo cmd
start_target() {
	TREE_LOG=$PWD/tree.log bash -c 'exec 3<>cmd; n=0
		while read -r what <&3; do
			[ "$what" = quit ] && exit 0
			n=$((n + 1))
			'"$B"'/progs/tree-a wrap '"$B"'/progs/tree-a work 1500 > work.$n.txt
			echo done > done.$n
		done' &
	target=$!
}
start_target
"$AG" -p $target --listen 127.0.0.1:0 2> agent.err &
agent=$!
if ! agent_port agent.err; then
	fail "agent: no port on stderr"; sed 's/^/    /' agent.err; kill $target $agent 2>/dev/null; exit 0
fi
ok "agent: tprof-agent -p $target serves on 127.0.0.1:$port"
U=http://127.0.0.1:$port
# run_work N: one worker, waited for
run_work() {
	echo work > cmd
	for _ in $(seq 600); do [ -e "done.$1" ] && return 0; sleep 0.1; done
	return 1
}
metric() { curl -s "$U/metrics" | awk -v m="$1" '$1 == m { print $2 }'; }

run_work 1 || fail "agent: worker 1 did not finish"
# Two scrapers at once, curl and Go's own client (go tool pprof, which
# fetches ?seconds=N as it does from a Go server), then worker 2 inside
# their windows (12 s: its 1.5 s of CPU take a few seconds of a TCG guest).
curl -s -D h1.txt -o w1.pb.gz "$U/debug/pprof/profile?seconds=12" &
c1=$!
HOME=$PWD PPROF_TMPDIR=$PWD go tool pprof -proto "$U/debug/pprof/profile?seconds=12" > w2.pb.gz 2> go.err &
c2=$!
for _ in $(seq 100); do [ "$(metric tprof_windows_open)" = 2 ] && break; sleep 0.1; done
run_work 2 || fail "agent: worker 2 did not finish"
wait $c1; s1=$?
wait $c2; s2=$?
save agent.err w1.pb.gz w2.pb.gz h1.txt go.err
if [ $s1 = 0 ] && grep -q '^HTTP/1.1 200' h1.txt &&
	grep -qi '^Content-Type: application/octet-stream' h1.txt; then
	ok "agent: curl's ?seconds=12: 200, application/octet-stream"
else fail "agent: curl's scrape: curl $s1"; sed 's/^/    /' h1.txt agent.err | tail -20; fi
if [ $s2 = 0 ] && [ -s w2.pb.gz ]; then ok "agent: go tool pprof's ?seconds=12 at the same time: a profile"
else fail "agent: go tool pprof: status $s2"; sed 's/^/    /' go.err | tail; fi
read -r _ pid1 _ < work.1.txt
read -r _ pid2 inhot2 < work.2.txt
cpu2=$(awk '$1 == "tree-a" { v = $2 } END { print v }' tree.log)
"$SUM" -func hot_a w1.pb.gz > w1.sum 2>&1
"$SUM" -func hot_a w2.pb.gz > w2.sum 2>&1
save w1.sum w2.sum tree.log
got1=$(sumval w1.sum pid "$pid2"); got2=$(sumval w2.sum pid "$pid2")
hot1=$(sumval w1.sum func hot_a)
if within "$got1" "$cpu2" 1 && within "$got2" "$cpu2" 1; then
	ok "agent: worker 2 (pid $pid2) in both windows (curl's, go tool pprof's): $got1 and $got2 ns, kernel $cpu2 ns ($(diffpct "$got1" "$cpu2"), $(diffpct "$got2" "$cpu2"))"
else fail "agent: worker 2 (pid $pid2): windows $got1 and $got2 ns, kernel $cpu2 ns ($(diffpct "$got1" "$cpu2"))"; sed 's/^/    /' w1.sum | head -20; fi
# Its hot function by name, by count of samples: a weight holds the CPU
# time since the thread's last sample, and a host that stalls a TCG vCPU
# for seconds charges that whole stall to the one sample after it
# (3.2 s in one sample under __run_exit_handlers, on 6.12-rt with four
# guests on two CPUs), and a loaded host stretches the worker's start
# (dl_main, execve: 32% of its samples on 6.1 with three guests on two
# CPUs); 53 checks weights by function, on exact-sized runs
nhot=$(awk -F'\t' '$1 == "tidfunc" && $3 == "hot_a" { print $5 }' w1.sum)
nall=$(awk -F'\t' -v p="$pid2" '$1 == "pid" && $2 == p { print $4 }' w1.sum)
if [ "${nhot:-0}" -gt 0 ] && [ $((nhot * 100)) -ge $((${nall:-1} * 50)) ]; then
	ok "agent: its hot_a by name: $nhot of its $nall samples ($hot1 ns; its CPU clock there $inhot2 ns)"
else fail "agent: its hot_a by name: ${nhot:-0} of its $nall samples"; sed 's/^/    /' w1.sum | head; fi
n1=$(sumval w1.sum pid "$pid1")
if [ "$n1" = 0 ] && [ -n "$pid1" ]; then ok "agent: worker 1 (pid $pid1), done before the window, is not in it"
else fail "agent: worker 1 (pid $pid1), done before the window: $n1 ns in it"; fi
dur=$(go tool pprof -raw w1.pb.gz 2> /dev/null | sed -n 's/^Duration: //p')
case $dur in
12s|12.0*s|11.9[5-9]*s) ok "agent: duration_nanos is the window's: $dur" ;;
*) fail "agent: duration is $dur, not 12s" ;;
esac

# A scraper that hangs up: the agent goes on, and serves the next one.
curl -s -m 1 -o /dev/null "$U/debug/pprof/profile?seconds=3"; hs=$?
curl -s -o w3.pb.gz "$U/debug/pprof/profile?seconds=1"; s3=$?
"$SUM" w3.pb.gz > w3.sum 2>&1
if [ $hs = 28 ] && [ $s3 = 0 ] && grep -q '^total' w3.sum && kill -0 $agent 2>/dev/null; then
	ok "agent: a scraper that hung up mid-window (curl 28) cost the next one nothing"
else fail "agent: after a hang-up: curl $hs, then $s3"; sed 's/^/    /' w3.sum agent.err | tail; fi

# Bad input: a 4xx and one line saying why.
bad() {	# bad EXPECTED-CODE CURL-ARGS...
	local want=$1 code lines
	shift
	code=$(curl -s -o bad.txt -w '%{http_code}' "$@")
	lines=$(wc -l < bad.txt)
	if [ "$code" = "$want" ] && [ "$lines" = 1 ]; then ok "agent: $* -> $code: $(cat bad.txt)"
	else fail "agent: $* -> $code (want $want), $lines lines: $(head -3 bad.txt)"; fi
}
bad 400 "$U/debug/pprof/profile?seconds=abc"
bad 400 "$U/debug/pprof/profile?seconds=0"
bad 400 "$U/debug/pprof/profile?seconds=100000"
bad 404 "$U/debug/pprof/nosuch"
bad 404 "$U/debug/pprof/wall?seconds=1"
bad 405 -X POST "$U/debug/pprof/profile"

curl -s -o metrics.txt -w '%{content_type}' "$U/metrics" > ctype.txt
save metrics.txt
served=$(awk '$1 == "tprof_profiles_served_total" { print $2 }' metrics.txt)
samples=$(awk '$1 == "tprof_samples_total" { print $2 }' metrics.txt)
if grep -q '^text/plain; version=0.0.4' ctype.txt && [ "${served:-0}" -ge 4 ] &&
	[ "${samples:-0}" -gt 1000 ] && grep -q '^process_resident_memory_bytes [1-9]' metrics.txt; then
	ok "agent: /metrics: $served profiles served (the hung-up one's too), $samples samples, the agent's RSS"
else fail "agent: /metrics: served $served, samples $samples"; sed 's/^/    /' metrics.txt | head -40; fi
if command -v promtool > /dev/null; then
	check "agent: promtool check metrics passes on /metrics" promtool check metrics < metrics.txt
fi

# Prometheus itself scrapes the agent, and its query API has the series.
if command -v prometheus > /dev/null; then
	printf 'global:\n  scrape_interval: 1s\nscrape_configs:\n  - job_name: tprof\n    static_configs:\n      - targets: ["127.0.0.1:%s"]\n' "$port" > prom.yml
	prometheus --config.file=prom.yml --storage.tsdb.path=tsdb \
		--web.listen-address=127.0.0.1:0 > prom.log 2>&1 &
	prom=$!
	pport=
	for _ in $(seq 300); do
		pport=$(sed -n 's/.*Listening on.*127.0.0.1:\([0-9][0-9]*\).*/\1/p' prom.log | head -1)
		[ -n "$pport" ] && break
		sleep 0.2
	done
	val=
	for _ in $(seq 120); do
		val=$(curl -s "http://127.0.0.1:$pport/api/v1/query?query=tprof_samples_total" |
			sed -n 's/.*"value":\[[0-9.]*,"\([0-9]*\)"\].*/\1/p')
		[ -n "$val" ] && break
		sleep 0.5
	done
	kill $prom; wait $prom 2> /dev/null
	save prom.log
	if [ "${val:-0}" -gt 1000 ]; then ok "agent: Prometheus scraped /metrics: its query API gives tprof_samples_total $val"
	else fail "agent: Prometheus (port ${pport:-none}): no tprof_samples_total from its query API"; tail -5 prom.log | sed 's/^/    /'; fi
fi

# The target's end: a window still open is answered with what it holds.
curl -s -o w4.pb.gz -w '%{http_code}' "$U/debug/pprof/profile?seconds=60" > code4.txt &
c4=$!
for _ in $(seq 100); do [ "$(metric tprof_windows_open)" = 1 ] && break; sleep 0.1; done
echo quit > cmd
wait $target
for _ in $(seq 150); do kill -0 $agent 2>/dev/null || break; sleep 0.2; done
if kill -0 $agent 2>/dev/null; then fail "agent: still running 30 s after its target exited"; kill $agent
else wait $agent; st=$?; wait $c4
	if [ $st = 0 ] && [ "$(cat code4.txt)" = 200 ] && "$SUM" w4.pb.gz > /dev/null 2>&1; then
		ok "agent: the target exited: the open window answered (200), the agent exited 0"
	else fail "agent: at the target's end: agent status $st, window $(cat code4.txt)"; sed 's/^/    /' agent.err | tail; fi
fi

# --cgroup: a service's processes by their cgroup (a systemd unit's, a
# container's). The same target shell, moved into a cgroup of its own
# before the agent starts; a worker inside the window is in it within 1%
# of the kernel's accounting; SIGTERM ends the agent (a cgroup session has
# no end of its own) with 0.
CG=/sys/fs/cgroup
grep -q "^[^ ]* $CG cgroup2 " /proc/mounts || mount -t cgroup2 none $CG 2> /dev/null
D=$CG/tprof66
if ! mkdir -p $D 2> /dev/null; then
	skip "agent --cgroup: no cgroup v2 here"
	exit 0
fi
rm -f done.* work.*.txt
start_target
echo $target > $D/cgroup.procs
"$AG" --cgroup $D --listen 127.0.0.1:0 2> agent2.err &
agent=$!
agent_port agent2.err
U=http://127.0.0.1:$port
curl -s -o c1.pb.gz "$U/debug/pprof/profile?seconds=10" &
c1=$!
for _ in $(seq 100); do [ "$(metric tprof_windows_open)" = 1 ] && break; sleep 0.1; done
run_work 1 || fail "agent --cgroup: the worker did not finish"
wait $c1
read -r _ pidc _ < work.1.txt
cpuc=$(awk '$1 == "tree-a" { v = $2 } END { print v }' tree.log)
"$SUM" c1.pb.gz > c1.sum 2>&1
gotc=$(sumval c1.sum pid "$pidc")
save agent2.err c1.sum
if [ -n "$port" ] && within "$gotc" "$cpuc" 1; then
	ok "agent --cgroup $D: the worker (pid $pidc) in the window: $gotc ns, kernel $cpuc ns ($(diffpct "$gotc" "$cpuc"))"
else fail "agent --cgroup: worker $pidc: $gotc ns, kernel $cpuc ns (port ${port:-none})"; sed 's/^/    /' agent2.err | tail -5; fi
echo quit > cmd
wait $target
kill -TERM $agent
for _ in $(seq 150); do kill -0 $agent 2>/dev/null || break; sleep 0.2; done
if kill -0 $agent 2>/dev/null; then fail "agent --cgroup: still running 30 s after SIGTERM"; kill -9 $agent
else wait $agent; st=$?
	if [ $st = 0 ]; then ok "agent --cgroup: SIGTERM ends it with 0"
	else fail "agent --cgroup: exit $st at SIGTERM"; sed 's/^/    /' agent2.err | tail; fi
fi
rmdir $D 2> /dev/null
