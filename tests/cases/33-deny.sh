#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 600
# An unprivileged session gets no sample once its target stops being
# profilable, and ends with a DENIED record saying why: a setuid-root exec
# racing ENABLE (large rings widen the window), an exec of a 0711 root
# binary, prctl(PR_SET_DUMPABLE, 0) (public code sampled before it as the
# control), an exec of a file with capabilities (a secure exec that keeps
# the ids). Then tprof-read's one line for it.
. "$TPROF_ROOT/tests/cases/lib.sh"
kt=$TPROF_BUILD/kmod-tests/tprof-ktest
mode=$(stat -c %a /dev/tprof)
chmod 0666 /dev/tprof
trap 'chmod "$mode" /dev/tprof' EXIT
# The guest's /tmp is a tmpfs without nosuid: setuid works there.
install -o root -g root -m 4755 "$TPROF_BUILD/kmod-tests/secret" ./secret-suid
install -o root -g root -m 0711 "$TPROF_BUILD/kmod-tests/secret" ./secret-0711
install -m 0755 "$kt" ./tprof-ktest
chmod 0755 .
as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all "$@"; }

prlimit --memlock=unlimited:unlimited setpriv --reuid=65534 --regid=65534 \
	--clear-groups --inh-caps=-all ./tprof-ktest deny setuid "$PWD/secret-suid" ||
	fail "tprof-ktest deny setuid exited $?"
as_nobody ./tprof-ktest deny 0711 "$PWD/secret-0711" ||
	fail "tprof-ktest deny 0711 exited $?"
as_nobody ./tprof-ktest deny prctl || fail "tprof-ktest deny prctl exited $?"
# A secure exec that keeps the ids (file capabilities; an LSM domain
# change is another): denied where its credentials are committed.
install -m 0755 "$TPROF_BUILD/kmod-tests/secret" ./secret-caps
if command -v setcap > /dev/null && setcap cap_net_raw+ep ./secret-caps; then
	as_nobody ./tprof-ktest deny caps "$PWD/secret-caps" ||
		fail "tprof-ktest deny caps exited $?"
else
	skip "deny caps: no setcap, or /tmp keeps no file capabilities"
fi

# tprof-read says why the session ended, in one line, and keeps the profile
# (attach mode: launch mode traces the command, and the kernel does not
# honour setuid under a tracer without CAP_SYS_PTRACE).
# The target spins in public code until told (SIGUSR1) that tprof-read's
# session is enabled (its -v line), then execs the setuid binary.
setpriv --reuid=65534 --regid=65534 --clear-groups ./tprof-ktest exec-after 120000 "$PWD/secret-suid" &
tgt=$!
for _ in $(seq 100); do [ "$(stat -c %u /proc/$tgt/auxv 2>/dev/null)" = 65534 ] && break; sleep 0.1; done
mkdir -m 0777 out
as_nobody "$TPROF_BUILD/tprof-read" -v -p "$tgt" -o "$PWD/out/d.pb.gz" 2> err.txt &
tr=$!
for _ in $(seq 1200); do grep -q "pid $tgt: session enabled" err.txt && break; sleep 0.1; done
kill -USR1 "$tgt"
if wait "$tr" && [ -s out/d.pb.gz ]; then
	ok "tprof-read: the session that was denied still gives the profile before it"
else
	fail "tprof-read: the session that was denied still gives the profile before it (exit $?)"
	sed 's/^/    /' err.txt
fi
wait "$tgt"
if grep -qE '^tprof-read: pid [0-9]+ became non-profilable: .*ids changed' err.txt &&
	[ "$(grep -c 'non-profilable' err.txt)" = 1 ]; then
	ok "tprof-read: one line says the target became non-profilable: $(grep non-profilable err.txt)"
else
	fail "tprof-read: one line says the target became non-profilable"
	sed 's/^/    /' err.txt
fi
exit 0
