# SPDX-License-Identifier: GPL-2.0
# Four threads, each its own function (tests/cases/60-python.sh): prints
# "thread <native tid> <function>" for each, then they spin for the
# seconds given.
import sys
import threading
import time

secs = float(sys.argv[1]) if len(sys.argv) > 1 else 1.0


def spin():
    end = time.thread_time() + secs
    while time.thread_time() < end:
        pass


def work_one():
    spin()


def work_two():
    spin()


def work_three():
    spin()


def work_four():
    spin()


def start(f):
    t = threading.Thread(target=f, name=f.__name__)
    t.start()
    return t


ts = [start(f) for f in (work_one, work_two, work_three, work_four)]
for t in ts:
    print('thread %d %s' % (t.native_id, t.name), flush=True)
for t in ts:
    t.join()
