#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# `go` in the arm64 guest (tests/arm64/cross.mk installs it as
# $(BUILD)/arm64/bin/go): the cases read profiles with `go tool pprof`, and
# the guest has no Go toolchain, only the host Go's cmd/pprof cross-built
# next to this script. Anything else fails as a missing tool would.
if [ "${1:-}" = tool ] && [ "${2:-}" = pprof ]; then
	shift 2
	exec "$(dirname "$0")/pprof" "$@"
fi
echo "go: the arm64 guest has only 'go tool pprof' (tests/arm64/go-shim.sh)" >&2
exit 2
