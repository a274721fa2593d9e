#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Host-side packaging tests (`sudo make pkg-test`): DKMS builds tprof.ko for
# each kernel of tests/kernels (and, cross, for the first arm64 row); `make
# deb` builds the .debs (tprof-tools for arm64 too, checked under
# qemu-aarch64); `apt install` of them builds and installs the module for
# every installed kernel, and tprof-agent's service disabled (systemd-analyze
# verify); purge, and `make install` + `make uninstall`, leave no trace.
# Never loads a module.
# Needs root and a host with no tprof installed; leaves it as it found it.
#   run.sh [dkms] [deb] [apt] [make]      (default: all four, in this order)
# Environment: BUILD (build), DEB_OUT ($BUILD/deb), DEB_CROSS (arm64; empty:
# no arm64 package, no arm64 DKMS build), ARM64_CACHE (tests/arm64/fetch.sh's).
# Prints ok/not ok/skip lines and "N passed, M failed"; exits 1 on a failure.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root" || exit 1
. "$root/tests/vm/kpaths.sh"
BUILD=${BUILD:-build}
DEB_OUT=${DEB_OUT:-$BUILD/deb}
# Absolute: dkms runs make in its own tree, with DEB_OUT/cross-arm64/bin on
# PATH (a relative one found no aarch64-linux-gnu-gcc-12 there).
case $BUILD in /*) ;; *) BUILD=$root/$BUILD ;; esac
case $DEB_OUT in /*) ;; *) DEB_OUT=$root/$DEB_OUT ;; esac
sections=${*:-dkms deb apt make}
log=$BUILD/pkg-test
mkdir -p "$log"
log=$(cd "$log" && pwd)
pass=0 fail=0

ok() { echo "ok - $*"; pass=$((pass + 1)); }
not_ok() { echo "not ok - $*"; fail=$((fail + 1)); }
skip() { echo "skip - $*"; }
# check WHAT CMD...: one result line from a command's status; its output goes
# to the log, and is shown when it fails.
check() {
	local what=$1 out
	shift
	out=$("$@" 2>&1)
	local rc=$?
	printf '## %s\n%s\n' "$what" "$out" >>"$log/checks.log"
	if [ $rc = 0 ]; then
		ok "$what"
	else
		not_ok "$what"
		printf '%s\n' "$out" | tail -n 20 | sed 's/^/#   /'
	fi
	return $rc
}
finish() {
	echo "$pass passed, $fail failed"
	[ "$fail" = 0 ]
	exit
}
# `make` with packaging/install.mk, whether or not the Makefile includes it.
mk() {
	if grep -q 'packaging/install\.mk' Makefile; then
		make --no-print-directory "$@"
	else
		make --no-print-directory -f Makefile -f packaging/install.mk "$@"
	fi
}

# logged LOG CMD...: run CMD with its output in LOG; on failure show its tail.
logged() {
	local log=$1
	shift
	"$@" >"$log" 2>&1 || { local rc=$?; tail -n 30 "$log"; return $rc; }
}
apt_get() {
	DEBIAN_FRONTEND=noninteractive apt-get -y -q -o DPkg::Lock::Timeout=600 "$@"
}

ver=$(packaging/version.sh)
arch=$(dpkg --print-architecture)
DEB_CROSS=${DEB_CROSS-arm64}
a64_cache=${ARM64_CACHE:-/var/cache/tprof/arm64}
# arm64 checks: with DEB_CROSS=arm64 on an amd64 host
a64=0
[[ " $DEB_CROSS " == *" arm64 "* ]] && [ "$arch" = amd64 ] && a64=1
# Kernels with headers: what "every installed kernel" means to DKMS.
hdr_kernels() {
	local d
	for d in /lib/modules/*/build/Makefile; do
		[ -f "$d" ] || continue
		d=${d%/build/Makefile}
		echo "${d##*/}"
	done
}

# ---- preconditions --------------------------------------------------------
if [ "$(id -u)" != 0 ]; then
	not_ok "pkg-test runs as root (sudo make pkg-test)"
	finish
