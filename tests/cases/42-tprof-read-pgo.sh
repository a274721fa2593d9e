#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 900
# Go PGO from a tprof profile: with Go >= 1.21 (Debian bookworm-backports
# golang-1.23-go), `go build -pgo=<tprof profile>` of the Go test program
# succeeds and -d=pgodebug=1 reports the hot call edge that a runtime/pprof
# profile of the same program reports. Skips when no Go >= 1.21 is installed.
. "$TPROF_ROOT/tests/cases/lib.sh"

TR=$TPROF_BUILD/tprof-read
SRC=$TPROF_ROOT/tests/progs/goprog
[ -x "$TR" ] || { skip "pgo: tprof-read not built"; exit 0; }
GO=
for g in /usr/lib/go-1.2[1-9]/bin/go go; do
	command -v "$g" >/dev/null || continue
	v=$("$g" env GOVERSION 2>/dev/null | sed -n 's/^go1\.\([0-9]*\).*/\1/p')
	[ -n "$v" ] && [ "$v" -ge 21 ] && { GO=$g; break; }
done
[ -n "$GO" ] || { skip "pgo: needs Go >= 1.21 (apt: golang-1.23-go from bookworm-backports)"; exit 0; }

export HOME=$PWD GOCACHE=$PWD/gocache GOPATH=$PWD/gopath GOPROXY=off GO111MODULE=off GOTOOLCHAIN=local
cp -r "$SRC" src && cd src || exit 1
if "$GO" build -o goprog . 2> build.err; then ok "pgo: goprog builds with $("$GO" env GOVERSION)"
else fail "pgo: build goprog"; sed 's/^/    /' build.err | head; exit 0; fi

"$TR" -o ../tprof.pb.gz -- ./goprog -s 1 -g 2 > /dev/null 2> tr.err ||
	{ fail "pgo: tprof-read launch"; sed 's/^/    /' tr.err | head; exit 0; }
./goprog -s 1 -g 2 -cpuprofile ../rt.pb.gz > /dev/null
cp ../tprof.pb.gz ../rt.pb.gz "$TPROF_OUT/" 2>/dev/null

pgo() {	# pgo PROFILE: print the hot call sites pgodebug reports
	"$GO" build -o goprog.pgo -pgo="$1" -gcflags='-d=pgodebug=1' . 2>&1 | grep 'main\.' |
		sed -n 's/.*hot-budget check allows inlining for call \([^ ]*\).*/\1/p' | sort -u
}
if t=$(pgo "$PWD/../tprof.pb.gz"); then ok "pgo: go build -pgo=<tprof profile> succeeds"
else fail "pgo: go build -pgo=<tprof profile>"; fi
r=$(pgo "$PWD/../rt.pb.gz")
if [ -z "$r" ]; then
	skip "pgo: runtime/pprof profile reports no hot call edge to compare with"
elif [ -n "$t" ] && comm -12 <(echo "$t") <(echo "$r") | grep -q .; then
	ok "pgo: tprof and runtime/pprof report the same hot call edge ($(comm -12 <(echo "$t") <(echo "$r") | head -1))"
else
	fail "pgo: hot call edges differ"
	echo "    tprof: $t" ; echo "    runtime/pprof: $r"
fi
exit 0
