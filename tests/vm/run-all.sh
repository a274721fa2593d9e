#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Run the in-guest cases on every kernel of tests/kernels (or those named in
# KERNELS), print a per-kernel summary table, exit non-zero on any failure.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck disable=SC2086 # KERNELS is a list
list=$("$root/tests/vm/kernels.sh" --all ${KERNELS:-}) || exit 1
[ -n "$list" ] || { echo "run-all: no kernel selected (KERNELS=${KERNELS:-})" >&2; exit 1; }
rows=() rc=0
while read -r name kver; do
	echo "=== $name ($kver)" >&2
	row=$("$root/tests/vm/run-kernel.sh" "$name" "$kver") || rc=1
	rows+=("$row")
done <<<"$list"
echo
printf '%-10s %-26s %-6s %-7s %s\n' KERNEL VERSION RESULT TIME DETAIL
for row in "${rows[@]}"; do
	read -r name kver verdict secs rest <<<"$row"
	printf '%-10s %-26s %-6s %-7s %s\n' "$name" "$kver" "$verdict" "$secs" "$rest"
done
exit $rc
