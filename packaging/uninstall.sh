#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# `sudo make uninstall`: remove every trace of `make install`: all tprof
# versions from DKMS (modules, build trees, /usr/src/tprof-*), tprof-read, its
# man page, the udev rule, the modules-load.d entry and the tprof group;
# tprof-agent, its man page, unit (stopped and disabled first) and options.
# The module is unloaded first if it is loaded.
# Environment: PREFIX (/usr/local), SYSCONFDIR (/etc), KEEP_GROUP (1: keep it).
set -euo pipefail
PREFIX=${PREFIX:-/usr/local}
SYSCONFDIR=${SYSCONFDIR:-/etc}

die() { echo "uninstall: $*" >&2; exit 1; }

[ "$(id -u)" = 0 ] || die "run as root (sudo make uninstall)"
if dpkg-query -W -f='${Status}' tprof-dkms 2>/dev/null | grep -q ' installed'; then
	die "the tprof-dkms package is installed: remove it with apt (apt purge tprof-dkms tprof-tools)"
fi

unit=$SYSCONFDIR/systemd/system/tprof-agent.service
if [ -e "$unit" ]; then
	if [ -d /run/systemd/system ]; then
		systemctl disable --now tprof-agent.service || true
	else	# no systemd running: its enable links, by hand
		rm -f "$SYSCONFDIR"/systemd/system/*.wants/tprof-agent.service
	fi
fi

if [ -d /sys/module/tprof ]; then
	modprobe -r tprof || die "cannot unload tprof (in use?): stop tprof-read and retry"
fi

if command -v dkms >/dev/null; then
	# "tprof/0.1.0, 6.1.0-56-amd64, x86_64: installed" or "tprof/0.1.0: added"
	for v in $(dkms status -m tprof 2>/dev/null | sed -n 's|^tprof/\([^,:]*\)[,:].*|\1|p' | sort -u); do
		dkms remove -m tprof -v "$v" --all
	done
fi
rm -rf /var/lib/dkms/tprof /usr/src/tprof-[0-9]*
# A module DKMS could no longer account for (e.g. dkms itself was removed).
for f in /lib/modules/*/updates/dkms/tprof.ko*; do
	[ -e "$f" ] || continue
	rm -f "$f"
	k=${f#/lib/modules/}
	depmod -a "${k%%/*}" || true
done

rm -f "$PREFIX/bin/tprof-read" "$PREFIX/share/man/man1/tprof-read.1" \
	"$SYSCONFDIR/udev/rules.d/60-tprof.rules" \
	"$SYSCONFDIR/modules-load.d/tprof.conf" \
	"$PREFIX/sbin/tprof-agent" "$PREFIX/share/man/man8/tprof-agent.8" \
	"$unit"
# The options are tprof-tools' conffile when that package is installed alone.
dpkg-query -S "$SYSCONFDIR/default/tprof-agent" >/dev/null 2>&1 ||
	rm -f "$SYSCONFDIR/default/tprof-agent"
[ -d /run/systemd/system ] && systemctl daemon-reload || true
if command -v udevadm >/dev/null && [ -d /run/udev ]; then
	udevadm control --reload || true
fi
if [ "${KEEP_GROUP:-0}" != 1 ] && getent group tprof >/dev/null; then
	groupdel tprof
fi
echo "uninstall: tprof removed"
