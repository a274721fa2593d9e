# SPDX-License-Identifier: GPL-2.0
# Eight busy threads (tests/cases/60-python.sh): each spins in spin() for
# argv[1] seconds of its own CPU, then prints "cpu <native tid> busy_<i>
# <ns>", the CPU spin() used by its thread's clock. The ring sizes are chosen so that none of their samples
# is lost.
import sys
import threading
import time

secs = float(sys.argv[1]) if len(sys.argv) > 1 else 1.0
out = []


def spin(name):
    t0 = time.thread_time_ns()
    end = time.thread_time() + secs
    while time.thread_time() < end:
        pass
    out.append('cpu %d %s %d' % (threading.get_native_id(), name,
                                 time.thread_time_ns() - t0))


threads = [threading.Thread(target=spin, args=('busy_%d' % i,))
           for i in range(8)]
for t in threads:
    t.start()
for t in threads:
    t.join()
print('\n'.join(out), flush=True)
