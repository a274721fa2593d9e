#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# `make bench`: boot BENCH_KERNEL (default 6.12) with 8 vCPUs, run
# bench/guest/NN-*.sh there (results in build/bench/NAME/guest/), run the
# reader benchmark on the host (bench/reader.sh), then write
# build/bench/tcg.md and its charts (bench/report.py; `make bench-tcg`).
# Env: BENCH_REPS (5), BENCH_CPU_MS (2000: guest CPU time of one spin thread),
#      BENCH_QUICK=1 (smoke run: 1 rep, 200 ms, fewer depths, 1M samples),
#      BENCH_CASES (glob of guest cases; when set, the results are added to
#      the previous run's), BENCH_SKIP_GUEST=1 /
#      BENCH_SKIP_READER=1 (reuse the previous results of that part),
#      BENCH_BASE=REV (issue 12's "before": REV's tprof.ko, built from
#      `git archive REV`, is measured too, run by run in the same boot, by
#      the cases of the per-switch table: 20 30 50 60; its lines carry
#      mod=base),
#      BENCH_PERF=0 (no perf runs: tprof's figures only, much faster),
#      BENCH_DOC=switch, snapshot, offcpu or trust (rewrite only the
#      per-switch section, the snapshot section, the off-CPU section or the
#      section of issue 22's costs (9, bench/guest/90-trust.sh), of
#      docs/benchmarks.md, from every kernel's (offcpu, trust: this
#      kernel's) results; for runs of a few cases, which would leave the
#      other sections empty). BENCH_BASE's module is also measured by
#      90-trust.sh's process-table runs (section 9's "before").
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$root/build}
py=/usr/bin/python3	# Debian's, for python3-matplotlib
$py -c 'import matplotlib' 2>/dev/null ||
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q python3-matplotlib >&2
quick=${BENCH_QUICK:-0}
reps=${BENCH_REPS:-5} cpu_ms=${BENCH_CPU_MS:-2000}
[ "$quick" = 1 ] && reps=${BENCH_REPS:-1} cpu_ms=${BENCH_CPU_MS:-200}

list=$("$root/tests/vm/kernels.sh" "${BENCH_KERNEL:-6.12}") || exit 1
read -r name kver <<<"$(head -n1 <<<"$list")"
dest=$build/bench/$name
mkdir -p "$dest"
rc=0
# the tree the guest ran (others may commit while it runs)
tree=$(git -C "$root" describe --always --dirty 2>/dev/null || echo '?')
if [ "${BENCH_SKIP_GUEST:-0}" != 1 ]; then
	base_ko=
	if [ -n "${BENCH_BASE:-}" ]; then
		# the baseline module, built as DKMS would from REV's sources;
		# the guest swaps it in run by run (guest/lib.sh)
		rev=$(git -C "$root" rev-parse --short "$BENCH_BASE") || exit 1
		src=$build/bench-base/$rev/src
		if [ ! -d "$src" ]; then
			rm -rf "$src.tmp" && mkdir -p "$src.tmp" &&
				git -C "$root" archive "$rev" | tar -x -C "$src.tmp" &&
				mv "$src.tmp" "$src" || exit 1
		fi
		base_ko=$("$src/tests/vm/build-module.sh" "$kver" "$build/bench-base/$rev/$kver") ||
			exit 1
	fi
	# the guest reads its settings from the host's build/ (see guest/lib.sh)
	printf 'BENCH_REPS=%s\nBENCH_CPU_MS=%s\nBENCH_QUICK=%s\nBENCH_PERF=%s\nBENCH_BASE_KO=%s\n' \
		"$reps" "$cpu_ms" "$quick" "${BENCH_PERF:-1}" "$base_ko" > "$build/bench/guest.conf"
	# BUILD for run-kernel.sh only: a private module build and initramfs
	# (build/bench-vm/), so concurrent `make vm-test` runs, which rebuild
	# build/kmod/KVER, cannot pull tprof.ko away while this guest boots.
	# The guest still runs the programs of $TPROF_ROOT/build.
	BUILD=$build/bench-vm VM_OUT=$build/vm/bench-$name CASE_DIR=bench/guest \
		CASES="${BENCH_CASES:-*}" VM_CPUS=8 VM_TIMEOUT=${VM_TIMEOUT:-14400} \
		"$root/tests/vm/run-kernel.sh" "$name" "$kver" || rc=1
	if [ -n "${BENCH_CASES:-}" ] && [ -s "$dest/guest/results.txt" ]; then
		# a run of some cases adds its lines to the last full run's
		# (bench/report.py brackets within one experiment, never across)
		cat "$build/vm/bench-$name/out/bench/results.txt" >> "$dest/guest/results.txt" ||
			exit 1
		cp "$build/vm/bench-$name/console.log" "$dest/guest/console-${BENCH_CASES//[^0-9a-z]/_}.log"
	else
		rm -rf "$dest/guest"
		cp -r "$build/vm/bench-$name/out/bench" "$dest/guest" || exit 1
		cp "$build/vm/bench-$name/console.log" "$dest/guest/console.log"
	fi
	echo "$tree" > "$dest/guest/tree"
	[ -n "${BENCH_BASE:-}" ] && echo "$rev" > "$dest/guest/base"
