# SPDX-License-Identifier: GPL-2.0
# accuracy.py, then threads.py, in one interpreter: one tprof-read run
# for both checks (tests/cases/60-python.sh's other interpreters, whose
# 31 MB libpython with its debug info took about 25 s a run to symbolize
# under TCG before object/scopes.c). Arguments: accuracy.py's scale,
# threads.py's seconds.
import os
import runpy
import sys

here = os.path.dirname(os.path.abspath(__file__))
scale, secs = sys.argv[1], sys.argv[2]
for name, arg in (("accuracy.py", scale), ("threads.py", secs)):
    sys.argv = [os.path.join(here, name), arg]
    runpy.run_path(sys.argv[0], run_name="__main__")
    sys.stdout.flush()
