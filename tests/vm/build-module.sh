#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build tprof.ko for kernel KVER the way DKMS does: copy the module sources
# to a per-kernel build folder and run kbuild there against the kernel's
# headers, so builds for several kernels never share objects.
#   build-module.sh KVER DEST [extra make args, e.g. W=1]
# Prints the path of the built tprof.ko.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
kver=$1 dest=$2
shift 2
. "$root/tests/vm/kpaths.sh"
kpaths "$kver"
kdir=$KDIR
[ -f "$kdir/Makefile" ] || {
	echo "build-module: no headers for $kver at $kdir (make kernels)" >&2
	exit 1
}
mkdir -p "$dest"
rm -rf "$dest/kmod"
"$root/packaging/dkms-source.sh" "$dest"
make -s -C "$kdir" M="$dest" "$@" modules >&2
echo "$dest/tprof.ko"
