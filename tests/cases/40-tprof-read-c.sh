#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 300
# tprof-read on the -O2 -g C test program: launch and attach modes, the hot
# inlined function on top, inline chain, per-thread split, totals agree with
# protoc, exit status, errors, a < 50 ms launch with a late dlopen, SIGINT.
. "$TPROF_ROOT/tests/cases/lib.sh"

B=$TPROF_BUILD
TR=$B/tprof-read
PROG=$B/progs/inlines
LIB=$B/progs/libhot.so
PROTO=/usr/share/gocode/src/github.com/google/pprof/proto
export HOME=$PWD	# go tool pprof may want a writable home

[ -x "$TR" ] && [ -x "$PROG" ] || { skip "tprof-read: build/tprof-read or progs missing (make userspace)"; exit 0; }
have_go=0; command -v go >/dev/null && have_go=1

# top_fn FILE: name of the first row of `go tool pprof -top` (flat order)
top_fn() { go tool pprof -top -symbolize=none "$1" 2>/dev/null | awk '/flat%/{getline; print $NF == "(inline)" ? $(NF-1) : $NF; exit}'; }

# ---- launch mode ----
if "$TR" --report -o launch.pb.gz -- "$PROG" -t 3 -s 0.4 > prog.out 2> report.txt; then
	ok "launch: tprof-read -- inlines -t 3 exits 0"
else
	fail "launch: tprof-read -- inlines -t 3 exits 0 (status $?)"
	sed 's/^/    /' report.txt | head -20
fi
save launch.pb.gz report.txt
if [ "$(grep -c 'inlines' report.txt)" -ge 4 ]; then
	ok "launch: --report lists the 4 threads"
else
	fail "launch: --report lists the 4 threads"; sed 's/^/    /' report.txt
fi
if [ $have_go = 1 ]; then
	t=$(top_fn launch.pb.gz)
	if [ "$t" = hot_leaf ]; then ok "launch: hot_leaf (inlined) is on top of go tool pprof -top"
	else fail "launch: hot_leaf on top (got '$t')"; go tool pprof -top launch.pb.gz 2>&1 | head -20 | sed 's/^/    /'; fi
	if go tool pprof -traces launch.pb.gz 2>/dev/null | grep -A3 'hot_leaf' | grep -q 'hot_mid'; then
		ok "launch: inline chain hot_leaf <- hot_mid <- hot_outer in -traces"
	else fail "launch: inline chain in -traces"; fi
	tids=$(go tool pprof -raw launch.pb.gz 2>/dev/null | grep -o 'tid:\[[0-9]*\]' | sort -u)
	n=$(echo "$tids" | grep -c tid)
	if [ "$n" -ge 4 ]; then ok "launch: samples from $n threads"; else fail "launch: samples from >= 4 threads (got $n)"; fi
	tid=$(echo "$tids" | tail -n1 | tr -dc 0-9)
	one=$(go tool pprof -top -tagfocus=tid="$tid" launch.pb.gz 2>/dev/null | sed -n 's/.*accounting for \([^,]*\),.*of \(.*\) total.*/\1 \2/p')
	if [ -n "$one" ] && [ "${one% *}" != "${one#* }" ]; then
		ok "launch: -tagfocus=tid=$tid selects one thread ($one)"
	else fail "launch: -tagfocus=tid=$tid selects one thread ($one)"; fi
	if go tool pprof -proto launch.pb.gz > re.pb.gz 2>/dev/null && [ -s re.pb.gz ]; then
		ok "launch: go tool pprof parses and re-encodes the profile"
	else fail "launch: go tool pprof -proto"; fi
else
	skip "launch: go tool pprof checks: go not installed"
