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

# arm64: a frameless kernel leaf keeps its caller. __arch_clear_user sets
# up no frame record, so the records from x29 skip read_zero; the
# interrupted x30 (TPROF_RF_KERNEL_LR) gives it back, and tprof-read drops
# it where it is stale (issue 37: 73-76% of these samples lacked
# read_zero). Against the kernel's own call graph: every read(2) of
# /dev/zero clears through read_zero.
if [ "$(uname -m)" = aarch64 ]; then
	TR=$TPROF_BUILD/tprof-read
	if "$TR" --kernel-stacks --format folded -o "$PWD/klr.folded" -- \
		dd if=/dev/zero of=/dev/null bs=1M count=1000 2> klr.err; then
		cp klr.folded klr.err "$TPROF_OUT/" 2>/dev/null
		read -r leaf caller < <(awk '{ w = $NF; $NF = ""; sub(/ $/, "")
			if ($0 ~ /;__arch_clear_user$/) { l += w
				if ($0 ~ /;read_zero;__arch_clear_user$/) c += w } }
			END { printf "%.0f %.0f\n", l, c }' klr.folded)
		if [ "$leaf" -gt 0 ] && [ $((caller * 100)) -ge $((leaf * 95)) ]; then
			ok "arm64 kernel leaf: read_zero above __arch_clear_user in $caller of $leaf ns"
		else
			fail "arm64 kernel leaf: read_zero above __arch_clear_user in ${caller:-0} of ${leaf:-0} ns (want >= 95%)"
			grep '__arch_clear_user' klr.folded | sort -k2 -n | tail -5 | sed 's/^/    /'
		fi
	else
		fail "arm64 kernel leaf: tprof-read --kernel-stacks -- dd"
		sed 's/^/    /' klr.err | tail -5
	fi
fi
