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
