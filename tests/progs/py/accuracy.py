# SPDX-License-Identifier: GPL-2.0
# Three functions of known cost (tests/cases/60-python.sh): each measures
# its own CPU time with time.thread_time_ns() around its work and prints
#   cost <qualname> <ns> <hot line>
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
        report('Work.alpha', t0, 'HOT-alpha')
        return s


def beta(n):
    t0 = time.thread_time_ns()
    s = 0
    while n:
        n -= 1  # HOT-beta
    report('beta', t0, 'HOT-beta')
    return s


def gamma(n):
    t0 = time.thread_time_ns()
    inner = lambda k: sum(range(k))  # HOT-gamma
    s = 0
    for _ in range(n):
        s += inner(1000)
    report('gamma.<locals>.<lambda>', t0, 'HOT-gamma', outer='gamma')
    return s


def report(name, t0, marker, outer=None):
    ns = time.thread_time_ns() - t0
    print('cost %s %d %d %s' % (outer or name, ns, line_of(marker), name),
          flush=True)


def main():
    scale = float(sys.argv[1]) if len(sys.argv) > 1 else 1.0
    Work().alpha(int(6e6 * scale))
    beta(int(1.2e7 * scale))
    gamma(int(2.5e4 * scale))


main()
