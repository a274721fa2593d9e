#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 300
# Kernel stacks honour kernel lockdown (LOCKDOWN_PERF, as perf does): allowed
# before, refused once the kernel is locked down for confidentiality. Last
# of the cases: lockdown cannot be lifted, and it forbids loading modules.
. "$TPROF_ROOT/tests/cases/lib.sh"
kt=$TPROF_BUILD/kmod-tests/tprof-ktest
ld=/sys/kernel/security/lockdown
[ -e $ld ] || mount -t securityfs securityfs /sys/kernel/security 2>/dev/null
if [ ! -w $ld ] || ! grep -q confidentiality $ld; then
	skip "lockdown: this kernel has no lockdown LSM ($ld)"
	exit 0
fi
"$kt" lockdown 0 || fail "tprof-ktest lockdown 0 exited $?"
echo confidentiality > $ld
check "the kernel is locked down for confidentiality" grep -q '\[confidentiality\]' $ld
"$kt" lockdown 1 || fail "tprof-ktest lockdown 1 exited $?"
