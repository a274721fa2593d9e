# SPDX-License-Identifier: GPL-2.0
# A running loop to attach to (tests/cases/60-python.sh -p): busy_loop()
# forever, after "ready" on stdout.
import sys


def busy_loop():
    x = 0
    while True:
        x = (x * 31 + 7) % 1000003


print('ready', flush=True)
busy_loop()
