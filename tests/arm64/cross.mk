# SPDX-License-Identifier: GPL-2.0
# The arm64 lane's programs, cross-built on the amd64 host (included by the
# top-level Makefile): `make arm64` puts into $(BUILD)/arm64/ what the arm64
# guest's cases run, in the same layout as $(BUILD) (tprof-read,
# kmod-tests/, progs/, lab/), so the cases find them through TPROF_BUILD,
# which tests/vm/run-kernel.sh points there for an arm64 kernel; bin/ holds
# `go tool pprof` (the guest has no Go toolchain, only this).
# The compiler, the sysroot and the guest's root are one tree that
# tests/arm64/fetch.sh unpacks (nothing is installed): the aarch64 cross
# gcc-12 (relocatable; its as and ld need binutils' arm64 libbfd from the
# same tree) with --sysroot there, where the arm64 -dev packages are.
# Go programs: GOARCH=arm64 CGO_ENABLED=0 with the host's Go.

A64_CACHE ?= /var/cache/tprof/arm64
A64_ROOT := $(A64_CACHE)/root
A64 := $(BUILD)/arm64
A64_TOOL := env LD_LIBRARY_PATH=$(A64_ROOT)/usr/lib/x86_64-linux-gnu \
	$(A64_ROOT)/usr/bin/aarch64-linux-gnu-
A64_CC := $(A64_TOOL)gcc-12 --sysroot=$(A64_ROOT)
A64_CXX := $(A64_TOOL)g++-12 --sysroot=$(A64_ROOT)
A64_GOENV := GOARCH=arm64 CGO_ENABLED=0 GOCACHE=$(abspath $(A64))/gocache \
	GOPATH=$(abspath $(BUILD))/gopath GOPROXY=off GO111MODULE=off \
	GOTOOLCHAIN=local GOFLAGS=

# The cases of the arm64 lane (tests/kernels) and what they run.
A64_PROGS := $(A64)/progs/inlines $(A64)/progs/libhot.so \
	$(A64)/progs/unwind $(A64)/progs/unwind_cxx \
	$(A64)/progs/tree-a $(A64)/progs/tree-b $(A64)/progs/tree-c \
	$(A64)/progs/offcpu
ifneq ($(GO),)
A64_PROGS += $(A64)/progs/goprog
endif
ifneq ($(GO_MODERN),)
A64_PROGS += $(A64)/progs/goprog-modern $(A64)/progs/goleaf
endif
A64_ALL := $(A64)/tprof-read $(A64)/tprof-agent $(A64)/kmod-tests/tprof-ktest \
	$(A64)/kmod-tests/stacktarget64 $(A64)/kmod-tests/secret \
	$(A64)/kmod-tests/uwalktarget $(A64_PROGS) \
	$(A64)/lab/lab-work $(A64)/lab/pprofsum $(A64)/bin/go $(A64)/bin/pprof

.PHONY: arm64 arm64-fetch

arm64: $(A64_ALL)

# the cache; fetch.sh is quick when it is complete (stamps)
arm64-fetch:
	tests/arm64/fetch.sh > /dev/null

$(A64_ROOT)/usr/bin/aarch64-linux-gnu-gcc-12:
	tests/arm64/fetch.sh > /dev/null

# ---- tprof-read: userspace/build.mk's sources and flags, another compiler
$(A64)/us/%.o: userspace/%.c $(US_HDRS) | $(A64_ROOT)/usr/bin/aarch64-linux-gnu-gcc-12
	@mkdir -p $(@D)
	$(A64_CC) $(US_CPPFLAGS) $(WARN_CFLAGS) $(USER_CFLAGS) $(EXTRA_CFLAGS) -c -o $@ $<
$(A64)/us/profile.pb-c.o: $(US_GEN)/profile.pb-c.c $(US_GEN)/profile.pb-c.h
	@mkdir -p $(@D)
	$(A64_CC) $(US_CPPFLAGS) $(USER_CFLAGS) -c -o $@ $<
$(A64)/us/options.o: dkms.conf
$(A64)/tprof-read: $(A64)/us/tprof-read.o $(call us_objs,$(A64)/us)
	$(A64_CC) $(USER_CFLAGS) -o $@ $^ $(US_LIBS)
# tprof-agent: the same objects, with libmicrohttpd:arm64 from the sysroot
$(A64)/tprof-agent: $(addprefix $(A64)/us/,$(AGENT_SRCS:.c=.o)) $(call us_objs,$(A64)/us)
	$(A64_CC) $(USER_CFLAGS) -o $@ $^ $(US_LIBS) $(AGENT_LIBS)

