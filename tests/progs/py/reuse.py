# SPDX-License-Identifier: GPL-2.0
# A code object freed and its memory reused by another
# (tests/unit/test_python_live.c): prints "C <id(code)> <id(co_filename)>
# <id(co_qualname)> <qualname> <co_filename>" of a fresh function, waits
# for a line on stdin, drops it and compiles new unique functions until
# one's code object lands at the same address, prints that one's line the
# same way, and waits for a line. Then the same source under other file
# names: one function "same" (its qualname interned: one pointer for all)
# compiled as same0.py, printed, dropped, then compiled as sameN.py until
# a code object lands at the first one's address with the same qualname
# pointer, printed; waits to be killed.
import sys


def make(i, src=None, name=None):
    ns = {}
    exec(compile(src or 'def uniq_%d():\n    return %d\n' % (i, i),
                 name or 'gen%d.py' % i, 'exec'), ns)
    return ns['same' if src else 'uniq_%d' % i]


def show(f):
    co = f.__code__
    print('C %d %d %d %s %s' % (id(co), id(co.co_filename),
                                id(co.co_qualname), co.co_qualname,
                                co.co_filename), flush=True)


def reuse(first, again, same_qualname):
    f = first()
    show(f)
    old = id(f.__code__)
    qn = id(f.__code__.co_qualname)
    sys.stdin.readline()
    del f
    keep = []
    for i in range(1, 200000):
        g = again(i)
        if id(g.__code__) == old and (
                not same_qualname or id(g.__code__.co_qualname) == qn):
            show(g)
            return
        keep.append(g)  # not freed: the next one cannot take their memory
    print('NOREUSE', flush=True)


reuse(lambda: make(0), make, False)
sys.stdin.readline()
SRC = 'def same():\n    return 1\n'
reuse(lambda: make(0, SRC, 'same0.py'),
      lambda i: make(i, SRC, 'same%d.py' % i), True)
sys.stdin.readline()