fi
if command -v protoc >/dev/null && [ -f $PROTO/profile.proto ]; then
	total=$(zcat launch.pb.gz | protoc -I$PROTO --decode=perftools.profiles.Profile profile.proto |
		awk '/^sample \{/{s=1;n=0} s&&/^  value:/{n++; if(n==1) t+=$2} /^}/{s=0} END{printf "%.0f", t}')
	# the workload burns 4 threads x 0.4 s of CPU by its own clock (the
	# upper end is left open: emulated CPU clocks jump)
	if [ "$total" -ge 1000000000 ]; then
		ok "launch: protoc total $total ns >= 4 x 0.4 s of CPU"
	else fail "launch: protoc total $total ns >= 4 x 0.4 s of CPU"; fi
	if [ $have_go = 1 ]; then
		gt=$(go tool pprof -top -unit=ns launch.pb.gz 2>/dev/null | sed -n 's/.*Total samples = \([0-9]*\)ns.*/\1/p')
		if [ "$gt" = "$total" ]; then ok "launch: protoc and go tool pprof agree on the total ($gt ns)"
		else fail "launch: protoc total $total ns, go tool pprof $gt ns"; fi
	fi
else
	skip "launch: protoc totals: protoc not installed"
fi

# ---- exit status, errors ----
"$TR" -o st.pb.gz -- sh -c 'exit 3' 2>/dev/null
st=$?
if [ $st = 3 ]; then ok "launch: exits with the command's status (3)"; else fail "launch: exits with the command's status (got $st)"; fi
# profile on stdout: the command's own stdout goes to stderr instead
if "$TR" -- sh -c 'echo hello-from-cmd' > stdout.pb.gz 2> stdout.err &&
	gzip -t stdout.pb.gz && grep -q hello-from-cmd stdout.err; then
	ok "launch: profile on stdout stays clean, command output on stderr"
else fail "launch: profile on stdout"; sed 's/^/    /' stdout.err | head -5; fi
out=$("$TR" -o nf.pb.gz -- /nonexistent/cmd 2>&1); st=$?
if [ $st = 127 ] && echo "$out" | grep -q 'tprof-read: /nonexistent/cmd: command not found' && [ ! -e nf.pb.gz ]; then
	ok "launch: command not found -> 127, one-line error, no output"
else fail "launch: command not found ($st: $out)"; fi
out=$("$TR" -p 999999 -o np.pb.gz 2>&1); st=$?
if [ $st != 0 ] && echo "$out" | grep -q 'no such process' && [ ! -e np.pb.gz ]; then
	ok "attach: no such pid -> one-line error"
else fail "attach: no such pid ($st: $out)"; fi

# ---- short launch with a late dlopen: everything symbolized ----
if "$TR" -F 10000 -o short.pb.gz --save-raw short.raw -- "$PROG" -s 0.01 -l "$LIB" > /dev/null 2>short.err; then
	ok "short launch with late dlopen exits 0"
else fail "short launch with late dlopen"; sed 's/^/    /' short.err; fi
save short.pb.gz short.raw
if [ $have_go = 1 ]; then
	if go tool pprof -top -symbolize=none short.pb.gz 2>/dev/null | grep -q 'lib_spin'; then
		ok "short launch: dlopen'ed lib_spin symbolized"
	else fail "short launch: dlopen'ed lib_spin symbolized"; go tool pprof -top -symbolize=none short.pb.gz 2>&1 | head -20 | sed 's/^/    /'; fi
	unsym=$(go tool pprof -raw -symbolize=none short.pb.gz 2>/dev/null | sed -n '/^Locations/,/^Mappings/p' | grep -cE '^ +[0-9]+: 0x[0-9a-f]+( M=[0-9]+)? *$')
	if [ "$unsym" = 0 ]; then ok "short launch: every location symbolized"
	else fail "short launch: $unsym unsymbolized locations"; go tool pprof -raw -symbolize=none short.pb.gz 2>&1 | sed -n '/^Locations/,$p' | head -40 | sed 's/^/    /'; fi
fi

