#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 600
# The per-sample kernel cost of a user-memory walk (TPROF_IOC_SET_UWALK,
# issue 24): four threads of tests/kmod/uwalktarget spin with chains of 10
# and 100 frames; tprof.ko's own sample path time (STATS sample_path_ns /
# sample_path_calls, TPROF_F_PATH_TIMING) with the walk set, against the
# same with no walk. Under TCG the absolute numbers are the emulator's: the
# ratios are what carries over.
#   uwalk-cost.sh [KERNEL]   on the host: boots KERNEL (6.12) under QEMU
#                            (BUILD, default build/, must hold kmod-tests)
#                            and runs itself there as the only case
# In the guest (run by tests/vm/guest-run.sh as a case) it measures, and
# prints "ok - uwalk-cost: ..." lines with the figures.
set -uo pipefail
root=$(cd "$(dirname "$(readlink -f "$0")")/.." && pwd)

if [ -z "${TPROF_OUT:-}" ]; then	# the host
	name=${1:-6.12}
	build=${BUILD:-$root/build}
	case "$build" in /*) ;; *) build=$root/$build ;; esac
	kver=$("$root/tests/vm/kernels.sh" --all | awk -v n="$name" '$1 == n { print $2 }')
	[ -n "$kver" ] || { echo "uwalk-cost: no kernel $name" >&2; exit 1; }
	[ -x "$build/kmod-tests/tprof-ktest" ] ||
		{ echo "uwalk-cost: make BUILD=$build kmod-tests first" >&2; exit 1; }
	cdir=$build/uwalk-cost-case
	mkdir -p "$cdir"
	ln -sf "$root/bench/uwalk-cost.sh" "$cdir/01-uwalk-cost.sh"
	# CASE_DIR is relative to the repository, as the guest mounts it
	rel=$(realpath --relative-to="$root" "$cdir")
	BUILD=$build CASE_DIR=$rel CASES='01-*' VM_OUT=$build/vm/uwalk-cost \
		"$root/tests/vm/run-kernel.sh" "$name" "$kver"
	rc=$?
	grep -a 'uwalk-cost:' "$build/vm/uwalk-cost/console.log" |
		sed 's/^.*uwalk-cost: /uwalk-cost: /'
	exit $rc
fi

. "$TPROF_ROOT/tests/cases/lib.sh"
d=$TPROF_BUILD/kmod-tests
out=$("$d/tprof-ktest" uwalk-bench "$d/uwalktarget" 2>&1)
rc=$?
printf '%s\n' "$out" | sed 's/^/    /'
[ $rc = 0 ] || { fail "uwalk-cost: tprof-ktest uwalk-bench exited $rc"; exit 0; }
ns() {
	printf '%s\n' "$out" | sed -n "s/.*uwalk-bench depth=$1 .*path_ns_per_sample=\([0-9]*\).*/\1/p"
}
walk() {
	printf '%s\n' "$out" | sed -n "s/.*uwalk-bench depth=$1 .*uwalk_ns_per_walk=\([0-9]*\).*/\1/p"
}
base=$(ns 0)
for depth in 10 100; do
	n=$(ns $depth)
	if [ -z "$base" ] || [ -z "$n" ] || [ "$base" = 0 ]; then
		fail "uwalk-cost: depth $depth: no figures"
		continue
	fi
	ok "uwalk-cost: depth $depth: $n ns per sample against $base ns with no walk: x$(awk -v a="$n" -v b="$base" 'BEGIN { printf "%.2f", a / b }'), the walk $(walk $depth) ns"
done
exit 0
