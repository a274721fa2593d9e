#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# `make bench`: the exact-guest cost table. Boots each of BENCH_KERNELS
# (default: 6.1 6.12) on 1 vCPU under QEMU's -icount shift=BENCH_ICOUNT
# (default 1: 2 ns of guest time per instruction), runs bench/exact/NN-*.sh
# there (results in build/bench/exact/NAME/), then writes docs/benchmarks.md
# (bench/exact/report.py). The guests run side by side: an exact guest's
# figures do not depend on the host's load (tests/vm/README.md).
# Env: BENCH_CPU_MS (400: the unprofiled workload's CPU time),
#      BENCH_SKIP_GUEST=1 (only rewrite the document from the last results),
#      BENCH_DOC (docs/benchmarks.md), BENCH_MODULE_DIR (DIR/KVER/tprof.ko:
#      a module built elsewhere, e.g. an earlier tree's, for a before/after),
#      BENCH_OUT_DIR (build/bench/exact: where the results go),
#      BENCH_EXPS (rows of 10-cost.sh to run: sample switch-self
#      switch-unrelated agent 16x10k python; default all).
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/tests/vm/kpaths.sh"
build=${BUILD:-$root/build}
case "$build" in /*) ;; *) build=$root/$build ;; esac
shift_=${BENCH_ICOUNT:-1}
dest=${BENCH_OUT_DIR:-$build/bench/exact}
rc=0
# shellcheck disable=SC2086 # a list
list=$("$root/tests/vm/kernels.sh" ${BENCH_KERNELS:-6.1 6.12}) || exit 1
if [ "${BENCH_SKIP_GUEST:-0}" != 1 ]; then
	# py-spy, Python's sampling peer, from PyPI (not a Debian package)
	[ -x "$build/py-spy/bin/py-spy" ] ||
		python3 -m pip install -q --target "$build/py-spy" py-spy >&2 ||
		echo "bench: py-spy not installed: its row is left out" >&2
	mkdir -p "$build/bench"
	printf 'BENCH_REPS=2\nBENCH_CPU_MS=%s\nBENCH_QUICK=0\nBENCH_PERF=1\nBENCH_BASE_KO=\nBENCH_EXPS="%s"\n' \
		"${BENCH_CPU_MS:-400}" "${BENCH_EXPS:-}" > "$build/bench/guest.conf"
	jobs=$(vm_jobs)
	while read -r name kver; do
		vm_slot "$jobs"
		(
			out=$build/vm/exact-$name-${dest##*/}
			[ -z "${BENCH_MODULE_DIR:-}" ] ||
				export TPROF_MODULE=$BENCH_MODULE_DIR/$kver/tprof.ko
			# a run with failed rows still has the others' results
			BUILD=$build VM_OUT=$out CASE_DIR=bench/exact VM_CPUS=1 \
				VM_ICOUNT=$shift_ VM_TIMEOUT=${VM_TIMEOUT:-10800} \
				"$root/tests/vm/run-kernel.sh" "$name" "$kver"
			r=$?
			rm -rf "$dest/$name" && mkdir -p "$dest/$name" &&
				cp -r "$out/out/bench/." "$dest/$name/" &&
				cp "$out/console.log" "$dest/$name/" &&
				echo "icount shift=$shift_" > "$dest/$name/mode" &&
				git -C "$root" describe --always --dirty > "$dest/$name/tree" ||
				r=1
			exit $r
		) &
	done <<<"$list"
	while [ "$(jobs -rp | wc -l)" -gt 0 ]; do wait -n || rc=1; done
fi
doc=${BENCH_DOC:-$root/docs/benchmarks.md}
python3 "$root/bench/exact/report.py" "$dest" > "$doc.tmp" && mv "$doc.tmp" "$doc" || {
	rm -f "$doc.tmp"; rc=1; }
exit $rc
