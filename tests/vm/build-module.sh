#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build tprof.ko for kernel KVER the way DKMS does: copy the module sources
# to a per-kernel build folder and run kbuild there against the kernel's
# headers, so builds for several kernels never share objects.
#   build-module.sh KVER DEST [extra make args, e.g. W=1]
# Prints the path of the built tprof.ko, DEST/tprof.ko. Builds of one DEST
# take turns (make test's self-test and demo each build 6.12's at once),
# in DEST/src, and the module is then renamed into place: a guest reading
# DEST/tprof.ko while another build runs reads a whole one.
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
exec 9>"$dest/.lock"
flock 9
rm -rf "$dest/src"
mkdir -p "$dest/src"
"$root/packaging/dkms-source.sh" "$dest/src"
make -s -C "$kdir" M="$dest/src" "$@" modules >&2
cp "$dest/src/tprof.ko" "$dest/.tprof.ko.$$"
mv -f "$dest/.tprof.ko.$$" "$dest/tprof.ko"
echo "$dest/tprof.ko"
