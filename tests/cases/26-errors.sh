#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 300
# Every error path as root, then an unprivileged user (setpriv): denied on
# another user's process, allowed on its own with the /proc/PID/auxv proof.
. "$TPROF_ROOT/tests/cases/lib.sh"
kt=$TPROF_BUILD/kmod-tests/tprof-ktest
"$kt" errors || fail "tprof-ktest errors exited $?"

if ! command -v setpriv >/dev/null; then
	skip "unprivileged ENABLE: setpriv not installed"
	exit 0
fi
sleep 300 &
rootpid=$!
mode=$(stat -c %a /dev/tprof)
chmod 0666 /dev/tprof
cp "$kt" ./tprof-ktest && chmod 0755 . ./tprof-ktest
setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
	./tprof-ktest unpriv "$rootpid" || fail "tprof-ktest unpriv exited $?"
chmod "$mode" /dev/tprof
kill "$rootpid"
wait "$rootpid" 2>/dev/null
exit 0
