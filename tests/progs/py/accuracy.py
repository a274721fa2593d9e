# SPDX-License-Identifier: GPL-2.0
# Three functions of known cost (tests/cases/60-python.sh): each measures
# its own CPU time with time.thread_time_ns() from its first line to its
# return, and main() prints
#   cost <function> <ns> <hot line> <qualname of the hot line's frame>
# (the hot line: the line its loop spends its time on, found by its
# marker). Called from main(), one after the other, in the main thread.
import sys
import time


def line_of(marker):
    with open(__file__) as f:
        for n, text in enumerate(f, 1):
            if text.rstrip().endswith('# ' + marker):
                return n
    return 0


class Work:
    def alpha(self, n):
        t0 = time.thread_time_ns()
        s = 0
        for i in range(n):
            s += i * i  # HOT-alpha
        return time.thread_time_ns() - t0


def beta(n):
    t0 = time.thread_time_ns()
    s = 0
    while n:
        n -= 1  # HOT-beta
    return time.thread_time_ns() - t0


def gamma(n):
    t0 = time.thread_time_ns()
    inner = lambda k: sum(range(k))  # HOT-gamma
    s = 0
    for _ in range(n):
        s += inner(1000)
    return time.thread_time_ns() - t0


def main():
    scale = float(sys.argv[1]) if len(sys.argv) > 1 else 1.0
    costs = [('Work.alpha', Work().alpha(int(6e6 * scale)), 'HOT-alpha',
              'Work.alpha'),
             ('beta', beta(int(1.2e7 * scale)), 'HOT-beta', 'beta'),
             ('gamma', gamma(int(2.5e4 * scale)), 'HOT-gamma',
              'gamma.<locals>.<lambda>')]
    for fn, ns, marker, frame in costs:
        print('cost %s %d %d %s' % (fn, ns, line_of(marker), frame))


main()
