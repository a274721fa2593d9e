#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build the tiny initramfs that boots a test guest: static busybox, our /init,
# and the virtio/9p modules of kernel KVER (with their dependencies), which
# let the guest mount the host's root filesystem read-only over virtio-9p.
# A kernel without a modules folder (the debug kernel) has them built in.
#   mkinitramfs.sh KVER OUTPUT.cpio.gz
set -euo pipefail
kver=$1 out=$2
here=$(cd "$(dirname "$0")" && pwd)
. "$here/kpaths.sh"
kpaths "$kver"
moddir=$KMODDIR
busybox=${BUSYBOX:-/bin/busybox}

file -L "$busybox" | grep -q 'statically linked' || {
	echo "mkinitramfs: $busybox is not static (apt-get install busybox-static)" >&2
	exit 1
}
[ -z "$moddir" ] || [ -f "$moddir/modules.dep" ] || {
	echo "mkinitramfs: no $moddir/modules.dep (kernel $kver not installed)" >&2
	exit 1
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp"/{bin,dev,proc,sys,newroot,out,lib/modules}
cp "$busybox" "$tmp/bin/busybox"
for app in sh mount umount mkdir ln cp insmod poweroff cat echo sleep chroot \
	ls dmesg grep sync mknod uname; do
	ln -s busybox "$tmp/bin/$app"
done
cp "$here/init" "$tmp/init"
chmod +x "$tmp/init"

# Module closure in load order (dependencies first), from modules.dep.
declare -A seen=()
order=()
add_mod() {
	local name=$1 line path dep
	line=$(grep -E "(^|/)$name\.ko(\.[a-z]+)?:" "$moddir/modules.dep" || true)
	[ -n "$line" ] || return 0	# built in
	path=${line%%:*}
	[ -z "${seen[$path]:-}" ] || return 0
	seen[$path]=1
	for dep in ${line#*:}; do
		dep=$(basename "$dep"); dep=${dep%%.ko*}
		add_mod "$dep"
	done
	order+=("$path")
}
if [ -n "$moddir" ]; then
	for m in virtio_pci virtio_console 9pnet_virtio 9p; do add_mod "$m"; done
fi
: > "$tmp/lib/modules/load-order"
for path in "${order[@]}"; do
	base=$(basename "$path")
	case "$base" in
	*.ko.xz) xz -dc "$moddir/$path" > "$tmp/lib/modules/${base%.xz}"; base=${base%.xz} ;;
	*.ko.zst) zstd -qdc "$moddir/$path" > "$tmp/lib/modules/${base%.zst}"; base=${base%.zst} ;;
	*) cp "$moddir/$path" "$tmp/lib/modules/$base" ;;
	esac
	echo "$base" >> "$tmp/lib/modules/load-order"
done
(cd "$tmp" && find . | cpio -o -H newc --quiet) | gzip -1 > "$out"
