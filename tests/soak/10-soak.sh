#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 2400
# The agent's soak (issue 34, "Long-running"): tprof-agent --cgroup follows a
# cgroup with a churning mix for SOAK_SECONDS of guest time (1800 by
# default; 05-soak-short.sh: 150):
#  - a steady 4-thread C program (lab-work shares),
#  - a steady 4-thread Python program (tests/progs/py/threads.py),
#  - a shell loop starting about 20 short processes a second (tree-b),
#  - a short-lived python3 every 2 s (its code objects come and go);
# scraped with curl ?seconds=5 every 10 s. Checks:
#  - every scrape is a valid profile (lab/pprofsum parses it, google/pprof's
#    parser) with samples in it;
#  - the agent's RSS and open fds (/proc/PID/status, /proc/PID/fd) after the
#    last scrape within 10% of those after the fifth;
#  - no loss but counted loss: each profile's CPU plus the lost time
#    /metrics counted over it is at least the cgroup's own usage_usec delta
#    over the request, less what the answer's lateness can hold (the
#    request spans the window and the answer's wait) and 3%;
#  - the model's sizes (/metrics tprof_model_*) bounded: at the end within
#    a small multiple of the fifth scrape's, while processes started grew
#    by thousands.
# Writes soak.tsv (one row per scrape) into the case's out folder.
. "$TPROF_ROOT/tests/cases/lib.sh"

