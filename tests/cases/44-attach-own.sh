#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 600
# The legitimate unprivileged attach, the way a member of group tprof does
# it: /dev/tprof is root:tprof 0660 (as the udev rule makes it), a user who
# is a member only through that group attaches (-p) to a CPU-bound process
# of its own that is already running, not one tprof-read launched; its
# profile has the process's hot function. The same user is refused on
# root's process, and told why on its own non-dumpable one, in one line.
#
# $! must be the workload itself: "f cmd &" with f a shell function forks a
# root subshell that runs cmd as its child, so $! is that root subshell,
# and attaching to it is rightly refused. Hence (exec setpriv ...) &, and
# the attach waits until the workload has exec'd: until then it is
# setpriv, root's or (after dropping root) not dumpable, and its /proc/PID/*
# belong to root.
. "$TPROF_ROOT/tests/cases/lib.sh"
tr=$TPROF_BUILD/tprof-read
work=$TPROF_BUILD/lab/lab-work
user=tprofattach uid=20011 gid=20011

if ! command -v setpriv >/dev/null; then
	skip "attach to one's own process: setpriv not installed"
	exit 0
fi

# A user and a group tprof only this guest knows: copies of passwd and
# group, bind-mounted over the read-only host's.
cp /etc/passwd passwd && cp /etc/group group || exit 1
echo "$user:x:$uid:$gid:tprof member:/tmp:/bin/sh" >> passwd
echo "$user:x:$gid:" >> group
if grep -q '^tprof:' group; then
	sed -i -E "s/^(tprof:[^:]*:[0-9]+:)(.+)$/\1\2,$user/; s/^(tprof:[^:]*:[0-9]+:)$/\1$user/" group
else
	echo "tprof:x:20010:$user" >> group
fi
mount --bind passwd /etc/passwd && mount --bind group /etc/group || exit 1
devown=$(stat -c %u:%g /dev/tprof) devmode=$(stat -c %a /dev/tprof)
cleanup() {
	kill "$spinner" "$victim" "$nodump" 2>/dev/null
	wait 2>/dev/null
	chown "$devown" /dev/tprof
	chmod "$devmode" /dev/tprof
	umount /etc/passwd /etc/group
}
trap cleanup EXIT
chgrp tprof /dev/tprof && chmod 0660 /dev/tprof
as() {	# as CMD...: run as $user with the groups a login gives it
	setpriv --reuid="$user" --regid="$user" --init-groups env HOME=/tmp "$@"
}
check "/dev/tprof is root:tprof 660, $user opens it only as a member of tprof" \
	bash -c "test \"\$(stat -c %U:%G.%a /dev/tprof)\" = root:tprof.660 &&
		setpriv --reuid=$user --regid=$user --init-groups id -Gn | grep -qw tprof"
chmod 0755 "$PWD"
mkdir -m 0777 u

# waitfor PID COMM UID: until PID has exec'd COMM and its /proc files are
# UID's (it is dumpable); 0 if so within 60 s.
waitfor() {
	for _ in $(seq 600); do
		[ "$(cat "/proc/$1/comm" 2>/dev/null)" = "$2" ] &&
			[ "$(stat -c %u "/proc/$1/auxv" 2>/dev/null)" = "$3" ] && return 0
		sleep 0.1
	done
	return 1
}

# The user's own CPU-bound process, started without tprof-read: four
# threads in lab-work's mix(), for far longer than the attach lasts.
(exec setpriv --reuid="$user" --regid="$user" --init-groups \
	"$work" shares 100000000000 2>/dev/null) &
spinner=$!
if waitfor "$spinner" lab-work "$uid"; then
	ok "$user's own lab-work runs, its /proc/PID/auxv is $user's ($(stat -c %U "/proc/$spinner/auxv"))"
else
	fail "$user's own lab-work runs, its /proc/PID/auxv is $user's (comm $(cat "/proc/$spinner/comm" 2>&1), auxv owner $(stat -c %U "/proc/$spinner/auxv" 2>&1))"
fi
if as "$tr" -p "$spinner" -d 2 -o u/attach.pb.gz 2> attach.err &&
	[ -s u/attach.pb.gz ]; then
	ok "$user attaches to its own running process (tprof-read -p PID -d 2)"
else
	fail "$user attaches to its own running process (tprof-read -p PID -d 2)"
	sed 's/^/    /' attach.err
fi
if [ -s u/attach.pb.gz ] && go tool pprof -top u/attach.pb.gz > top.txt 2>&1 &&
	grep -qE '[[:space:]]mix$' top.txt; then
	ok "its profile has samples of the hot function mix"
else
	fail "its profile has samples of the hot function mix"
	head -n 20 top.txt 2>/dev/null | sed 's/^/    /'
fi
kill "$spinner"
wait "$spinner" 2>/dev/null

# Negative control: root's process, attached by the same member.
sleep 300 &
victim=$!
waitfor "$victim" sleep 0 || fail "root's sleep runs"
if as "$tr" -p "$victim" -d 1 -o u/victim.pb.gz 2> victim.err; then
	fail "$user is refused on root's process"
elif [ "$(wc -l < victim.err)" = 1 ] &&
	grep -qE "^tprof-read: pid $victim: .*(not permitted|denied)" victim.err; then
	ok "$user is refused on root's process, in one line: $(cat victim.err)"
else
	fail "$user is refused on root's process, in one line naming the pid (got: $(cat victim.err))"
fi
check "no profile is written when refused" test ! -e u/victim.pb.gz

# The user's own process that made itself not dumpable (as a daemon that
# dropped root is): ptrace refuses it, so does tprof, and tprof-read says
# that this is why, not that the process is someone else's.
(exec setpriv --reuid="$user" --regid="$user" --init-groups /usr/bin/python3 -c '
import ctypes, time
ctypes.CDLL(None).prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE, SUID_DUMP_DISABLE
open("u/nodump.ready", "w").close()
time.sleep(300)') &
nodump=$!
for _ in $(seq 600); do [ -e u/nodump.ready ] && break; sleep 0.1; done
if as "$tr" -p "$nodump" -d 1 -o u/nodump.pb.gz 2> nodump.err; then
	fail "$user is refused on its own non-dumpable process"
elif [ "$(wc -l < nodump.err)" = 1 ] &&
	grep -qE "^tprof-read: pid $nodump: .*runs as you but is not dumpable" nodump.err; then
	ok "$user is refused on its own non-dumpable process, in one line: $(cat nodump.err)"
else
	fail "$user is refused on its own non-dumpable process, in one line saying it is not dumpable (got: $(cat nodump.err))"
fi
