#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The bias lab's runner: every workload under every profiler, in one machine
# (normally the QEMU guest, see lab/bias.sh). For each run it keeps the
# workload's truth file (kernel-accounted CPU per thread, rusage) and the
# profiler's per-thread sampled CPU, as TSV files that lab/analyze.py reads.
#   run-lab.sh OUTDIR
# Env: LAB_HZ ("100 1000"), LAB_THREADS ("1 2 4 8 16"), LAB_PROFILERS
#      ("tprof perf sigprof gopprof"), LAB_UNITS (serial-parallel work, 400),
#      LAB_QUICK=1 (the gate subset: 8 threads, 1 kHz, tprof only),
#      LAB_RING (tprof's --ring-bytes; the gate subset: 1M),
#      LAB_C=0 (only the Go workload).
# Output per run, in OUTDIR/RUN/: truth.tsv, sampled.tsv (tid, ns, samples),
# meta (workload, variant, profiler, hz), and the profiler's own files.
set -uo pipefail
out=$1
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${TPROF_BUILD:-$root/build}
lab=$bin/lab
hzs=${LAB_HZ:-100 1000}
threads=${LAB_THREADS:-1 2 4 8 16}
profilers=${LAB_PROFILERS:-tprof perf sigprof gopprof}
units=${LAB_UNITS:-400}
if [ "${LAB_QUICK:-0}" = 1 ]; then
	# Enough work that every thread gets > 1000 samples at 1 kHz, even
	# when late timers (TCG) fold several periods into one sample: 9000
	# units gave the serial thread 988 ms on 6.1 in a quiet warm CI run
	# (plain TCG: the faster the host, the less CPU a unit takes), and the
	# per-thread gate had no thread to check.
	hzs=1000 threads=8 profilers=tprof units=${LAB_UNITS:-12000}
	# Under plain TCG a busy host slows the guest's instructions, not its
	# timers: the reader then drains the rings later than on hardware, and
	# 256 KiB (about 0.25 s of one busy CPU's samples here) lost 625 of
	# ~70,000 samples in one CI run. The gates measure bias, not the
	# default rings' slack: 1 MiB.
	LAB_RING=${LAB_RING:-1M}
fi
mkdir -p "$out"

# sampled.tsv from a pprof profile with tid labels (tprof).
pprof_by_tid() {	# PROFILE > sampled.tsv
	"$lab/pprofsum" -func '[lost]' "$1" |
		awk -F'\t' '$1 == "tid" { print $2 "\t" $3 "\t" $4 }
			    $1 == "func" { print "lost\t" $3 "\t" $4 }'
}

# One workload under one profiler. The command is in "$@".
run_one() {	# NAME VARIANT PROFILER HZ CMD...
	local name=$1 variant=$2 prof=$3 hz=$4 dir period
	shift 4
	dir=$out/$name-$variant-$prof-$hz
	period=$((1000000000 / hz))
	rm -rf "$dir" && mkdir -p "$dir"
	printf 'workload\t%s\nvariant\t%s\nprofiler\t%s\nhz\t%s\n' \
		"$name" "$variant" "$prof" "$hz" > "$dir/meta"
	export LAB_TRUTH=$dir/truth.tsv
	case $prof in
	tprof)
		"$bin/tprof-read" -F "$hz" ${LAB_RING:+--ring-bytes "$LAB_RING"} \
			--report -o "$dir/profile.pb.gz" -- "$@" \
			> "$dir/stdout" 2> "$dir/report.txt" &&
			pprof_by_tid "$dir/profile.pb.gz" > "$dir/sampled.tsv"
		;;
	perf)
		perf record -q -e task-clock -c "$period" -o "$dir/perf.data" -- "$@" \
			> "$dir/stdout" 2> "$dir/perf.log" &&
			perf script -i "$dir/perf.data" -F tid,period 2>> "$dir/perf.log" |
			awk '{ ns[$1] += $2; n[$1]++ } END { for (t in ns) printf "%s\t%.0f\t%d\n", t, ns[t], n[t] }' \
			> "$dir/sampled.tsv"
		;;
	sigprof)
		SIGPROF_HZ=$hz SIGPROF_OUT=$dir/sigprof.out LD_PRELOAD=$lab/sigprof.so "$@" \
			> "$dir/stdout" 2>&1 &&
			awk -v p="$period" '$1 == "lost" { printf "lost\t%.0f\t%d\n", $2 * p, $2; next }
				{ printf "%s\t%.0f\t%d\n", $1, $2 * p, $2 }' "$dir/sigprof.out" > "$dir/sampled.tsv"
		;;
	gopprof)
		LAB_GO_CPUPROFILE=$dir/profile.pb.gz LAB_GO_HZ=$hz "$@" > "$dir/stdout" 2>&1
		;;
	esac
	local rc=$?
	[ $rc = 0 ] || echo "run-lab: $name-$variant under $prof at $hz Hz failed ($rc)" >&2
	# Go's phases are functions, not threads: sum the profile by function.
	if [ "$name" = go ] && [ -s "$dir/profile.pb.gz" ]; then
		"$lab/pprofsum" -func main.serialPhase,main.parallelPhase.func1 \
			"$dir/profile.pb.gz" > "$dir/funcs.tsv"
	fi
	return $rc
}

have() {
	case $1 in
	tprof) [ -x "$bin/tprof-read" ] && [ -c /dev/tprof ] ;;
	perf) command -v perf > /dev/null ;;
	*) return 0 ;;
	esac
}

rc=0
ncpu=$(nproc)
for hz in $hzs; do
	for prof in $profilers; do
		have "$prof" || { echo "run-lab: $prof not available, skipped" >&2; continue; }
		if [ "$prof" != gopprof ] && [ "${LAB_C:-1}" = 1 ]; then
			for n in $threads; do
				run_one serial-parallel "t$n" "$prof" "$hz" \
					"$lab/lab-work" serial-parallel "$n" "$units" || rc=1
			done
			[ "${LAB_QUICK:-0}" = 1 ] && {
				run_one churn c2000 "$prof" "$hz" "$lab/lab-work" churn 2000 1 || rc=1
				continue
			}
			run_one shares s "$prof" "$hz" "$lab/lab-work" shares "$units" || rc=1
			run_one churn c2000 "$prof" "$hz" "$lab/lab-work" churn 2000 1 || rc=1
			run_one mixed m8 "$prof" "$hz" "$lab/lab-work" mixed 8 200 1 || rc=1
		fi
		# Go: tprof and Go's own profiler (100 Hz only: StartCPUProfile's
		# rate). The static Go binary ignores LD_PRELOAD, and perf's view
		# is the same clock as tprof's.
		case $prof in perf|sigprof) continue ;; esac
		[ "$prof" = gopprof ] && [ "$hz" != 100 ] && continue
		GOMAXPROCS=$ncpu run_one go "p$ncpu" "$prof" "$hz" "$lab/labgo" $((units * 4)) || rc=1
	done
done
exit $rc
