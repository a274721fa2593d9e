#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 600
# An unprivileged session gets no sample once its target stops being
# profilable, and ends with a DENIED record saying why: a setuid-root exec
# racing ENABLE (large rings widen the window), an exec of a 0711 root
# binary, prctl(PR_SET_DUMPABLE, 0) (public code sampled before it as the
# control), an AppArmor change_profile without exec (DENIED LABEL; ptrace's
# own check of the target fails after it), an exec of a file with
# capabilities (a secure exec that keeps the ids). Then tprof-read's one
# line for it.
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
# Its control: prctl(PR_SET_KEEPCAPS) commits new credentials with the
# same label, and the session goes on.
as_nobody ./tprof-ktest deny keepcaps || fail "tprof-ktest deny keepcaps exited $?"
# An LSM domain change without exec (AppArmor change_profile): the target
# moves from a profile its profiler may trace to one it may not, as the
# ptrace check that follows says; the module cannot ask the LSM in a hard
# interrupt, so a changed label leaves the session (DENIED LABEL). The
# profiler and target start confined in tprof_ktest_a (aa-exec), which may
# trace its own kind only. Debian's kernels have AppArmor on; the debug
# kernel does not build it.
aa=/sys/kernel/security/apparmor
[ -d /sys/kernel/security/lsm ] || mount -t securityfs securityfs /sys/kernel/security 2> /dev/null
if [ ! -d $aa ]; then
	skip "deny label: no AppArmor in this kernel ($(cat /sys/kernel/security/lsm 2> /dev/null))"
elif ! command -v apparmor_parser > /dev/null || ! command -v aa-exec > /dev/null; then
	fail "deny label: AppArmor is on, but apparmor_parser or aa-exec is missing (.ci/packages: apparmor)"
else
	cat > aa.profile <<'EOF2'
profile tprof_ktest_a {
  file,
  signal,
  capability,
  network,
  ptrace peer=tprof_ktest_a,
  change_profile -> tprof_ktest_b,
}
profile tprof_ktest_b {
  file,
  signal,
  capability,
  network,
}
EOF2
	if apparmor_parser -r -K aa.profile 2> aa.err; then
		as_nobody aa-exec -p tprof_ktest_a -- ./tprof-ktest deny label ||
			fail "tprof-ktest deny label exited $?"
		apparmor_parser -R -K aa.profile 2> /dev/null
	else
		fail "deny label: apparmor_parser could not load the test's profiles: $(head -c 300 aa.err)"
	fi
fi
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
