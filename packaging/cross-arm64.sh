#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# What `make deb`'s arm64 tprof-tools build needs on this amd64 host, from
# tests/arm64/fetch.sh's cache and with nothing installed (an :arm64 package
# or gcc-aarch64-linux-gnu would remove gcc-12/gcc-multilib here):
#  DIR/bin/aarch64-linux-gnu-*  the unpacked cross tools; gcc compiles and
#      links against the cache's arm64 sysroot (its -dev packages), and the
#      binutils find their arm64 libbfd/libopcodes, which also lie there;
#  DIR/lib  the sysroot's absolute -dev links (usr/lib/MA/libz.so ->
#      /lib/MA/libz.so.1.2.13), pointed into the sysroot and put first in
#      gcc's -L: ld resolves the originals on this host, finds nothing, and
#      links libz.a instead (a tprof-read with zlib built in and no libz.so.1
#      NEEDED);
#  DIR/shlibs/PKG  one tree per arm64 library package of the cache:
#      DEBIAN/symbols, DEBIAN/shlibs as the .deb has them, and links to its
#      shared libraries in the sysroot, for `dpkg-shlibdeps -S` (debian/rules:
#      TPROF_SHLIBS_TREES), since the dpkg database has no arm64 package.
# Runs fetch.sh first (about 1 s when its cache is complete; a first fetch
# downloads about 250 MB).
#   cross-arm64.sh DIR
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:?usage: cross-arm64.sh DIR}
cache=${ARM64_CACHE:-/var/cache/tprof/arm64}
sysroot=$cache/root

"$root/tests/arm64/fetch.sh" >/dev/null
[ -x "$sysroot/usr/bin/aarch64-linux-gnu-gcc-12" ] ||
	{ echo "cross-arm64: no aarch64-linux-gnu-gcc-12 in $sysroot" >&2; exit 1; }

rm -rf "$dir/bin" "$dir/lib"
mkdir -p "$dir/bin" "$dir/lib"
dir=$(cd "$dir" && pwd)

find "$sysroot/usr/lib/aarch64-linux-gnu" -maxdepth 1 -name '*.so' -type l -lname '/*' \
	-printf '%f %l\n' | while read -r n l; do
		ln -s "$sysroot$l" "$dir/lib/$n"
	done

# The tools. The cache's usr/bin also holds the guest's arm64 userland (awk,
# sed, ...), which cannot run here, so only aarch64-linux-gnu-* go on PATH.
lib=$sysroot/usr/lib/x86_64-linux-gnu
for t in "$sysroot"/usr/bin/aarch64-linux-gnu-*; do
	n=${t##*/}
	case $n in
	*-gcc|*-gcc-12|*-g++|*-g++-12)
		sr=" --sysroot=$sysroot -L$dir/lib"; t=$(readlink -f "$t") ;;
	*-cpp|*-cpp-12)
		sr=" --sysroot=$sysroot"; t=$(readlink -f "$t") ;;
	*)	sr= ;;
	esac
	printf '#!/bin/sh\nLD_LIBRARY_PATH=%s${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} exec %s%s "$@"\n' \
		"$lib" "$t" "$sr" > "$dir/bin/$n"
	chmod +x "$dir/bin/$n"
done

# The library packages' trees (shlibs-trees.py), kept while the cache holds
# the same .debs.
stamp=$(cd "$cache/debs" && ls -- *.deb)
if ! [ -f "$dir/shlibs/.debs" ] || [ "$(cat "$dir/shlibs/.debs")" != "$stamp" ]; then
	rm -rf "$dir/shlibs"
	python3 "$root/packaging/shlibs-trees.py" "$cache/debs" "$sysroot" \
		arm64 aarch64-linux-gnu "$dir/shlibs"
	printf '%s\n' "$stamp" > "$dir/shlibs/.debs"
fi
