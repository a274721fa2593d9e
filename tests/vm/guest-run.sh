#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Runs inside the test guest, chrooted into the host's root filesystem (see
# tests/vm/init). Loads tprof.ko, runs tests/cases/NN-*, checks rmmod and
# dmesg, then writes exactly one result line to the result port (ttyS1;
# hvc0 on arm64, whose root is an arm64 tree, not the host's):
#   TPROF-RESULT kver=KVER pass=N fail=N skip=N
#
# Case protocol: each case is an executable tests/cases/NN-name.sh, run as
# root with cwd a fresh tmp dir and the env below. It prints
#   ok - description | not ok - description | skip - description: reason
# and anything else is logged. A non-zero exit, a timeout or a case that
# prints no result line counts as a failure.
set -u
out=/tmp/tprof-out
. "$out/guest.env"
# TPROF_BUILD: the host's BUILD (make BUILD=...), whose programs the
# cases run; the guest sees the host's paths as they are
TPROF_BUILD=${TPROF_BUILD:-$TPROF_ROOT/build}
# VM_MODE: tcg, or icountN for an exact guest (tests/vm/README.md)
VM_MODE=${VM_MODE:-tcg}
# TPROF_TESTMOD: the folder of tests/vm/testmod's modules for this kernel
export TPROF_ROOT TPROF_KO KVER TPROF_IRQ_SLACK_US CASE_TIMEOUT_SCALE CASE_SHORT VM_MODE
export TPROF_TESTMOD=${TPROF_TESTMOD:-}
export TPROF_OUT=$out TPROF_BUILD
export NCPU=$(nproc)
export HOME=/tmp/home GOCACHE=/tmp/gocache GOFLAGS=-mod=mod
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
# the arm64 guest's tools from the build (tests/arm64/cross.mk: go, whose
# only command is `go tool pprof`)
[ -d "$TPROF_BUILD/bin" ] && PATH=$TPROF_BUILD/bin:$PATH
mkdir -p "$HOME" "$out/cases"
cd /tmp || exit 1
# The result port is ttyS1 (arm64: the virtio console hvc0, see
# tests/vm/init); fall back to the share when it is missing.
result_port=/dev/ttyS1
[ "$(uname -m)" = aarch64 ] && result_port=/dev/hvc0
[ -c "$result_port" ] || result_port=$out/result.log

pass=0 fail=0 skip=0
record() {	# record STATUS DESCRIPTION
	case "$1" in
	ok) pass=$((pass + 1)); echo "ok $((pass + fail + skip)) - $2" ;;
	fail) fail=$((fail + 1)); echo "not ok $((pass + fail + skip)) - $2" ;;
	skip) skip=$((skip + 1)); echo "ok $((pass + fail + skip)) - $2 # SKIP" ;;
	esac
}

echo "TPROF-GUEST kver=$KVER ncpu=$NCPU mode=$VM_MODE cases=${CASES:-*} repeat=${CASE_REPEAT:-1} selftest=${SELFTEST:-}"
dmesg -c > "$out/dmesg-boot.log" 2>&1

# TPROF_KO=installed: the module DKMS installed on the host (tests/pkg),
# found by modprobe through the kernel's modules.dep like on a real machine.
load_module() {
	if [ "$TPROF_KO" = installed ]; then
		modprobe tprof
	else
		insmod "$TPROF_KO"
	fi
}
load_desc="insmod ${TPROF_KO##*/}"
[ "$TPROF_KO" = installed ] && load_desc="modprobe tprof (installed by DKMS)"
if load_module; then
	record ok "$load_desc"
else
	record fail "$load_desc"
fi

# Harness self-tests: each must make the run fail (see tests/vm/selftest.sh).
case "${SELFTEST:-}" in
warn) insmod "$SELFTEST_KO" ;;	# WARNs in init: panic_on_warn kills the guest
# The debug kernel's detectors: a report that does not panic fails the
# dmesg check below.
sleep|lockdep|kasan|odebug|list) insmod "$SELFTEST_KO" bug="$SELFTEST" ;;
hang) sleep 100000 ;;		# the host's timeout must catch this
esac

strays() {	# strays PGID: names of the live (not zombie) processes in it
	local p
	for p in $(pgrep -g "$1"); do
		[ "$(sed 's/.*) //' "/proc/$p/stat" 2>/dev/null | cut -d' ' -f1)" = Z ] ||
			cat "/proc/$p/comm" 2>/dev/null
	done | xargs
}

