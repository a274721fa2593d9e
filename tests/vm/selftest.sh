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
# VM_JOBS guests at a time, as in run-all.sh.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/tests/vm/kpaths.sh"
build=${BUILD:-$root/build}
jobs=$(vm_jobs)
res=$build/vm/selftest-results
rm -rf "$res" && mkdir -p "$res"
n=0

# run JOB-FILE VAR=VALUE...: one selftest boot of $name $kver; its row to
# JOB-FILE.row, its exit status to JOB-FILE.rc
run() {
	local out=$1
	shift
	env "$@" "$root/tests/vm/run-kernel.sh" "$name" "$kver" \
		> "$out.row" 2>/dev/null </dev/null
	echo $? > "$out.rc"
}
# slot: wait for a free guest slot
slot() { vm_slot "$jobs"; }

# the module, built once per kernel (parallel builds would share a folder)
prebuilt() {
	ko=$(kmodule "$kver" "$build") || {
		echo "not ok - harness-selftest: module build for $kver failed"
		exit 1
	}
}

# shellcheck disable=SC2086
read -r name kver < <("$root/tests/vm/kernels.sh" ${KERNELS:-}) || exit 1
prebuilt
for st in fail stray warn hang; do
	tmo=${VM_TIMEOUT:-1200}
	[ $st = hang ] && tmo=${SELFTEST_HANG_TIMEOUT:-30}
	slot
	n=$((n + 1))
	echo "$st" > "$res/$n.what"
	run "$res/$n" SELFTEST=$st CASES='00-*' VM_TIMEOUT=$tmo \
		TPROF_MODULE="$ko" &
done
dbg=${SELFTEST_DEBUG_KERNEL-6.12-debug}
if [ -n "$dbg" ]; then
	read -r name kver < <("$root/tests/vm/kernels.sh" "$dbg") || exit 1
	prebuilt
	while read -r st report; do
		slot
		n=$((n + 1))
		echo "$st $report" > "$res/$n.what"
		echo "$name" > "$res/$n.name"
		# 2 vCPUs: a KASAN guest boots twice as fast, and one CPU suffices.
		run "$res/$n" SELFTEST=$st CASES='00-*' TPROF_MODULE="$ko" \
			VM_CPUS=${SELFTEST_DEBUG_CPUS:-2} &
	done <<'EOT'
sleep BUG: sleeping function called from invalid context
lockdep possible circular locking dependency detected
kasan BUG: KASAN: slab-out-of-bounds
odebug ODEBUG: free active
list list_add corruption
EOT
fi
wait

# judge in the order started
pass=0 fail=0
for i in $(seq "$n"); do
	read -r st report < "$res/$i.what"
	row=$(cat "$res/$i.row" 2>/dev/null)
	rc=$(cat "$res/$i.rc" 2>/dev/null || echo 0)
	if [ -z "$report" ]; then
		# the two failing cases through a result line, not a timeout
		case $st in fail|stray) why=" (failures)" ;; *) why= ;; esac
		what="selftest=$st"
		good=0
		[ "$rc" -ne 0 ] && [[ "$row" == *" FAIL "*"$why" ]] && good=1
	else
		what="selftest=$st ($report)"
		dname=$(cat "$res/$i.name")
		good=0
		[ "$rc" -ne 0 ] && [[ "$row" == *" FAIL "* ]] &&
			grep -aq "$report" "$build/vm/$dname-selftest-$st/console.log" &&
			good=1
	fi
	if [ $good = 1 ]; then
		echo "ok - harness reports FAIL for $what: $row"
		pass=$((pass + 1))
	else
		echo "not ok - harness reports FAIL for $what: $row"
		fail=$((fail + 1))
	fi
done
echo "harness-selftest: $pass passed, $fail failed"
[ $fail = 0 ]
