#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Print the module version: PACKAGE_VERSION of dkms.conf, the one source of
# truth (debian/changelog must agree; tests/pkg checks it).
set -eu
sed -n 's/^PACKAGE_VERSION="\{0,1\}\([^"]*\)"\{0,1\}$/\1/p' \
	"$(dirname "$0")/../dkms.conf"
