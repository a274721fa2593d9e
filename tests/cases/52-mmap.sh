#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 300
# MMAP records (issue 13 item 9): the kprobe on perf_event_mmap() reports
# each executable mapping of the target once, with its file's identity,
# for anonymous, mprotect'ed, file and MAP_FIXED mappings, and nothing
# else (tests/kmod/mmap.c); 64- and 32-bit callers.
. "$TPROF_ROOT/tests/cases/lib.sh"
"$TPROF_BUILD/kmod-tests/tprof-ktest" mmap || fail "tprof-ktest mmap exited $?"
"$TPROF_BUILD/kmod-tests/tprof-ktest32" mmap || fail "tprof-ktest32 mmap exited $?"
