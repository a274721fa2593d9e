#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Package build trees for dpkg-shlibdeps -S, from .debs that are unpacked
into a sysroot but not installed (packaging/cross-arm64.sh).

For each ARCH .deb in DEBS with a symbols or shlibs control file, DEST/PACKAGE/
gets DEBIAN/symbols and DEBIAN/shlibs as the .deb has them, and a link to
each SONAME they name, at that library's path in SYSROOT under the folders
dpkg-shlibdeps searches ((usr/)lib and the multiarch ones). dpkg-shlibdeps
then finds a library in that tree and reads that package's symbols file,
as it would an installed package's: it needs no dpkg database entry.

One process reads every .deb's control member (ar + tar in Python): the
shell loop it replaces spawned some 1,000 processes, 48 s on a loaded host.

    shlibs-trees.py DEBS SYSROOT ARCH MULTIARCH DEST
"""
import io
import os
import re
import sys
import tarfile

AR_MAGIC = b"!<arch>\n"


def control_members(path):
    """The control tar's files of a .deb, as {name: bytes}."""
    with open(path, "rb") as f:
        if f.read(8) != AR_MAGIC:
            raise ValueError(f"{path}: not an ar archive")
        while True:
            hdr = f.read(60)
            if len(hdr) < 60:
                raise ValueError(f"{path}: no control member")
            name = hdr[:16].decode().strip().rstrip("/")
            size = int(hdr[48:58])
            if name.startswith("control.tar"):
                data = f.read(size)
                break
            f.seek(size + (size & 1), os.SEEK_CUR)
    out = {}
    # tarfile opens .tar, .tar.gz and .tar.xz ("r:*"); Debian's are xz
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:*") as t:
        for m in t.getmembers():
            if m.isfile():
                out[os.path.basename(m.name)] = t.extractfile(m).read()
    return out


def sonames(members):
    """The SONAMEs a symbols or shlibs file names."""
    names = set()
    for line in members.get("symbols", b"").decode().splitlines():
        # "SONAME PACKAGE #MINVER#" starts in column 1; symbols are indented
        if line and line[0] not in " \t|*#":
            names.add(line.split()[0])
    for line in members.get("shlibs", b"").decode().splitlines():
        # "[type:] NAME VERSION DEPENDS": NAME.so.VERSION or NAME-VERSION.so
        f = line.split()
        if not f or f[0].startswith("#"):
            continue
        if f[0].endswith(":"):
            if f[0] != "deb:":
                continue
            f = f[1:]
        if len(f) >= 2:
            names.add(f"{f[0]}-{f[1]}" if f[1].endswith(".so") else f"{f[0]}.so.{f[1]}")
    return names


def main():
    if len(sys.argv) != 6:
        sys.exit("usage: shlibs-trees.py DEBS SYSROOT ARCH MULTIARCH DEST")
    debs, sysroot, arch, multiarch, dest = sys.argv[1:]
    dirs = [f"lib/{multiarch}", f"usr/lib/{multiarch}", "lib", "usr/lib"]
    os.makedirs(dest, exist_ok=True)
    for deb in sorted(os.listdir(debs)):
        if not deb.endswith(".deb"):
            continue
        members = control_members(os.path.join(debs, deb))
        if "symbols" not in members and "shlibs" not in members:
            continue
        ctl = members["control"].decode()
        m = re.search(r"^Package: (\S+)$", ctl, re.M)
        a = re.search(r"^Architecture: (\S+)$", ctl, re.M)
        if not m or not a or a.group(1) != arch:
            continue
        tree = os.path.join(dest, m.group(1))
        os.makedirs(os.path.join(tree, "DEBIAN"), exist_ok=True)
        for name in ("symbols", "shlibs"):
            if name in members:
                with open(os.path.join(tree, "DEBIAN", name), "wb") as f:
                    f.write(members[name])
        for so in sorted(sonames(members)):
            for d in dirs:
                lib = os.path.join(sysroot, d, so)
                if os.path.lexists(lib):
                    os.makedirs(os.path.join(tree, d), exist_ok=True)
                    os.symlink(lib, os.path.join(tree, d, so))


if __name__ == "__main__":
    main()
