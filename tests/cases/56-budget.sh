#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 400
# What one unprivileged session may cost the machine (issue 22, item 3):
# a floor under its periods (module parameter unpriv_min_period_us, default
# 100 us) and a budget of each CPU's time for taking its samples
# (sample_cpu_percent, default 25), past which its periods are stretched
# (THROTTLE records, a tprof-read line) rather than the machine slowed.
# The worst request a group member can make: 8 spinning threads, the
# shortest period allowed, 512 frames, 64 KiB snapshots. The budget is the
# user's (issue 32): sessions re-opened every 150 ms sample no more than
# one session does.
. "$TPROF_ROOT/tests/cases/lib.sh"
tr=$TPROF_BUILD/tprof-read
work=$TPROF_BUILD/lab/lab-work
par=/sys/module/tprof/parameters
mode=$(stat -c %a /dev/tprof)
pct=$(cat $par/sample_cpu_percent 2>/dev/null)
chmod 0666 /dev/tprof
trap 'chmod "$mode" /dev/tprof; [ -n "$pct" ] && echo "$pct" > $par/sample_cpu_percent' EXIT
as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
chmod 0777 "$PWD"
units=${BUDGET_UNITS:-3000}

# ---- the floor ----
if [ "$(cat $par/unpriv_min_period_us 2>/dev/null)" = 100 ]; then
	ok "module parameter unpriv_min_period_us, default 100"
else
	fail "module parameter unpriv_min_period_us, default 100 (got '$(cat $par/unpriv_min_period_us 2>&1)')"
fi
if as_nobody "$tr" --period 50us -o "$PWD/floor.pb.gz" -- "$work" shares 20 \
	2> floor.err; then
	fail "an unprivileged --period 50us is refused"
elif grep -qE '^tprof-read: .*below 100 us' floor.err && [ ! -e floor.pb.gz ]; then
	ok "an unprivileged --period 50us is refused, in one line: $(grep below floor.err)"
else
	fail "an unprivileged --period 50us is refused with a line naming the floor"
	sed 's/^/    /' floor.err
fi
if "$tr" --period 50us -o "$PWD/root.pb.gz" -- "$work" shares 20 2> root.err &&
	[ -s root.pb.gz ]; then
	ok "root may ask for 50us"
else
	fail "root may ask for 50us"
	sed 's/^/    /' root.err
fi

# ---- the budget ----
# One run: every thread's sampled weight against its exact on-CPU time
# (--report's ERROR%), and whether tprof-read said it was throttled.
worst() {
	as_nobody "$tr" --report --period 100us --max-frames 512 \
		--call-graph dwarf=65528 -o "$PWD/$1.pb.gz" -- \
		"$work" serial-parallel 8 "$units" > /dev/null 2> "$1.err"
}
# Thread rows of --report where |SAMPLED + LOST - EXACT| is more than one PERIOD
# (the module's invariant: a thread's weights are within one period of its
# on-CPU time, stretched or not), and how many rows there were.
off_by_more() {
	awk 'function ns(v) {
		if (v ~ /ms$/) return substr(v, 1, length(v) - 2) * 1e6
		if (v ~ /us$/) return substr(v, 1, length(v) - 2) * 1e3
		if (v ~ /ns$/) return substr(v, 1, length(v) - 2)
		if (v ~ /s$/) return substr(v, 1, length(v) - 1) * 1e9
		return -1 }
	$1 ~ /^[0-9]+$/ && $7 ~ /^[+-][0-9.]+$/ {
		# ERROR% counts the weight of lost samples too (ring full)
		n++; d = $7 * ns($6) / 100; if (d < 0) d = -d
		if (d > ns($3)) bad++ }
	END { printf "%d %d\n", bad, n }' "$1"
}

echo 0 > $par/sample_cpu_percent
if worst free && [ -s free.pb.gz ] && ! grep -q throttled free.err; then
	ok "no bound (sample_cpu_percent=0): not throttled"
else
	fail "no bound (sample_cpu_percent=0): not throttled"
	sed 's/^/    /' free.err
fi
echo 2 > $par/sample_cpu_percent
if worst bound && [ -s bound.pb.gz ]; then
	ok "bounded (sample_cpu_percent=2): the profile is written"
else
	fail "bounded (sample_cpu_percent=2): the profile is written"
	sed 's/^/    /' bound.err
fi
if [ "$(grep -c '^tprof-read: warning: the module throttled sampling' bound.err)" = 1 ] &&
	grep -q '^throttled: ' bound.err; then
	ok "bounded: one line says the module throttled it, and --report shows it: $(grep '^throttled' bound.err)"
else
	fail "bounded: one line says the module throttled it, and --report shows it"
	sed 's/^/    /' bound.err
fi
# Stretched periods keep the weights exact: each thread's sampled CPU
# within one (stretched) period of its exact on-CPU time.
read -r bad rows < <(off_by_more bound.err)
if [ "$rows" -ge 9 ] && [ "$bad" = 0 ]; then
	ok "bounded: each of $rows threads' sampled CPU within one period of the kernel's"
else
	fail "bounded: each thread's sampled CPU within one period of the kernel's ($bad of $rows off by more)"
	sed 's/^/    /' bound.err
fi
# Samples: the stretch must show (fewer samples than unbounded).
ns() { awk '/^total: / { print $2 }' "$1"; }
nf=$(ns free.err) nb=$(ns bound.err)
if [ -n "$nf" ] && [ -n "$nb" ] && [ "$nb" -lt "$nf" ]; then
	ok "bounded: fewer samples than unbounded ($nb against $nf)"
else
	fail "bounded: fewer samples than unbounded ($nb against $nf)"
fi

# ---- one budget per user: re-opened sessions gain nothing (issue 32) ----
# tprof-ktest budget-reopen as the same unprivileged user: one 3 s
# session against sessions of 150 ms back to back, each phase after the
# user's budget state expired; samples per CPU second of the child, and
# each re-opened session's first period (tests/kmod/budget.c).
# Not on the debug kernel (a timeout scale): its 25 sessions flip the
# probes' static keys under lockdep for minutes; the budget's own code is
# the same there, and its KASAN and lockdep paths run above.
if [ "${CASE_TIMEOUT_SCALE:-1}" -gt 1 ]; then
	skip "budget-reopen: not on a kernel with a timeout scale (the debug kernel)"
else
	echo 1 > $par/sample_cpu_percent
	install -m 0755 "$TPROF_BUILD/kmod-tests/tprof-ktest" ./tprof-ktest
	as_nobody ./tprof-ktest budget-reopen || fail "tprof-ktest budget-reopen exited $?"
fi
exit 0
