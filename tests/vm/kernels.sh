#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Install the kernels of tests/kernels from Debian's archive (idempotent) and
# print "NAME KVER" for each selected one. INITRD=No: the host needs no
# initramfs for these kernels (tests/vm builds its own), and making one per
# kernel costs minutes.
#   kernels.sh [--install] [NAME...]
# Without --install nothing is installed; missing kernels are an error.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
install=0
if [ "${1:-}" = --install ]; then install=1; shift; fi
want=" $* "

# Resolve a metapackage (e.g. linux-image-amd64) to the versioned package it
# depends on (linux-image-6.1.0-56-amd64); a versioned name maps to itself.
resolve() {
	local dep
	dep=$(apt-cache depends "$1" 2>/dev/null |
		sed -n 's/^ *Depends: \(linux-image-[0-9].*\)$/\1/p' | head -n1)
	echo "${dep:-$1}"
}

while read -r name img hdr; do
	case "$name" in ''|\#*) continue ;; esac
	[ "$want" = "  " ] || [[ "$want" == *" $name "* ]] || continue
	versioned=$(resolve "$img")
	kver=${versioned#linux-image-}
	if [ "$versioned" = "$img" ] && [ ! -e "/boot/vmlinuz-$kver" ]; then
		if [ $install = 0 ]; then
			echo "kernels.sh: cannot resolve $img (apt-get update?)" >&2
			exit 1
		fi
	fi
	if [ ! -e "/boot/vmlinuz-$kver" ] || [ ! -e "/lib/modules/$kver/build/Makefile" ]; then
		if [ $install = 0 ]; then
			echo "kernels.sh: kernel $name ($kver) is not installed: run make kernels" >&2
			exit 1
		fi
		echo "kernels.sh: installing $img $hdr" >&2
		DEBIAN_FRONTEND=noninteractive INITRD=No apt-get install -y -q -o DPkg::Lock::Timeout=900 \
			--no-install-recommends "$img" "$hdr" >&2
		versioned=$(resolve "$img")
		kver=${versioned#linux-image-}
	fi
	echo "$name $kver"
done < "$root/tests/kernels"
