#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 400
# mode: icount 1 cpus 1
# Who made each thread wait, with the waker's stack (issue 35; the module's
# TPROF_F_WAKER_STACKS, tprof-read --mode wakers). Truth is the programs'
# own (tests/progs/wakers.c, tests/progs/py/gil.py): their tids, their
# functions, their own wait times. An exact guest (icount, one vCPU): a
# wait's truth is the guest's own clocks, which host load cannot stretch
# (under plain TCG a 5 ms timed wait once lasted 207 ms, a timer's).
# The module's side of it is 71-waker-stacks.sh's.
#  - mutex: a waiter blocked on a pthread_mutex that two holders release
#    in turn from release_a() and release_b(), holding it 10 and 20 ms:
#    the wakers profile's wait time under each release function within 2%
#    of the program's own per-holder sums, and >= 95% of it labelled with
#    that holder's tid;
#  - pipe: --format folded:wakers: >= 95% of the consumer's time asleep in
#    consumer_read() has producer_write() in its waker's stack;
#  - trust: an unprivileged session whose reader a root process wakes
#    (a FIFO): no waker stack, tid or comm of it in the profile;
#  - GIL: Debian's python3, thread A in hog(), thread B napping 1 ms and
#    waiting for the GIL (take_gil(), 5 ms timed waits until A drops it)
#    after each nap: >= 90% of B's GIL waits have A's Python function in
#    the waker's stack (the timeouts chain into the wait A ends).
. "$TPROF_ROOT/tests/cases/lib.sh"

B=$TPROF_BUILD
TR=$B/tprof-read
SUM=$B/lab/pprofsum
P=$B/progs/wakers

[ -x "$TR" ] && [ -x "$P" ] && [ -x "$SUM" ] ||
	{ skip "waker stacks: tprof-read, progs/wakers or pprofsum missing"; exit 0; }
mode=$(stat -c %a /dev/tprof)
writer=
cleanup() {
	chmod "$mode" /dev/tprof
	[ -n "$writer" ] && kill "$writer" 2>/dev/null
}
trap cleanup EXIT
as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
np=300 nm=60 nf=200
[ "${CASE_SHORT:-0}" = 1 ] && np=150 nm=30 nf=100
share() { awk -v a="$1" -v b="$2" -v p="$3" 'BEGIN { exit !(b > 0 && a >= b * p / 100) }'; }

# wrun NAME OUT [RUNNER...] -- CMD...: tprof-read --mode wakers into OUT,
# the command's output into NAME.txt
wrun() {
	local name=$1 out=$2 st
	shift 2
	local pre=()
	while [ "$1" != -- ]; do pre+=("$1"); shift; done
	shift
	# 2 MiB rings for root (a burst of waits); a user's lock limit is less
	local ring=(--ring-bytes 2M)
	[ "${pre[0]:-}" = as_nobody ] && ring=()
	"${pre[@]}" "$TR" --mode wakers --off-cpu-period 100us "${ring[@]}" \
		-o "$PWD/$out" "$@" > "$name.txt" 2> "$name.err"
	st=$?
	save "$out" "$name.err" "$name.txt"
	if [ $st = 0 ] && [ -s "$out" ]; then
		ok "$name: tprof-read --mode wakers exits 0"
		return 0
	fi
	fail "$name: tprof-read --mode wakers exits 0 (status $st)"
	sed 's/^/    /' "$name.err" | tail -20
	return 1
}

# folded FILE WAITER WAKER [WAITER2]: of folded:wakers lines (waiter
# frames, "--", waker frames, ns), the ns whose waiter part has a frame
# matching the regular expression WAITER (and WAITER2): "ALL GOT", GOT
# those whose waker part has a frame matching WAKER too
folded() {
	awk -v a="$2" -v b="$3" -v a2="${4:-.}" '
	function has(part, re,   n, f, i) {
		n = split(part, f, ";")
		for (i = 1; i <= n; i++) if (f[i] ~ re) return 1
		return 0
	} {
		ns = $NF; st = substr($0, 1, length($0) - length(ns) - 1)
		i = index(st, ";--;"); if (!i) next
		w = substr(st, 1, i - 1); k = substr(st, i + 4)
		if (has(w, a) && has(w, a2)) { all += ns; if (has(k, b)) got += ns }
	} END { printf "%.0f %.0f\n", all, got }' "$1"
}
# the whole name of a function as a frame (C, or Python's with its file)
fn() { echo "^$1( |[(]|$)"; }

