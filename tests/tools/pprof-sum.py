#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Totals of a gzipped pprof profile, by label and leaf function, for the
in-guest cases (no protobuf module needed: the wire format is decoded here).

Usage: pprof-sum.py FILE.pb.gz
Prints, for the first sample value (cpu nanoseconds):
  total NS
  process NAME NS            by the "process" label
  pid PID NS                 by the "pid" label
  leaf PROCESS FUNCTION NS   by process and innermost function
  func PROCESS FUNCTION NS   by process and any function on the stack
"""
import collections
import gzip
import sys


def varint(b, i):
    v = s = 0
    while True:
        c = b[i]
        i += 1
        v |= (c & 0x7F) << s
        s += 7
        if c < 0x80:
            return v, i


def fields(b):
    """(field, wire type, value) of one message; value bytes for type 2."""
    i = 0
    while i < len(b):
        key, i = varint(b, i)
        f, wt = key >> 3, key & 7
        if wt == 0:
            v, i = varint(b, i)
        elif wt == 2:
            n, i = varint(b, i)
            v = b[i:i + n]
            i += n
        elif wt == 1:
            v = int.from_bytes(b[i:i + 8], "little")
            i += 8
        elif wt == 5:
            v = int.from_bytes(b[i:i + 4], "little")
            i += 4
        else:
            raise ValueError("wire type %d" % wt)
        yield f, wt, v


def ints(wt, v):
    """A repeated integer field: packed (type 2) or one value."""
    if wt != 2:
        return [v]
    out, i = [], 0
    while i < len(v):
        x, i = varint(v, i)
        out.append(x)
    return out


def main():
    data = gzip.open(sys.argv[1]).read()
    strings, samples, locs, funcs = [], [], {}, {}
    for f, wt, v in fields(data):
        if f == 6:
            strings.append(v.decode("utf-8", "replace"))
        elif f == 2:
            samples.append(v)
        elif f == 4:
            lid, lines = 0, []
            for g, gwt, gv in fields(v):
                if g == 1:
                    lid = gv
                elif g == 4:
                    fid = 0
                    for h, _, hv in fields(gv):
                        if h == 1:
                            fid = hv
                    lines.append(fid)
            locs[lid] = lines
        elif f == 5:
            fid = name = 0
            for g, _, gv in fields(v):
                if g == 1:
                    fid = gv
                elif g == 2:
                    name = gv
            funcs[fid] = name
    by = collections.Counter()
    total = 0
    for sb in samples:
        locids, vals, labels = [], [], {}
        for f, wt, v in fields(sb):
            if f == 1:
                locids += ints(wt, v)
            elif f == 2:
                vals += ints(wt, v)
            elif f == 3:
                key = sv = num = 0
                for g, _, gv in fields(v):
                    if g == 1:
                        key = gv
                    elif g == 2:
                        sv = gv
                    elif g == 3:
                        num = gv
                labels[strings[key]] = strings[sv] if sv else str(num)
        if not vals:
            continue
        ns = vals[0]
        total += ns
        proc = labels.get("process", "-")
        by["process %s" % proc] += ns
        by["pid %s" % labels.get("pid", "-")] += ns
        names = []
        for lid in locids:
            for fid in locs.get(lid, []):
                names.append(strings[funcs.get(fid, 0)])
        by["leaf %s %s" % (proc, names[0] if names else "-")] += ns
        for n in set(names):
            by["func %s %s" % (proc, n)] += ns
    print("total %d" % total)
    for k in sorted(by):
        print("%s %d" % (k, by[k]))


if __name__ == "__main__":
    main()
