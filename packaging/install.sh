#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# `sudo make install`: register tprof.ko with DKMS and build and install it for
# every kernel that has headers, install tprof-read and its man page, the udev
# rule (/dev/tprof root:tprof 0660), the tprof group and a modules-load.d
# entry; tprof-agent (PREFIX/sbin), tprof-agent(8), its systemd unit
# (SYSCONFDIR/systemd/system, disabled) and its options
# (SYSCONFDIR/default/tprof-agent, kept when it exists: the admin's).
# Never loads the module, never enables or starts the unit. `make uninstall`
# (uninstall.sh) undoes all.
#   install.sh TPROF_READ_BINARY [TPROF_AGENT_BINARY]
# Environment: PREFIX (/usr/local), KVERS (kernels; default: all with headers),
# LOAD_AT_BOOT (1: install the modules-load.d entry), SYSCONFDIR (/etc).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:?usage: install.sh TPROF_READ_BINARY [TPROF_AGENT_BINARY]}
agent=${2:-$(dirname "$bin")/tprof-agent}
PREFIX=${PREFIX:-/usr/local}
SYSCONFDIR=${SYSCONFDIR:-/etc}
LOAD_AT_BOOT=${LOAD_AT_BOOT:-1}
ver=$("$root/packaging/version.sh")
src=/usr/src/tprof-$ver

die() { echo "install: $*" >&2; exit 1; }

[ "$(id -u)" = 0 ] || die "run as root (sudo make install)"
command -v dkms >/dev/null || die "dkms not found: apt-get install dkms"
[ -x "$bin" ] || die "$bin not built (make userspace)"
[ -x "$agent" ] || die "$agent not built (make userspace)"
if dpkg-query -W -f='${Status}' tprof-dkms 2>/dev/null | grep -q ' installed'; then
	die "the tprof-dkms package is installed: use apt, or remove it first"
fi

kvers=${KVERS:-}
if [ -z "$kvers" ]; then
	for d in /lib/modules/*/build; do
		[ -f "$d/Makefile" ] || continue
		k=${d%/build}
		kvers="$kvers ${k##*/}"
	done
fi
[ -n "${kvers// /}" ] ||
	die "no kernel headers under /lib/modules/*/build: apt-get install linux-headers-$(uname -r)"

# 1. The group first, so udev finds it when the module creates /dev/tprof.
getent group tprof >/dev/null || groupadd --system tprof
echo "install: group tprof (add users with: usermod -aG tprof USER)"

# 2. Module source, registered with DKMS (replacing an older registration of
#    the same version, e.g. from a previous `make install`).
if [ -e "/var/lib/dkms/tprof/$ver" ]; then
	dkms remove -m tprof -v "$ver" --all >/dev/null
fi
rm -rf "$src"
"$root/packaging/dkms-source.sh" "$src"
dkms add -m tprof -v "$ver"

# 3. Build and install for each kernel. Exit code 77: BUILD_EXCLUSIVE_* in
#    dkms.conf excludes that kernel (too old, missing config): not an error.
built=0
for k in $kvers; do
	rc=0
	dkms install -m tprof -v "$ver" -k "$k" || rc=$?
	case $rc in
	0) built=$((built + 1)) ;;
	77) echo "install: kernel $k not supported by tprof (see dkms.conf), skipped" >&2 ;;
	*) die "dkms install for kernel $k failed (rc=$rc): see /var/lib/dkms/tprof/$ver/build/make.log" ;;
	esac
done
[ "$built" -gt 0 ] || die "tprof.ko was built for no kernel (make uninstall undoes the rest)"

# 4. The tool and its man page.
install -D -m 0755 "$bin" "$PREFIX/bin/tprof-read"
install -D -m 0644 "$root/docs/tprof-read.1" "$PREFIX/share/man/man1/tprof-read.1"
install -D -m 0755 "$agent" "$PREFIX/sbin/tprof-agent"
install -D -m 0644 "$root/docs/tprof-agent.8" "$PREFIX/share/man/man8/tprof-agent.8"
# The unit runs this PREFIX's agent; disabled until the admin enables it.
mkdir -p "$SYSCONFDIR/systemd/system"
sed "s|^ExecStart=/usr/sbin/tprof-agent |ExecStart=$PREFIX/sbin/tprof-agent |" \
	"$root/packaging/systemd/tprof-agent.service" \
	> "$SYSCONFDIR/systemd/system/tprof-agent.service"
chmod 0644 "$SYSCONFDIR/systemd/system/tprof-agent.service"
if [ -e "$SYSCONFDIR/default/tprof-agent" ]; then
	echo "install: $SYSCONFDIR/default/tprof-agent kept (yours)"
else
	install -D -m 0644 "$root/packaging/default/tprof-agent" "$SYSCONFDIR/default/tprof-agent"
fi
[ -d /run/systemd/system ] && systemctl daemon-reload || true

# 5. udev rule and boot-time loading.
install -D -m 0644 "$root/packaging/udev/60-tprof.rules" \
	"$SYSCONFDIR/udev/rules.d/60-tprof.rules"
if [ "$LOAD_AT_BOOT" = 1 ]; then
	install -D -m 0644 "$root/packaging/modules-load.d/tprof.conf" \
		"$SYSCONFDIR/modules-load.d/tprof.conf"
else
	rm -f "$SYSCONFDIR/modules-load.d/tprof.conf"
fi
if command -v udevadm >/dev/null && [ -d /run/udev ]; then
	udevadm control --reload || true
	# Apply the rule to an already loaded module.
	[ -e /dev/tprof ] && udevadm trigger --action=add --sysname-match=tprof || true
fi

echo "install: tprof $ver installed; load it with: sudo modprobe tprof"
echo "install: the agent's service is disabled: set its target in $SYSCONFDIR/default/tprof-agent," \
     "then: systemctl enable --now tprof-agent"
if [ -d /sys/firmware/efi ] && command -v mokutil >/dev/null &&
   mokutil --sb-state 2>/dev/null | grep -q enabled; then
	echo "install: Secure Boot is on: enroll DKMS's key once with" \
	     "'sudo mokutil --import /var/lib/dkms/mok.pub' and reboot (docs/install.md)"
fi
