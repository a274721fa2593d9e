#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 1800
# Benchmark 11 (issue 25): tprof.ko's per-sample path by mode, the same on
# an x86-64 and an arm64 guest (bench/arm64/run.sh boots either with
# CASE_DIR=bench/arm64). BENCH_A64_THREADS threads of `bench-work spin`,
# 30-frame stacks, at 1 kHz each, in four modes: frame pointers only
# (fp), fp with kernel stacks (fp-kernel), hybrid with 1 KiB snapshots and
# dwarf with 8 KiB ones. Each run's STATS sample_path_ns /
# sample_path_calls (TPROF_F_PATH_TIMING, through path-timing.so) and the
# saved stream's bytes per sample go to results.txt by bench/guest/lib.sh's
# measure; bench/arm64/report.py turns both arches' lines into a table.
# Under TCG the absolute times are the emulator's: only the ratios between
# modes of one arch, and the byte counts, carry over.
. "$TPROF_ROOT/bench/guest/lib.sh"
threads=${BENCH_A64_THREADS:-4}
units=$(calibrate_units) || { fail "path-modes: calibration"; exit 0; }
reps=$BENCH_REPS
bad=0
args() {
	case $1 in
	fp) echo "--call-graph fp" ;;
	fp-kernel) echo "--call-graph fp --kernel-stacks" ;;
	hybrid) echo "--call-graph hybrid=1024" ;;
	dwarf) echo "--call-graph dwarf=8192" ;;
	esac
}
# the modes interleaved, so a slow stretch of the shared host falls on all
for rep in $(seq "$reps"); do
	for mode in fp fp-kernel hybrid dwarf; do
		# shellcheck disable=SC2046
		BENCH_PATH_TIMING=1 measure \
			"exp=a64path arch=$(uname -m) threads=$threads depth=30 rep=$rep mode=$mode" \
			tprof 1000 $(args "$mode") --save-raw @D@/raw -- \
			"$BW" spin "$threads" 30 "$units" || bad=$((bad + 1))
	done
done
# one line per mode: medians over the runs (the host's report.py does the
# same from results.txt; this is for the console log)
for mode in fp fp-kernel hybrid dwarf; do
	grep "^exp=a64path .* mode=$mode " "$BENCH_OUT/results.txt" | awk '
	function kv(k,   i) { for (i = 1; i <= NF; i++) if (index($i, k "=") == 1) return substr($i, length(k) + 2); return 0 }
	{ c = kv("sample_path_calls"); n = kv("records_samples")
	  if (c > 0) p[++np] = kv("sample_path_ns") / c
	  if (n > 0) b[++nb] = kv("sample_bytes") / n }
	function med(a, n,   i, j, t) {
		for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
		return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
	}
	END { printf "runs=%d path_ns_per_sample=%.0f bytes_per_sample=%.0f\n", np, med(p, np), med(b, nb) }' |
		sed "s/^/path-modes: $(uname -m) $mode: /" | while read -r l; do ok "$l"; done
done
[ $bad = 0 ] && ok "path-modes: every run completed" || fail "path-modes: $bad runs failed"
exit 0
