#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Section 11 of docs/benchmarks.md (issue 25): tprof.ko's per-sample path
# by mode on an x86-64 and an arm64 guest of the same kernel version.
#   bench/arm64/run.sh x86|arm64   builds, then boots that arch's 6.12 guest
#                                  with bench/arm64/ as the case folder, and
#                                  keeps its results in
#                                  BUILD/bench-arm64/ARCH/results.txt
#   bench/arm64/report.py BUILD/bench-arm64   prints the table
# It builds what the guest runs first: x86, `make userspace bench-progs`;
# arm64, `make BUILD/arm64/tprof-read` and the cross-built bench-work and
# path-timing.so (bench/build.mk's sources and flags, tests/arm64/cross.mk's
# compiler), into BUILD/arm64/bench/, where bench/guest/lib.sh looks; and
# tprof.ko (tests/vm/ or tests/arm64/build-module.sh), so that only the boot
# runs under VM_WRAP (a guest-slot lock, e.g. VM_WRAP=/work/vmslot.sh).
# Env: BUILD (build/), BENCH_REPS (3), BENCH_CPU_MS (1000: CPU time of one
# spin thread), BENCH_A64_THREADS (4), VM_CPUS (4), BENCH_A64_TAG (results
# in BUILD/bench-arm64-TAG/ instead),
# KERNEL_X86 (6.12 6.12.117+deb12-amd64), KERNEL_ARM64 (6.12-arm64
# 6.12.117+deb12-arm64).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
arch=${1:?usage: run.sh x86|arm64}
build=${BUILD:-$root/build}
case "$build" in /*) ;; *) build=$root/$build ;; esac
cd "$root"
case $arch in
x86)
	read -r name kver <<<"${KERNEL_X86:-6.12 6.12.117+deb12-amd64}"
	gb=$build
	make -s BUILD="$build" -j2 userspace bench-progs ;;
arm64)
	read -r name kver <<<"${KERNEL_ARM64:-6.12-arm64 6.12.117+deb12-arm64}"
	gb=$build/arm64
	make -s BUILD="$build" -j2 "$gb/tprof-read"
	cache=${A64_CACHE:-/var/cache/tprof/arm64}/root
	cc=(env "LD_LIBRARY_PATH=$cache/usr/lib/x86_64-linux-gnu"
		"$cache/usr/bin/aarch64-linux-gnu-gcc-12" "--sysroot=$cache")
	flags=(-Ikmod -D_GNU_SOURCE -O2 -g -fno-omit-frame-pointer
		-Wall -Wextra -Wshadow -Wformat=2 -Wstrict-prototypes)
	mkdir -p "$gb/bench"
	"${cc[@]}" "${flags[@]}" -pthread -o "$gb/bench/bench-work" bench/work/bench-work.c
	"${cc[@]}" "${flags[@]}" -shared -fPIC -o "$gb/bench/path-timing.so" \
		bench/work/path-timing.c -ldl ;;
*) echo "run.sh: x86 or arm64" >&2; exit 2 ;;
esac
bm=tests/vm/build-module.sh
[ "$arch" = arm64 ] && bm=tests/arm64/build-module.sh
ko=$("$bm" "$kver" "$gb/kmod/$kver")
mkdir -p "$gb/bench"
printf 'BENCH_REPS=%s\nBENCH_CPU_MS=%s\nBENCH_QUICK=0\nBENCH_PERF=0\nBENCH_BASE_KO=\nBENCH_A64_THREADS=%s\n' \
	"${BENCH_REPS:-3}" "${BENCH_CPU_MS:-1000}" "${BENCH_A64_THREADS:-4}" > "$gb/bench/guest.conf"
vmout=$build/vm/bench-arm64-$arch
dest=$build/bench-arm64${BENCH_A64_TAG:+-$BENCH_A64_TAG}/$arch
rc=0
# shellcheck disable=SC2086
VM_OUT=$vmout CASE_DIR=bench/arm64 CASES='*' VM_CPUS=${VM_CPUS:-4} \
	TPROF_MODULE=$ko BUILD=$build ${VM_WRAP:-} tests/vm/run-kernel.sh "$name" "$kver" || rc=1
mkdir -p "$dest"
cp "$vmout/out/bench/results.txt" "$vmout/out/bench/guest-info" "$dest/" || rc=1
cp "$vmout/console.log" "$dest/"
{ echo "kernel=$name $kver"; echo "vm_cpus=${VM_CPUS:-4}"
  echo "tree=$(git describe --always --dirty 2>/dev/null || echo '?')"; } > "$dest/run-info"
grep -a 'path-modes:' "$vmout/console.log" | sed 's/^.*path-modes: /path-modes: /' || true
exit $rc