fi
missing=
for t in dkms dpkg-buildpackage dh_dkms apt-get modinfo; do
	command -v $t >/dev/null || missing="$missing $t"
done
if [ -n "$missing" ]; then
	not_ok "tools present: missing$missing (apt-get install dkms dh-dkms debhelper)"
	finish
fi
dirty() {
	local f
	dpkg-query -W -f='${Status}\n' tprof-dkms tprof-tools 2>/dev/null |
		grep -q ' installed' && echo "tprof packages installed"
	for f in /usr/src/tprof-* /var/lib/dkms/tprof \
		 /lib/modules/*/updates/dkms/tprof.ko* \
		 /lib/udev/rules.d/60-tprof.rules /etc/udev/rules.d/60-tprof.rules \
		 /usr/lib/modules-load.d/tprof.conf /etc/modules-load.d/tprof.conf \
		 /usr/bin/tprof-read /usr/local/bin/tprof-read \
		 /usr/share/man/man1/tprof-read.1.gz \
		 /usr/local/share/man/man1/tprof-read.1 \
		 /usr/sbin/tprof-agent /usr/local/sbin/tprof-agent \
		 /usr/share/man/man8/tprof-agent.8.gz \
		 /usr/local/share/man/man8/tprof-agent.8 \
		 /lib/systemd/system/tprof-agent.service \
		 /etc/systemd/system/tprof-agent.service \
		 /etc/systemd/system/*.wants/tprof-agent.service \
		 /var/lib/systemd/deb-systemd-helper-enabled/*tprof-agent* \
		 /etc/default/tprof-agent; do
		[ -e "$f" ] && echo "$f"
	done
	getent group tprof >/dev/null && echo "group tprof"
	grep -l 'updates/dkms/tprof\.ko' /lib/modules/*/modules.dep 2>/dev/null
	return 0
}
left=$(dirty)
if [ -n "$left" ]; then
	not_ok "host has no tprof installed before the tests: found $(echo $left)"
	finish
fi
ok "host has no tprof installed before the tests"

# DKMS signs modules with /var/lib/dkms/mok.key, which it creates on first
# use; a key this run creates goes again at the end.
mok_before=0
[ -e /var/lib/dkms/mok.key ] && mok_before=1
cleanup() {
	if dpkg-query -W -f='${Status}\n' tprof-dkms tprof-tools 2>/dev/null |
	   grep -q ' installed'; then
		apt-get purge -y -q tprof-dkms tprof-tools >>"$log/cleanup.log" 2>&1
	fi
	[ -e /var/lib/dkms/tprof ] || compgen -G '/usr/src/tprof-*' >/dev/null &&
		packaging/uninstall.sh >>"$log/cleanup.log" 2>&1
	if [ $mok_before = 0 ]; then
		rm -f /var/lib/dkms/mok.key /var/lib/dkms/mok.pub
	fi
	rm -rf "$tmp"
}
tmp=$(mktemp -d /tmp/tprof-pkg-test.XXXXXX)
trap cleanup EXIT

# no_trace WHAT: nothing of tprof is left on the host.
no_trace() {
	local left
	left=$(dirty)
	if [ -z "$left" ]; then
		ok "$1 leaves no trace"
	else
		not_ok "$1 leaves no trace: left $(echo $left)"
	fi
}

