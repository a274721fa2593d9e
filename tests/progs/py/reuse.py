# SPDX-License-Identifier: GPL-2.0
# A code object freed and its memory reused by another
# (tests/unit/test_python_live.c): prints "C <id(code)> <id(co_qualname)>
# <qualname>" of a fresh function, waits for a line on stdin, drops it and
# compiles new unique functions until one's code object lands at the same
# address, prints that one's line the same way, and waits to be killed.
import sys


def make(i):
    ns = {}
    exec(compile('def uniq_%d():\n    return %d\n' % (i, i),
                 'gen%d.py' % i, 'exec'), ns)
    return ns['uniq_%d' % i]


def show(f):
    co = f.__code__
    print('C %d %d %s' % (id(co), id(co.co_qualname), co.co_qualname),
          flush=True)


f = make(0)
show(f)
old = id(f.__code__)
sys.stdin.readline()
del f
keep = []
for i in range(1, 200000):
    g = make(i)
    if id(g.__code__) == old:
        show(g)
        break
    keep.append(g)  # not freed: the next one cannot take their memory
else:
    print('NOREUSE', flush=True)
sys.stdin.readline()
