#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 300
# User stack snapshots (TPROF_F_USER_SNAPSHOT): registers and raw stack of
# 64-bit and -m32 targets checked against markers in the target's stack,
# also with the red zone below sp (TPROF_F_SNAPSHOT_BELOW, 64-bit only);
# partial copies at a stack's unmapped end; the frame-pointer chain in
# the USTACK record (TPROF_F_USTACK_CHAIN), read in the snapshot; a ring too small for any pair
# (lost, with weights); who may have them (root, and an unprivileged user
# with the /proc/PID/mem proof only).
. "$TPROF_ROOT/tests/cases/lib.sh"
kt=$TPROF_BUILD/kmod-tests/tprof-ktest
d=$TPROF_BUILD/kmod-tests
# x86-64: 64-bit and -m32 (ia32) targets; arm64: 64-bit (snapshot-below
# there: AAPCS64 has no red zone, so none may come)
abis="64:x86_64 32:ia32"
[ "$(uname -m)" = aarch64 ] && abis=64:arm64
for abi in $abis; do
	t=$d/stacktarget${abi%%:*}
	"$kt" snapshot "$t" "${abi#*:}" || fail "tprof-ktest snapshot $abi exited $?"
	"$kt" snapshot-below "$t" "${abi#*:}" ||
		fail "tprof-ktest snapshot-below $abi exited $?"
	"$kt" snapshot-edge "$t" "${abi#*:}" ||
		fail "tprof-ktest snapshot-edge $abi exited $?"
	"$kt" snapshot-chain "$t" "${abi#*:}" ||
		fail "tprof-ktest snapshot-chain $abi exited $?"
done
"$kt" snapshot-lost "$d/stacktarget64" || fail "tprof-ktest snapshot-lost exited $?"
"$kt" snapshot-perm "$d/stacktarget64" || fail "tprof-ktest snapshot-perm (root) exited $?"

if ! command -v setpriv >/dev/null; then
	skip "unprivileged snapshots: setpriv not installed"
	exit 0
fi
mode=$(stat -c %a /dev/tprof)
chmod 0666 /dev/tprof
cp "$kt" "$d/stacktarget64" . && chmod 0755 . ./tprof-ktest ./stacktarget64
setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
	./tprof-ktest snapshot-perm ./stacktarget64 ||
	fail "tprof-ktest snapshot-perm (unprivileged) exited $?"
chmod "$mode" /dev/tprof
exit 0
