#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 300
# User stacks of 64-bit and (x86-64) -m32 targets (frame-pointer walk),
# kernel stacks.
. "$TPROF_ROOT/tests/cases/lib.sh"
kt=$TPROF_BUILD/kmod-tests/tprof-ktest
d=$TPROF_BUILD/kmod-tests
abi64=x86_64; [ "$(uname -m)" = aarch64 ] && abi64=arm64
"$kt" stack "$d/stacktarget64" $abi64 || fail "tprof-ktest stack 64 exited $?"
# -m32 is x86-64's compat ABI (ia32); arm64's AArch32 gets pc, lr and sp
# only (Debian's armhf is Thumb-2: no frame chain to walk), with no target
# built here
if [ $abi64 = arm64 ]; then
	:
elif "$d/stacktarget32" </dev/null >/dev/null 2>&1 || [ $? -eq 1 ]; then
	"$kt" stack "$d/stacktarget32" ia32 || fail "tprof-ktest stack 32 exited $?"
else
	fail "-m32 target runs in the guest (IA32 emulation)"
fi
"$kt" kstack || fail "tprof-ktest kstack exited $?"
