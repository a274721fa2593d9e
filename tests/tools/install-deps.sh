#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Install the Debian packages of .ci/packages that are missing, then the
# kernels of tests/kernels (building the debug kernel once: it is cached
# outside the tree, see tests/vm/debug-kernel.sh), or with --kernels NAME...
# only those; then tests/arm64/fetch.sh (arm64 toolchain and sysroot, a
# cache). Idempotent; needs root (apt).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
mapfile -t pkgs < <(grep -v '^#' "$root/.ci/packages" | sed '/^$/d')
missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	[ "$(id -u)" = 0 ] || { echo "install-deps: need root to install: ${missing[*]}" >&2; exit 1; }
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -q
	apt-get install -y -q --no-install-recommends -o DPkg::Lock::Timeout=600 "${missing[@]}"
	# prometheus is here for promtool: its server must not run beside the
	# tests (a machine with systemd starts it at install)
	if printf '%s\n' "${missing[@]}" | grep -qx prometheus &&
		command -v systemctl > /dev/null; then
		systemctl disable --now prometheus > /dev/null 2>&1 || true
	fi
fi
# Go >= 1.21 (PGO tests) is in bookworm-backports. Reach it through a private
# sources file instead of changing the machine's apt configuration.
if ! ls /usr/lib/go-1.2[1-9]/bin/go > /dev/null 2>&1; then
	[ "$(id -u)" = 0 ] || { echo "install-deps: need root for golang-1.23-go" >&2; exit 1; }
	parts=$root/.cache/apt-backports
	mkdir -p "$parts"
	cat > "$parts/backports.sources" <<EOS
Types: deb
URIs: http://deb.debian.org/debian
Suites: bookworm-backports
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOS
	bpo=(-o Dir::Etc::sourcelist=/dev/null -o "Dir::Etc::sourceparts=$parts"
	     -o APT::Get::List-Cleanup=0)
	export DEBIAN_FRONTEND=noninteractive
	apt-get "${bpo[@]}" update -q
	apt-get "${bpo[@]}" install -y -q --no-install-recommends \
		-o DPkg::Lock::Timeout=600 golang-1.23-go
fi
# --kernels NAME...: only those kernels (make demo: its one, not the
# debug kernel's 20-minute build); default: all of them.
if [ "${1:-}" = --kernels ]; then
	shift
	"$root/tests/vm/kernels.sh" --install "$@" > /dev/null
else
	"$root/tests/vm/kernels.sh" --install --all > /dev/null
	# arm64 (#25): the cross toolchain, the arm64 sysroot and 6.1's arm64
	# kernel headers, unpacked into a cache without installing anything:
	# the unit tests' arm64 programs (run under qemu-user), the arm64
	# tprof-tools .deb and the cross DKMS build of make pkg-test use them
	"$root/tests/arm64/fetch.sh" > /dev/null
fi
