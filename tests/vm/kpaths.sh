# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2034 # sets variables for the sourcing script
# Sourced by the harness scripts: where kernel KVER's files are. Debian's
# kernels live in /boot and /lib/modules; the debug kernel that
# tests/vm/debug-kernel.sh builds (KVER VERSION-dbg-KEY) lives in its cache
# folder, with every driver built in (so no modules to put in an initramfs).
# Debian's arm64 kernels (KVER *-arm64) are unpacked, not installed, by
# tests/arm64/fetch.sh into the tree that is also the arm64 guest's root.
#   kpaths KVER   sets KIMAGE (bzImage), KDIR (what make -C needs for M=
#                 builds), KMODDIR (empty when the kernel has no modules
#                 folder), KARCH (x86_64 or arm64) and, for arm64, KROOTFS
#                 (the guest's root: the host's amd64 root cannot run there)
kpaths() {
	KARCH=x86_64 KROOTFS=
	case "$1" in
	*-dbg-*)
		local d=${DEBUG_KERNEL_CACHE:-/var/cache/tprof/debug-kernel}/${1##*-dbg-}
		KIMAGE=$d/bzImage KDIR=$d/build KMODDIR= ;;
	*-arm64)
		KROOTFS=${ARM64_CACHE:-/var/cache/tprof/arm64}/root KARCH=arm64
		KIMAGE=$KROOTFS/boot/vmlinuz-$1 KDIR=$KROOTFS/usr/src/linux-headers-$1
		KMODDIR=$KROOTFS/lib/modules/$1 ;;
	*)
		KIMAGE=/boot/vmlinuz-$1 KDIR=/lib/modules/$1/build KMODDIR=/lib/modules/$1 ;;
	esac
}

# kernel_opt NAME KEY: the KEY=VALUE option of kernel NAME in tests/kernels
# (columns after the packages), or nothing.
kernel_opt() {
	local root
	root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
	awk -v n="$1" -v k="$2=" '$1 == n { for (i = 4; i <= NF; i++)
		if (index($i, k) == 1) print substr($i, length(k) + 1) }' \
		"$root/tests/kernels" | head -n1
}

# kmodule KVER BUILD: build this tree's tprof.ko for KVER as the guest will
# load it (arm64: cross-built, under BUILD/arm64, which its guest sees) and
# print its path; the build's messages go to stderr
kmodule() {
	local root
	root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
	case "$1" in
	*-arm64) "$root/tests/arm64/build-module.sh" "$1" "$2/arm64/kmod/$1" ;;
	*) "$root/tests/vm/build-module.sh" "$1" "$2/kmod/$1" ;;
	esac
}

# vm_jobs: how many guests to run at a time: VM_JOBS, or the host's CPUs
# but at most 2 (a single-threaded TCG guest keeps one host CPU busy)
vm_jobs() {
	local j=${VM_JOBS:-$(nproc)}
	[ "$j" -gt 2 ] 2>/dev/null && [ -z "${VM_JOBS:-}" ] && j=2
	[ "$j" -ge 1 ] 2>/dev/null || j=1
	echo "$j"
}
# vm_slot N: wait until fewer than N of the calling shell's jobs run
vm_slot() {
	while [ "$(jobs -rp | wc -l)" -ge "$1" ]; do wait -n; done
}