fi
if [ "${BENCH_SKIP_READER:-0}" != 1 ] && [ "${BENCH_DOC:-full}" = full ]; then
	samples=10000000
	[ "$quick" = 1 ] && samples=1000000
	BUILD=$build "$root/bench/reader.sh" "$dest/reader.txt" "$samples" || rc=1
fi
# the unwinder's rate on real snapshots (section 7): make unit records them
if [ "${BENCH_SKIP_READER:-0}" != 1 ] && { [ "${BENCH_DOC:-full}" = full ] ||
	[ "${BENCH_DOC:-full}" = snapshot ]; }; then
	if ls "$build"/unit/unwind-*.raw > /dev/null 2>&1; then
		BUILD=$build "$root/bench/unwind-rate.sh" > "$dest/unwind.txt" || rc=1
		# the same with 10,000 maps snapshots: within 2x (section 5)
		BUILD=$build "$root/bench/maps-snapshots.sh" > "$dest/maps-snapshots.txt" || rc=1
	else
		echo "bench: no build/unit/unwind-*.raw (make unit): unwinding rate not measured" >&2
	fi
fi
# the walk of issue 24 (section 10): its own guest, its kernel path's
# cost per sample at 10 and 100 frames against none
if [ "${BENCH_SKIP_GUEST:-0}" != 1 ] && [ "${BENCH_DOC:-full}" = full ]; then
	BUILD=$build "$root/bench/uwalk-cost.sh" "$name" > "$dest/uwalk.txt" || rc=1
fi
cmd="make bench"
[ -n "${BENCH_KERNEL:-}" ] && cmd+=" BENCH_KERNEL=$BENCH_KERNEL"
[ -n "${BENCH_REPS:-}" ] && cmd="BENCH_REPS=$BENCH_REPS $cmd"
[ "$quick" = 1 ] && cmd="BENCH_QUICK=1 $cmd"
[ "${BENCH_PERF:-1}" = 0 ] && cmd="BENCH_PERF=0 $cmd"
[ -n "${BENCH_CASES:-}" ] && cmd="$cmd; BENCH_CASES='$BENCH_CASES' $cmd"
[ -n "${BENCH_BASE:-}" ] && cmd="BENCH_BASE=$BENCH_BASE $cmd"
# section 6 names the commands that produced each kernel's results
if [ "${BENCH_SKIP_GUEST:-0}" != 1 ] && [ -d "$dest/guest" ]; then
	[ -n "${BENCH_CASES:-}" ] || : > "$dest/guest/commands"
	c=$(for v in BENCH_QUICK BENCH_REPS BENCH_CPU_MS BENCH_PERF BENCH_BASE BENCH_CASES; do
		[ -n "${!v:-}" ] && printf "%s=%s " "$v" "${!v}"
	done)"${BENCH_DOC:+BENCH_DOC=$BENCH_DOC }make bench${BENCH_KERNEL:+ BENCH_KERNEL=$BENCH_KERNEL}"
	grep -qxF "$c" "$dest/guest/commands" 2> /dev/null || echo "$c" >> "$dest/guest/commands"
fi
$py "$root/bench/report.py" --guest "$dest/guest" --reader "$dest/reader.txt" \
	--kernel "$name ($kver)" --command "$cmd" \
	--tree "$(cat "$dest/guest/tree" 2>/dev/null || echo "$tree")" \
	--host-cpu "$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n1)" \
	--all-kernels "$build/bench" --sections "${BENCH_DOC:-full}" \
	--unwind "$dest/unwind.txt" \
	--doc "${BENCH_MD:-$build/bench/tcg.md}" --png-dir "$build/bench/tcg-png" || rc=1
exit $rc
