#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 600
# The installed packages at work, in a guest booted while tests/pkg/run.sh
# has the .debs installed on the host (TPROF_MODULE=installed): the module
# modprobe loads is the one DKMS installed, systemd-udevd applies the
# package's rule so /dev/tprof is root:tprof 0660, a member of group tprof
# profiles its own processes with the packaged tprof-read and no root, and
# a non-member is refused with a message that says why.
. "$TPROF_ROOT/tests/cases/lib.sh"
tr=/usr/bin/tprof-read
work=$TPROF_BUILD/lab/lab-work
ver=$("$TPROF_ROOT/packaging/version.sh")

if [ "$TPROF_KO" != installed ]; then
	fail "run with TPROF_MODULE=installed (tests/pkg/run.sh does)"
	exit 0
fi

# ---- the module is the one DKMS installed ---------------------------------
path=$(modinfo -n tprof 2>&1)
case $path in
"/lib/modules/$KVER/updates/dkms/tprof.ko"*) ok "modprobe finds DKMS's module: $path" ;;
*) fail "modprobe finds DKMS's module in /lib/modules/$KVER/updates/dkms (got: $path)" ;;
esac
all=$(find "/lib/modules/$KVER" -name 'tprof.ko*' | xargs)
check "it is the only tprof.ko of this kernel, so modprobe loaded it (found: $all)" \
	test "$all" = "$path"
loaded=$(cat /sys/module/tprof/srcversion 2>&1)
if [ -n "$loaded" ] && [ "$loaded" = "$(modinfo -F srcversion tprof 2>&1)" ]; then
	ok "the loaded module has that file's source hash (srcversion $loaded)"
else
	fail "the loaded module has that file's source hash (loaded '$loaded', file '$(modinfo -F srcversion tprof 2>&1)')"
fi
check "the loaded module is version $ver" \
	test "$(cat /sys/module/tprof/version 2>&1)" = "$ver"

# ---- udev applies the package's rule ---------------------------------------
# The guest runs no udev of its own; start the host's systemd-udevd, which
# reads the rule from /lib/udev/rules.d like at boot.
udevd=
for p in /lib/systemd/systemd-udevd /usr/lib/systemd/systemd-udevd; do
	[ -x "$p" ] && { udevd=$p; break; }
