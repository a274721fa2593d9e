#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 600
# User-memory walks (TPROF_IOC_SET_UWALK): uwalktarget's threads keep known
# chains in their own memory (a __thread slot at a fixed fs_base offset, a
# guarded state, frames with 1/2/4/8-byte fields and a tagged code
# pointer); every user sample must carry exactly the words of its own
# thread's chain, last in its group (TP, ADDR and TID starts, max_frames,
# max_bytes, GUARD, NO_START, FAULT, a cycle; off-CPU samples too), none
# after removal or exec; STATS as the records say. Chains longer than the
# cap keep their last frames too (tail_frames: issue 33's deep recursion). Then the bad
# descriptors (64-bit and through compat_ioctl), and who may: root, an
# unprivileged user with the /proc/PID/mem proof, not with auxv's.
. "$TPROF_ROOT/tests/cases/lib.sh"
d=$TPROF_BUILD/kmod-tests
kt=$d/tprof-ktest
t=$d/uwalktarget
"$kt" uwalk "$t" || fail "tprof-ktest uwalk exited $?"
"$kt" uwalk-errors "$t" || fail "tprof-ktest uwalk-errors exited $?"
"$kt" uwalk-tail "$t" || fail "tprof-ktest uwalk-tail exited $?"
"$d/tprof-ktest32" uwalk-errors "$t" ||
	fail "tprof-ktest32 uwalk-errors (compat_ioctl) exited $?"
"$kt" uwalk-perm "$t" || fail "tprof-ktest uwalk-perm (root) exited $?"

if ! command -v setpriv >/dev/null; then
	skip "unprivileged walks: setpriv not installed"
	exit 0
fi
mode=$(stat -c %a /dev/tprof)
chmod 0666 /dev/tprof
cp "$kt" "$t" . && chmod 0755 . ./tprof-ktest ./uwalktarget
setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
	./tprof-ktest uwalk-perm ./uwalktarget ||
	fail "tprof-ktest uwalk-perm (unprivileged) exited $?"
chmod "$mode" /dev/tprof
exit 0
