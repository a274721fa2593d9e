#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 1000000
# The worst user-memory walk a group member can describe, against a
# legitimate one of the same depth (256 frames), on the exact guest:
# tprof-ktest uwalk-bound (tests/kmod/uwalk.c) runs each for 1.5 s at its
# period with STATS path timing; STATS counts every user read of a sample
# exactly (uread_*), and the path's time is instruction-exact here.
# One results line per walk: exp=uwalk walk=legit|spread|codefault.
. "$TPROF_ROOT/bench/guest/lib.sh"
kt=$TPROF_BUILD/kmod-tests/tprof-ktest
ut=$TPROF_BUILD/kmod-tests/uwalktarget
[ -x "$kt" ] && [ -x "$ut" ] || { skip "uwalk: make kmod-tests first"; exit 0; }
"$kt" uwalk-bound "$ut" > /tmp/uwalk-bound.log 2>&1
rc=$?
sed 's/^/#   /' /tmp/uwalk-bound.log | grep -v '^#   ok' | head -n 20
# "# uwalk-bound NAME: samples S, ...; uread: samples S reads R faults F
#  page_checks P capped C, per sample at most M reads and X faults; path
#  N ns a sample"
sed -n 's/^# uwalk-bound \([a-z]*\): samples \([0-9]*\),.*reads \([0-9]*\) faults \([0-9]*\) page_checks \([0-9]*\).*at most \([0-9]*\) reads and \([0-9]*\) faults; path \([0-9]*\) ns.*/exp=uwalk walk=\1 samples=\2 reads=\3 faults=\4 page_checks=\5 max_reads=\6 max_faults=\7 path_ns=\8/p' \
	/tmp/uwalk-bound.log >> "$BENCH_OUT/results.txt"
n=$(grep -c '^exp=uwalk ' "$BENCH_OUT/results.txt")
[ "$rc" = 0 ] && [ "$n" -ge 3 ] && ok "uwalk: the three walks measured" ||
	fail "uwalk: tprof-ktest uwalk-bound exited $rc, $n walks measured"
