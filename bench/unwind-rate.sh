#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tprof-read's unwinding rate (host): the real snapshots `make unit`
# records (tests/unit/test_unwind.c, build/unit/unwind-*.raw), their
# SAMPLE+USTACK pairs repeated to SAMPLES samples, replayed through
# tprof-read --input in each mode (hybrid on every stream). Prints the
# unwinder's own time (-v) and the whole replay's rate per CPU second
# (user + system: reading, unwinding, aggregating, naming, writing), the
# one issue 23 sets at >= 500k samples/s for hybrid.
#   unwind-rate.sh [SAMPLES]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$root/build}
samples=${1:-200000}
tr=$build/tprof-read

# stream -> stream with its snapshot pairs repeated, times kept increasing;
# hybrid rows cut each snapshot to the 1024 bytes a hybrid session asks
# for (the streams were recorded as dwarf sessions record them, 8 KiB),
# except qsort:hybrid:full, which replays the 8 KiB snapshots in hybrid
repeat() {
	python3 "$root/bench/repeat-pairs.py" "$1" "$2" "$samples" 0 "$3"
}

TIMEFORMAT='%3U %3S'
for case in leaf:hybrid:1024 qsort:dwarf:0 qsort:hybrid:1024 \
	qsort:hybrid:0 cxx:dwarf:0 cxx:hybrid:1024 signal:hybrid:1024; do
	IFS=: read -r name mode cut <<< "$case"
	raw=$build/unit/unwind-$name.raw
	big=$build/bench/unwind-$name-$samples-$cut.raw
	[ -s "$raw" ] || { echo "$raw: run make unit first" >&2; exit 1; }
	mkdir -p "$build/bench"
	[ -s "$big" ] || repeat "$raw" "$big" "$cut"
	cat "$big" > /dev/null	# in the page cache: CPU, not the disk
	{ time "$tr" -v --call-graph "$mode" --input "$big" \
		-o "$build/bench/unwind.pb.gz" \
		2> "$build/bench/unwind.err"; } 2> "$build/bench/unwind.time"
	line=$(grep 'unwound' "$build/bench/unwind.err" || true)
	cpu=$(awk '{ print $1 + $2 }' "$build/bench/unwind.time")
	snap=$([ "$cut" = 0 ] && echo "as recorded" || echo "$cut-byte")
	echo "$name $mode ($snap snapshots): ${line#*debug: }; whole replay $cpu s CPU, $(echo "$samples / $cpu" | bc) samples/s"
done
