#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Prove the harness can fail: a failing case, a case that leaves a process
# running, a module whose init WARNs and a guest that hangs must each make
# run-kernel.sh report FAIL (the two cases through a result line that counts
# the failure, not a timeout). Runs on the first
# selected kernel with only the 00-* cases, to stay cheap.
# Then, on the debug kernel (SELFTEST_DEBUG_KERNEL, 6.12-debug; "" skips), a
# module that sleeps in atomic context, inverts a lock order, reads out of
# bounds, frees an active timer or corrupts a list must each fail the run,
# and the console must show the report of the detector that caught it.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck disable=SC2086
read -r name kver < <("$root/tests/vm/kernels.sh" ${KERNELS:-}) || exit 1
pass=0 fail=0
for st in fail stray warn hang; do
	tmo=${VM_TIMEOUT:-1200}
	[ $st = hang ] && tmo=${SELFTEST_HANG_TIMEOUT:-60}
	row=$(SELFTEST=$st CASES='00-*' VM_TIMEOUT=$tmo \
		"$root/tests/vm/run-kernel.sh" "$name" "$kver" 2>/dev/null)
	rc=$?
	case $st in fail|stray) why=" (failures)" ;; *) why= ;; esac
	if [ $rc -ne 0 ] && [[ "$row" == *" FAIL "*"$why" ]]; then
		echo "ok - harness reports FAIL for selftest=$st: $row"
		pass=$((pass + 1))
	else
		echo "not ok - harness reports FAIL for selftest=$st: $row"
		fail=$((fail + 1))
	fi
done
dbg=${SELFTEST_DEBUG_KERNEL-6.12-debug}
if [ -n "$dbg" ]; then
	read -r name kver < <("$root/tests/vm/kernels.sh" "$dbg") || exit 1
	build=${BUILD:-$root/build}
	while read -r st report; do
		# 2 vCPUs: a KASAN guest boots twice as fast, and one CPU suffices.
		row=$(SELFTEST=$st CASES='00-*' VM_CPUS=${SELFTEST_DEBUG_CPUS:-2} \
			"$root/tests/vm/run-kernel.sh" "$name" "$kver" 2>/dev/null </dev/null)
		rc=$?
		if [ $rc -ne 0 ] && [[ "$row" == *" FAIL "* ]] &&
			grep -aq "$report" "$build/vm/$name-selftest-$st/console.log"; then
			echo "ok - harness reports FAIL for selftest=$st ($report): $row"
			pass=$((pass + 1))
		else
			echo "not ok - harness reports FAIL for selftest=$st ($report): $row"
			fail=$((fail + 1))
		fi
	done <<'EOT'
sleep BUG: sleeping function called from invalid context
lockdep possible circular locking dependency detected
kasan BUG: KASAN: slab-out-of-bounds
odebug ODEBUG: free active
list list_add corruption
EOT
fi
echo "harness-selftest: $pass passed, $fail failed"
[ $fail = 0 ]
