#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Run the in-guest cases on every kernel of tests/kernels (or those named in
# KERNELS), print a per-kernel summary table, exit non-zero on any failure.
# VM_JOBS guests at a time (default: the host's CPUs, at most 2): a
# single-threaded TCG guest keeps one host CPU busy, and the cases compare
# against the guest kernel's own accounting, not against wall time.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD:-$root/build}
case "$build" in /*) ;; *) build=$root/$build ;; esac
# shellcheck disable=SC2086 # KERNELS is a list
list=$("$root/tests/vm/kernels.sh" --all ${KERNELS:-}) || exit 1
[ -n "$list" ] || { echo "run-all: no kernel selected (KERNELS=${KERNELS:-})" >&2; exit 1; }
jobs=${VM_JOBS:-$(nproc)}
[ "$jobs" -gt 2 ] && [ -z "${VM_JOBS:-}" ] && jobs=2
[ "$jobs" -ge 1 ] 2>/dev/null || jobs=1
runs=$build/vm/runs
rm -rf "$runs" && mkdir -p "$runs"

# one kernel: its summary row to runs/NAME.row, its stderr to runs/NAME.log,
# and that log to our stderr when it ends (whole, not interleaved)
one() {
	"$root/tests/vm/run-kernel.sh" "$1" "$2" > "$runs/$1.row" 2> "$runs/$1.log"
	echo $? > "$runs/$1.rc"
	{ echo "=== $1 ($2) done"; cat "$runs/$1.log"; } >&2
}

names=()
while read -r name kver; do
	while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n; done
	echo "=== $name ($kver) started" >&2
	one "$name" "$kver" < /dev/null &
	names+=("$name")
done <<<"$list"
wait

rc=0
echo
printf '%-10s %-26s %-6s %-7s %s\n' KERNEL VERSION RESULT TIME DETAIL
for name in "${names[@]}"; do
	row=$(cat "$runs/$name.row" 2>/dev/null)
	[ "$(cat "$runs/$name.rc" 2>/dev/null)" = 0 ] || rc=1
	[ -n "$row" ] || row="$name ? FAIL 0s (no summary)"
	read -r n kver verdict secs rest <<<"$row"
	printf '%-10s %-26s %-6s %-7s %s\n' "$n" "$kver" "$verdict" "$secs" "$rest"
done
# the failed checks under the table, where a CI log's tail shows them
for name in "${names[@]}"; do
	f=$build/vm/$name/failed
	[ "$(cat "$runs/$name.rc" 2>/dev/null)" = 0 ] || [ ! -s "$f" ] || {
		echo; echo "$name failed:"; head -n 20 "$f" | cut -c1-300 | sed 's/^/  /'; }
done
exit $rc
