#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 600
# rmmod is refused while a session is open; insmod/rmmod 10 times with a
# session opened and closed in between.
. "$TPROF_ROOT/tests/cases/lib.sh"
kt=$TPROF_BUILD/kmod-tests/tprof-ktest

# 10 s: from "holding" to the rmmod below took over 3 s on the debug
# kernel with two guests sharing the host
"$kt" hold 10 > hold.log 2>&1 &
holder=$!
# a debug kernel under TCG may take seconds to start it
for _ in $(seq 600); do grep -q holding hold.log && break; sleep 0.1; done
if ! grep -q holding hold.log; then
	fail "rmmod refused while a session is open (the holder never held one)"
elif rmmod tprof 2>/dev/null; then
	fail "rmmod refused while a session is open"
	insmod "$TPROF_KO"
else
	ok "rmmod refused while a session is open"
fi
wait "$holder"
check "session holder exits 0" test $? -eq 0

# the debug kernel (a timeout scale): three; lockdep and KASAN judge the
# first load and unload as well as the tenth
cycles=10; [ "${CASE_TIMEOUT_SCALE:-1}" -gt 1 ] && cycles=3
bad=0
for i in $(seq $cycles); do
	if ! rmmod tprof; then bad=1; echo "rmmod $i failed"; break; fi
	if ! insmod "$TPROF_KO"; then bad=1; echo "insmod $i failed"; break; fi
	for _ in $(seq 50); do [ -c /dev/tprof ] && break; sleep 0.1; done
	if ! out=$("$kt" quick 2>&1); then bad=1; echo "session $i: $out"; break; fi
done
grep -q '^tprof ' /proc/modules || insmod "$TPROF_KO"
if [ $bad = 0 ]; then ok "insmod/rmmod $cycles times with a session in between"
else fail "insmod/rmmod $cycles times with a session in between"; fi
