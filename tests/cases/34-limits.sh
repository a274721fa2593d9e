#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 600
# What an unprivileged user may hold: max_user_sessions sessions, rings
# within RLIMIT_MEMLOCK + ring_kb_per_cpu (charged to its locked_vm and
# released), and never so many that root is locked out: at the per-user
# limit, and with the limit raised until all unprivileged slots are taken.
# Then tprof-read's messages name the limits.
. "$TPROF_ROOT/tests/cases/lib.sh"
kt=$TPROF_BUILD/kmod-tests/tprof-ktest
p=/sys/module/tprof/parameters
mode=$(stat -c %a /dev/tprof)
chmod 0666 /dev/tprof
holder=
cleanup() {
	[ -n "$holder" ] && { exec 7>&-; wait "$holder"; }
	echo 4 > $p/max_user_sessions
	chmod "$mode" /dev/tprof
}
trap cleanup EXIT
install -m 0755 "$kt" ./tprof-ktest
chmod 0777 .
memlock=8388608
as_nobody() {
	prlimit --memlock=$memlock:$memlock setpriv --reuid=65534 --regid=65534 \
		--clear-groups --inh-caps=-all "$@"
}
check "module parameters default to 516 KiB/CPU and 4 sessions" \
	test "$(cat $p/ring_kb_per_cpu) $(cat $p/max_user_sessions)" = "516 4"
as_nobody ./tprof-ktest limits || fail "tprof-ktest limits exited $?"

hold() {	# hold N OK ERRNO: nobody holds sessions; fd 7 keeps them
	mkfifo hold.in 2>/dev/null
	as_nobody ./tprof-ktest hold-sessions "$@" < hold.in > hold.log 2>&1 &
	holder=$!
	exec 7> hold.in
	for _ in $(seq 600); do grep -q holding hold.log && break; sleep 0.1; done
	grep -E '^(ok|not ok) - ' hold.log
}
release() { exec 7>&-; wait "$holder"; holder=; }

hold 5 4 16			# EBUSY after 4
if out=$("$kt" quick 2>&1); then ok "root profiles while a user holds its 4 sessions"
else fail "root profiles while a user holds its 4 sessions"; echo "$out" | sed 's/^/    /'; fi
release
echo 32 > $p/max_user_sessions
memlock=unlimited		# 24 sessions' tables exceed the default allowance
hold 25 24 28			# ENOSPC after the 24 unprivileged slots
memlock=8388608
if out=$("$kt" quick 2>&1); then ok "root profiles while users hold every unprivileged slot"
else fail "root profiles while users hold every unprivileged slot"; echo "$out" | sed 's/^/    /'; fi
release
echo 4 > $p/max_user_sessions

# tprof-read names the limit and how to raise it; no file is written.
install -m 0755 /usr/bin/sleep ./sleep
setpriv --reuid=65534 --regid=65534 --clear-groups ./sleep 300 &
own=$!
as_nobody "$TPROF_BUILD/tprof-read" --ring-bytes 16777216 -p $own -d 1 -o "$PWD/big.pb.gz" 2> err.txt
# (the module says which limit refused it: ENABLE's refused field)
if grep -qE '^tprof-read: pid [0-9]+: Cannot allocate memory: the locked-memory limit refused it: the session needs [0-9]+ KiB .* already holds [0-9]+ KiB .*ulimit -l' err.txt &&
   [ ! -e big.pb.gz ]; then
	ok "an oversized ring is refused with the limit named: $(head -n1 err.txt)"
else
	fail "an oversized ring is refused with the limit named"
	sed 's/^/    /' err.txt
fi
kill $own; wait $own 2>/dev/null
exit 0
