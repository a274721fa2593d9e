#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 3600
# Benchmark 3: tprof.ko's own per-sample cost (STATS sample_path_ns /
# sample_path_calls, read from the STATS record of --save-raw; the module
# fills them in only with TPROF_F_PATH_TIMING, see lib.sh) by user stack
# depth, one thread at 10 kHz; perf and unprofiled runs of the same
# workload give the CPU-time cost per sample of each profiler for comparison.
# Pinned to CPU 0 with the profiler (see measure in lib.sh).
. "$(dirname "$0")/lib.sh"
units=$(calibrate_units) || { fail "depth: calibration"; exit 0; }
units=$(( units / 2 + 1 ))
profs=tprof
have_perf && profs="tprof perf" || skip "depth: perf: perf record does not work here"
depths="4 16 32 64 126 500"
[ "$BENCH_QUICK" = 1 ] && depths="4 32 126"
reps=$(( BENCH_REPS > 3 ? 3 : BENCH_REPS ))
bad=0 nostats=0
for rep in $(seq "$reps"); do
	for depth in $depths; do
		tags="exp=depth threads=1 depth=$depth rep=$rep"
		BENCH_PIN=0 measure "$tags" none 0 -- "$BW" spin 1 "$depth" "$units" ||
			bad=$((bad + 1))
		for m in $(bench_mods); do	# and the baseline module's (lib.sh)
			bench_use "$m" || { bad=$((bad + 1)); continue; }
			BENCH_PIN=0 BENCH_PATH_TIMING=1 measure "$tags" tprof 10000 \
				--max-frames 512 --save-raw @D@/raw -- \
				"$BW" spin 1 "$depth" "$units" || bad=$((bad + 1))
			tail -n1 "$BENCH_OUT/results.txt" | grep -q sample_path_calls= ||
				nostats=$((nostats + 1))
		done
		bench_use head
		case " $profs " in *" perf "*)
			BENCH_PIN=0 measure "$tags" none 0 -- "$BW" spin 1 "$depth" "$units" ||
				bad=$((bad + 1))
			BENCH_PIN=0 measure "$tags" perf 10000 -- \
				"$BW" spin 1 "$depth" "$units" || bad=$((bad + 1)) ;;
		esac
		BENCH_PIN=0 measure "$tags" none 0 -- "$BW" spin 1 "$depth" "$units" ||
			bad=$((bad + 1))
	done
done
[ $bad = 0 ] && ok "depth: every run completed" || fail "depth: $bad runs failed"
[ $nostats = 0 ] && ok "depth: STATS present in every saved stream" ||
	fail "depth: $nostats saved streams without STATS"
