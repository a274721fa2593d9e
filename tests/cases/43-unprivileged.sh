#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 300
# tprof-read without privileges: with /dev/tprof opened up (as the udev rule
# does for group tprof), a user profiles a command it runs itself, through
# the module's ptrace-read proof (an open /proc/PID/auxv), and is refused on
# another user's process with a message that says why.
. "$TPROF_ROOT/tests/cases/lib.sh"
tr=$TPROF_BUILD/tprof-read
mode=$(stat -c %a /dev/tprof)
chmod 0666 /dev/tprof
trap 'chmod "$mode" /dev/tprof; kill "$victim" 2>/dev/null' EXIT
as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }

out=$PWD/nobody.pb.gz
chmod 0777 "$PWD"
if as_nobody "$tr" --report -o "$out" -- "$TPROF_BUILD/lab/lab-work" shares 200 \
	2> err.txt && [ -s "$out" ]; then
	ok "an unprivileged user profiles its own command"
else
	fail "an unprivileged user profiles its own command"
	sed 's/^/    /' err.txt
fi
if [ -s "$out" ] && go tool pprof -top "$out" > top.txt 2>&1 && grep -q mix top.txt; then
	ok "its profile is read by go tool pprof, hot function mix present"
else
	fail "its profile is read by go tool pprof, hot function mix present"
fi

sleep 300 &
victim=$!
if as_nobody "$tr" -p "$victim" -d 1 -o "$PWD/denied.pb.gz" 2> err2.txt; then
	fail "an unprivileged user is refused on root's process"
else
	ok "an unprivileged user is refused on root's process"
fi
if grep -qiE '^tprof-read: .*(permission|not permitted|denied)' err2.txt; then
	ok "the refusal is one clear line: $(head -n1 err2.txt)"
else
	fail "the refusal is one clear line (got: $(head -n1 err2.txt))"
fi
if [ -e "$PWD/denied.pb.gz" ]; then
	fail "no profile is written when refused"
else
	ok "no profile is written when refused"
fi
