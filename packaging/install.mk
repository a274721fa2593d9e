# SPDX-License-Identifier: GPL-2.0
# Installing tprof: DKMS (`sudo make install` / `sudo make uninstall`), the
# Debian packages (`make deb`) and their host-side tests (`sudo make pkg-test`).
# -included by the top-level Makefile; docs/install.md explains the result.
#
#   make install [PREFIX=/usr/local] [KVERS="6.1.0-56-amd64 ..."] [LOAD_AT_BOOT=0]
#   make deb [DEB_OUT=$(BUILD)/deb] [DEB_BUILD_FLAGS=-A]   # -A: tprof-dkms only
#            [DEB_CROSS=arm64]   # tprof-tools cross-built too; empty: none
#   make pkg-test [PKG_TESTS="dkms deb apt make"]
#
# Debian packages needed: dkms, dh-dkms, debhelper, dpkg-dev, adduser, plus
# tprof-read's build dependencies (debian/control).

BUILD ?= build
PREFIX ?= /usr/local
DEB_OUT ?= $(BUILD)/deb
DEB_BUILD_FLAGS ?= -b
# Cross-built with tests/arm64/fetch.sh's toolchain and sysroot (its first
# fetch downloads about 250 MB; later ones take a second).
DEB_CROSS ?= arm64

.PHONY: install uninstall deb pkg-test

install: userspace
	PREFIX=$(PREFIX) packaging/install.sh $(BUILD)/tprof-read $(BUILD)/tprof-agent

uninstall:
	PREFIX=$(PREFIX) packaging/uninstall.sh

deb:
	DEB_CROSS="$(DEB_CROSS)" packaging/mkdeb.sh $(DEB_OUT) $(DEB_BUILD_FLAGS)

# The guest part profiles build/lab/lab-work with the installed tprof-read.
pkg-test: $(BUILD)/lab/lab-work
	BUILD=$(BUILD) DEB_OUT=$(DEB_OUT) DEB_CROSS="$(DEB_CROSS)" tests/pkg/run.sh $(PKG_TESTS)
