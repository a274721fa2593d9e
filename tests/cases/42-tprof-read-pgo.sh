#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 300
# Go PGO from a tprof profile of the Go test program built with Go >= 1.21
# (build/progs/goprog-modern, built on the host when Debian's golang-1.23-go
# from bookworm-backports is installed): `go tool preprofile`, the compiler's
# own PGO parser, accepts it (start lines, inline frames, cpu/nanoseconds)
# and finds the hot call edge that a runtime/pprof profile of the same
# program has. (The full `go build -pgo` + pgodebug comparison runs in the
# host unit tests: compiling the standard library under TCG is too slow.)
. "$TPROF_ROOT/tests/cases/lib.sh"

TR=$TPROF_BUILD/tprof-read
GP=$TPROF_BUILD/progs/goprog-modern
export HOME=$PWD
[ -x "$TR" ] || { skip "pgo: tprof-read not built"; exit 0; }
[ -x "$GP" ] || { skip "pgo: build/progs/goprog-modern not built (needs golang-1.23-go from bookworm-backports)"; exit 0; }
GO=$(ls /usr/lib/go-1.2[1-9]/bin/go /usr/lib/go-1.[3-9][0-9]/bin/go 2>/dev/null | sort -V | tail -n1)
[ -n "$GO" ] && "$GO" tool -n preprofile >/dev/null 2>&1 || { skip "pgo: no go tool preprofile (Go >= 1.23)"; exit 0; }

if "$TR" -o tprof.pb.gz -- "$GP" -s 1 -g 2 > /dev/null 2> tr.err; then ok "pgo: tprof-read -- goprog-modern"
else fail "pgo: tprof-read -- goprog-modern"; sed 's/^/    /' tr.err | head; exit 0; fi
"$GP" -s 1 -g 2 -cpuprofile rt.pb.gz > /dev/null
cp tprof.pb.gz "$TPROF_OUT/pgo-tprof.pb.gz" 2>/dev/null
cp rt.pb.gz "$TPROF_OUT/pgo-runtime.pb.gz" 2>/dev/null

edges() {	# edges PROFILE: "caller -> callee" of the PGO call graph
	"$GO" tool preprofile -i "$1" -o pre.txt 2> pre.err || return 1
	awk 'NR>1 { if ((NR-2)%3==0) c=$0; else if ((NR-2)%3==1) print c " -> " $0 }' pre.txt | sort -u
}
if t=$(edges tprof.pb.gz); then ok "pgo: go tool preprofile accepts the tprof profile ($(echo "$t" | grep -c .) edges)"
else fail "pgo: go tool preprofile rejects the tprof profile"; sed 's/^/    /' pre.err | head; exit 0; fi
r=$(edges rt.pb.gz)
# call edges between main.* functions found by both profilers
common=$(comm -12 <(echo "$t" | grep '^main\..* -> main\.') <(echo "$r" | grep '^main\..* -> main\.'))
if [ -n "$common" ]; then
	ok "pgo: tprof and runtime/pprof share hot edges: $(echo "$common" | paste -sd';')"
elif ! echo "$r" | grep -q '^main\..* -> main\.'; then
	skip "pgo: runtime/pprof profile has no main.* edge to compare (TCG sampling)"
else
	fail "pgo: no main.* edge in common"
	{ echo "tprof:"; echo "$t"; echo "runtime/pprof:"; echo "$r"; } | head -30 | sed 's/^/    /'
fi
exit 0