# All of it one function, read whole before it runs: bash reads a script
# as it goes, and the first 30-minute run's end was lost to an edit of
# this file while it ran.
soak_main() {

B=$TPROF_BUILD
AG=$B/tprof-agent
SUM=$B/lab/pprofsum
SECS=${SOAK_SECONDS:-1800}
[ -x "$AG" ] && [ -x "$B/progs/tree-b" ] && [ -x "$B/lab/lab-work" ] && [ -x "$SUM" ] ||
	{ skip "soak: tprof-agent, progs, lab-work or pprofsum missing"; exit 0; }
command -v curl > /dev/null || { skip "soak: no curl"; exit 0; }
command -v python3 > /dev/null || { skip "soak: no python3"; exit 0; }
ip link set lo up 2> /dev/null || busybox ifconfig lo 127.0.0.1 up

cg2_mount || { skip "soak: cannot mount cgroup2"; exit 0; }
D=$CG/tprofsoak
mkdir -p $D || { skip "soak: cannot make $D"; exit 0; }
# The mix may use 1.6 of the guest's 2 CPUs, no more: the agent (outside
# the cgroup) is measured, not starved (a saturated TCG guest answered a
# first 5 s window 19 s late).
echo +cpu > $CG/cgroup.subtree_control 2>/dev/null
if echo "160000 100000" > $D/cpu.max 2>/dev/null; then
	echo "# soak: the mix's cgroup capped at 1.6 CPUs (cpu.max)"
else
	echo "# soak: no cpu controller: the mix is not capped"
fi
pids=()
cleanup() {
	kill "${pids[@]}" 2>/dev/null
	[ -n "${agent:-}" ] && kill "$agent" 2>/dev/null
	sleep 1
	kill -9 "${pids[@]}" 2>/dev/null
	for p in $(cat $D/cgroup.procs 2>/dev/null); do kill -9 "$p" 2>/dev/null; done
	sleep 0.5
	wait 2>/dev/null
	rmdir $D 2>/dev/null
	[ $mounted = 1 ] && umount $CG
}
trap cleanup EXIT
start_in() {
	sh -c 'echo $$ > "$0/cgroup.procs" && exec "$@"' "$D" "$@" &
	pids+=($!)
}
usage_ns() { cg_usage_ns $D; }
now_ns() { date +%s%N; }

start_in env LAB_TRUTH=/dev/null "$B/lab/lab-work" shares 100000000000
start_in python3 "$TPROF_ROOT/tests/progs/py/threads.py" 100000
# ~20 short processes a second: 4 loops of one every 0.2 s (bash's own
# read -t waits, so that the loops start tree-b alone)
mkfifo tick.fifo
for _ in 1 2 3 4; do
	start_in bash -c "exec 3<> tick.fifo; while :; do $B/progs/tree-b work 1 > /dev/null & read -t 0.2 -u 3; wait -n 2>/dev/null; done"
done
start_in sh -c 'while :; do python3 -c "def f(n):
    return sum(i * i for i in range(n))
print(f(20000))" > /dev/null; sleep 2; done'

# SOAK_WRAP (set by a case that sources this one): a command the agent
# runs under, e.g. "heaptrack -o $TPROF_OUT/ht" for where its heap goes
${SOAK_WRAP:-} "$AG" --cgroup $D --listen 127.0.0.1:0 2> agent.err &
agent=$! wrap=
agent_port agent.err || { fail "soak: the agent gave no port"; sed 's/^/    /' agent.err; exit 0; }
[ -n "${SOAK_WRAP:-}" ] && { wrap=$agent; agent=$(pgrep -n -x tprof-agent); }
U=http://127.0.0.1:$port
ok "soak: tprof-agent --cgroup $D on $U, ${SECS}s of churn"
metrics() { curl -s "$U/metrics" > "$1"; }
mval() { awk -v m="$2" '$1 == m { print $2 }' "$1"; }
rss_kb() { awk '$1 == "VmRSS:" { print $2 }' /proc/$agent/status; }
# its parts: anonymous memory, and files mapped (binaries and their debug
# files are mapped whole: a page counts once first read)
rss_parts() { awk '$1 == "RssAnon:" { a = $2 } $1 == "RssFile:" { f = $2 } END { print a "/" f }' /proc/$agent/status; }
nfds() { ls /proc/$agent/fd | wc -l; }
# malloc's view (/metrics): allocated, and freed but held, kB
heap_parts() { awk '$1 == "tprof_heap_in_use_bytes" { u = $2 } $1 == "tprof_heap_free_bytes" { f = $2 } END { printf "%d/%d", u / 1024, f / 1024 }' "$1"; }
ncpu=$(nproc)

printf 'n\tguest_s\trc\tprofile_ns\tusage_ns\tlost_ns\tlate_ns\trss_kb\tanon/file_kb\theap_use/free_kb\tfds\tprocs\tthreads\tsnaps\tobjects\tpycodes\tcfi_rows\tstarted\n' > soak.tsv
n=0 bad=0 badloss=0 t_start=$SECONDS
metrics m.prev
while [ $((SECONDS - t_start)) -lt "$SECS" ]; do
	n=$((n + 1))
	u0=$(usage_ns); c0=$(now_ns)
	curl -s -o w.pb.gz -w '%{http_code}' "$U/debug/pprof/profile?seconds=5" > code.txt; rc=$?
	c1=$(now_ns); u1=$(usage_ns)
	metrics m.now
	code=$(cat code.txt)
	tot=0
	if [ $rc = 0 ] && [ "$code" = 200 ] && "$SUM" w.pb.gz > w.sum 2> w.err && grep -q '^total' w.sum; then
		tot=$(awk -F'\t' '$1 == "total" { print $(NF - 1) }' w.sum)
		[ "${tot:-0}" -gt 0 ] || { bad=$((bad + 1)); cp w.pb.gz "bad.$n.pb.gz"; save "bad.$n.pb.gz"; }
	else
		bad=$((bad + 1)); echo "scrape $n: curl $rc http $code: $(head -2 w.err 2>/dev/null)" >> bad.txt
	fi
	lost=$(awk -v a="$(mval m.now tprof_lost_seconds_total)" -v b="$(mval m.prev tprof_lost_seconds_total)" 'BEGIN { printf "%.0f", (a - b) * 1e9 }')
	# what lies outside [t0, t0+5s) in the request's span: its lateness, on every CPU
	late=$(( (c1 - c0 - 5000000000) * ncpu )); [ $late -lt 0 ] && late=0
	du=$((u1 - u0))
	if ! awk -v t="$tot" -v l="$lost" -v u="$du" -v k="$late" 'BEGIN { exit !(t + l >= (u - k) * 0.97) }'; then
		badloss=$((badloss + 1))
		echo "scrape $n: profile $tot + lost $lost < usage $du - late $k" >> bad.txt
	fi
	rss=$(rss_kb); fds=$(nfds)
	printf '%d\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' $n $((SECONDS - t_start)) "$rc/$code" "$tot" "$du" "$lost" "$late" "$rss" "$(rss_parts)" "$(heap_parts m.now)" "$fds" \
		"$(mval m.now tprof_model_processes)" "$(mval m.now tprof_model_threads)" "$(mval m.now tprof_model_maps_snapshots)" \
		"$(mval m.now tprof_model_objects)" "$(mval m.now tprof_model_python_code_objects)" "$(mval m.now tprof_unwind_cfi_rows)" "$(mval m.now tprof_processes_seen_total)" >> soak.tsv
	# progress on the console while it runs
	tail -n 1 soak.tsv | sed 's/^/# scrape /'
	[ $n = 5 ] && { rss5=$rss; fds5=$fds; cp m.now m.5; cp /proc/$agent/smaps smaps.5; ls -l /proc/$agent/fd > fds.5; ss -anpe -A all > ss.5 2>&1; }
	mv m.now m.prev
	# every 10 s: the next scrape starts 10 s after this one started
	left=$(( 10000 - (c1 - c0) / 1000000 )); [ $left -gt 0 ] && sleep "$(awk -v m=$left 'BEGIN { print m / 1000 }')"
done
rssN=$(rss_kb); fdsN=$(nfds)
cp m.prev metrics.txt
# where the memory is, by mapping, and what the fds are: at 5 and the end
cp /proc/$agent/smaps smaps.end; ls -l /proc/$agent/fd > fds.end; ss -anpe -A all > ss.end 2>&1
save soak.tsv agent.err metrics.txt bad.txt m.5 smaps.5 smaps.end fds.5 fds.end ss.5 ss.end
echo "# soak: $n scrapes, RSS ${rss5:-?} -> $rssN kB, fds ${fds5:-?} -> $fdsN"
column -t soak.tsv | sed -n '1p;2,7p;$p' | sed 's/^/# /'
if [ $bad = 0 ] && [ $n -ge 6 ]; then ok "soak: all $n scrapes of ?seconds=5 valid profiles with samples"
else fail "soak: $bad of $n scrapes not valid profiles"; sed 's/^/    /' bad.txt | head; fi
if [ -n "${rss5:-}" ] && within "$rssN" "$rss5" 10 && within "$fdsN" "$fds5" 10; then
	ok "soak: RSS $rss5 -> $rssN kB ($(diffpct "$rssN" "$rss5")), fds $fds5 -> $fdsN after scrapes 5 and $n"
else fail "soak: RSS ${rss5:-?} -> $rssN kB, fds ${fds5:-?} -> $fdsN after scrapes 5 and $n (10% allowed)"; fi
if [ $badloss = 0 ]; then ok "soak: every scrape's CPU plus its counted loss covers the cgroup's usage (less lateness, 3%)"
else fail "soak: $badloss scrapes lost CPU /metrics does not count"; grep 'profile' bad.txt | head | sed 's/^/    /'; fi
# model sizes: bounded, while the processes started grew
for m in tprof_model_processes tprof_model_threads tprof_model_maps_snapshots tprof_model_objects tprof_model_python_code_objects; do
	a=$(mval m.5 $m); z=$(mval metrics.txt $m)
	if [ -z "$a" ] || [ -z "$z" ]; then fail "soak: /metrics has no $m"
	elif [ "$z" -le $((a * 2 + 50)) ]; then ok "soak: $m bounded: $a after scrape 5, $z at the end"
	else fail "soak: $m grew: $a after scrape 5, $z at the end"; fi
done
kill -TERM $agent; wait ${wrap:-$agent}; rc=$?
[ $rc = 0 ] && ok "soak: the agent ends with 0 on SIGTERM" || fail "soak: the agent ended with $rc"
agent=
}
soak_main
exit 0
