#!/bin/bash
# timeout: 300
. "$TPROF_ROOT/tests/cases/lib.sh"
B=$TPROF_BUILD
"$B/tprof-read" --report --mode wall -F 250 --ring-bytes 2M -o /dev/null -- taskset -c 1,2 "$B/progs/offcpu" spin 3 300 > /dev/null 2> "$TPROF_OUT/two.err"
"$B/tprof-read" --report --mode off-cpu --ring-bytes 2M -o /dev/null -- "$B/progs/offcpu" spin 16 200 > /dev/null 2> "$TPROF_OUT/offonly.err"
"$B/tprof-read" --report --mode wall -F 1 --ring-bytes 2M -o /dev/null -- "$B/progs/offcpu" spin 16 200 > /dev/null 2> "$TPROF_OUT/f1.err"
ok "ran $?"
