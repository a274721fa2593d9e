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
	python3 - "$1" "$2" "$samples" <<'EOF'
import struct, sys
src, dst, want = sys.argv[1], sys.argv[2], int(sys.argv[3])
data = open(src, 'rb').read()
head, pairs, off = [], [], 0
while off < len(data):
    typ, flags, size, t = struct.unpack_from('<HHIQ', data, off)
    rec = data[off:off + size]
    if typ == 1 and flags & 0x8000:
        n2 = struct.unpack_from('<I', data, off + size + 4)[0]
        pairs.append(rec + data[off + size:off + size + n2])
        off += size + n2
        continue
    if typ != 9:
        head.append(rec)
    off += size
with open(dst, 'wb') as f:
    f.write(b''.join(head))
    t = 1 << 40
    for i in range(want):
        p = bytearray(pairs[i % len(pairs)])
        t += 1000
        s1 = struct.unpack_from('<I', p, 4)[0]
        struct.pack_into('<Q', p, 8, t)
        struct.pack_into('<Q', p, s1 + 8, t)
        f.write(p)
EOF
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
