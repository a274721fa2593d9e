#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Prove the harness can fail: a failing case, a case that leaves a process
# running, a module whose init WARNs and a guest that hangs must each make
# run-kernel.sh report FAIL (the two cases through a result line that counts
# the failure, not a timeout). Runs on the first
# selected kernel with only the 00-* cases, to stay cheap.
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
echo "harness-selftest: $pass passed, $fail failed"
[ $fail = 0 ]