done
check "the only tprof rule is tprof-dkms's /lib/udev/rules.d/60-tprof.rules" \
	bash -c 'dpkg -S /lib/udev/rules.d/60-tprof.rules | grep -q "^tprof-dkms:" &&
		! ls /etc/udev/rules.d/*tprof* 2>/dev/null'
owner() { stat -c '%U:%G %a' /dev/tprof 2>&1; }
echo "before udev: /dev/tprof is $(owner)"
if [ -z "$udevd" ]; then
	fail "systemd-udevd is installed (package udev)"
	exit 0
fi
# udevadm ignores requests in a chroot unless told this one is on purpose.
export SYSTEMD_IGNORE_CHROOT=1
# Its stdio must not be the harness's pipe, or the case never ends.
"$udevd" --daemon </dev/null >/dev/null 2>udevd.err ||
	{ fail "systemd-udevd starts: $(cat udevd.err)"; exit 0; }
stop_udevd() { udevadm control --exit 2>/dev/null || pkill -x systemd-udevd; }
trap stop_udevd EXIT
# owned_by_group WHAT: wait for udev's work to show, then judge it.
owned_by_group() {
	udevadm settle -t 60
	for _ in $(seq 100); do
		[ "$(owner)" = "root:tprof 660" ] && break
		sleep 0.1
	done
	check "$1: /dev/tprof is root:tprof 660" test "$(owner)" = "root:tprof 660"
}
# Coldplug: the module was loaded before udevd ran, as with modules-load.d
# at boot; udevadm trigger replays its "add" event.
udevadm trigger --action=add /sys/class/misc/tprof
owned_by_group "coldplug (udevadm trigger)"
# Hotplug: loading the module with udevd running.
chmod 0600 /dev/tprof && chgrp root /dev/tprof
rmmod tprof && modprobe tprof
owned_by_group "hotplug (modprobe with udevd running)"

# ---- a member and a non-member of group tprof ------------------------------
# Two users only this guest knows: copies of passwd and group, bind-mounted
# over the read-only host's.
cp /etc/passwd passwd && cp /etc/group group || exit 1
echo 'tprofuser:x:20001:20001:tprof member:/tmp:/bin/sh' >> passwd
echo 'tprofother:x:20002:20002:not a tprof member:/tmp:/bin/sh' >> passwd
echo 'tprofuser:x:20001:' >> group
echo 'tprofother:x:20002:' >> group
sed -i -E 's/^(tprof:[^:]*:[0-9]+:)(.+)$/\1\2,tprofuser/; s/^(tprof:[^:]*:[0-9]+:)$/\1tprofuser/' group
mount --bind passwd /etc/passwd && mount --bind group /etc/group || exit 1
trap 'umount /etc/passwd /etc/group; stop_udevd
	kill "$victim" "$spinner" 2>/dev/null' EXIT
as() {	# as USER CMD...: run as USER with the groups a login gives it
	local u=$1
	shift
	setpriv --reuid="$u" --regid="$u" --init-groups env HOME=/tmp "$@"
}
check "tprofuser is in group tprof" grep -qw tprof <(as tprofuser id -Gn)
check "tprofother is not in group tprof" test -z "$(as tprofother id -Gn | grep -w tprof)"
chmod 0755 "$PWD"
mkdir -m 0777 u

# A member profiles a command it runs, from its first instruction.
if as tprofuser "$tr" --report -o u/launch.pb.gz -- "$work" shares 200 2> launch.err &&
	[ -s u/launch.pb.gz ]; then
	ok "a member profiles its own command, without root"
else
	fail "a member profiles its own command, without root"
	sed 's/^/    /' launch.err
fi
sed 's/^/# /' launch.err
if go tool pprof -top u/launch.pb.gz > top.txt 2>&1 && grep -q mix top.txt; then
	ok "go tool pprof -top reads it, the workload's hot function mix present"
else
	fail "go tool pprof -top reads it, the workload's hot function mix present"
	head -n 20 top.txt | sed 's/^/    /'
fi

# A member attaches to a process of its own that is already running.
# exec: $! must be the spinner itself, not a root subshell around it.
(exec setpriv --reuid=tprofuser --regid=tprofuser --init-groups \
	bash -c 'while :; do :; done') &
spinner=$!
# Attach once it runs as tprofuser (setpriv has dropped root and exec'd).
for _ in $(seq 100); do
	[ "$(stat -c %u "/proc/$spinner" 2>/dev/null)" = 20001 ] &&
		[ "$(cat "/proc/$spinner/comm" 2>/dev/null)" = bash ] && break
	sleep 0.1
done
if as tprofuser "$tr" -p "$spinner" -d 2 -o u/attach.pb.gz 2> attach.err &&
	[ -s u/attach.pb.gz ] &&
	go tool pprof -top u/attach.pb.gz > top2.txt 2>&1 &&
	grep -qE '[1-9][0-9.]*m?s total' top2.txt; then
	ok "a member attaches to its own running process (-p), samples present"
else
	fail "a member attaches to its own running process (-p), samples present"
	sed 's/^/    /' attach.err top2.txt 2>/dev/null | head -n 20
fi
kill "$spinner"

# Group membership opens the device, not other users' processes.
sleep 300 &
victim=$!
if as tprofuser "$tr" -p "$victim" -d 1 -o u/victim.pb.gz 2> victim.err; then
	fail "a member is refused on root's process"
elif grep -q "pid $victim" victim.err; then
	ok "a member is refused on root's process: $(head -n1 victim.err)"
else
	fail "a member is refused on root's process, for that reason (got: $(cat victim.err))"
fi
check "no profile written for the refused attach" test ! -e u/victim.pb.gz

# A non-member is refused at the device, with the reason and the remedy.
if as tprofother "$tr" -o u/other.pb.gz -- /bin/true 2> other.err; then
	fail "a non-member is refused"
else
	ok "a non-member is refused"
fi
msg=$(head -n1 other.err)
if [ "$(wc -l < other.err)" = 1 ] &&
	grep -qE '^tprof-read: /dev/tprof: Permission denied: .*group tprof' other.err; then
	ok "the refusal says why in one line: $msg"
else
	fail "the refusal says why in one line, naming group tprof (got: $(cat other.err))"
fi
check "no profile written for the non-member" test ! -e u/other.pb.gz

# ---- tprof-agent as tprof-agent.service would run it -----------------------
# The guest has no systemd: run the unit's ExecStartPre and ExecStart lines
# from the installed unit, with its Environment= and the installed
# /etc/default/tprof-agent, under its CapabilityBoundingSet and
# NoNewPrivileges (setpriv), the target set as an admin would: a spinning
# shell's pid. Then /metrics, one 2 s window, SIGTERM: exit 0. About 5 s.
unit=/lib/systemd/system/tprof-agent.service
ip link set lo up 2> /dev/null || busybox ifconfig lo 127.0.0.1 up
(exec bash -c 'while :; do :; done') &
spinner=$!
trap 'umount /etc/passwd /etc/group; stop_udevd
	kill "$victim" "$spinner" "$agent" 2>/dev/null' EXIT
caps=$(sed -n 's/^CapabilityBoundingSet=//p' "$unit" | tr 'A-Z' 'a-z' |
	sed 's/cap_/+/g; s/ /,/g')
pre=$(sed -n 's/^ExecStartPre=+//p' "$unit")
start=$(sed -n 's/^ExecStart=//p' "$unit")
check "the unit's ExecStartPre ($pre) succeeds with the module loaded" $pre
(
	eval "export $(sed -n 's/^Environment=//p' "$unit")"
	set -a
	. /etc/default/tprof-agent
	set +a
	TPROF_AGENT_TARGET="-p $spinner"
	eval "exec setpriv --no-new-privs --bounding-set -all,$caps $start"
) 2> agent.err &
agent=$!
. /etc/default/tprof-agent
U=http://$TPROF_AGENT_LISTEN
for _ in $(seq 100); do
	grep -q serving agent.err && break
	sleep 0.1
done
if grep -qxF "tprof-agent: pid $spinner: serving $U/debug/pprof/ (port ${U##*:})" agent.err; then
	ok "the unit's ExecStart, /etc/default/tprof-agent and -p $spinner: $(head -n1 agent.err)"
else
	fail "the unit's ExecStart serves at $U (caps $caps): $(cat agent.err)"
fi
curl -s -m 5 "$U/metrics" > metrics.txt
samples=$(awk '$1 == "tprof_samples_total" { print $2 }' metrics.txt)
check "its /metrics counts samples of the spinner (tprof_samples_total ${samples:-absent})" \
	test "${samples:-0}" -gt 0
# The window's CPU for the spinner: at least a quarter of the window, and
# no more than the kernel counted for it around the request (/proc/PID/stat,
# 10 ms ticks).
cpu_ms() { awk '{ printf "%.0f\n", ($14 + $15) * 10 }' "/proc/$1/stat"; }
c0=$(cpu_ms "$spinner")
code=$(curl -s -m 10 -o w.pb.gz -w '%{http_code}' "$U/debug/pprof/profile?seconds=2")
c1=$(cpu_ms "$spinner")
go tool pprof -top -unit=ms w.pb.gz > wtop.txt 2>&1
got=$(sed -n 's/.* of \([0-9]*\)ms total.*/\1/p' wtop.txt | head -n1)
if [ "$code" = 200 ] && [ "${got:-0}" -ge 500 ] && [ "$got" -le $((c1 - c0 + 20)) ]; then
	ok "a 2 s window from it: 200, the spinner's ${got} ms, the kernel's $((c1 - c0)) ms around the request"
else
	fail "a 2 s window from it: HTTP $code, the spinner's ${got:-no} ms, the kernel's $((c1 - c0)) ms around the request"
	sed 's/^/    /' wtop.txt agent.err 2>/dev/null | head -n 20
fi
kill -TERM "$agent"
wait "$agent"
check "SIGTERM ends it with 0 (as systemctl stop does)" test $? = 0
kill "$spinner"