run_case() {	# run_case PATH
	local c=$1 name t= rc dir saw=0 line
	name=${c##*/}
	# the header's "# timeout: N" in bash, not sed: each process the
	# debug kernel starts costs a few hundred ms (KASAN, lockdep)
	while IFS= read -r line; do
		[[ $line =~ ^#\ timeout:\ *([0-9]+) ]] && { t=${BASH_REMATCH[1]}; break; }
	done < "$c"
	t=$(( ${t:-${CASE_TIMEOUT:-600}} * ${CASE_TIMEOUT_SCALE:-1} ))
	# an exact guest's seconds (run-kernel.sh): the host's timeout binds
	t=$(( t * ${CASE_TIMEOUT_GUEST_MULT:-1} ))
	dir=$(mktemp -d "/tmp/case.XXXXXX")
	# The sampling budget of unprivileged sessions is case 56's to test.
	# Under single-threaded TCG a vCPU's clock runs on while the other
	# vCPUs are emulated, so a hard-irq path's time is inflated many
	# times over, and the budget would throttle other cases' sessions at
	# random (fewer samples, THROTTLE records). Cases that reload the
	# module (29, 32) get its default back; they do not sample much.
	[ -w /sys/module/tprof/parameters/sample_cpu_percent ] &&
		echo 0 > /sys/module/tprof/parameters/sample_cpu_percent
	echo "# case $name (timeout ${t}s)"
	t0=$SECONDS
	# timeout puts the case in a process group of its own (its pid): what
	# is still in it when the case has ended is a stray, killed and failed.
	# The case's status ends the reading, so a stray daemon holding the
	# pipe cannot stall the run.
	exec 3< <(cd "$dir" && { timeout -k 10 "$t" "$c" 2>&1 & tp=$!
		wait $tp; r=$?
		s=$(strays $tp)
		[ -n "$s" ] && { echo "__stray=$s"; kill -9 -- -$tp; }
		echo "__rc=$r"; })
	rc=1
	while IFS= read -r line <&3; do
		echo "$line" >> "$out/cases/$name.log"
		case "$line" in
		"ok - "*|"not ok - "*|"skip - "*)
			# each check's second in its case: where a case's time goes
			echo "$((SECONDS - t0)) $line" >> "$out/cases/$name.times" ;;
		esac
		case "$line" in
		"ok - "*) record ok "$name: ${line#ok - }"; saw=1 ;;
		"not ok - "*) record fail "$name: ${line#not ok - }"; saw=1 ;;
		"skip - "*) record skip "$name: ${line#skip - }"; saw=1 ;;
		__stray=*) record fail "$name: left processes running: ${line#__stray=}" ;;
		__rc=*) rc=${line#__rc=}; break ;;
		*) echo "#   $line" ;;
		esac
	done
	exec 3<&-
	if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
		record fail "$name: timed out after ${t}s"
	elif [ "$rc" != 0 ]; then
		record fail "$name: exited with status $rc"
	elif [ $saw = 0 ]; then
		record fail "$name: printed no result line"
	fi
	# what the CI budget is made of (run-kernel.sh: VM_OUT/case-seconds)
	echo "# seconds $name $((SECONDS - t0))"
	rm -rf "$dir"
}

cases=()
for c in "$TPROF_ROOT/${CASE_DIR:-tests/cases}"/[0-9][0-9]-*; do
	[ -x "$c" ] || continue
	# shellcheck disable=SC2053 # CASES is a glob on purpose
	[[ ${c##*/} == ${CASES:-*} ]] || continue
	cases+=("$c")
done
case "${SELFTEST:-}" in
fail|stray) cases+=("$TPROF_ROOT/tests/vm/selftest/$SELFTEST-case.sh") ;;
esac
# CASE_REPEAT=N: each case N times in a row (a check's steadiness, in
# one boot); a failure in any round counts
for c in "${cases[@]}"; do
	for _ in $(seq "${CASE_REPEAT:-1}"); do
		run_case "$c"
		# A case must leave the module loaded for the next one.
		[ -d /sys/module/tprof ] || {
			record fail "${c##*/}: left tprof.ko unloaded"
			load_module
		}
	done
done

if rmmod tprof; then
	record ok "rmmod tprof"
else
	record fail "rmmod tprof"
fi

# Anything the kernel complained about fails the run (panic_on_warn catches
# WARN; this catches BUG/lockdep/RCU/hung-task reports that do not panic, and
# the debug kernel's KASAN/ODEBUG/DEBUG_LIST/atomic-sleep reports).
dmesg > "$out/dmesg.log" 2>&1
if grep -E "WARNING:|BUG:|Oops|general protection|lockdep|possible (recursive|circular) locking|rcu_.*stall|INFO: task .* blocked|Call Trace|$(grep -v "^#" "$TPROF_ROOT/tests/vm/splats.re")" \
	"$out/dmesg.log" > "$out/dmesg-bad.log"; then
	record fail "dmesg is clean (see dmesg-bad.log)"
	sed 's/^/#   /' "$out/dmesg-bad.log" | head -n 40
else
	record ok "dmesg is clean"
fi

# On a lockdep kernel, lockdep turns itself off at its first report (or when
# it runs out of table space): then the rest of the run was not checked.
if [ -r /proc/lockdep_stats ]; then
	if grep -Eq 'debug_locks: +1$' /proc/lockdep_stats; then
		record ok "lockdep stayed on"
	else
		record fail "lockdep stayed on ($(grep debug_locks /proc/lockdep_stats | xargs))"
	fi
fi

line="TPROF-RESULT kver=$KVER pass=$pass fail=$fail skip=$skip"
echo "$line"
echo "$line" > "$result_port"
sync
