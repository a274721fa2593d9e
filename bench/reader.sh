#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Reader benchmark (host): SAMPLES samples over 10,000 distinct 30-frame
# stacks (gen-stream) replayed through tprof-read --input, symbolized and
# with --no-symbolize, 3 runs each; CPU time, wall time and peak RSS of
# tprof-read appended to OUT as key=value lines.
#   reader.sh OUT SAMPLES
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$root/build}
out=$1 samples=$2
bw=$build/bench/bench-work
stream=$build/bench/stream-$samples.raw
# addresses fall in tprof-read's own text, so symbolization is real work
if [ ! -s "$stream" ]; then
	"$build/bench/gen-stream" "$stream.tmp" "$samples" 10000 30 \
		"$build/tprof-read" && mv "$stream.tmp" "$stream" || exit 1
fi
: > "$out"
rc=0
for rep in 1 2 3; do
	for mode in symbolize no-symbolize; do
		args=()
		[ $mode = no-symbolize ] && args=(--no-symbolize)
		res=$(mktemp)
		"$bw" run "$res" -- "$build/tprof-read" "${args[@]}" --input "$stream" \
			-o "$build/bench/reader.pb.gz" || rc=1
		echo "exp=reader mode=$mode rep=$rep samples=$samples stacks=10000 depth=30" \
			"bytes=$(stat -c %s "$stream") $(cat "$res")" >> "$out"
		tail -n1 "$out"
		rm -f "$res"
	done
done
ls -l "$build/bench/reader.pb.gz" >&2
[ "${BENCH_KEEP_STREAM:-0}" = 1 ] || rm -f "$stream"
exit $rc
