# SPDX-License-Identifier: GPL-2.0
# Deep recursion (tests/cases/60-python.sh): main() calls rec() DEPTH
# frames deep (argv[1], default 900), whose innermost frame spins for
# argv[2] seconds of its thread's CPU; prints "deep <depth> <ns>", the
# CPU of the whole call of rec() by its thread's own clock: the way down
# and back up too, where samples (deep ones cost the most) also see rec().
# A walk cut at the module's frame cap must mark the cut with [truncated],
# keep main and <module> outside the outermost rec(), and never name a
# native frame as the caller of rec().
import sys
import time

sys.setrecursionlimit(20000)


def rec(n, secs):
    if n:
        return rec(n - 1, secs)
    end = time.thread_time() + secs
    while time.thread_time() < end:
        pass
    return 0


def main():
    depth = int(sys.argv[1]) if len(sys.argv) > 1 else 900
    secs = float(sys.argv[2]) if len(sys.argv) > 2 else 1.0
    t0 = time.thread_time_ns()
    rec(depth, secs)
    print('deep %d %d' % (depth, time.thread_time_ns() - t0), flush=True)


main()
