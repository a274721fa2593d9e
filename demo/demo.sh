#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# `make demo`: boot a Debian kernel under QEMU (this machine need not be able
# to load modules), profile a bundled multi-threaded workload with tprof, and
# print `go tool pprof -top` of the profile, written to ./demo.pb.gz.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$root/build}
read -r name kver < <("$root/tests/vm/kernels.sh" "${DEMO_KERNEL:-6.12}") || exit 1
VM_OUT=$build/vm/demo CASE_DIR=demo/guest CASES='*' \
	"$root/tests/vm/run-kernel.sh" "$name" "$kver" || exit 1
cp "$build/vm/demo/out/demo.pb.gz" "$root/demo.pb.gz" || exit 1
sed 's/^/  /' "$build/vm/demo/out/report.txt"
echo "demo: wrote $root/demo.pb.gz (kernel $kver); go tool pprof -top:"
top=$(go tool pprof -top -nodecount=15 "$root/demo.pb.gz") || exit 1
echo "$top"
# The workload burns its CPU in mix(): a profile without it is wrong.
grep -qE ' mix$' <<<"$top" || { echo "demo: mix() is not in the profile" >&2; exit 1; }
echo "demo: view it with: go tool pprof -http=:8080 demo.pb.gz"
