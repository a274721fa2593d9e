#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 300
# The test client built -m32: every ioctl and read() through compat_ioctl
# and a 32-bit reader.
. "$TPROF_ROOT/tests/cases/lib.sh"
set -o pipefail
kt32=$TPROF_BUILD/kmod-tests/tprof-ktest32
"$kt32" </dev/null >/dev/null 2>&1
if [ $? -ne 2 ]; then	# usage error: it ran
	fail "-m32 test client runs in the guest (IA32 emulation)"
	exit 0
fi
"$kt32" errors | sed 's/^\(\(not \)\{0,1\}ok - \)/\1m32 /' || fail "tprof-ktest32 errors failed"
"$kt32" multi 2 | sed 's/^\(\(not \)\{0,1\}ok - \)/\1m32 /' || fail "tprof-ktest32 multi 2 failed"
