#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tprof-read's unwinding rate (host): the real snapshots `make unit`
# records (tests/unit/test_unwind.c, build/unit/unwind-*.raw), their
# SAMPLE+USTACK pairs repeated to SAMPLES samples, replayed through
# tprof-read --input in each mode. Prints the unwinder's own time (-v) and
# the whole replay's wall time.
#   unwind-rate.sh [SAMPLES]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$root/build}
samples=${1:-200000}
tr=$build/tprof-read

# stream -> stream with its snapshot pairs repeated, times kept increasing
repeat() {
	python3 "$root/bench/repeat-pairs.py" "$1" "$2" "$samples"
}

for case in leaf:hybrid qsort:dwarf qsort:hybrid cxx:dwarf signal:hybrid; do
	name=${case%%:*} mode=${case##*:}
	raw=$build/unit/unwind-$name.raw
	big=$build/bench/unwind-$name-$samples.raw
	[ -s "$raw" ] || { echo "$raw: run make unit first" >&2; exit 1; }
	mkdir -p "$build/bench"
	[ -s "$big" ] || repeat "$raw" "$big"
	start=$(date +%s.%N)
	line=$("$tr" -v --call-graph "$mode" --input "$big" \
		-o "$build/bench/unwind.pb.gz" 2>&1 | grep 'unwound' || true)
	end=$(date +%s.%N)
	echo "$name $mode: ${line#*debug: }; whole replay $(echo "$end - $start" | bc) s"
done
