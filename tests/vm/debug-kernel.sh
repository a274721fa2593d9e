#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build (once) the lockdep+KASAN debug kernel from Debian's own kernel source
# package and print its KVER. Debian's kernels have neither lockdep nor KASAN.
# The config is x86_64_defconfig + kvm_guest.config + tests/vm/debug-kernel.config.
# The result is cached outside the repository, in a folder named by a hash of
# the source package's version, the fragment and the recipe version below:
#   $DEBUG_KERNEL_CACHE/KEY/{bzImage,System.map,config,build/,ok}
# where build/ is the O= output tree that `make -C .../build M=...` builds
# modules against. KVER is VERSION-dbg-KEY, so every consumer finds the
# folder from KVER alone (tests/vm/kpaths.sh).
#   debug-kernel.sh            print KVER; fail if it is not built
#   debug-kernel.sh --build    build it if needed (root: apt for the source), print KVER
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
# Bump when anything below changes what gets built.
recipe=1
pkg=linux-source-6.12
tarball=/usr/src/$pkg.tar.xz
frag=$root/tests/vm/debug-kernel.config
cache=${DEBUG_KERNEL_CACHE:-/var/cache/tprof/debug-kernel}
build=0
[ "${1:-}" = --build ] && build=1

say() { echo "debug-kernel: $*" >&2; }

ver=$(dpkg-query -W -f='${Version}' "$pkg" 2>/dev/null || true)
if [ -z "$ver" ] || [ ! -f "$tarball" ]; then
	[ $build = 1 ] || { say "$pkg is not installed: run make kernels"; exit 1; }
	say "installing $pkg"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q -o DPkg::Lock::Timeout=900 \
		--no-install-recommends "$pkg" >&2
	ver=$(dpkg-query -W -f='${Version}' "$pkg")
fi
key=$({ echo "$pkg $ver recipe=$recipe"; cat "$frag"; } | sha256sum | cut -c1-12)
kver=${ver%%-*}-dbg-$key
dir=$cache/$key
if [ -f "$dir/ok" ]; then
	echo "$kver"
	exit 0
fi
[ $build = 1 ] || { say "$kver is not built: run make kernels"; exit 1; }

mkdir -p "$cache"
exec 9> "$cache/$key.lock"
flock 9
if [ -f "$dir/ok" ]; then echo "$kver"; exit 0; fi
say "building $kver in $dir (a fresh machine pays this once)"
start=$(date +%s)
rm -rf "$dir"
mkdir -p "$dir/build"
tar -C "$dir" -xf "$tarball"
src=$dir/$pkg
ob=$dir/build
mk() { nice make -s -C "$src" O="$ob" -j"${DEBUG_KERNEL_JOBS:-2}" "$@" >&2; }
mk x86_64_defconfig
"$src/scripts/kconfig/merge_config.sh" -m -O "$ob" "$ob/.config" \
	"$src/kernel/configs/kvm_guest.config" "$frag" >&2
# The key ties the name to the content; the fragment cannot say it.
echo "CONFIG_LOCALVERSION=\"-dbg-$key\"" >> "$ob/.config"
echo "# CONFIG_LOCALVERSION_AUTO is not set" >> "$ob/.config"
mk olddefconfig
# Every option the fragment asks for must have survived olddefconfig.
bad=0
while IFS= read -r line; do
	case "$line" in
	CONFIG_*=*)
		grep -qxF "$line" "$ob/.config" || { say "wanted $line, got: $(grep "^${line%%=*}=" "$ob/.config" || echo unset)"; bad=1; } ;;
	"# CONFIG_"*" is not set")
		opt=${line#\# }; opt=${opt%% *}
		! grep -q "^$opt=" "$ob/.config" || { say "wanted $opt unset, got: $(grep "^$opt=" "$ob/.config")"; bad=1; } ;;
	esac
done < "$frag"
[ $bad = 0 ] || { say "the config does not have what $frag asks for"; exit 1; }
mk all
[ "$(cat "$ob/include/config/kernel.release")" = "$kver" ] || {
	say "built $(cat "$ob/include/config/kernel.release"), expected $kver"
	exit 1
}
cp "$ob/arch/x86/boot/bzImage" "$dir/bzImage"
cp "$ob/System.map" "$dir/System.map"
cp "$ob/.config" "$dir/config"
echo "$(( $(date +%s) - start ))" > "$dir/build-seconds"
touch "$dir/ok"
say "built $kver in $(cat "$dir/build-seconds")s"
echo "$kver"
