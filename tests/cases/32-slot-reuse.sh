#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 600
# Thread slots of exited threads are reused: 1000 short-lived threads with a
# 256-slot table (table_bits=8) are all tracked, none dropped; and
# SET_THREAD_PERIOD racing those exits and reclaims never lands on another
# thread.
. "$TPROF_ROOT/tests/cases/lib.sh"
kt=$TPROF_BUILD/kmod-tests/tprof-ktest
if rmmod tprof && insmod "$TPROF_KO" table_bits=8; then
	ok "reload with table_bits=8"
	for _ in $(seq 50); do [ -c /dev/tprof ] && break; sleep 0.1; done
	"$kt" short | sed 's/^\(\(not \)\{0,1\}ok - \)/\1table_bits=8: /'
	[ "${PIPESTATUS[0]}" = 0 ] || fail "tprof-ktest short (table_bits=8) exited non-zero"
	# 3000 threads through 256 slots; 1000 where a thread's start and
	# end take some 25 ms (the debug kernel: 86 s for 3000)
	n=3000; [ "${CASE_TIMEOUT_SCALE:-1}" -gt 1 ] && n=1000
	"$kt" period-race $n || fail "tprof-ktest period-race exited $?"
else
	fail "reload with table_bits=8"
fi
rmmod tprof 2>/dev/null
insmod "$TPROF_KO"
