# SPDX-License-Identifier: GPL-2.0
# Threads parked at known lines (tests/unit/test_python_live.c): a method,
# a <locals>.<lambda>, a non-ASCII name, a generator, sorted(key=) calling
# back into Python, a class body. Once all are parked, the target's own
# view, sys._current_frames(), goes to stdout, leaf first per thread:
#   T <native tid>
#   F <qualname>\t<co_filename>\t<co_firstlineno>\t<f_lineno>
# then END; the threads stay parked until the process is killed.
import sys
import threading
import time

parked = []


def park():
    parked.append(threading.get_native_id())
    while True:
        time.sleep(1000)


class K:
    def meth(self):
        park()


def t_method():
    K().meth()


def t_lambda():
    f = lambda: park()
    f()


def nonascii_é():
    park()


def gen():
    while True:
        park()
        yield 1


def t_generator():
    for _ in gen():
        pass


def t_sorted():
    sorted([2, 1], key=lambda x: park())


def t_class():
    class Body:
        park()


def main():
    targets = [t_method, t_lambda, nonascii_é, t_generator, t_sorted,
               t_class]
    threads = [threading.Thread(target=t, daemon=True) for t in targets]
    for t in threads:
        t.start()
    while len(parked) < len(targets):
        time.sleep(0.01)
    time.sleep(0.2)  # each into its sleep past the append
    frames = sys._current_frames()
    out = []
    for t in threads:
        out.append('T %d' % t.native_id)
        f = frames[t.ident]
        while f:
            co = f.f_code
            out.append('F %s\t%s\t%d\t%d' % (co.co_qualname, co.co_filename,
                                            co.co_firstlineno, f.f_lineno))
            f = f.f_back
    out.append('END')
    sys.stdout.write('\n'.join(out) + '\n')
    sys.stdout.flush()
    while True:
        time.sleep(1000)


main()
