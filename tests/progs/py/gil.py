# SPDX-License-Identifier: GPL-2.0
# Who holds the GIL (tests/cases/71-waker-stacks.sh): thread A runs a
# CPU-bound Python function, hog(), for the seconds given; thread B loops
# on a short sleep and a little Python work (nap()), so after each sleep
# it waits for the GIL that A holds (take_gil), and A's drop_gil() wakes
# it. Prints "hog <native tid>" and "nap <native tid> <rounds>" once both
# are done.
import sys
import threading
import time

secs = float(sys.argv[1]) if len(sys.argv) > 1 else 2.0
done = threading.Event()
tids = {}


def hog():
    tids["hog"] = threading.get_native_id()
    end = time.thread_time() + secs
    n = 0
    while time.thread_time() < end:
        n += 1
    done.set()
    return n


def nap():
    tids["nap"] = threading.get_native_id()
    rounds = 0
    while not done.is_set():
        time.sleep(0.001)
        sum(range(50))
        rounds += 1
    return rounds


result = {}
a = threading.Thread(target=hog)
b = threading.Thread(target=lambda: result.setdefault("rounds", nap()))
a.start()
b.start()
a.join()
b.join()
print("hog", tids["hog"])
print("nap", tids["nap"], result["rounds"])
