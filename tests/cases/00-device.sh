#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The module skeleton: /dev/tprof exists with the intended owner and mode,
# INFO returns the ABI version of the uapi header, unknown ioctls get ENOTTY.
. "$TPROF_ROOT/tests/cases/lib.sh"

check "tprof is listed in /proc/modules" grep -q '^tprof ' /proc/modules
for _ in 1 2 3 4 5 6 7 8 9 10; do [ -c /dev/tprof ] && break; sleep 0.2; done
if [ -c /dev/tprof ]; then
	ok "/dev/tprof is a character device"
	mode=$(stat -c '%U:%G %a' /dev/tprof)
	if [ "$mode" = "root:root 600" ]; then
		ok "/dev/tprof is root:root 0600"
	else
		fail "/dev/tprof is root:root 0600 (got $mode)"
	fi
else
	fail "/dev/tprof is a character device"
fi
check "misc device registered" grep -qw tprof /proc/misc

abi=$(sed -n 's/^#define TPROF_ABI_VERSION[[:space:]]*\([0-9]*\).*/\1/p' \
	"$TPROF_ROOT/kmod/uapi/tprof.h")
python3 - "$abi" <<'PY'
import errno, fcntl, os, struct, sys

def ioc(d, nr, size):  # asm-generic/ioctl.h
    return (d << 30) | (size << 16) | (0xD6 << 8) | nr

want_abi = int(sys.argv[1])
fd = os.open("/dev/tprof", os.O_RDWR)
buf = bytearray(80)
fcntl.ioctl(fd, ioc(2, 0, 80), buf)          # TPROF_IOC_INFO, _IOR
size, abi, recv, ncpu, page = struct.unpack_from("<5I", buf)
machine, reserved, pac_mask = struct.unpack_from("<IIQ", buf, 64)
def res(good, what):
    print(("ok - " if good else "not ok - ") + what)
res(size == 80, "INFO size is 80 (got %d)" % size)
res(abi == want_abi, "INFO abi_version %d matches uapi %d" % (abi, want_abi))
want_machine = {"x86_64": 62, "aarch64": 183}.get(os.uname().machine)
res(machine == want_machine, "INFO e_machine %d is %s's %s"
    % (machine, os.uname().machine, want_machine))
# no PAuth on x86; on arm64 the mask is there when the CPU signs user code
pauth = "paca" in open("/proc/cpuinfo").read().split()
res(reserved == 0 and (pac_mask != 0) == pauth,
    "INFO user_pac_mask 0x%x (PAuth: %s)" % (pac_mask, pauth))
# the first modules' 64-byte INFO still answers (tprof-read falls back to it)
v1 = bytearray(64)
fcntl.ioctl(fd, ioc(2, 0, 64), v1)           # TPROF_IOC_INFO_V1
res(v1[4:8] == buf[4:8] and struct.unpack_from("<I", v1)[0] == 80,
    "INFO_V1 answers the first 64 bytes")
res(ncpu == os.cpu_count() or ncpu >= os.cpu_count(),
    "INFO nr_cpu_ids %d covers %d CPUs" % (ncpu, os.cpu_count()))
res(page == os.sysconf("SC_PAGE_SIZE"), "INFO page_size %d" % page)
for cmd in (ioc(0, 0x7f, 0), ioc(2, 0x40, 8), 0x5401):  # unknown nr, TCGETS
    try:
        fcntl.ioctl(fd, cmd, bytearray(8))
        res(False, "ioctl 0x%x rejected with ENOTTY (it succeeded)" % cmd)
    except OSError as e:
        res(e.errno == errno.ENOTTY, "ioctl 0x%x rejected with ENOTTY (got %s)"
            % (cmd, errno.errorcode.get(e.errno)))
os.close(fd)
PY
