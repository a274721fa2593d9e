#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 400
# tprof.ko's trust boundary, round 4 (issue 32), as an unprivileged user
# (/dev/tprof opened up as for group tprof):
#  - writeback: ENABLE's out-only fields come back 0 when no limit refused
#    it (EINVAL, EPERM, success), whatever the caller left in them; a
#    MEMLOCK refusal still says what it measured;
#  - pending-root: under Yama ptrace_scope 1 a user's CHILDREN session
#    holds a child it may not attach to pending; root's ENABLE on that
#    child succeeds meanwhile and samples it;
#  - uwalk-bound: the worst walks a user can describe (faulting code
#    words, a two-frame cycle alternating code objects, spans that fault)
#    fault at most TPROF_UREAD_MAX_FAULTS times per sample, every fault is
#    in STATS, and cost at most a few times a legitimate walk of the same
#    depth (reads per sample, exact, from STATS);
#  - secret: frames, a walk's words and a snapshot's stack in
#    memfd_secret(2) memory (which /proc/PID/mem refuses) never reach a
#    record.
. "$TPROF_ROOT/tests/cases/lib.sh"
d=$TPROF_BUILD/kmod-tests
kt=$d/tprof-ktest
sys=/proc/sys/kernel
yama=$sys/yama/ptrace_scope
mode=$(stat -c %a /dev/tprof)
scope=$(cat "$yama" 2>/dev/null || true)
restore() {
	chmod "$mode" /dev/tprof
	[ -z "$scope" ] || echo "$scope" > "$yama"
}
trap restore EXIT
chmod 0666 /dev/tprof
install -m 0755 "$kt" ./tprof-ktest
install -m 0755 "$d/uwalktarget" ./uwalktarget
chmod 0755 .

./tprof-ktest trust writeback || fail "tprof-ktest trust writeback exited $?"

./tprof-ktest uwalk-bound ./uwalktarget ||
	fail "tprof-ktest uwalk-bound exited $?"
./tprof-ktest uwalk-secret ./uwalktarget ||
	fail "tprof-ktest uwalk-secret exited $?"

if [ -n "$scope" ]; then
	echo 1 > "$yama"
	./tprof-ktest trust pending-root ||
		fail "tprof-ktest trust pending-root exited $?"
	echo "$scope" > "$yama"
else
	skip "trust pending-root: no $yama (Yama is not in this kernel)"
fi
exit 0