# ---- attach mode + SIGINT ----
# (budgets are large and the target is killed: under TCG the guest's CPU
# clocks can jump by seconds, so CPU-time budgets end unpredictably early)
"$PROG" -t 1 -s 1000 > /dev/null &
pid=$!
sleep 0.2
"$TR" -v -p $pid -o attach.pb.gz --report 2> attach.txt &
tr=$!
attached attach.txt $pid
sleep 1.5
# (a background job of a script starts with SIGINT ignored until tprof-read
# installs its handler, so send SIGTERM, the same path; retry, never hang)
for _ in $(seq 40); do kill -TERM $tr 2>/dev/null || break; sleep 0.5; kill -0 $tr 2>/dev/null || break; done
kill -KILL $tr 2>/dev/null
wait $tr; st=$?
kill $pid 2>/dev/null; wait $pid 2>/dev/null
save attach.pb.gz attach.txt
if [ $st = 0 ] && [ -s attach.pb.gz ]; then ok "attach: SIGTERM stops, drains and writes the profile"
else fail "attach: SIGTERM ($st)"; sed 's/^/    /' attach.txt | head; fi
if [ $have_go = 1 ]; then
	t=$(top_fn attach.pb.gz)
	if [ "$t" = hot_leaf ]; then ok "attach: hot_leaf on top"; else fail "attach: hot_leaf on top (got '$t')"; fi
fi

# ---- kernel stacks, symbolized from /proc/kallsyms ----
if "$TR" --kernel-stacks -o kern.pb.gz -- dd if=/dev/zero of=/dev/null bs=1 count=300000 2>kern.err; then
	ok "kernel stacks: --kernel-stacks launch exits 0"
else fail "kernel stacks: launch"; sed 's/^/    /' kern.err | head; fi
if [ $have_go = 1 ]; then
	raw=$(go tool pprof -raw -symbolize=none kern.pb.gz 2>/dev/null)
	kmap=$(echo "$raw" | sed -n 's/^\([0-9]*\): 0xffff800000000000.*\[kernel\].*/\1/p')
	if [ -n "$kmap" ] && echo "$raw" | grep -qE "^ +[0-9]+: 0xffff[0-9a-f]+ M=$kmap [a-z_]"; then
		ok "kernel stacks: [kernel] mapping with kallsyms names ($(echo "$raw" | grep -oE "M=$kmap [a-z_0-9]+" | head -1))"
	else fail "kernel stacks: [kernel] mapping with kallsyms names"; echo "$raw" | sed -n '/^Mappings/,$p' | sed 's/^/    /'; fi
fi

# ---- per-thread period ----
"$PROG" -t 1 -s 1000 > /dev/null &
pid=$!
sleep 0.3
wtid=$(ls /proc/$pid/task | grep -vx "$pid" | head -n1)
if [ -n "$wtid" ] && "$TR" -p $pid -d 0.5 --thread-period "$wtid=250us" -o tp.pb.gz 2>tp.err; then
	ok "--thread-period $wtid=250us accepted"
	if [ $have_go = 1 ]; then
		if go tool pprof -raw tp.pb.gz 2>/dev/null | grep -A1 'period:\[250000 nanoseconds\]' | grep -q "tid:\[$wtid\]"; then
			ok "--thread-period: tid $wtid sampled with period 250us"
		else fail "--thread-period: tid $wtid sampled with period 250us"; go tool pprof -raw tp.pb.gz 2>&1 | grep -B1 -A1 'period:' | head -12 | sed 's/^/    /'; fi
	fi
else fail "--thread-period ($wtid)"; sed 's/^/    /' tp.err | head; fi
kill $pid 2>/dev/null; wait $pid 2>/dev/null

# ---- exec: the profile follows into the new program ----
if "$TR" -o exec.pb.gz -- sh -c 'exec "$0" -s 0.3' "$PROG" > /dev/null 2>exec.err && [ $have_go = 1 ]; then
	file=$(go tool pprof -top exec.pb.gz 2>/dev/null | sed -n 's/^File: //p')
	if [ "$file" = inlines ] && go tool pprof -top -symbolize=none exec.pb.gz 2>/dev/null | grep -q ' hot_leaf'; then
		ok "exec: profile follows sh -> exec inlines (File: inlines, hot_leaf symbolized)"
	else fail "exec: File: $file"; go tool pprof -top exec.pb.gz 2>&1 | head -14 | sed 's/^/    /'; fi