# installed_for_all WHAT [KERNEL...]: DKMS built and installed tprof.ko for
# each KERNEL (default: each kernel with headers), depmod knows it, and its
# vermagic names that kernel.
installed_for_all() {
	local what=$1 k st f vm n=0 bad= ks
	shift
	ks=${*:-$(hdr_kernels)}
	for k in $ks; do
		n=$((n + 1))
		st=$(dkms status -m tprof -v "$ver" -k "$k" 2>&1)
		f=$(ls /lib/modules/"$k"/updates/dkms/tprof.ko* 2>/dev/null | head -n1)
		vm=$( [ -n "$f" ] && modinfo -F vermagic "$f" 2>/dev/null)
		if [[ "$st" != *": installed"* ]]; then
			bad="$bad $k(dkms status: ${st:-nothing})"
		elif [ -z "$f" ]; then
			bad="$bad $k(no updates/dkms/tprof.ko)"
		elif [[ "$vm" != "$k "* ]]; then
			bad="$bad $k(vermagic '$vm')"
		elif ! grep -q '^updates/dkms/tprof\.ko' "/lib/modules/$k/modules.dep"; then
			bad="$bad $k(not in modules.dep)"
		fi
	done
	if [ $n = 0 ]; then
		not_ok "$what: no kernel headers installed (make kernels)"
	elif [ -z "$bad" ] && [ $# = 0 ]; then
		ok "$what: dkms status shows tprof $ver installed for all $n kernels with headers"
	elif [ -z "$bad" ]; then
		ok "$what: dkms status shows tprof $ver installed for $*"
	else
		not_ok "$what: tprof $ver not installed for:$bad"
		dkms status 2>&1 | sed 's/^/#   /'
	fi
}

# ---- dkms: `dkms build` of the module against a kernel's headers ----------
# A private DKMS tree (--dkmstree/--sourcetree), so nothing is registered.
# The first kernel of tests/kernels: apt install (below) builds for every
# kernel with headers, and checks each module's vermagic.
sec_dkms() {
	local kernels name kver src dt rc ko vm
	if ! kernels=$(tests/vm/kernels.sh 2>"$tmp/kernels.err"); then
		not_ok "tests/vm/kernels.sh lists the kernels: $(cat "$tmp/kernels.err")"
		return
	fi
	src=$tmp/src dt=$tmp/dkms
	mkdir -p "$src" "$dt"
	packaging/dkms-source.sh "$src/tprof-$ver"
	check "dkms add tprof/$ver (private tree)" \
		dkms add -m tprof -v "$ver" --sourcetree "$src" --dkmstree "$dt" || return
	while read -r name kver; do
		rc=0
		dkms build -m tprof -v "$ver" -k "$kver" --sourcetree "$src" \
			--dkmstree "$dt" >"$log/dkms-build-$name.log" 2>&1 || rc=$?
		ko=$(ls "$dt/tprof/$ver/$kver"/*/module/tprof.ko* 2>/dev/null | head -n1)
		vm=$( [ -n "$ko" ] && modinfo -F vermagic "$ko")
		if [ $rc = 0 ] && [ -n "$ko" ] && [[ "$vm" == "$kver "* ]]; then
			ok "dkms build for $name ($kver): ${ko##*/}, vermagic $kver"
		else
			not_ok "dkms build for $name ($kver): rc=$rc module=${ko:-none} vermagic='$vm'"
			tail -n 30 "$dt/tprof/$ver/build/make.log" "$log/dkms-build-$name.log" \
				2>/dev/null | sed 's/^/#   /'
			continue
		fi
		# dkms signs with its MOK when the kernel ships sign-file (Secure Boot).
		if grep -q '^Signing module' "$log/dkms-build-$name.log"; then
			check "module for $name is signed with DKMS's MOK (/var/lib/dkms/mok.pub)" \
				test -n "$(modinfo -F signer "$ko")"
		fi
	done < <(head -n1 <<<"$kernels")
	# The floor: a kernel below 6.1 is excluded (exit 77), not attempted.
	kver=$(head -n1 <<<"$kernels" | cut -d' ' -f2)
	rc=0
	dkms build -m tprof -v "$ver" -k 5.10.0-99-amd64 \
		--kernelsourcedir "/lib/modules/$kver/build" --sourcetree "$src" \
		--dkmstree "$dt" >"$log/dkms-build-5.10.log" 2>&1 || rc=$?
	if [ $rc = 77 ]; then
		ok "dkms.conf excludes Linux 5.10 (BUILD_EXCLUSIVE_KERNEL, exit 77)"
	else
		not_ok "dkms.conf excludes Linux 5.10: dkms build exited $rc, not 77"
	fi
	# The architecture: dkms matches BUILD_EXCLUSIVE_ARCH against -a (else
	# uname -m); a 32-bit x86 machine is excluded, not attempted.
	rc=0
	dkms build -m tprof -v "$ver" -k "$kver" -a i686 --sourcetree "$src" \
		--dkmstree "$dt" >"$log/dkms-build-i686.log" 2>&1 || rc=$?
	if [ $rc = 77 ]; then
		ok "dkms.conf excludes i686 (BUILD_EXCLUSIVE_ARCH, exit 77)"
	else
		not_ok "dkms.conf excludes i686: dkms build -a i686 exited $rc, not 77"
	fi
	[ $a64 = 1 ] && dkms_arm64 "$src" "$dt"
	dkms remove -m tprof -v "$ver" --all --sourcetree "$src" --dkmstree "$dt" \
		>/dev/null 2>&1
}

# dkms_arm64 SRC DKMSTREE: DKMS builds the module for the first arm64 row of
# tests/kernels on this host, as on an arm64 machine (-a aarch64: dkms.conf's
# arch and config guards see an arm64 machine and kernel), with the kernel's
# headers from tests/arm64/fetch.sh's cache and the cross tools of `make deb`
# (packaging/cross-arm64.sh, into DEB_OUT/cross-arm64, which make deb reuses);
# ARCH and CROSS_COMPILE reach kbuild through the environment. dkms's own
# strip of the module is the host's and fails (not an error to dkms): the
# module stays unstripped. About 40 s (80 s on a loaded host).
dkms_arm64() {
	local src=$1 dt=$2 name kver rc=0 ko vm x=$DEB_OUT/cross-arm64
	read -r name _ _ < <(awk '$2 ~ /^arm64:/ { print; exit }' tests/kernels)
	if [ -z "$name" ]; then
		skip "dkms build for arm64: tests/kernels has no arm64 row"
		return
	fi
	if ! kver=$(tests/vm/kernels.sh "$name" 2>"$tmp/kernels.err"); then
		not_ok "dkms build for $name: $(cat "$tmp/kernels.err") (tests/vm/kernels.sh --install $name)"
		return
	fi
	kver=${kver#* }
	check "packaging/cross-arm64.sh: the arm64 cross tools (log: $log/cross-arm64.log)" \
		logged "$log/cross-arm64.log" packaging/cross-arm64.sh "$x" || return
	PATH=$x/bin:$PATH ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu- \
		dkms build -m tprof -v "$ver" -k "$kver" -a aarch64 \
		--kernelsourcedir "$a64_cache/root/usr/src/linux-headers-$kver" \
		--sourcetree "$src" --dkmstree "$dt" >"$log/dkms-build-$name.log" 2>&1 || rc=$?
	ko=$(ls "$dt/tprof/$ver/$kver/aarch64/module"/tprof.ko* 2>/dev/null | head -n1)
	vm=$( [ -n "$ko" ] && modinfo -F vermagic "$ko")
	if [ $rc = 0 ] && [[ "$vm" == "$kver "*" aarch64" ]] && elf_machine "$ko" AArch64; then
		ok "dkms build for $name ($kver, -a aarch64): an AArch64 ${ko##*/}, vermagic $kver"
	else
		not_ok "dkms build for $name ($kver, -a aarch64): rc=$rc module=${ko:-none} vermagic='$vm'"
		tail -n 30 "$dt/tprof/$ver/build/make.log" "$log/dkms-build-$name.log" \
			2>/dev/null | sed 's/^/#   /'
	fi
}
# elf_machine FILE MACHINE: readelf's "Machine:" of FILE names MACHINE.
elf_machine() {
	readelf -h "$1" 2>/dev/null | grep -qE "^ *Machine: .*\b$2\b"
}

# ---- deb: `make deb` and the packages' contents ---------------------------
# deb_has DEB FILE...: the package contains each FILE.
deb_has() {
	local deb=$1 c f
	shift
	c=$(dpkg-deb -c "$deb" | awk '{print $6}') || return
	for f; do
		grep -qxF "$f" <<<"$c" || { echo "$deb: missing $f"; return 1; }
	done
}
# deb_no_objects DEB: no build products.
deb_no_objects() {
	! dpkg-deb -c "$1" | awk '{print $6}' |
		grep -E '\.(o|ko|ko\.xz|mod|cmd|mod\.c)$|/Makefile$|modules\.order$|Module\.symvers$'
}
deb_udev_rule() {
	dpkg-deb --fsys-tarfile "$1" | tar -xOf - ./lib/udev/rules.d/60-tprof.rules |
		grep -qxF 'KERNEL=="tprof", GROUP="tprof", MODE="0660"'
}
deb_depends_on() {
	local d
	d=$(dpkg-deb -f "$1" Depends)
	shift
	for p; do
		grep -qE "(^|, )$p( |,|$)" <<<"$d" || { echo "Depends: $d"; return 1; }
	done
}
man_clean() {
	local w
	w=$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "${1:-docs/tprof-read.1}" 2>&1 >/dev/null)
	[ -z "$w" ] || { echo "$w"; return 1; }
}
# deb_conffile DEB FILE: FILE is one of DEB's conffiles (dpkg keeps an
# admin's changes on upgrade and removes it on purge only).
deb_conffile() {
	dpkg-deb -I "$1" conffiles | grep -qxF "$2"
}
# unit_verified UNIT: systemd-analyze verify finds nothing to say of it (a
# file check: it needs no running systemd). The man page is checked apart.
unit_verified() {
	local out
	out=$(systemd-analyze verify --man=no "$1" 2>&1) || { echo "$out"; return 1; }
	[ -z "$out" ] || { echo "$out"; return 1; }
}
# unit_disabled UNIT-NAME: not enabled (no .wants link), not started.
unit_disabled() {
	local st
	st=$(systemctl --root=/ is-enabled "$1" 2>&1)
	[ "$st" = disabled ] || { echo "systemctl --root=/ is-enabled $1: $st"; return 1; }
	! ls /etc/systemd/system/*.wants/"$1" 2>/dev/null
}
# agent_no_target BIN UNIT: the unit's ExecStart with the installed
# /etc/default/tprof-agent, whose target is empty, is a usage error (exit 2,
# which RestartPreventExitStatus keeps from restarting), said in one line.
agent_no_target() {
	local out rc=0
	out=$(set -a; eval "$(sed -n 's/^Environment=//p' "$2")"
		. /etc/default/tprof-agent
		eval "$(sed -n 's/^ExecStart=//p' "$2")" 2>&1) || rc=$?
	echo "exit $rc: $out"
	[ $rc = 2 ] && grep -q '^RestartPreventExitStatus=2$' "$2" &&
		grep -q '^tprof-agent: need exactly one of -p PID, --cgroup PATH or --all' <<<"$out"
}
# deb_same_depends AMD64_DEB ARM64_DEB: the arm64 package depends on the
# same packages as the amd64 one (dpkg-shlibdeps on the cross build's
# symbols files), each with a minimum version.
deb_same_depends() {
	local a b
	a=$(dpkg-deb -f "$1" Depends | tr ',' '\n' | sed 's/^ *//; s/ *(.*//' | sort)
	b=$(dpkg-deb -f "$2" Depends | tr ',' '\n' | sed 's/^ *//; s/ *(.*//' | sort)
	[ "$a" = "$b" ] || { echo "amd64: $(echo $a)"; echo "arm64: $(echo $b)"; return 1; }
	dpkg-deb -f "$2" Depends | tr ',' '\n' | grep -v '(>= ' && return 1
	return 0
}
deb_arm64_runs() {
	local v
	v=$(qemu-aarch64 -L "$a64_cache/root" "$tmp/arm64/usr/bin/tprof-read" --version) ||
		return
	echo "$v"
	grep -qE "^tprof-read $ver \(tprof.ko ABI [0-9]+\)$" <<<"$v" || return
	v=$(qemu-aarch64 -L "$a64_cache/root" "$tmp/arm64/usr/sbin/tprof-agent" --version) ||
		return
	echo "$v"
	grep -qE "^tprof-agent $ver \(tprof.ko ABI [0-9]+\)$" <<<"$v"
}
# deb_arm64 AMD64_TOOLS_DEB: the cross-built tprof-tools.
deb_arm64() {
	local deb
	deb=$(ls "$DEB_OUT"/tprof-tools_"$ver"_arm64.deb 2>/dev/null)
	check "tprof-tools ${ver}_arm64.deb exists in $DEB_OUT" test -f "$deb" || return
	check "tprof-tools arm64: Architecture arm64" \
		test "$(dpkg-deb -f "$deb" Architecture)" = arm64
	check "tprof-tools arm64: Depends $(dpkg-deb -f "$deb" Depends)" \
		deb_depends_on "$deb" libc6 libdw1 libelf1 libprotobuf-c1 zlib1g libmicrohttpd12
	check "tprof-tools arm64 depends on what the amd64 one does, each versioned" \
		deb_same_depends "$1" "$deb"
	rm -rf "$tmp/arm64"
	dpkg-deb -x "$deb" "$tmp/arm64"
	check "tprof-tools arm64: /usr/bin/tprof-read and /usr/sbin/tprof-agent are AArch64 ELFs" \
		elf_machine "$tmp/arm64/usr/bin/tprof-read" AArch64 &&
		elf_machine "$tmp/arm64/usr/sbin/tprof-agent" AArch64
	if command -v qemu-aarch64 >/dev/null; then
		check "tprof-tools arm64: tprof-read and tprof-agent --version are $ver under qemu-aarch64 (libraries: $a64_cache/root)" \
			deb_arm64_runs
	else
		skip "tprof-tools arm64 runs: no qemu-aarch64 (qemu-user)"
	fi
}
sec_deb() {
	local dkms_deb tools_deb src=./usr/src/tprof-$ver
	check "make deb builds the packages (log: $log/make-deb.log)" \
		logged "$log/make-deb.log" mk deb BUILD="$BUILD" DEB_OUT="$DEB_OUT" \
		DEB_CROSS="$DEB_CROSS" || return
	dkms_deb=$(ls "$DEB_OUT"/tprof-dkms_"$ver"_all.deb 2>/dev/null)
	tools_deb=$(ls "$DEB_OUT"/tprof-tools_"$ver"_"$arch".deb 2>/dev/null)
	check "tprof-dkms and tprof-tools $ver .debs exist in $DEB_OUT" \
		test -f "$dkms_deb" -a -f "$tools_deb" || return
	[ $a64 = 1 ] && deb_arm64 "$tools_deb"
	check "tprof-dkms ships the DKMS source, udev rule and modules-load.d entry" \
		deb_has "$dkms_deb" $src/dkms.conf $src/Kbuild $src/kmod/uapi/tprof.h \
		$src/kmod/main.c ./lib/udev/rules.d/60-tprof.rules \
		./usr/lib/modules-load.d/tprof.conf
	check "tprof-dkms ships no build products" deb_no_objects "$dkms_deb"
	check "tprof-dkms's udev rule is KERNEL==\"tprof\", GROUP=\"tprof\", MODE=\"0660\"" \
		deb_udev_rule "$dkms_deb"
	check "tprof-dkms depends on dkms and adduser" \
		deb_depends_on "$dkms_deb" dkms adduser
	check "tprof-tools ships tprof-read and its man page" \
		deb_has "$tools_deb" ./usr/bin/tprof-read ./usr/share/man/man1/tprof-read.1.gz
	check "tprof-tools ships tprof-agent, tprof-agent(8), its unit and /etc/default/tprof-agent" \
		deb_has "$tools_deb" ./usr/sbin/tprof-agent ./usr/share/man/man8/tprof-agent.8.gz \
		./lib/systemd/system/tprof-agent.service ./etc/default/tprof-agent
	check "tprof-tools: /etc/default/tprof-agent is a conffile" \
		deb_conffile "$tools_deb" /etc/default/tprof-agent
	check "tprof-tools: Depends $(dpkg-deb -f "$tools_deb" Depends)" \
		deb_depends_on "$tools_deb" libc6 libdw1 libelf1 libprotobuf-c1 zlib1g libmicrohttpd12
	check "tprof-tools ships no debug files (no dwz multifile)" \
		bash -c "! dpkg-deb -c '$tools_deb' | grep -F ./usr/lib/debug"
	if command -v man >/dev/null; then
		check "tprof-read(1) formats without warnings" man_clean docs/tprof-read.1
		check "tprof-agent(8) formats without warnings" man_clean docs/tprof-agent.8
	else
		skip "tprof-read(1) formats without warnings: man-db not installed"
	fi
	if command -v lintian >/dev/null; then
		check "lintian finds no errors in the .debs" \
			lintian --fail-on error "$dkms_deb" "$tools_deb" \
			$(ls "$DEB_OUT"/tprof-tools_"$ver"_arm64.deb 2>/dev/null)
	else
		skip "lintian: not installed"
	fi
}

system_group() {
	local g
	g=$(getent group "$1") || { echo "no group $1"; return 1; }
	[ "$(cut -d: -f3 <<<"$g")" -lt 1000 ] || { echo "$g: not a system group"; return 1; }
}
files_exist() {
	local f
	for f; do
		[ -e "$f" ] || { echo "missing $f"; return 1; }
	done
}

# ---- the installed packages at work, in a guest per kernel -----------------
# Boots each kernel of tests/kernels on this host's root (which now has the
# packages installed) and runs tests/pkg/guest/: modprobe loads DKMS's
# module, udevd applies the rule, group tprof decides who may profile.
installed_in_guests() {
	local kernels name kver row b=$BUILD
	if ! kernels=$(tests/vm/kernels.sh 2>&1); then
		not_ok "in the guest: tests/vm/kernels.sh lists the kernels: $kernels"
		return
	fi
	if [ ! -x "$b/lab/lab-work" ]; then
		not_ok "in the guest: $b/lab/lab-work is built (make lab)"
		return
	fi
	# vm_jobs() guests at a time, as run-all.sh; results in tests/kernels' order
	local jobs names=()
	jobs=$(vm_jobs)
	while read -r name kver; do
		vm_slot "$jobs"
		TPROF_MODULE=installed CASE_DIR=tests/pkg/guest CASES='*' \
			VM_OUT="$b/vm/pkg-$name" BUILD="$b" \
			tests/vm/run-kernel.sh "$name" "$kver" \
			>"$tmp/guest-$name.row" 2>"$log/guest-$name.log" </dev/null &
		names+=("$name")
	done <<<"$kernels"
	wait
	for name in "${names[@]}"; do
		row=$(cat "$tmp/guest-$name.row")
		if [[ "$row" == "$name "*" PASS "* ]]; then
			ok "in the $name guest, the installed module, udev rule and group work: $row"
		else
			not_ok "in the $name guest, the installed module, udev rule and group work: $row"
			grep -a -E '^(not ok|#)' "$b/vm/pkg-$name/console.log" 2>/dev/null |
				tail -n 30 | sed 's/^/#   /'
		fi
		grep -a -E '^ok ' "$b/vm/pkg-$name/console.log" 2>/dev/null |
			sed 's/^/#   /' >>"$log/guest-$name.log"
	done
}

# agent_unit UNIT BIN: the installed unit, disabled, verified, and its
# ExecStart runs BIN, which refuses the default file's empty target.
agent_unit() {
	check "$1 and /etc/default/tprof-agent installed" files_exist "$1" /etc/default/tprof-agent
	check "tprof-agent.service is not enabled nor started by the installation" \
		unit_disabled tprof-agent.service
	check "$1: ExecStart runs $2" grep -q "^ExecStart=$2 " "$1"
	if command -v systemd-analyze >/dev/null; then
		check "systemd-analyze verify $1 says nothing" unit_verified "$1"
	else
		skip "systemd-analyze verify $1: no systemd-analyze (package systemd)"
	fi
	check "the unit's ExecStart with the installed defaults (no target): exit 2, one line" \
		agent_no_target "$2" "$1"
}

# ---- apt: install the .debs, DKMS builds for every kernel, purge ---------
sec_apt() {
	local debs
	debs=$(ls "$DEB_OUT"/tprof-dkms_"$ver"_all.deb \
		"$DEB_OUT"/tprof-tools_"$ver"_"$arch".deb 2>/dev/null)
	if [ "$(wc -w <<<"$debs")" != 2 ]; then
		not_ok "apt install: the two .debs are in $DEB_OUT (run the deb section)"
		return
	fi
	# ./ paths: apt reads them as files, not package names.
	debs=$(for d in $debs; do case $d in /*) echo "$d" ;; *) echo "./$d" ;; esac; done)
	check "apt install ./tprof-dkms*.deb ./tprof-tools*.deb (log: $log/apt-install.log)" \
		logged "$log/apt-install.log" apt_get install --no-install-recommends $debs
	installed_for_all "apt install"
	check "group tprof exists, a system group" system_group tprof
	check "udev rule and modules-load.d entry installed" \
		files_exist /lib/udev/rules.d/60-tprof.rules /usr/lib/modules-load.d/tprof.conf
	check "/usr/bin/tprof-read --version is $ver, with the module ABI it speaks" \
		grep -qE "^tprof-read $ver \(tprof.ko ABI [0-9]+\)$" <(/usr/bin/tprof-read --version)
	check "/usr/sbin/tprof-agent --version is $ver" \
		grep -qE "^tprof-agent $ver \(tprof.ko ABI [0-9]+\)$" <(/usr/sbin/tprof-agent --version)
	if grep -qs '^path-exclude=/usr/share/man' /etc/dpkg/dpkg.cfg.d/*; then
		skip "man pages installed: dpkg excludes /usr/share/man on this host"
	else
		check "man pages installed" files_exist /usr/share/man/man1/tprof-read.1.gz \
			/usr/share/man/man8/tprof-agent.8.gz
	fi
	agent_unit /lib/systemd/system/tprof-agent.service /usr/sbin/tprof-agent
	check "dpkg lists /etc/default/tprof-agent as tprof-tools' conffile" \
		grep -q '^ /etc/default/tprof-agent ' \
		<(dpkg-query -W -f='${Conffiles}\n' tprof-tools)
	check "the module was not loaded by the installation" test ! -d /sys/module/tprof
	installed_in_guests
	# Reinstalling (what an upgrade does) rebuilds for every kernel.
	check "apt reinstall of tprof-dkms (log: $log/apt-reinstall.log)" \
		logged "$log/apt-reinstall.log" apt_get install --reinstall "$(head -n1 <<<"$debs")"
	installed_for_all "apt reinstall"
	check "apt purge tprof-dkms tprof-tools (log: $log/apt-purge.log)" \
		logged "$log/apt-purge.log" apt_get purge tprof-dkms tprof-tools
	no_trace "apt purge"
}

# ---- make: `make install` and `make uninstall` ----------------------------
# One kernel (KVERS): DKMS's build for every kernel with headers is apt's,
# proven above; make install's own part is the registration and files
# (a build for each of four kernels took 53 s of CI's time).
sec_make() {
	local k1
	k1=$(hdr_kernels | head -n1)
	check "make install KVERS=$k1 (log: $log/make-install.log)" \
		logged "$log/make-install.log" mk install BUILD="$BUILD" KVERS="$k1"
	installed_for_all "make install" "$k1"
	check "make install: tprof-read, man page, udev rule, modules-load.d entry" \
		files_exist /usr/local/bin/tprof-read /usr/local/share/man/man1/tprof-read.1 \
		/etc/udev/rules.d/60-tprof.rules /etc/modules-load.d/tprof.conf
	check "make install: group tprof exists, a system group" system_group tprof
	check "make install: tprof-agent and tprof-agent(8)" \
		files_exist /usr/local/sbin/tprof-agent /usr/local/share/man/man8/tprof-agent.8
	agent_unit /etc/systemd/system/tprof-agent.service /usr/local/sbin/tprof-agent
	# Over itself for one kernel: the registration is replaced whole
	# (dkms remove --all), and each kernel's build was proven above.
	check "make install again, over itself (log: $log/make-install2.log)" \
		logged "$log/make-install2.log" mk install BUILD="$BUILD" KVERS="$k1"
	check "make uninstall (log: $log/make-uninstall.log)" \
		logged "$log/make-uninstall.log" mk uninstall
	no_trace "make uninstall"
}

for s in $sections; do
	case $s in
	dkms|deb|apt|make) echo "# $s"; "sec_$s" ;;
	*) not_ok "unknown section '$s' (dkms deb apt make)" ;;
	esac
done
finish
