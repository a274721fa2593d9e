# SPDX-License-Identifier: GPL-2.0
# Four threads, each its own function (tests/cases/60-python.sh): prints
# "thread <native tid> <function>" for each, then they spin for the
# seconds given, then "cpu <native tid> <function> <ns>": the CPU each
# function used, by its own thread's clock (read just before it is
# called and at its end).
import sys
import threading
import time

secs = float(sys.argv[1]) if len(sys.argv) > 1 else 1.0


cpu = {}


def spin(t0):
    """Spin for secs of this thread's CPU; note the CPU used since t0,
    read by timed() before it called this thread's work_* function."""
    end = time.thread_time() + secs
    while time.thread_time() < end:
        pass
    # Give the GIL up and take it back here, inside the window: the wait
    # for it is CPU under this frame (take_gil's timed waits), and a
    # thread that has just taken it is asked to drop it no sooner than a
    # switch interval (5 ms) later, past the clock read and the returns.
    # Without it, 3.12 and 3.13 handled a drop request in work_*'s frame
    # after spin() returned: 15-31 ms of take_gil under work_* and
    # outside the window (+3-6%, in one thread of each run).
    time.sleep(0)
    cpu[threading.current_thread().name] = time.thread_time_ns() - t0


def work_one(t0):
    spin(t0)


def work_two(t0):
    spin(t0)


def work_three(t0):
    spin(t0)


def work_four(t0):
    spin(t0)


def timed(f):
    """The thread's target: f's CPU from just before f is entered. The
    GIL is taken afresh first (as in spin), so that no drop request is
    handled between the clock read and f's first line."""
    time.sleep(0)
    f(time.thread_time_ns())


def start(f):
    t = threading.Thread(target=timed, args=(f,), name=f.__name__)
    t.start()
    return t


ts = [start(f) for f in (work_one, work_two, work_three, work_four)]
for t in ts:
    print('thread %d %s' % (t.native_id, t.name), flush=True)
for t in ts:
    t.join()
for t in ts:
    print('cpu %d %s %d' % (t.native_id, t.name, cpu[t.name]), flush=True)
