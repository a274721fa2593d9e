#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 2400
# Benchmark 9 (issue 22, items 3 and 3b): what one user's session may cost
# the machine.
# (a) exp=budget: the worst request an unprivileged user can make on 8
#     vCPUs: `bench-work spin 8 30 UNITS` under tprof-read run as uid 65534
#     (/dev/tprof opened to all for it), --period 100us (the floor),
#     --max-frames 512, --call-graph dwarf=65528, with STATS path timing
#     (BENCH_PATH_TIMING=1), once with sample_cpu_percent=0 (case=free: no
#     bound) and once with 25 (case=bound: the default), between
#     unprofiled runs. Each line carries STATS (rawstats) and, from
#     tprof-read's --report, throttles (THROTTLE records) and stretch (the
#     periods' final factor).
# (b) exp=tables: an UNPROFILED ping-pong (two threads, pinned to CPU 0)
#     while root's tprof-read follows an unrelated idle process tree in
#     launch mode (CHILDREN): table=fresh (`bench-work forks 0`: the target
#     alone) or table=forked (`bench-work forks 10000`: the table after
#     10,000 short-lived children), or no session (table=none, bracketing).
#     Each state has a timed run (run=time) and a run that counts the
#     module's process-table lookups (run=count: a kprobe event on
#     tprof:tprof_procs_find and sched:sched_switch, hist triggers, all
#     CPUs: lk, sw; CPU 0: lk0, sw0); the kprobe's own cost stays out of
#     the timed runs. With BENCH_BASE, every state is repeated with the
#     baseline module (mod=base).
. "$(dirname "$0")/lib.sh"
par=/sys/module/tprof/parameters
bad=0

# ---------------------------------------------------------------- (a)
units=$(calibrate_units) || { fail "trust: calibration"; exit 0; }
units=$(( units / 4 + 1 ))	# 8 threads on one host thread, as 10-spin.sh
reps=$BENCH_REPS
mode=$(stat -c %a /dev/tprof)
pct0=$(cat $par/sample_cpu_percent 2> /dev/null)
nobody=/tmp/bench-tr-nobody
cleanup() {
	chmod "$mode" /dev/tprof
	[ -n "$pct0" ] && [ -w $par/sample_cpu_percent ] && echo "$pct0" > $par/sample_cpu_percent
	rm -f "$nobody"
}
trap cleanup EXIT
# tprof-read as uid 65534, started by measure() as root: the run's scratch
# folder and result file (measure's BENCH_RESULT) made writable first
cat > "$nobody" <<EOF
#!/bin/bash
chmod 0777 "\${BENCH_RESULT%/*}" && touch "\$BENCH_RESULT" && chmod 0666 "\$BENCH_RESULT"
exec setpriv --reuid=65534 --regid=65534 --clear-groups "$TR" "\$@"
EOF
chmod 0755 "$nobody"
chmod 0666 /dev/tprof
# the last --report of logs/tprof.log: "throttled: the module throttled
# sampling N time(s): ... stretched Mx; ..." as throttles=N stretch=M
throttle_kv() {
	awk '/^== /{ t = 0; s = 1 } /^throttled: /{
		if (match($0, /sampling [0-9]+ time/)) t = substr($0, RSTART + 9, RLENGTH - 14)
		if (match($0, /stretched [0-9]+x/)) s = substr($0, RSTART + 10, RLENGTH - 11) }
		END { printf "throttles=%d stretch=%d\n", t, s }' "$BENCH_OUT/logs/tprof.log"
}
if [ ! -w $par/sample_cpu_percent ]; then
	skip "trust: budget: no module parameter sample_cpu_percent"
else
	echo "# trust: budget: $units units per thread, 8 threads, $reps reps"
	for rep in $(seq "$reps"); do
		tags="exp=budget threads=8 depth=30 rep=$rep"
		measure "$tags case=none" none 0 -- "$BW" spin 8 30 "$units" || bad=$((bad + 1))
		for c in free:0 bound:25; do
			echo "${c#*:}" > $par/sample_cpu_percent
			BENCH_PATH_TIMING=1 TR=$nobody measure "$tags case=${c%:*} pct=${c#*:}" \
				tprof 10000 --period 100us --max-frames 512 --call-graph dwarf=65528 \
				--save-raw @D@/raw -- "$BW" spin 8 30 "$units" || bad=$((bad + 1))
			kvs=$(throttle_kv)
			sed -i "\$s/\$/ $kvs/" "$BENCH_OUT/results.txt"
			echo "# $kvs"
			measure "$tags case=none" none 0 -- "$BW" spin 8 30 "$units" || bad=$((bad + 1))
		done
	done
	echo "${pct0:-0}" > $par/sample_cpu_percent
fi

# ---------------------------------------------------------------- (b)
rounds=20000
[ "$BENCH_QUICK" = 1 ] && rounds=10000
nforks=10000
KP=$T/kprobe_events
lk_hist="hist:keys=$cpuk:vals=hitcount:size=256"
# Two kprobe events on the loaded module's text: its entry (lookups) and
# the head of its probe loop (slots visited), the target of the function's
# first jmp (the loop's entry), found in the .ko's disassembly: the same
# offset from the symbol in memory. Without objdump, lookups only.
loop_off() {	# loop_off KO: "+0x48" or nothing
	command -v objdump > /dev/null || return 0
	objdump -d --no-show-raw-insn "$1" 2> /dev/null | awk '
	/<tprof_procs_find>:$/ { p = 1; next }
	p && /^$/ { exit }
	p && /\tjmp / && match($0, /<tprof_procs_find\+0x[0-9a-f]+>/) {
		print "+" substr($0, RSTART + 18, RLENGTH - 19); exit }'
}
LK_OK=0
if [ -w "$KP" ] && grep -q ' tprof_procs_find[[:space:]]*\[tprof\]' /proc/kallsyms &&
	echo 'p:kprobes/tprof_lookup tprof:tprof_procs_find' >> "$KP" 2> /dev/null; then
	echo '-:kprobes/tprof_lookup' >> "$KP"
	LK_OK=1
