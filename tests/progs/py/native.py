# SPDX-License-Identifier: GPL-2.0
# C extensions under Python (tests/cases/60-python.sh): zlib.compress and
# hashlib.sha256 on large buffers (both release the GIL around the work),
# each called from its own Python function, and time.sleep under sleeper()
# for wall mode. Prints "sleep <ns>" of the time sleeper() slept.
import hashlib
import os
import sys
import time
import zlib

rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 20
buf = os.urandom(1 << 20) + bytes(1 << 20)


def compress_it():
    for _ in range(rounds):
        zlib.compress(buf, 6)


def hash_it():
    for _ in range(rounds * 4):
        hashlib.sha256(buf).digest()


def sleeper():
    t0 = time.monotonic_ns()
    time.sleep(0.3)
    print('sleep %d' % (time.monotonic_ns() - t0), flush=True)


compress_it()
hash_it()
sleeper()
