#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# `make bias`: boot each selected kernel (KERNELS, default all) with 8 vCPUs,
# run the whole bias lab in the guest, then write per kernel into
# build/bias/NAME/: results.csv, results.md and PNG charts; docs/bias.md gets
# the first kernel's table and charts with the command that made them.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$root/build}
# Debian's python3 (matplotlib comes from python3-matplotlib).
py=/usr/bin/python3
$py -c 'import matplotlib' 2>/dev/null ||
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q python3-matplotlib >&2
# shellcheck disable=SC2086
list=$("$root/tests/vm/kernels.sh" ${KERNELS:-}) || exit 1
rc=0 first=
while read -r name kver; do
	dest=$build/bias/$name
	VM_OUT=$build/vm/bias-$name CASE_DIR=lab/guest CASES='*' VM_CPUS=8 \
		VM_TIMEOUT=${VM_TIMEOUT:-3600} CASE_TIMEOUT=3600 \
		"$root/tests/vm/run-kernel.sh" "$name" "$kver" || rc=1
	rm -rf "$dest" && mkdir -p "$dest"
	cp -r "$build/vm/bias-$name/out/lab" "$dest/raw" 2>/dev/null || { rc=1; continue; }
	$py "$root/lab/analyze.py" "$dest/raw" --csv "$dest/results.csv" --md "$dest/results.md"
	$py "$root/lab/report.py" "$dest/results.csv" "$dest" "$name ($kver)" || rc=1
	[ -n "$first" ] || first="$name $kver $dest"
done <<<"$list"
if [ -n "$first" ]; then
	read -r name kver dest <<<"$first"
	$py "$root/lab/report.py" --doc "$dest" "$root/docs" "$name ($kver)" \
		"make bias${KERNELS:+ KERNELS=\"$KERNELS\"}" || rc=1
fi
exit $rc
