# SPDX-License-Identifier: GPL-2.0
# Four threads, each its own function (tests/cases/60-python.sh): prints
# "thread <native tid> <function>" for each, then they spin for the
# seconds given, then "cpu <native tid> <function> <ns>": the CPU each
# function used, by its own thread's clock.
import sys
import threading
import time

secs = float(sys.argv[1]) if len(sys.argv) > 1 else 1.0


cpu = {}


def spin():
    """Spin for secs of this thread's CPU; note the CPU the caller used
    (from its first line to its last: the work, not the thread's start
    and end, which are the interpreter's and libc's)."""
    t0 = time.thread_time_ns()
    end = time.thread_time() + secs
    while time.thread_time() < end:
        pass
    cpu[threading.current_thread().name] = time.thread_time_ns() - t0


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
for t in ts:
    print('cpu %d %s %d' % (t.native_id, t.name, cpu[t.name]), flush=True)
