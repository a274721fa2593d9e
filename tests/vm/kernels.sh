#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Install the kernels of tests/kernels from Debian's archive (idempotent) and
# print "NAME KVER" for each selected one. INITRD=No: the host needs no
# initramfs for these kernels (tests/vm builds its own), and making one per
# kernel costs minutes.
#   kernels.sh [--install] [--all] [NAME...]
# Without --install nothing is installed; missing kernels are an error.
# Kernels the harness builds itself (IMAGE-PACKAGE build:SCRIPT, e.g. the
# debug kernel) are selected by name or by --all, not by default: they are
# not packages, so DKMS (make pkg-test) and the bias lab leave them out.
# arm64 kernels (IMAGE-PACKAGE arm64:NAME, the arm64 build of row NAME's
# kernel) are selected by name or by --all too; --install unpacks them into
# tests/arm64/fetch.sh's cache, nothing is installed.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
install=0 all=0
while :; do
	case "${1:-}" in
	--install) install=1; shift ;;
	--all) all=1; shift ;;
	*) break ;;
	esac
done
want=" $* "

# Resolve a metapackage (e.g. linux-image-amd64) to the versioned package it
# depends on (linux-image-6.1.0-56-amd64); a versioned name maps to itself.
resolve() {
	local dep
	dep=$(apt-cache depends "$1" 2>/dev/null |
		sed -n 's/^ *Depends: \(linux-image-[0-9].*\)$/\1/p' | head -n1)
	echo "${dep:-$1}"
}

while read -r name img hdr _opts; do
	case "$name" in ''|\#*) continue ;; esac
	if [[ "$img" == arm64:* ]]; then
		if [ "$want" = "  " ]; then [ $all = 1 ] || continue
		else [[ "$want" == *" $name "* ]] || continue; fi
		# the same Debian kernel (ABI) as the amd64 row: the cross-build
		# uses that row's installed headers-common tree
		arg=
		[ $install = 1 ] && arg=--install
		# shellcheck disable=SC2086 # no argument when empty
		amd=$("$0" $arg "${img#arm64:}") || exit 1
		kver=${amd##* }
		kver=${kver%-amd64}-arm64
		if [ $install = 1 ]; then
			"$root/tests/arm64/fetch.sh" "$kver" > /dev/null || exit 1
		elif [ ! -e "${ARM64_CACHE:-/var/cache/tprof/arm64}/root/boot/vmlinuz-$kver" ]; then
			echo "kernels.sh: kernel $name ($kver) is not unpacked: run tests/arm64/fetch.sh $kver" >&2
			exit 1
		fi
		echo "$name $kver"
		continue
	fi
	if [[ "$img" == build:* ]]; then
		if [ "$want" = "  " ]; then [ $all = 1 ] || continue
		else [[ "$want" == *" $name "* ]] || continue; fi
		arg=
		[ $install = 1 ] && arg=--build
		# shellcheck disable=SC2086 # no argument when empty
		kver=$("$root/tests/vm/${img#build:}" $arg) || exit 1
		echo "$name $kver"
		continue
	fi
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
