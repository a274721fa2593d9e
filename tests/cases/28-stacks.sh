#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 300
# User stacks of 64-bit and -m32 targets (frame-pointer walk), kernel stacks.
. "$TPROF_ROOT/tests/cases/lib.sh"
kt=$TPROF_BUILD/kmod-tests/tprof-ktest
d=$TPROF_BUILD/kmod-tests
"$kt" stack "$d/stacktarget64" x86_64 || fail "tprof-ktest stack 64 exited $?"
if "$d/stacktarget32" </dev/null >/dev/null 2>&1 || [ $? -eq 1 ]; then
	"$kt" stack "$d/stacktarget32" ia32 || fail "tprof-ktest stack 32 exited $?"
else
	fail "-m32 target runs in the guest (IA32 emulation)"
fi
"$kt" kstack || fail "tprof-ktest kstack exited $?"
