#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Cross-build tprof.ko for Debian's arm64 kernel KVER on this amd64 host, the
# way tests/vm/build-module.sh builds for amd64: copy the DKMS source tree to
# DEST and run kbuild there, against the arm64 headers and the aarch64
# toolchain that tests/arm64/fetch.sh unpacked into its cache (nothing
# installed). The kbuild host tools (modpost, fixdep) are the amd64
# linux-kbuild-6.1 ones, the same as for the amd64 builds.
#   build-module.sh KVER DEST [extra make args, e.g. W=1]
# -k: every file is compiled, so the log (DEST/build.log) lists every error.
# Kbuild builds kmod/arch_arm64.c, the arm64 side of kmod/arch.h, in place
# of kmod/arch_x86.c.
# Prints the path of the built tprof.ko; exit 1 when it did not build.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
kver=${1:?usage: build-module.sh KVER DEST [make args]} dest=${2:?usage: build-module.sh KVER DEST}
shift 2
cache=${ARM64_CACHE:-/var/cache/tprof/arm64}
sysroot=$cache/root
kdir=$sysroot/usr/src/linux-headers-$kver
cross=$sysroot/usr/bin/aarch64-linux-gnu-
if ! [ -f "$kdir/Makefile" ] || ! [ -x "${cross}gcc-12" ]; then
	echo "build-module: no arm64 headers/toolchain for $kver in $cache (tests/arm64/fetch.sh $kver)" >&2
	exit 1
fi
mkdir -p "$dest"
rm -rf "$dest/kmod"
"$root/packaging/dkms-source.sh" "$dest"
# 6.1's headers set CROSS_COMPILE only under dpkg-buildpackage, so pass it;
# the toolchain is relocatable (cc1, as and ld are found next to gcc); as
# and ld need binutils' libbfd/libopcodes-2.40-arm64 from the same tree.
# CC: the headers name gcc-12 (the kernel's compiler), as the prefix + gcc-12.
# Only the cross tools go on PATH: $sysroot/usr/bin also holds the arm64
# userland unpacked for the guest (awk, sed, ...), which cannot run here.
xbin=$dest/.cross-bin
rm -rf "$xbin"
mkdir -p "$xbin"
ln -s "$sysroot"/usr/bin/aarch64-linux-gnu-* "$xbin/"
start=$(date +%s.%N)
rc=0
PATH=$xbin:$PATH \
LD_LIBRARY_PATH=$sysroot/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} \
	make -k -C "$kdir" M="$dest" ARCH=arm64 \
	CROSS_COMPILE="$cross" "$@" modules > "$dest/build.log" 2>&1 || rc=$?
end=$(date +%s.%N)
printf 'build-module: %s: make rc=%d in %.1f s, %d errors, %d warnings (%s)\n' \
	"$kver" "$rc" "$(echo "$end - $start" | bc)" \
	"$(grep -cE ': (fatal )?error: ' "$dest/build.log" || true)" \
	"$(grep -c ': warning: ' "$dest/build.log" || true)" "$dest/build.log" >&2
[ $rc = 0 ] && [ -f "$dest/tprof.ko" ] || exit 1
echo "$dest/tprof.ko"
