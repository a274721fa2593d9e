#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Copy the DKMS module source (Kbuild, kmod/ sources, dkms.conf) to DEST, the
# tree DKMS builds from (/usr/src/tprof-<version>). Used by `make install` and
# debian/rules, so both ship the same files. Build products never go along.
#   dkms-source.sh DEST
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
dest=${1:?usage: dkms-source.sh DEST}
mkdir -p "$dest"
install -m 0644 "$root/Kbuild" "$root/dkms.conf" "$dest/"
cd "$root"
find kmod -type f \( -name '*.c' -o -name '*.h' -o -name 'Kbuild*' \) |
	LC_ALL=C sort | while read -r f; do
		install -D -m 0644 "$f" "$dest/$f"
	done
