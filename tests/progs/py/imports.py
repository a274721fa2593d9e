# SPDX-License-Identifier: GPL-2.0
# An import-heavy start (tests/cases/60-python.sh): writes argv[2]
# modules (default 150) into the directory argv[1], each of whose module
# body spins for argv[3] ms of CPU (default 8) in a loop of its own, then
# imports them all, one after the other. A module body runs once and its
# code object is freed right after: it must be named all the same
# (<module> of modN.py). Prints "imports <n> <ns> <bodies ns>": the CPU
# the imports used (reading, compiling, running) and the module bodies'
# own, each by the main thread's clock.
import os
import sys
import time

BODY = '''_t0 = __import__('time').thread_time_ns()
import builtins
import time
_end = time.thread_time() + %f
while time.thread_time() < _end:
    pass
VALUE = %d
builtins._mods_ns = getattr(builtins, '_mods_ns', 0) + \\
    time.thread_time_ns() - _t0
'''


def main():
    where = sys.argv[1]
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 150
    ms = float(sys.argv[3]) if len(sys.argv) > 3 else 8.0
    os.makedirs(where, exist_ok=True)
    for i in range(n):
        with open(os.path.join(where, 'mod%d.py' % i), 'w') as f:
            f.write(BODY % (ms / 1000.0, i))
    sys.path.insert(0, where)
    t0 = time.thread_time_ns()
    for i in range(n):
        __import__('mod%d' % i)
    import builtins
    print('imports %d %d %d' % (n, time.thread_time_ns() - t0,
                                builtins._mods_ns), flush=True)


main()
