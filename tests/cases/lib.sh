# SPDX-License-Identifier: GPL-2.0
# Helpers for in-guest cases (sourced). See tests/vm/guest-run.sh for the
# protocol: print "ok - ...", "not ok - ...", "skip - ...: reason".
ok() { echo "ok - $*"; }
fail() { echo "not ok - $*"; }
skip() { echo "skip - $*"; }
# check DESCRIPTION CMD...: ok if CMD succeeds, else not ok with its output.
check() {
	local desc=$1 out
	shift
	if out=$("$@" 2>&1); then
		ok "$desc"
	else
		fail "$desc"
		printf '%s\n' "$out" | sed 's/^/    /' | head -n 20
	fi
}