elif [ $have_go = 1 ]; then fail "exec: launch of sh -c exec"; sed 's/^/    /' exec.err | head; fi

# ---- attach: ends by itself when the target exits ----
"$PROG" -s 1000 > /dev/null &
pid=$!
sleep 0.2
SECONDS=0
"$TR" -v -p $pid -d 60 -o exit.pb.gz 2>exit.err &
tr=$!
attached exit.err $pid
kill $pid
wait $tr; st=$?
wait $pid 2>/dev/null
if [ $st = 0 ] && [ $SECONDS -lt 30 ] && gzip -t exit.pb.gz; then ok "attach: ends when the target exits (${SECONDS}s)"
else fail "attach: ends when the target exits ($st after ${SECONDS}s)"; sed 's/^/    /' exit.err | head; fi
# ---- arm64: tprof-agent starts, serves /metrics and one 2 s window ----
# 66-agent.sh (2 min on x86-64) proves the agent's windows exact there; on
# arm64 (its cross build, libmicrohttpd:arm64) this shows it works at all:
# a spinning shell followed, /metrics counting its samples, a 2 s window
# whose CPU for it is no more than the kernel's count over a span around
# the request (/proc/PID/stat, 10 ms ticks) and at least a quarter of
# the window. The guest's arm64 root has no curl: HTTP/1.0 through bash's
# /dev/tcp (python3's urllib took 5-7 s to start under TCG).
AG=$B/tprof-agent
if [ "$(uname -m)" = aarch64 ] && [ -x "$AG" ]; then
	ip link set lo up 2>/dev/null || busybox ifconfig lo 127.0.0.1 up
	# get PATH: the body on stdout, the status line in http.status; bash
	# reads a socket byte by byte, so cat gets the body whole
	get() {
		local line
		exec 3<>"/dev/tcp/127.0.0.1/$port" || return
		printf 'GET %s HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n' "$1" >&3
		IFS= read -r line <&3
		printf '%s\n' "${line%$'\r'}" > http.status
		while IFS= read -r line <&3 && [ "$line" != $'\r' ]; do :; done
		cat <&3
		exec 3<&-
	}
	cpu_ns() { awk '{ printf "%.0f\n", ($14 + $15) * 10000000 }' "/proc/$1/stat"; }
	(exec bash -c 'while :; do :; done') &
	spin=$!
	"$AG" -p $spin --listen 127.0.0.1:0 2> agent.err &
	ag=$!
	agent_port agent.err
	n=$(get /metrics 2>&1 | awk '$1 == "tprof_samples_total" { print $2 }')
	if [ -n "$port" ] && [ "${n:-0}" -gt 0 ]; then
		ok "arm64 agent: tprof-agent -p $spin serves /metrics on port $port: tprof_samples_total $n"
	else
		fail "arm64 agent: /metrics on port '$port' counts samples (got '${n:-}', $(cat http.status 2>/dev/null))"
		sed 's/^/    /' agent.err | head
	fi
	c0=$(cpu_ns $spin)
	get "/debug/pprof/profile?seconds=2" > agent.pb.gz 2> agent.get
	c1=$(cpu_ns $spin)
	"$B/lab/pprofsum" agent.pb.gz > agent.sum 2>&1
	got=$(sumval agent.sum pid $spin)
	if grep -q ' 200 ' http.status && [ "${got:-0}" -gt 500000000 ] &&
		[ "$got" -le $((c1 - c0 + 20000000)) ]; then
		ok "arm64 agent: a 2 s window: the spinner's $got ns, the kernel's $((c1 - c0)) ns around the request"
	else
		fail "arm64 agent: a 2 s window ($(cat http.status)): the spinner's ${got:-none} ns, the kernel's $((c1 - c0)) ns around the request"
		sed 's/^/    /' agent.get agent.sum agent.err | head -n 20
	fi
	kill -TERM $ag
	wait $ag
	check "arm64 agent: SIGTERM ends it with 0" test $? = 0
	kill $spin
	wait $spin 2>/dev/null
fi
exit 0