else
	echo "# trust: kallsyms: $(grep tprof_procs_find /proc/kallsyms | head -n 3 | xargs)"
	skip "trust: tables: no kprobe event on tprof:tprof_procs_find: lookups not counted"
fi
lk_start() {	# lk_start KO
	# set up for each run (the module is swapped between runs), removed after
	local off
	off=$(loop_off "$1")
	echo 'p:kprobes/tprof_lookup tprof:tprof_procs_find' >> "$KP" &&
		echo "$lk_hist" > "$T/events/kprobes/tprof_lookup/trigger" &&
		echo "$lk_hist" > "$ev_switch" || return 1
	[ -n "$off" ] && echo "p:kprobes/tprof_slot tprof:tprof_procs_find$off" >> "$KP" &&
		echo "$lk_hist" > "$T/events/kprobes/tprof_slot/trigger"
	echo "# trust: kprobes: tprof_procs_find, loop head ${off:-(none)}"
	return 0
}
lk_stop() {	# the counts, as key=value
	local d e
	d=$(mktemp -d /tmp/lk.XXXXXX)
	cp "${ev_switch%trigger}hist" "$d/sw"
	echo "!$lk_hist" > "$ev_switch"
	for e in lookup slot; do
		[ -e "$T/events/kprobes/tprof_$e" ] || continue
		cp "$T/events/kprobes/tprof_$e/hist" "$d/$e"
		echo "!$lk_hist" > "$T/events/kprobes/tprof_$e/trigger"
		echo "-:kprobes/tprof_$e" >> "$KP"
	done
	cat "$d"/* >> "$BENCH_OUT/logs/lookups-hist.log"
	[ -e "$d/slot" ] || : > "$d/slot"
	awk 'function field(k,   m) {
		if (match($0, k ": *[^ ,}]+")) {
			m = substr($0, RSTART, RLENGTH); sub(/^[^:]*: */, "", m); return m
		}
		return ""
	}
	FNR == 1 { f = FILENAME; sub(/.*\//, "", f) }
	/^\{/ {
		cpu = field("(common_)?cpu"); n = field("hitcount") + 0
		c[f] += n; if (cpu == 0) c0[f] += n
	}
	END { printf "lk=%d lk0=%d sl=%s sl0=%s sw=%d sw0=%d\n", c["lookup"], c0["lookup"],
		have ? c["slot"] + 0 : "-", have ? c0["slot"] + 0 : "-", c["sw"], c0["sw"] }
	' have="$([ -s "$d/slot" ] && echo 1)" "$d/lookup" "$d/slot" "$d/sw"
	rm -rf "$d"
}
pp() {	# pp TAGS: the ping-pong, timed; with run=count, its lookups counted
	local rc c
	if [[ $1 == *run=count* ]]; then
		[ "$LK_OK" = 1 ] || return 0
		lk_start "$(cat /tmp/bench-ko 2> /dev/null || echo "$TPROF_KO")" ||
			{ echo "# trust: cannot set the kprobe events"; return 1; }
		BENCH_PIN=0 measure "$1" none 0 -- "$BW" pingpong thread "$rounds"
		rc=$?
		c=$(lk_stop)
		sed -i "\$s/\$/ $c/" "$BENCH_OUT/results.txt"
		echo "# lookups: $c"
		return $rc
	fi
	BENCH_PIN=0 measure "$1" none 0 -- "$BW" pingpong thread "$rounds"
}
# session N: root's tprof-read follows `bench-work forks N` (launch mode:
# CHILDREN), on CPU 0 with the ping-pong (lib.sh, bg_start); until the
# children are forked and gone. ready: "forked=N forks_wall_ns=..."
ready=/tmp/bench-forks.ready
session() {
	rm -f "$ready"
	bg_start tprof 0 "$BW" forks "$1" "$ready" 3000
	for _ in $(seq 1800); do
		[ -s "$ready" ] && break
		kill -0 "$bg_pid" 2> /dev/null || break
		sleep 1
	done
	[ -s "$ready" ] || { echo "# trust: session $1: not ready"; return 1; }
	echo "# trust: session: $(cat "$ready")"
	# the last children's slots retired (stop work, a grace period)
	sleep 2
}
# 10,000 forks take minutes of emulation: one session of each kind per
# module, its runs (REPS timed, REPS counted) bracketed by the runs with
# no session before and after it
for mod in $(bench_mods); do
	bench_use "$mod" || { bad=$((bad + 1)); continue; }
	tags="exp=tables rounds=$rounds"
	for rep in $(seq "$reps"); do
		pp "$tags rep=$rep table=none run=time" || bad=$((bad + 1))
		pp "$tags rep=$rep table=none run=count" || bad=$((bad + 1))
	done
	for n in 0 "$nforks"; do
		t=fresh
		[ "$n" = 0 ] || t=forked
		if session "$n"; then
			for rep in $(seq "$reps"); do
				pp "$tags rep=$rep table=$t $(cat "$ready") run=time" || bad=$((bad + 1))
				pp "$tags rep=$rep table=$t $(cat "$ready") run=count" || bad=$((bad + 1))
			done
		else
			bad=$((bad + 1))
		fi
		bg_stop
		pp "$tags rep=$reps table=none run=time" || bad=$((bad + 1))
	done
done
rm -f "$ready"
bench_use head
[ $bad = 0 ] && ok "trust: every run completed" || fail "trust: $bad runs failed"
exit 0
