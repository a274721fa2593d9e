#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Boot Debian's arm64 kernel KVER (unpacked by tests/arm64/fetch.sh) under
# qemu-system-aarch64 TCG with a busybox-static:arm64 initramfs that loads
# the virtio/9p modules, mounts the host root read-only over virtio-9p,
# prints uname -a and the CPU count, runs the cross-built hello worlds (a
# static one, and a dynamic one in a chroot of the unpacked libc6:arm64
# tree: the host root has no arm64 libc), and powers off. Measures the boot.
#   boot.sh [KVER]
# Env: ARM64_CACHE (/var/cache/tprof/arm64), ARM64_CPU (max; the research
# note measured max,pauth-impdef=on ~2.3x faster to /init on 6.12), SMP (2),
# OUT (folder for console.log and the initramfs; default a temp folder).
# Wrap it in /work/vmslot.sh like every guest. Exit 0 when the guest
# printed its result line.
set -euo pipefail
cache=${ARM64_CACHE:-/var/cache/tprof/arm64}
kver=${1:-$(find "$cache/root/boot" -name 'vmlinuz-*' -printf '%f\n' |
	sed 's/^vmlinuz-//' | sort -V | tail -n1)}
root=$cache/root
moddir=$root/lib/modules/$kver
image=$root/boot/vmlinuz-$kver
cpu=${ARM64_CPU:-max} smp=${SMP:-2}
if ! [ -f "$image" ] || ! [ -f "$moddir/modules.dep" ] || ! [ -x "$root/bin/busybox" ]; then
	echo "boot.sh: $kver not unpacked in $cache (tests/arm64/fetch.sh)" >&2
	exit 1
fi
out=${OUT:-$(mktemp -d)}
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp"/{bin,dev,proc,sys,newroot,lib/modules}
cp "$root/bin/busybox" "$tmp/bin/busybox"
for app in sh mount insmod poweroff cat echo chroot grep uname sync cut; do
	ln -s busybox "$tmp/bin/$app"
done
cp "$cache/hello/hello-static" "$tmp/bin/hello-static"

# Module closure in load order (dependencies first), as tests/vm/mkinitramfs.sh.
declare -A seen=()
order=()
add_mod() {
	local line path dep
	line=$(grep -E "(^|/)$1\.ko(\.[a-z]+)?:" "$moddir/modules.dep" || true)
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
for m in virtio_pci 9pnet_virtio 9p; do add_mod "$m"; done
: > "$tmp/lib/modules/load-order"
for path in "${order[@]}"; do
	base=$(basename "$path")
	case "$base" in
	*.ko.xz) xz -dc "$moddir/$path" > "$tmp/lib/modules/${base%.xz}"; base=${base%.xz} ;;
	*) cp "$moddir/$path" "$tmp/lib/modules/$base" ;;
	esac
	echo "$base" >> "$tmp/lib/modules/load-order"
done

cat > "$tmp/init" <<EOF
#!/bin/sh
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
echo "A64 at-init uptime \$(cat /proc/uptime)"
while read -r m; do insmod "/lib/modules/\$m" || echo "A64 insmod \$m failed"; done < /lib/modules/load-order
mount -t 9p -o trans=virtio,version=9p2000.L,msize=512000,cache=loose,ro hostroot /newroot ||
	echo "A64 9p mount failed"
echo "A64 uname \$(uname -a)"
echo "A64 cpus \$(grep -c ^processor /proc/cpuinfo)"
echo "A64 cpu-features \$(grep -m1 ^Features /proc/cpuinfo)"
echo "A64 9p-root \$(cat /newroot/etc/debian_version 2>&1)"
echo "A64 static \$(/bin/hello-static 2>&1)"
echo "A64 dynamic \$(chroot /newroot$root /opt/tprof/hello-dyn 2>&1)"
echo "A64 host-amd64 \$(chroot /newroot /bin/true 2>&1; echo rc=\$?)"
# CPU speed under TCG: a shell loop, the same as on the host (busybox sh).
t0=\$(cut -d' ' -f1 /proc/uptime); i=0
while [ \$i -lt 200000 ]; do i=\$((i + 1)); done
echo "A64 loop 200000 \$t0 \$(cut -d' ' -f1 /proc/uptime)"
echo "A64 done uptime \$(cat /proc/uptime)"
sync
poweroff -f
EOF
chmod +x "$tmp/init"
(cd "$tmp" && find . | cpio -o -H newc --quiet) | gzip -1 > "$out/initrd.gz"

start=$(date +%s.%N)
timeout 300 qemu-system-aarch64 -M virt -cpu "$cpu" -accel tcg,thread=single \
	-smp "$smp" -m 1G -nodefaults -nographic -no-reboot \
	-serial "file:$out/console.log" -monitor none \
	-kernel "$image" -initrd "$out/initrd.gz" \
	-append "console=ttyAMA0 panic=-1 quiet" \
	-fsdev local,id=fs0,path=/,security_model=none,readonly=on \
	-device virtio-9p-pci,fsdev=fs0,mount_tag=hostroot || true
end=$(date +%s.%N)
grep '^A64 ' "$out/console.log" || true
printf 'boot.sh: %s -cpu %s -smp %s: wall %.1f s (qemu start to exit)\n' \
	"$kver" "$cpu" "$smp" "$(echo "$end - $start" | bc)"
grep -q '^A64 done' "$out/console.log"
