#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 1200
# `make demo`: profile the bundled multi-threaded workload (the bias lab's
# serial-then-parallel program) from its first instruction with tprof-read.
. "$TPROF_ROOT/tests/cases/lib.sh"
if "$TPROF_BUILD/tprof-read" -F 1000 --report -o "$TPROF_OUT/demo.pb.gz" -- \
	"$TPROF_BUILD/lab/lab-work" serial-parallel "$NCPU" 400 2> "$TPROF_OUT/report.txt"; then
	ok "tprof-read profiled lab-work serial-parallel $NCPU 400"
else
	fail "tprof-read profiled lab-work serial-parallel $NCPU 400"
fi
sed 's/^/# /' "$TPROF_OUT/report.txt"
