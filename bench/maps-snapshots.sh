#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tprof-read's unwinding rate against the number of maps snapshots (host;
# issue 23: a JIT runtime's or a process tree's long session reads the
# maps thousands of times). The real snapshots `make unit` records
# (build/unit/unwind-leaf.raw), their SAMPLE+USTACK pairs repeated to
# SAMPLES samples, replayed with --call-graph hybrid: once with the
# stream's own MAPS record, and once with SNAPS more copies of it spread
# over the samples (one every SAMPLES/SNAPS, times increasing), in the same
# run. Prints both rates (the unwinder's own, from -v, and the whole
# replay's: samples / CPU time, user + system) and their ratios; exits 1 if
# either is more than 2x slower with SNAPS snapshots.
#   maps-snapshots.sh [SAMPLES [SNAPS]]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$root/build}
samples=${1:-200000}
snaps=${2:-10000}
tr=$build/tprof-read
raw=$build/unit/unwind-leaf.raw
[ -s "$raw" ] || { echo "$raw: run make unit first" >&2; exit 1; }
mkdir -p "$build/bench"

# stream -> stream with its snapshot pairs repeated, and nsnap copies of
# its (first) MAPS record among them
gen() {
	python3 "$root/bench/repeat-pairs.py" "$raw" "$1" "$samples" "$2"
}

declare -A rate urate
for n in 0 "$snaps"; do
	big=$build/bench/maps-snapshots-$samples-$n.raw
	[ -s "$big" ] || gen "$big" "$n"
	cat "$big" > /dev/null	# in the page cache: CPU, not the disk
	/usr/bin/time -o "$build/bench/maps-snapshots.time" -f "%U %S" \
		"$tr" -v --call-graph hybrid --input "$big" \
		-o "$build/bench/maps-snapshots.pb.gz" \
		2> "$build/bench/maps-snapshots.err" || true
	line=$(grep 'unwound' "$build/bench/maps-snapshots.err" || true)
	cpu=$(tail -n1 "$build/bench/maps-snapshots.time" | awk '{ print $1 + $2 }')
	rate[$n]=$(echo "$samples / $cpu" | bc)
	urate[$n]=$(echo "$line" | sed -n 's/.*(\([0-9]*\)\/s).*/\1/p')
	echo "leaf hybrid, $n extra snapshots: ${line#*debug: }; whole replay $cpu s CPU, ${rate[$n]} samples/s"
	rm -f "$big"
done
ratio=$(echo "scale=2; ${rate[0]} / ${rate[$snaps]}" | bc)
uratio=$(echo "scale=2; ${urate[0]} / ${urate[$snaps]}" | bc)
echo "slowdown with $snaps snapshots: whole replay ${ratio}x, unwinder ${uratio}x (at most 2x)"
[ "$(echo "$ratio <= 2 && $uratio <= 2" | bc)" = 1 ]
