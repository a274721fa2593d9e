#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Boot one kernel under QEMU (single-threaded TCG), run the in-guest cases and
# judge the run. Passes only on an explicit "TPROF-RESULT ... fail=0" line on
# the result port, with pass > 0 and no panic/WARN/BUG in the console log.
#   run-kernel.sh NAME KVER
# Env: CASES (glob of case names), CASE_DIR (tests/cases), VM_CPUS (8), VM_MEM (2048 MiB),
#      VM_TIMEOUT (seconds, 1200), SELFTEST (fail|stray|warn|hang, and on the
#      debug kernel sleep|lockdep|kasan|odebug|list), VM_OUT (folder),
#      TPROF_MODULE (build: insmod this tree's module, built here; installed:
#      `modprobe tprof` loads the one DKMS installed on the host, tests/pkg;
#      /PATH/tprof.ko: that one, built for KVER: guests of one kernel run in
#      parallel share it),
#      CASE_TIMEOUT_SCALE (multiplies each case's timeout, 1),
#      CASE_SHORT (1: the cases leave out what repeats another row's work
#      at a larger size; tests/kernels' short=, 0),
#      TPROF_IRQ_SLACK_US (see tests/kernels' irq-slack-us, 0),
#      VM_PART (run-all.sh: which part of a split= row this guest is, K/N;
#      it names the run NAME.K in VM_OUT and the summary, CASES says what
#      it runs),
#      VM_ICOUNT (SHIFT: an exact guest, QEMU's -icount shift=SHIFT,sleep=off;
#      off: plain TCG; default: the row's icount= option, else off; see
#      tests/vm/README.md), CASE_REPEAT (run each case N times, 1).
# The options of NAME in tests/kernels give CASES, CASE_TIMEOUT_SCALE,
# CASE_SHORT and VM_TIMEOUT their defaults, and append= adds kernel parameters.
# Writes VM_OUT/{console.log,result.log,summary,case-seconds,out/}; prints one
# summary line. out/cases/NAME.times has each result line of case NAME
# after the guest second it came at (where a case's time goes).
# An arm64 KVER (tests/kernels' arm64 rows) boots under qemu-system-aarch64
# with the arm64 tree of tests/arm64/fetch.sh as its root, and the guest
# runs BUILD/arm64's programs (make arm64) and module (built here by
# tests/arm64/build-module.sh; a TPROF_MODULE path must be under BUILD/arm64).
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
name=$1 kver=$2
# the run's name: NAME, or NAME.K for part K/N of a split row
label=$name${VM_PART:+.${VM_PART%/*}}
say() { echo "run-kernel[$label]: $*" >&2; }
build=${BUILD:-$root/build}
case "$build" in /*) ;; *) build=$root/$build ;; esac
vmout=${VM_OUT:-$build/vm/$label${SELFTEST:+-selftest-$SELFTEST}}
. "$root/tests/vm/kpaths.sh"
kpaths "$kver"
cpus=${VM_CPUS:-8}
mem=${VM_MEM:-2048}
opt=$(kernel_opt "$name" vm-timeout)
tmo=${VM_TIMEOUT:-${opt:-1200}}
opt=$(kernel_opt "$name" cases)
cases=${CASES:-${opt:-*}}
opt=$(kernel_opt "$name" timeout-scale)
scale=${CASE_TIMEOUT_SCALE:-${opt:-1}}
opt=$(kernel_opt "$name" short)
short=${CASE_SHORT:-${opt:-0}}
opt=$(kernel_opt "$name" irq-slack-us)
irq_slack=${TPROF_IRQ_SLACK_US:-${opt:-0}}
# The guest's clock: plain TCG follows the host's (and its load), an exact
# guest counts instructions (tests/vm/README.md)
opt=$(kernel_opt "$name" icount)
icount=${VM_ICOUNT:-${opt:-off}}
case $icount in
off) mode=tcg icount_args=() ;;
# An exact guest's clock leaps ahead whenever every vCPU is idle (waiting
# for the host's 9p, say): guest seconds bound nothing there, so its cases'
# timeouts are scaled far out and its hung-task detector is off; the
# host's VM_TIMEOUT ends a guest that hangs.
[0-9]|10) mode=icount$icount icount_args=(-icount "shift=$icount,sleep=off") ;;
*) say "VM_ICOUNT must be off or a shift of 0 to 10, not '$icount'"; echo "$label $kver FAIL env"; exit 1 ;;
esac
vmlinuz=$KIMAGE
# what the guest runs: the arm64 guest its own build (tests/arm64/cross.mk)
gbuild=$build
[ "$KARCH" = arm64 ] && gbuild=$build/arm64

say "mode $mode${icount_args:+ (${icount_args[*]})}, $cpus vCPUs"

case ${TPROF_MODULE:-build} in
build)
	ko=$(kmodule "$kver" "$build") || {
		say "module build failed"
		echo "$label $kver FAIL build"
		exit 1
	} ;;
installed) ko=installed ;;
/*.ko) ko=$TPROF_MODULE ;;
*) say "TPROF_MODULE must be build, installed or the path of a built tprof.ko"; echo "$label $kver FAIL env"; exit 1 ;;
esac
initrd=$build/vm/initramfs-$kver.cpio.gz
if [ ! -s "$initrd" ] || [ "$root/tests/vm/init" -nt "$initrd" ] ||
	[ "$root/tests/vm/mkinitramfs.sh" -nt "$initrd" ]; then
	mkdir -p "$build/vm"
	bb=${BUSYBOX:-/bin/busybox}
	[ "$KARCH" = arm64 ] && bb=$KROOTFS/bin/busybox
	BUSYBOX=$bb "$root/tests/vm/mkinitramfs.sh" "$kver" "$initrd.$$.tmp" &&
		mv "$initrd.$$.tmp" "$initrd" || { echo "$label $kver FAIL initramfs"; exit 1; }
fi

rm -rf "$vmout"
mkdir -p "$vmout/out"
# The test modules (tests/vm/testmod: what cases load to provoke what the
# guest would not do by itself), built here for x86-64 guests, in this
# run's own folder (guests of one kernel run side by side); a case skips
# where they are missing.
testmod=
if [ "$KARCH" = x86_64 ]; then
	testmod=$vmout/testmod
	mkdir -p "$testmod"
	cp "$root"/tests/vm/testmod/{Kbuild,*.c} "$testmod/"
	make -s -C "$KDIR" M="$testmod" modules > "$testmod/build.log" 2>&1 ||
		{ say "test modules: build failed (see $testmod/build.log)"; testmod=; }
fi
selftest_ko=
case "${SELFTEST:-}" in
warn|sleep|lockdep|kasan|odebug|list)
	sdir=$build/selftest/$kver-$SELFTEST	# own dir: selftests run in parallel
	rm -rf "$sdir" && mkdir -p "$sdir"
	cp "$root"/tests/vm/selftest/{Kbuild,tprof_warn.c,tprof_debug.c} "$sdir/"
	make -s -C "$KDIR" M="$sdir" modules >&2 || exit 1
	selftest_ko=$sdir/tprof_debug.ko
	[ "$SELFTEST" = warn ] && selftest_ko=$sdir/tprof_warn.ko ;;
esac
cat > "$vmout/out/guest.env" <<EOV
TPROF_ROOT='$root'
TPROF_BUILD='$gbuild'
TPROF_ROOTFS='$KROOTFS'
TPROF_KO='$ko'
KVER='$kver'
CASES='$cases'
CASE_DIR='${CASE_DIR:-tests/cases}'
SELFTEST='${SELFTEST:-}'
SELFTEST_KO='$selftest_ko'
CASE_TIMEOUT='${CASE_TIMEOUT:-600}'
CASE_TIMEOUT_SCALE='$scale'
CASE_SHORT='$short'
TPROF_IRQ_SLACK_US='$irq_slack'
VM_MODE='$mode'
CASE_TIMEOUT_GUEST_MULT='$([ "$mode" = tcg ] && echo 1 || echo 100)'
TPROF_TESTMOD='$testmod'
CASE_REPEAT='${CASE_REPEAT:-1}'
EOV

# panic_on_warn, oops, soft lockups, RCU stalls and hung tasks all end the
# guest without a result line. A TCG guest on a loaded host runs slowly and
# unevenly, so the thresholds get generous margins (a soft lockup needs 120 s,
# an RCU stall 120 s), and no_timer_check skips the IO-APIC timer probe that
# panics a slow guest at boot ("IO-APIC + timer doesn't work").
append="rdinit=/init panic=-1 panic_on_warn=1 oops=panic"
append+=" softlockup_panic=1 watchdog_thresh=60"
append+=" rcupdate.rcu_cpu_stall_timeout=120 sysctl.kernel.panic_on_rcu_stall=1"
append+=" sysctl.kernel.hung_task_panic=1 sysctl.kernel.hung_task_timeout_secs=300"
[ "$mode" = tcg ] || append+=" sysctl.kernel.hung_task_timeout_secs=0"
if [ "$KARCH" = arm64 ]; then
	append="console=ttyAMA0 $append"
else
	append="console=ttyS0 $append tsc=reliable no_timer_check"
fi
opt=$(kernel_opt "$name" append)
append+=${opt:+ ${opt//,/ }}
# VM_APPEND: more parameters for one run (experiments)
append+=${VM_APPEND:+ $VM_APPEND}

# The machine: x86-64's result port is its second serial port; arm64's
# virt machine has one PL011 (the console), so the result port is a virtio
# console. -cpu max,pauth-impdef=on: Debian's arm64 kernels sign every
# return address (pac-ret), and QEMU's default QARMA5 makes a boot 3-4x
# slower than its implementation-defined PAuth, which the guest still has
# (tests/arm64/README.md).
if [ "$KARCH" = arm64 ]; then
	machine=(qemu-system-aarch64 -M virt -cpu "max,pauth-impdef=on"
		-serial "file:$vmout/console.log" -device virtio-serial-pci
		-chardev "file,id=result,path=$vmout/result.log"
		-device virtconsole,chardev=result)
else
	machine=(qemu-system-x86_64 -cpu max
		-serial "file:$vmout/console.log" -serial "file:$vmout/result.log")
fi
start=$(date +%s)
timeout --foreground -k 10 "$tmo" "${machine[@]}" \
	-accel tcg,thread=single "${icount_args[@]}" -smp "$cpus" -m "$mem" \
	-nodefaults -display none -no-reboot \
	-kernel "$vmlinuz" -initrd "$initrd" \
	-append "$append" \
	-virtfs local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap \
	-virtfs "local,path=$vmout/out,mount_tag=tprofout,security_model=none,multidevs=remap" \
	-virtfs "local,path=$root,mount_tag=tprofroot,security_model=none,readonly=on,multidevs=remap" \
	> "$vmout/qemu.log" 2>&1
qrc=$?
secs=$(( $(date +%s) - start ))

line=$(grep -a '^TPROF-RESULT ' "$vmout/result.log" 2>/dev/null | tail -n1 | tr -d '\r')
verdict=FAIL why=
if [ $qrc = 124 ] || [ $qrc = 137 ]; then
	why="timeout after ${tmo}s"
elif [ -z "$line" ]; then
	why="no result line (qemu exit $qrc)"
elif grep -aqE "Kernel panic|WARNING: CPU|BUG: |Oops|$(grep -v "^#" "$root/tests/vm/splats.re")" \
	"$vmout/console.log"; then
	why="kernel complained (see console.log)"
else
	p=$(sed -n 's/.* pass=\([0-9]*\).*/\1/p' <<<"$line")
	f=$(sed -n 's/.* fail=\([0-9]*\).*/\1/p' <<<"$line")
	if [ "$f" = 0 ] && [ "${p:-0}" -gt 0 ]; then verdict=PASS; else why="failures"; fi
fi
summary="$label $kver $verdict ${secs}s mode=$mode ${line#TPROF-RESULT }${why:+ ($why)}"
echo "$summary" > "$vmout/summary"
# each case's seconds, slowest first (guest-run.sh): what the budget buys
sed -n 's/^# seconds \([^ ]*\) \([0-9]*\)\r*$/\2 \1/p' "$vmout/console.log" |
	sort -rn > "$vmout/case-seconds"
if [ $verdict != PASS ]; then
	# every failed check first, with the case it belongs to (a long run's
	# last lines rarely hold them), then the last lines
	say "$why; console log kept at $vmout/console.log; failed checks:"
	awk '/^# case /{c=$3} /^not ok/{print "  " c ": " $0}' "$vmout/console.log" | head -n 40 >&2
	say "last lines:"
	grep -a -E '^(not ok|#|TPROF|\[)' "$vmout/console.log" | tail -n 40 >&2
	# for run-all.sh's table
	awk '/^# case /{c=$3} /^not ok/{print c ": " $0}' "$vmout/console.log" > "$vmout/failed"
fi
echo "$summary"
[ $verdict = PASS ]