# ---- mutex: two holders release, each from its own function ----
if wrun mutex mutex.pb.gz -- -- "$P" mutex $nm 10000 20000; then
	wtid=$(sed -n 's/^waiter \([0-9]*\).*/\1/p' mutex.txt)
	"$SUM" -sample_index wait -tag "tid=$wtid" -label waker_tid \
		-func release_a,release_b mutex.pb.gz > mutex.sum 2>&1
	save mutex.sum
	h=0
	while read -r _ htid hwait _ hcount; do
		fn=release_a; [ $h = 1 ] && fn=release_b
		got=$(sumval mutex.sum func "$fn")
		named=$(sumval mutex.sum labelfunc "$htid" "$fn")
		if within "$got" "$hwait" 2 && share "$named" "$got" 95; then
			ok "mutex: waits released in $fn(): tprof $got ns, the program's $hwait ns over $hcount ($(diffpct "$got" "$hwait")); $named ns of it labelled holder $htid"
		else
			fail "mutex: waits released in $fn(): tprof $got ns, the program's $hwait ns over $hcount ($(diffpct "$got" "$hwait")); $named ns of it labelled holder $htid"
			grep -E '^(func|labelfunc|total)' mutex.sum | sed 's/^/    /'
		fi
		h=$((h + 1))
	done < <(grep '^holder ' mutex.txt)
fi

# ---- pipe: the producer's write ends the consumer's read ----
if wrun pipe pipe.folded -- --format folded:wakers -- "$P" pipe $np 2000; then
	read -r _ prod cons wait slept n < <(grep '^pipe ' pipe.txt)
	read -r all got < <(folded pipe.folded "$(fn consumer_read)" "$(fn producer_write)")
	if share "$got" "$slept" 95; then
		ok "pipe: $got ns of consumer $cons's reads ($slept ns asleep, $n reads; $all ns sampled under consumer_read) have producer_write() in the waker's stack ($(diffpct "$got" "$slept"))"
	else
		fail "pipe: $got ns of consumer $cons's reads ($slept ns asleep; $all ns sampled under consumer_read) have producer_write() in the waker's stack"
		sort -t' ' -k2 -nr pipe.folded | head -5 | cut -c1-300 | sed 's/^/    /'
	fi
	if grep -q ';--;' pipe.folded && ! grep -vqE '^[^ ].* [0-9]+$' pipe.folded; then
		ok "pipe: every folded:wakers line is 'WAITER;--;WAKER NS' ($(wc -l < pipe.folded) lines)"
	else
		fail "pipe: folded:wakers lines are 'WAITER;--;WAKER NS'"
		head -3 pipe.folded | cut -c1-300 | sed 's/^/    /'
	fi
fi

# ---- trust: root's writer wakes an unprivileged session's reader ----
chmod 0666 /dev/tprof
chmod 0777 "$PWD"
rm -f fifo
mkfifo -m 0666 fifo
"$P" fifo-write "$PWD/fifo" $nf 2000 > trust.w &
writer=$!
if wrun trust trust.pb.gz as_nobody -- -- "$P" fifo-read "$PWD/fifo" $nf; then
	wait "$writer"
	writer=
	read -r _ wtid < trust.w
	read -r _ rtid wait slept n < <(grep '^fiforead ' trust.txt)
	"$SUM" -sample_index wait -tag "tid=$rtid" -func '[other process]' \
		-label waker_comm trust.pb.gz > trust.sum 2>&1
	save trust.sum trust.w
	got=$(sumval trust.sum func '[other process]')
	if share "$got" "$slept" 95; then ok "trust: $got ns of reader $rtid's waits ($slept ns asleep) are '[other process]', with no stack ($(diffpct "$got" "$slept"))"
	else fail "trust: $got ns of reader $rtid's waits ($slept ns asleep) are '[other process]'"; grep -E '^(func|total)' trust.sum | sed 's/^/    /'; fi
	"$SUM" -functions trust.pb.gz > trust.funcs 2>&1
	leak=$(gzip -dc trust.pb.gz | grep -caE "rootwriter|run_fifo_write")
	if [ "$leak" = 0 ] && ! awk -F'\t' '$1 == "label" && $2 != "-" { f = 1 } END { exit !f }' trust.sum; then
		ok "trust: no comm and no function of root's writer $wtid in the profile"
	else
		fail "trust: root's writer $wtid shows in the unprivileged profile ($leak strings)"
		grep '^label' trust.sum | sed 's/^/    /'
	fi
fi
chmod "$mode" /dev/tprof

# ---- GIL: who holds it while B waits ----
# B's waits for the GIL: under nap() (its Python frame), in the condition
# variable's timed wait (take_gil() has no symbol in Debian's python3);
# 5 ms timeouts then A's drop_gil(), one chain: A's hog() in the waker's
# stack. B's sleeps (a timer's) are in clock_nanosleep, not counted.
if command -v python3 > /dev/null &&
	wrun gil gil.folded -- --format folded:wakers -- python3 "$TPROF_ROOT/tests/progs/py/gil.py" 3; then
	read -r all got < <(folded gil.folded "$(fn nap)" "$(fn hog)" cond_timedwait)
	if share "$got" "$all" 90; then
		ok "gil: $got of $all ns of B's GIL waits (nap(), a timed condition wait) have A's hog() in the waker's stack ($(diffpct "$got" "$all"))"
	else
		fail "gil: $got of $all ns of B's GIL waits (nap(), a timed condition wait) have A's hog() in the waker's stack"
		awk '/cond_timedwait/' gil.folded | sort -t' ' -k2 -nr | head -5 | cut -c1-400 | sed 's/^/    /'
	fi
fi
exit 0
