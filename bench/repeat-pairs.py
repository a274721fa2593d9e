#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""usage: repeat-pairs.py SRC DST SAMPLES [SNAPS [SNAP_BYTES]]

A recorded stream (build/unit/unwind-*.raw) -> one of SAMPLES samples: its
SAMPLE+USTACK pairs repeated, times kept increasing, its other records
(LOST excepted) first; with SNAPS, that many copies of its first MAPS
record spread over the samples (one every SAMPLES/SNAPS). For
bench/unwind-rate.sh and bench/maps-snapshots.sh. With SNAP_BYTES, each
USTACK keeps only the first SNAP_BYTES of its stack, as a session that
asked for that many would have recorded it (hybrid asks for 1024)."""
import struct
import sys

src, dst, want = sys.argv[1], sys.argv[2], int(sys.argv[3])
nsnap = int(sys.argv[4]) if len(sys.argv) > 4 else 0
cut = int(sys.argv[5]) if len(sys.argv) > 5 else 0


def cut_ustack(u):
    """A USTACK record (struct tprof_rec_ustack, 176 bytes, then the
    stack) as a session asking for cut bytes would have written it."""
    req, have = struct.unpack_from('<II', u, 168)
    req, have = min(req, cut), min(have, cut)
    out = bytearray(u[:176 + have])
    out += bytes(-len(out) % 8)
    struct.pack_into('<I', out, 4, len(out))
    struct.pack_into('<II', out, 168, req, have)
    return bytes(out)

data = open(src, 'rb').read()
head, pairs, maps, off = [], [], None, 0
while off < len(data):
    typ, flags, size, t = struct.unpack_from('<HHIQ', data, off)
    rec = data[off:off + size]
    if typ == 1 and flags & 0x8000:     # SAMPLE with TPROF_RF_GROUP
        n2 = struct.unpack_from('<I', data, off + size + 4)[0]
        u = data[off + size:off + size + n2]
        pairs.append(rec + (cut_ustack(u) if cut else u))
        off += size + n2
        continue
    if typ == 0xF002 and maps is None:  # TPROF_UREC_MAPS
        maps = rec
    if typ != 9:                        # TPROF_REC_LOST
        head.append(rec)
    off += size
every = want // nsnap if nsnap else 0
with open(dst, 'wb') as f:
    f.write(b''.join(head))
    t = 1 << 40
    for i in range(want):
        if every and i % every == 0:
            m = bytearray(maps)
            t += 1000
            struct.pack_into('<Q', m, 8, t)
            f.write(m)
        p = bytearray(pairs[i % len(pairs)])
        t += 1000
        s1 = struct.unpack_from('<I', p, 4)[0]
        struct.pack_into('<Q', p, 8, t)
        struct.pack_into('<Q', p, s1 + 8, t)
        f.write(p)
