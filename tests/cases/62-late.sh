#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 300
# A late timer's sample weighs what it stands for, up to the moment it
# fires, in the code it interrupts. tests/progs/late.c takes turns between
# late_a() and late_b() on one pinned thread, 2.5-3.5 periods of CPU each, and
# late_a() ends each turn in a 3 ms spin with IRQs off (the test module
# tests/vm/testmod/tprof_late.c, in its own system call): tprof.ko's timer,
# due in the spin, fires when IRQs come back, about 2 periods late, still
# in late_a(), and the next point falls in late_b(). Weighed only up to
# its armed expiry, that sample left the lateness to the next one, a period
# later in late_b(): late_a() came out near 0.64 of its own CPU time and
# late_b() near 1.8. Truth is each function's own CPU clock around its
# turns (sum_exec_runtime). An exact guest of one vCPU (mode below;
# run-all.sh gives it one; the case runs on CPU 0 anyway): the lateness
# must be the module's alone. Under plain TCG with the host loaded, the
# late interrupt reached the vCPU a host's delay after the spin, now and
# then in late_b(), which gained 2.2-3.9% (5 of 15 runs over 2%); at
# icount shift=1, +0.03% and +0.09%. The first sample point is random per
# run, and 400 turns left about 1% of noise: late_b from -0.47% to +1.87%
# over seven exact boots. 1200 turns.
# mode: icount 1 cpus 1
# Not on the debug kernel: with IRQ time accounting nothing a module can
# read says when the hardirq began, and the sample stops at its expiry
# there (kmod/sampler.c, tprof_timer_until()).
. "$TPROF_ROOT/tests/cases/lib.sh"

B=$TPROF_BUILD
TR=$B/tprof-read
P=$B/progs/late
ko=${TPROF_TESTMOD:+$TPROF_TESTMOD/tprof_late.ko}
[ -x "$TR" ] && [ -x "$P" ] || { skip "late: build/tprof-read or progs/late missing"; exit 0; }
[ -n "$ko" ] && [ -f "$ko" ] || { skip "late: no test module for this kernel (tests/vm/testmod)"; exit 0; }
insmod "$ko" || { fail "late: insmod tprof_late.ko"; exit 0; }
param=/sys/module/tprof_late/parameters/irqoff_us

taskset -c 0 "$TR" -F 1000 --format folded -o late.folded --report -- \
	"$P" "$param" 2500 3000 1200 truth.txt > report.txt 2>&1
rc=$?
rmmod tprof_late
[ $rc = 0 ] && [ -s truth.txt ] || { fail "late: tprof-read -- late exited $rc"; sed 's/^/#   /' report.txt | tail -n 20; exit 0; }
ok "late: 1200 turns profiled at 1 kHz"
cp late.folded truth.txt "$TPROF_OUT/" 2>/dev/null
for f in late_a late_b; do
	own=$(sed -n "s/.*${f}_ns=\([0-9]*\).*/\1/p" truth.txt)
	got=$(awk -v f="$f" '{ n = split($1, fr, ";"); for (i = 1; i <= n; i++)
		if (fr[i] == f) { s += $NF; break } } END { printf "%.0f\n", s }' late.folded)
	if within "$got" "$own" 2; then
		ok "late: $f sampled ${got} ns, its own CPU ${own} ns ($(diffpct "$got" "$own"))"
	else
		fail "late: $f sampled ${got} ns, its own CPU ${own} ns ($(diffpct "$got" "$own"), more than 2%)"
	fi
done
