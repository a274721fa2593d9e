#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Install the Debian packages of .ci/packages that are missing, then the
# kernels of tests/kernels. Idempotent; needs root (apt).
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
fi
"$root/tests/vm/kernels.sh" --install > /dev/null
