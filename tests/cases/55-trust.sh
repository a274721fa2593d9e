#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 400
# tprof.ko's trust boundary (issue 22), as an unprivileged user (the
# tprof-ktest trust tests start as root, fork what must stay root, then
# become uid 65534 themselves; /dev/tprof is opened up as for group tprof):
#  - chain: ENABLE with TPROF_F_CHILDREN on the root of a chain of 15,000
#    processes (each the child of the one before) is fast, a root INFO
#    never waits long meanwhile, 1024 are followed and the rest DROPPED;
#  - denied-child: a child that execs a setuid-root image is DENIED, and
#    root may start a session on it while the user's session goes on;
#  - yama: under ptrace_scope 1, a child the user may not attach to never
#    has its stack copied into a snapshot session: it waits for a proof
#    the user cannot give (then DENIED, reason PTRACE);
#  - stale-tid: a non-leader exec in a denied descendant closes its old
#    tid's slot: a thread of the target that gets that tid is the target's;
#  - eagain: a target whose exec_update_lock readers of its /proc files
#    hold is not thereby allowed: nothing of a non-dumpable process's new
#    threads and children, nor of a non-dumpable descendant at ENABLE.
# The debug kernel (a timeout scale; there a fork takes 8 ms and an exit 20
# ms) builds one chain of 1,500 with scaled time bounds, and has fewer
# eagain sessions: the paths under lockdep and KASAN; the other kernels
# catch the race.
. "$TPROF_ROOT/tests/cases/lib.sh"
kt=$TPROF_BUILD/kmod-tests/tprof-ktest
light=0; [ "${CASE_TIMEOUT_SCALE:-1}" -gt 1 ] && light=1
sys=/proc/sys/kernel
yama=$sys/yama/ptrace_scope
mode=$(stat -c %a /dev/tprof)
pid_max=$(cat "$sys/pid_max")
threads_max=$(cat "$sys/threads-max")
scope=$(cat "$yama" 2>/dev/null || true)
restore() {
	chmod "$mode" /dev/tprof
	echo "$pid_max" > "$sys/pid_max"
	echo "$threads_max" > "$sys/threads-max"
	[ -z "$scope" ] || echo "$scope" > "$yama"
}
trap restore EXIT
chmod 0666 /dev/tprof
# The guest's /tmp is a tmpfs without nosuid: setuid works there.
install -o root -g root -m 4755 "$TPROF_BUILD/kmod-tests/secret" ./secret-suid
install -m 0755 "$kt" ./tprof-ktest
chmod 0755 .
dmesg_lines=$(dmesg | wc -l)
took() { echo "# $1: $((SECONDS - t0)) s"; t0=$SECONDS; }
t0=$SECONDS

# A chain of N processes and the guest's own: pids and tasks to spare.
sizes="1500 4000 15000"; [ $light = 1 ] && sizes=1500
[ "$pid_max" -lt 131072 ] && echo 131072 > "$sys/pid_max"
[ "$threads_max" -lt 100000 ] && echo 100000 > "$sys/threads-max"
# shellcheck disable=SC2086 # a list
./tprof-ktest trust chain $sizes || fail "tprof-ktest trust chain exited $?"
took chain
echo "$pid_max" > "$sys/pid_max"
echo "$threads_max" > "$sys/threads-max"

./tprof-ktest trust denied-child "$PWD/secret-suid" ||
	fail "tprof-ktest trust denied-child exited $?"
took denied-child

if [ -n "$scope" ]; then
	echo 1 > "$yama"
	./tprof-ktest trust yama || fail "tprof-ktest trust yama exited $?"
	echo "$scope" > "$yama"
	took yama
else
	skip "trust yama: no $yama (Yama is not in this kernel)"
fi

# sessions (one trial each), forks in each, reader threads
./tprof-ktest trust stale-tid || fail "tprof-ktest trust stale-tid exited $?"
took stale-tid

eagain="100 2 4"; [ $light = 1 ] && eagain="20 2 4"
# shellcheck disable=SC2086 # a list
./tprof-ktest trust eagain $eagain || fail "tprof-ktest trust eagain exited $?"
took eagain

# The harness fails the run on these too; here they are this case's.
bad=$(dmesg | tail -n +$((dmesg_lines + 1)) |
	grep -E 'soft lockup|rcu.*stall|hung_task|blocked for more than' | head -n 5)
if [ -n "$bad" ]; then
	fail "no soft lockup, RCU stall or hung task report during the case: $bad"
else
	ok "no soft lockup, RCU stall or hung task report during the case"
fi
exit 0
