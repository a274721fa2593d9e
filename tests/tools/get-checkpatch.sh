#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Fetch scripts/checkpatch.pl (and the data files it reads) from Debian's
# linux-source package into .cache/checkpatch/. Debian ships checkpatch only
# inside the kernel source tarball. Idempotent.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
dest=$root/.cache/checkpatch
[ -x "$dest/checkpatch.pl" ] && exit 0
pkg=${CHECKPATCH_SOURCE_PKG:-linux-source-6.12}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && apt-get download "$pkg" >/dev/null 2>&1) || {
	echo "get-checkpatch: cannot download $pkg (run apt-get update?)" >&2
	exit 1
}
dpkg-deb --fsys-tarfile "$tmp"/"$pkg"_*.deb |
	tar -x -C "$tmp" --wildcards './usr/src/linux-source-*.tar.xz'
tarball=$(ls "$tmp"/usr/src/linux-source-*.tar.xz)
top=$(basename "$tarball" .tar.xz)
tar -xJf "$tarball" -C "$tmp" "$top/scripts/checkpatch.pl" \
	"$top/scripts/spelling.txt" "$top/scripts/const_structs.checkpatch"
mkdir -p "$dest"
cp "$tmp/$top/scripts/checkpatch.pl" "$tmp/$top/scripts/spelling.txt" \
	"$tmp/$top/scripts/const_structs.checkpatch" "$dest/"
chmod +x "$dest/checkpatch.pl"
echo "get-checkpatch: $dest/checkpatch.pl from $pkg"