# ---- tests/kmod/build.mk's programs, 64-bit only (no -m32 on arm64)
$(A64)/kmod-tests/tprof-ktest: $(KT_DEPS) | $(A64_ROOT)/usr/bin/aarch64-linux-gnu-gcc-12
	@mkdir -p $(@D)
	$(A64_CC) $(CPPFLAGS_COMMON) $(KT_CFLAGS) -o $@ $(KT_SRCS) -lpthread -lm
$(A64)/kmod-tests/stacktarget64: tests/kmod/stacktarget.c
	@mkdir -p $(@D)
	$(A64_CC) $(WARN_CFLAGS) $(KT_STACK_CFLAGS) -o $@ $<
$(A64)/kmod-tests/secret: tests/kmod/secret.c
	@mkdir -p $(@D)
	$(A64_CC) $(WARN_CFLAGS) -O1 -g -fno-omit-frame-pointer -static -o $@ $<
$(A64)/kmod-tests/uwalktarget: tests/kmod/uwalktarget.c
	@mkdir -p $(@D)
	$(A64_CC) $(WARN_CFLAGS) -O1 -g -fno-omit-frame-pointer -pthread -o $@ $<

# ---- userspace/build.mk's test programs, the same flags
$(A64)/progs/inlines: tests/progs/inlines.c
	@mkdir -p $(@D)
	$(A64_CC) $(PROGS_CFLAGS) $(WARN_CFLAGS) -o $@ $< -pthread -ldl
$(A64)/progs/libhot.so: tests/progs/libhot.c
	@mkdir -p $(@D)
	$(A64_CC) $(PROGS_CFLAGS) $(WARN_CFLAGS) -shared -fPIC -o $@ $<
$(A64)/progs/unwind: tests/progs/unwind.c tests/progs/unwind_work.h
	@mkdir -p $(@D)
	$(A64_CC) $(PROGS_CFLAGS) $(WARN_CFLAGS) -o $@ $<
# Debian's default flags: -O2 -g, no frame pointers
$(A64)/progs/unwind_cxx: tests/progs/unwind_cxx.cc
	@mkdir -p $(@D)
	$(A64_CXX) -O2 -g -Wall -Wextra -o $@ $<
$(A64)/progs/tree-%: tests/progs/tree.c
	@mkdir -p $(@D)
	$(A64_CC) $(PROGS_CFLAGS) $(WARN_CFLAGS) -DHOT=hot_$* -no-pie -o $@ $<
$(A64)/progs/offcpu: tests/progs/offcpu.c
	@mkdir -p $(@D)
	$(A64_CC) $(PROGS_CFLAGS) $(WARN_CFLAGS) -pthread -o $@ $<
$(A64)/progs/goprog: tests/progs/goprog/main.go
	@mkdir -p $(@D)
	cd tests/progs/goprog && $(A64_GOENV) $(GO) build -o $(abspath $@) .
$(A64)/progs/goprog-modern: tests/progs/goprog/main.go
	@mkdir -p $(@D)
	cd tests/progs/goprog && $(A64_GOENV) GOCACHE=$(abspath $(A64))/gocache-modern \
		$(GO_MODERN) build -o $(abspath $@) .
$(A64)/progs/goleaf: tests/progs/goleaf/main.go
	@mkdir -p $(@D)
	cd tests/progs/goleaf && $(A64_GOENV) GOCACHE=$(abspath $(A64))/gocache-modern \
		$(GO_MODERN) build -o $(abspath $@) .

# ---- lab/build.mk's workload and pprof reader
$(A64)/lab/lab-work: lab/work/lab-work.c
	@mkdir -p $(@D)
	$(A64_CC) $(USER_CFLAGS) $(WARN_CFLAGS) -D_GNU_SOURCE -pthread $< -o $@
$(A64)/lab/pprofsum: lab/go/pprofsum/main.go
	@mkdir -p $(@D)
	cd lab/go && $(A64_GOENV) GOPATH=/usr/share/gocode go build -o $(abspath $@) ./pprofsum

# ---- `go tool pprof` in the guest: the host Go's own cmd/pprof, and a go
# that runs it (guest-run.sh puts TPROF_BUILD/bin first in PATH)
$(A64)/bin/pprof:
	@mkdir -p $(@D)
	$(A64_GOENV) go build -o $(abspath $@) cmd/pprof
$(A64)/bin/go: tests/arm64/go-shim.sh
	@mkdir -p $(@D)
	cp $< $@ && chmod +x $@
