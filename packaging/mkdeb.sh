#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# `make deb`: build the Debian packages (tprof-dkms, tprof-tools) with
# dpkg-buildpackage in a clean copy of the source tree under OUT/src, so the
# work tree gets no debian/ build litter and no stray objects reach the
# packages; the .debs land in OUT.
# Then tprof-tools for each architecture in DEB_CROSS (default arm64; empty:
# none), cross-built in the same copy: dpkg-buildpackage -a ARCH -B -d, with
# the tools and package trees that packaging/cross-ARCH.sh makes in OUT/cross-ARCH
# (-d: the build dependencies are the sysroot's, not installed :ARCH packages;
# profiles cross and nocheck, as a cross build of the archive would have).
# Not with -A, -S or -g, which build no architecture-specific package.
#   mkdeb.sh OUT [dpkg-buildpackage options; default -b, -A = tprof-dkms only]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:?usage: mkdeb.sh OUT [dpkg-buildpackage options]}
shift
[ $# -gt 0 ] || set -- -b

die() { echo "mkdeb: $*" >&2; exit 1; }

command -v dpkg-buildpackage >/dev/null ||
	die "dpkg-buildpackage not found: apt-get install dpkg-dev debhelper dh-dkms"
ver=$("$root/packaging/version.sh")
dver=$(dpkg-parsechangelog -l "$root/debian/changelog" -S Version)
[ "${dver%-*}" = "$ver" ] ||
	die "debian/changelog says $dver but dkms.conf says $ver: add a changelog entry (dch -v $ver)"

mkdir -p "$out"
out=$(cd "$out" && pwd)
work=$out/src/tprof-$ver
rm -rf "$out/src"
rm -f "$out"/tprof*.deb "$out"/tprof_*.changes "$out"/tprof_*.buildinfo
mkdir -p "$work"

# The copy: what git would commit (tracked and untracked-but-not-ignored files,
# so uncommitted work is packaged too), else everything but build products.
rel=${out#"$root"/}
if git -C "$root" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	(cd "$root" && git ls-files -z -c -o --exclude-standard) |
		(cd "$root" && while IFS= read -r -d '' f; do
			[ -e "$f" ] || continue		# deleted, not yet committed
			case "$f" in "$rel"/*) continue ;; esac
			printf '%s\0' "$f"
		done) |
		tar -C "$root" --null -T - -cf - | tar -C "$work" -xf -
else
	tar -C "$root" --exclude=./.git --exclude=./build --exclude=./.cache \
		--exclude="./$rel" --exclude='*.o' --exclude='*.ko' \
		--exclude='*.cmd' --exclude='*.mod*' -cf - . | tar -C "$work" -xf -
fi

(cd "$work" && dpkg-buildpackage -us -uc "$@")
mv "$out"/src/*.deb "$out"/
mv "$out"/src/*.changes "$out"/src/*.buildinfo "$out"/ 2>/dev/null || true

cross=${DEB_CROSS-arm64}
case " $* " in
*" -A "*|*" -S "*|*" -g "*|*" --build=source "*|*" --build=indep "*|*" --build=all "*)
	cross= ;;
esac
for arch in $cross; do
	[ -x "$root/packaging/cross-$arch.sh" ] ||
		die "DEB_CROSS=$arch: no packaging/cross-$arch.sh (make deb DEB_CROSS= builds no cross package)"
	x=$out/cross-$arch
	"$root/packaging/cross-$arch.sh" "$x" ||
		die "$arch: no cross toolchain (make deb DEB_CROSS= builds no cross package)"
	gnu=$(dpkg-architecture -a "$arch" -qDEB_HOST_GNU_TYPE 2>/dev/null)
	(cd "$work" && PATH=$x/bin:$PATH CC=$gnu-gcc TPROF_SHLIBS_TREES=$x/shlibs \
		DEB_BUILD_OPTIONS="${DEB_BUILD_OPTIONS:+$DEB_BUILD_OPTIONS }nocheck" \
		dpkg-buildpackage -us -uc -a "$arch" -B -d -Pcross,nocheck)
	mv "$out"/src/*.deb "$out"/
	mv "$out"/src/*.changes "$out"/src/*.buildinfo "$out"/ 2>/dev/null || true
done
ls -1 "$out"/*.deb
