#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Fetch what the arm64 groundwork needs (issue #25) into a cache folder,
# without installing anything and without touching the host's apt
# configuration or package state:
#  - arm64 packages (kernel image + headers, busybox-static, libc6) through a
#    private apt (own sources, lists, cache and an empty dpkg status, native
#    architecture arm64): `apt-get install pkg:arm64` on this host would
#    remove gcc-12:amd64, build-essential and dkms (research note section 5);
#  - the aarch64 cross toolchain (amd64/all packages) from the host's own
#    lists, extracted rather than installed: gcc-12-aarch64-linux-gnu
#    Conflicts: gcc-multilib, which .ci/packages needs (ia32 tests), so
#    `apt-get install gcc-aarch64-linux-gnu` would remove it.
# Every .deb is unpacked with dpkg-deb -x into $CACHE/root (a sysroot-like
# tree, never /). Idempotent: packages already unpacked are skipped.
#   fetch.sh [KVER]        KVER: default 6.1.0-N-arm64 for the amd64 ABI here
# Env: ARM64_CACHE (default /var/cache/tprof/arm64).
# Prints "KVER CACHE".
set -euo pipefail
cache=${ARM64_CACHE:-/var/cache/tprof/arm64}
# one fetch at a time: two would unpack into the same tree
mkdir -p "$cache"
exec 8>"$cache/.lock"
flock 8
if [ $# -ge 1 ]; then
	kver=$1
else
	# Same ABI as the installed 6.1 amd64 kernel (e.g. 6.1.0-57-amd64).
	amd=$(dpkg-query -W -f='${Package}\n' 'linux-image-6.1.0-*-amd64' 2>/dev/null |
		sed -n 's/^linux-image-\(6\.1\.0-[0-9]*\)-amd64$/\1/p' | sort -V | tail -n1)
	[ -n "$amd" ] || { echo "fetch.sh: no linux-image-6.1.0-*-amd64 installed" >&2; exit 1; }
	kver=$amd-arm64
fi
abi=${kver%-arm64}
root=$cache/root debs=$cache/debs apt=$cache/apt
mkdir -p "$root" "$debs" "$apt"/{lists/partial,archives/partial,parts} "$cache/stamps"

# Private apt for arm64: nothing under /etc/apt or /var/lib/apt changes.
cat > "$apt/parts/bookworm-arm64.sources" <<EOS
Types: deb
URIs: http://deb.debian.org/debian
Suites: bookworm bookworm-updates
Components: main
Architectures: arm64
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: http://deb.debian.org/debian-security
Suites: bookworm-security
Components: main
Architectures: arm64
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOS
: > "$apt/status"
aapt=(-o APT::Architecture=arm64 -o APT::Architectures::=arm64
      -o Dir::Etc::sourcelist=/dev/null -o "Dir::Etc::sourceparts=$apt/parts"
      -o "Dir::State::Lists=$apt/lists" -o "Dir::State::status=$apt/status"
      -o "Dir::Cache=$apt/cache" -o Dir::Cache::pkgcache= -o Dir::Cache::srcpkgcache=
      -o Debug::NoLocking=1 -o APT::Get::List-Cleanup=0
      -o APT::Sandbox::User=root)
mkdir -p "$apt/cache"
if [ ! -f "$cache/stamps/lists" ] ||
   [ -n "$(find "$cache/stamps/lists" -mmin +1440)" ]; then
	apt-get "${aapt[@]}" update -q >&2
	touch "$cache/stamps/lists"
fi

# get APT-ARGS-NAME PKG...: download (into $debs) and unpack into $root.
get() {
	local -n opts=$1
	shift
	local p deb
	for p in "$@"; do
		[ -f "$cache/stamps/$p" ] && continue
		rm -f "$debs/${p}_"*.deb
		(cd "$debs" && apt-get "${opts[@]}" download "$p" >&2)
		deb=$(ls "$debs/${p}_"*.deb)
		dpkg-deb -x "$deb" "$root"
		echo "${deb##*/}" > "$cache/stamps/$p"
	done
}

arm64_pkgs=("linux-image-$kver" "linux-headers-$kver" busybox-static libc6)
# shellcheck disable=SC2034 # used through get's nameref
hostapt=(-o APT::Sandbox::User=root)
cross_pkgs=(binutils-aarch64-linux-gnu cpp-12-aarch64-linux-gnu
	gcc-12-aarch64-linux-gnu libgcc-12-dev-arm64-cross libgcc-s1-arm64-cross
	libc6-arm64-cross libc6-dev-arm64-cross linux-libc-dev-arm64-cross
	g++-12-aarch64-linux-gnu libstdc++-12-dev-arm64-cross libstdc++6-arm64-cross)
get aapt "${arm64_pkgs[@]}"
# tprof-agent's HTTP library for the cross build: its header, libmicrohttpd.so
# and .pc, alone. libmicrohttpd-dev Depends: libgnutls28-dev, whose closure
# (nettle-dev, libgmp-dev, libp11-kit-dev, ...) nothing here compiles against;
# libmicrohttpd12 and what it links (libgnutls30) come with the root below.
get aapt libmicrohttpd-dev
get hostapt "${cross_pkgs[@]}"

# ---- the arm64 lane's userland: the guest's root and the cross sysroot ----
# The cases are bash scripts run in a chroot, and the host's amd64 root
# cannot execute in an arm64 guest: the guest gets this tree as its root
# (tests/vm/init), with what the lane's cases run (bash, coreutils, awk,
# python3 for the ioctl checks, setpriv, losetup, modprobe, pgrep, and perf
# for case 51's comparison) and what tprof-read links. The -dev packages
# are the cross-build's (tests/arm64/cross.mk). The private apt resolves
# the whole dependency closure against its empty dpkg status, in one
# download; usrmerge is left out (its postinst merges /usr, and nothing
# here runs maintainer scripts: fix_rootfs does what the lane needs).
rootfs_pkgs=(bash coreutils dash grep sed mawk findutils gzip procps
	util-linux mount kmod base-passwd python3-minimal libpython3.11-stdlib
	libstdc++6 libdw1 libelf1 libprotobuf-c1 zlib1g libzstd1 libdebuginfod1
	libmicrohttpd12 libdw-dev libelf-dev libprotobuf-c-dev zlib1g-dev libdebuginfod-dev
	linux-perf usr-is-merged usrmerge-)
fix_rootfs() {
	local d f n
	# mount points of tests/vm/init (the tree is shared read-only)
	mkdir -p "$root"/{proc,sys,dev,tmp,run,var/tmp,root,usr/local/bin}
	for f in passwd group; do
		[ -e "$root/etc/$f" ] ||
			cp "$root/usr/share/base-passwd/$f.master" "$root/etc/$f"
	done
	# alternatives that postinsts would have made
	ln -sfn mawk "$root/usr/bin/awk"
	[ -e "$root/bin/sh" ] || ln -sfn dash "$root/bin/sh"
	# merged-/usr names: absolute paths in the cases and tprof-ktest
	# (/usr/bin/python3, /usr/bin/su, /bin/sleep) work under either
	for d in bin sbin; do
		for f in "$root/$d"/* "$root/usr/$d"/*; do
			n=${f#"$root"}
			case $n in /usr/*) n=${n#/usr} ;; *) n=/usr$n ;; esac
			[ -e "$root$n" ] || [ -L "$root$n" ] || ln -s "${f#"$root"}" "$root$n"
		done
	done
}
sum=$(printf '%s\n' "${rootfs_pkgs[@]}" | sort | md5sum | cut -c1-12)
if [ ! -f "$cache/stamps/rootfs-$sum" ]; then
	mkdir -p "$debs/partial" "$apt/empty"
	# every .deb of the closure (an empty archive folder: --print-uris
	# leaves out those already downloaded)
	closure=$(apt-get "${aapt[@]}" -o APT::Install-Recommends=0 \
		-o "Dir::Cache::archives=$apt/empty" install --print-uris -qq \
		"${rootfs_pkgs[@]}" | awk '{ print $2 }')
	apt-get "${aapt[@]}" -o APT::Install-Recommends=0 \
		-o "Dir::Cache::archives=$debs" install -d -y -qq "${rootfs_pkgs[@]}" >&2
	for deb in $closure; do
		p=${deb%%_*}
		[ "$(cat "$cache/stamps/$p" 2>/dev/null)" = "$deb" ] && continue
		dpkg-deb -x "$debs/$deb" "$root"
		echo "$deb" > "$cache/stamps/$p"
	done
	fix_rootfs
	touch "$cache/stamps/rootfs-$sum"
fi

# The headers' scripts/ and tools/ are relative links into
# /usr/lib/linux-kbuild-6.1 (amd64 host binaries, Multi-Arch: foreign), and
# the flavour Makefile includes /usr/src/linux-headers-$abi-common by
# absolute path: both are the ones installed for the amd64 6.1 builds, at
# the same version. Point the relative links at them.
kb=$(readlink "$root/usr/src/linux-headers-$kver/scripts" | sed 's|.*/lib/\(linux-kbuild-[^/]*\)/.*|\1|')
[ -d "/usr/lib/$kb" ] || { echo "fetch.sh: /usr/lib/$kb missing (install linux-kbuild for the amd64 headers)" >&2; exit 1; }
mkdir -p "$root/usr/lib"
[ -e "$root/usr/lib/$kb" ] || ln -sfn "/usr/lib/$kb" "$root/usr/lib/$kb"
[ -d "/usr/src/linux-headers-$abi-common" ] || {
	echo "fetch.sh: /usr/src/linux-headers-$abi-common missing (amd64 headers of ABI $abi)" >&2
	exit 1
}
# Unversioned cross tool names (gcc-aarch64-linux-gnu, not fetched, only
# provides these links).
for t in gcc cpp; do
	ln -sfn "aarch64-linux-gnu-$t-12" "$root/usr/bin/aarch64-linux-gnu-$t"
done
# The image package ships no modules.dep (its postinst runs depmod): make
# one inside the cache (depmod reads foreign-arch modules fine).
[ -f "$root/lib/modules/$kver/modules.dep" ] || depmod -b "$root" "$kver"

# A cross-built hello world, dynamic (against the unpacked libc6:arm64, run
# in the guest with chroot $root) and static, for boot.sh's userland check.
hello=$cache/hello
if [ ! -x "$hello/hello-static" ]; then
	mkdir -p "$hello"
	printf '#include <stdio.h>\nint main(void) { printf("hello from aarch64 %%s\\n", HOW); return 0; }\n' > "$hello/hello.c"
	ldp=$root/usr/lib/x86_64-linux-gnu
	LD_LIBRARY_PATH=$ldp "$root/usr/bin/aarch64-linux-gnu-gcc-12" -O2 -DHOW='"dynamic"' \
		-Wl,--sysroot="$root" -o "$hello/hello-dyn" "$hello/hello.c"
	LD_LIBRARY_PATH=$ldp "$root/usr/bin/aarch64-linux-gnu-gcc-12" -O2 -static -DHOW='"static"' \
		-Wl,--sysroot="$root" -o "$hello/hello-static" "$hello/hello.c"
	# Inside $root, so a chroot there runs it with libc6:arm64.
	mkdir -p "$root/opt/tprof"
	cp "$hello/hello-dyn" "$root/opt/tprof/hello-dyn"
fi
echo "$kver $cache"
