#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""usage: check-layers.py ROOT [LAYER...] -- the reader's layer rule.

ROOT's folders LAYER... are its layers, lowest first (userspace/build.mk's
US_LAYERS); files directly in ROOT (tprof-read.c) sit above them all. A
file may include its own folder's headers and those of the folders before
it, always by their path from ROOT ("model/maps.h"); includes that are not
ROOT's files (system, uapi, generated headers) are not looked at. With no
LAYER (kmod/, flat), only cycles are looked for. Prints
each upward or unknown include and each include cycle among units (x.c plus
x.h); exits 1 if there is any."""
import os
import re
import sys


def main():
    root, layers = sys.argv[1], sys.argv[2:]
    rank = {l: i for i, l in enumerate(layers)}
    top = len(layers)
    bad = []
    deps = {}
    for d, _, files in os.walk(root):
        for f in sorted(files):
            if not f.endswith(('.c', '.h')):
                continue
            path = os.path.join(d, f)
            rel = os.path.relpath(path, root)
            folder = os.path.dirname(rel)
            unit = rel[:-2]
            if not layers:
                for line in open(path, errors='replace'):
                    m = re.match(r'\s*#\s*include\s+"([^"]+)"', line)
                    for base in (os.path.dirname(path), root) if m else ():
                        t = os.path.join(base, m.group(1))
                        if os.path.exists(t):
                            v = os.path.relpath(t, root)[:-2]
                            if v != unit:
                                deps.setdefault(unit, set()).add(v)
                            break
                continue
            if folder and folder not in rank:
                bad.append(f"{rel}: folder {folder} is not a layer")
                continue
            mine = rank[folder] if folder else top
            for n, line in enumerate(open(path, errors='replace'), 1):
                m = re.match(r'\s*#\s*include\s+"([^"]+)"', line)
                if not m:
                    continue
                inc = m.group(1)
                if os.path.exists(os.path.join(root, inc)):
                    layer = os.path.dirname(inc)
                    if layer and layer not in rank:
                        bad.append(f"{rel}:{n}: {inc}: not in a layer")
                    elif (rank[layer] if layer else top) > mine:
                        bad.append(f"{rel}:{n}: {inc}: {layer} is above "
                                   f"{folder or 'the CLI'}")
                    if inc[:-2] != unit:
                        deps.setdefault(unit, set()).add(inc[:-2])
                elif os.path.exists(os.path.join(os.path.dirname(path), inc)) \
                        or os.path.exists(os.path.join(root, os.path.basename(inc))):
                    bad.append(f"{rel}:{n}: {inc}: include it by its path "
                               f"from {root}")
    cycles = set()

    def dfs(u, path):
        for v in deps.get(u, ()):
            if v in path:
                c = path[path.index(v):]
                i = c.index(min(c))
                cycles.add(tuple(c[i:] + c[:i]))
            elif len(path) < 16:
                dfs(v, path + [v])
    for u in list(deps):
        dfs(u, [u])
    bad += ["include cycle: " + " -> ".join(c + (c[0],)) for c in sorted(cycles)]
    for b in bad:
        print(b)
    if layers:
        print(f"{root}: {len(layers)} layers ({' < '.join(layers)}), "
              f"{len(bad)} problem(s)")
    else:
        print(f"{root}: {len(bad)} include cycle(s)")
    return 1 if bad else 0


sys.exit(main())
