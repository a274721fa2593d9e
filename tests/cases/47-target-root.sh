#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 300
# A target whose root is not the host's (issue 13 item 3), live: its binary
# is named from the file the target runs, never from the host's file at the
# same path. The host has progs/rootfile-host (static, hot function
# hot_host); a jail directory has, at that same path, a copy of
# rootfile-jail (the same program with hot_jail at the same address, nm).
# - chroot JAIL PATH (launched): the target's samples are hot_jail, none
#   hot_host, its leaf mapping has the jail file's build-id.
# - newroot JAIL PATH, the jail as a container's root (its own mount
#   namespace, the root mount moved as switch_root does): /proc/PID/maps
#   read from the host shows PATH itself, where the host has the other
#   file; launched and attached (-p), the samples are hot_jail, none
#   hot_host, in a mapping of PATH with the jail file's build-id. Before the
#   fix tprof-read opened the host's PATH first and named hot_host.
# Truth: nm, readelf -n; profiles read with pprofsum.
. "$TPROF_ROOT/tests/cases/lib.sh"

B=$TPROF_BUILD
TR=$B/tprof-read
P=$B/progs
SUM=$B/lab/pprofsum
FILE=$P/rootfile-host
J=$PWD/jail

[ -x "$TR" ] || { skip "target root: tprof-read not built (make userspace)"; exit 0; }
[ -x "$SUM" ] || { skip "target root: pprofsum not built (make lab)"; exit 0; }
for f in rootfile-host rootfile-jail newroot; do
	[ -x "$P/$f" ] || { skip "target root: progs/$f not built (make progs)"; exit 0; }
done
[ "$(id -u)" = 0 ] || { skip "target root: chroot needs root"; exit 0; }

buildid() { readelf -n "$1" | sed -n 's/.*Build ID: *//p'; }
addr() { nm "$1" | awk -v f="$2" '$3 == f { print $1 }'; }
col() { awk -F'\t' -v k="$2" -v a="${3-}" '$1 == k && (a == "" || $2 == a) { print $NF; f = 1 } END { if (!f) print 0 }' "$1"; }
# leafmaps SUMFILE NAME: "FILE BUILDID" of the leaf locations named NAME
leafmaps() { awk -F'\t' -v n="$2" '$1 == "leafloc" { split($5, fn, ";"); if (fn[1] == n) print $3, $4 }' "$1" | sort -u; }

if ! { mkdir -p "$J$P" && cp "$P/rootfile-jail" "$J$FILE"; }; then fail "target root: jail at $J"; exit 0; fi
hid=$(buildid "$FILE") jid=$(buildid "$J$FILE")
ha=$(addr "$FILE" hot_host) ja=$(addr "$J$FILE" hot_jail)
if [ -n "$ha" ] && [ "$ha" = "$ja" ] && [ "$hid" != "$jid" ] &&
	file "$J$FILE" | grep -q 'statically linked'; then
	ok "jail: $FILE in the jail is static, hot_jail at hot_host's address 0x$ha, build-id $jid (host's $hid)"
else
	fail "jail: hot_host 0x$ha, hot_jail 0x$ja, build-ids $hid $jid"
fi

# profiled TAG: hot_jail named with >= 80% of the samples, no hot_host,
# leaves in a mapping of file WANTFILE (if given) with the jail's build-id
profiled() {
	local tag=$1 want=${2-} n j h maps
	"$SUM" -func hot_jail,hot_host -leaflocs "$tag.pb.gz" > "$tag.sum" 2>&1
	save "$tag.pb.gz" "$tag.err" "$tag.sum"
	n=$(col "$tag.sum" total) j=$(col "$tag.sum" func hot_jail) h=$(col "$tag.sum" func hot_host)
	if [ "$n" -gt 0 ] && [ $((j * 100 / n)) -ge 80 ] && [ "$h" = 0 ]; then
		ok "$tag: hot_jail has $((j * 100 / n))% of $n samples, hot_host none"
	else
		fail "$tag: hot_jail $j, hot_host $h of $n samples (want >= 80%, 0)"
		sed 's/^/    /' "$tag.sum" | head -20
	fi
	maps=$(leafmaps "$tag.sum" hot_jail)
	if [ "$(echo "$maps" | wc -l)" = 1 ] && [ "${maps#* }" = "$jid" ] &&
		{ [ -z "$want" ] || [ "${maps% *}" = "$want" ]; }; then
		ok "$tag: hot_jail's leaves are in mapping ${maps% *}, build-id $jid (the jail's file)"
	else
		fail "$tag: hot_jail's leaves in mappings: $maps (want ${want:-any file} with $jid)"
	fi
}

# ---- chroot ----
if "$TR" -o chroot.pb.gz -- chroot "$J" "$FILE" 1.0 > chroot.out 2> chroot.err; then
	ok "chroot: tprof-read -- chroot JAIL $FILE exits 0"
else
	fail "chroot: tprof-read -- chroot JAIL $FILE exits 0"; sed 's/^/    /' chroot.err | head
fi
profiled chroot

# ---- a container's root: maps shows the path the target sees ----
"$P/newroot" "$J" "$FILE" 1000 > /dev/null 2> nr.err &
pid=$!
for _ in $(seq 100); do
	[ "$(cat /proc/$pid/comm 2>/dev/null)" = rootfile-host ] && break
	sleep 0.1
done
mpath=$(awk '$2 ~ /x/ && $6 != "" { print $6; exit }' /proc/$pid/maps 2>/dev/null)
if [ "$mpath" = "$FILE" ] && [ "$(readlink /proc/$pid/root)" = / ] &&
	[ "$(buildid /proc/$pid/root"$FILE")" = "$jid" ]; then
	ok "newroot: /proc/PID/maps shows $FILE (the host's file there is hot_host's), /proc/PID/root$FILE is the jail's"
else
	fail "newroot: maps path '$mpath', root '$(readlink /proc/$pid/root 2>&1)', build-id $(buildid /proc/$pid/root"$FILE" 2>&1) (want $FILE, /, $jid)"
	sed 's/^/    /' nr.err | head
fi
if "$TR" -p $pid -d 1 -o nr-attach.pb.gz 2> nr-attach.err; then
	ok "newroot: attach (-p) to the running target exits 0"
else
	fail "newroot: attach (-p) exits 0"; sed 's/^/    /' nr-attach.err | head
fi
kill $pid 2>/dev/null; wait $pid 2>/dev/null
profiled nr-attach "$FILE"

if "$TR" -o nr-launch.pb.gz -- "$P/newroot" "$J" "$FILE" 1.0 > nr-launch.out 2> nr-launch.err; then
	ok "newroot: tprof-read -- newroot JAIL $FILE exits 0"
else
	fail "newroot: tprof-read -- newroot JAIL $FILE exits 0"; sed 's/^/    /' nr-launch.err | head
fi
profiled nr-launch "$FILE"
exit 0
