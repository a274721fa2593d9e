# SPDX-License-Identifier: GPL-2.0
# tprof-read: included by the top-level Makefile.
#
# Debian build deps: libprotobuf-c-dev protobuf-c-compiler zlib1g-dev g++
# libdw-dev libelf-dev libdebuginfod-dev golang-github-google-pprof-dev
# (profile.proto) clang (make fuzz only).

PPROF_PROTO_DIR ?= /usr/share/gocode/src/github.com/google/pprof/proto
PROTOC_C ?= protoc-c
FUZZ_CC ?= clang
FUZZ_SECONDS ?= 60

US_GEN := $(BUILD)/gen
# The reader's layers, lowest first (userspace/README.md): a folder includes
# only itself and the folders before it (`make check`: layers).
US_LAYERS := lib stream model object analyze output live
US_LIB_SRCS := $(foreach l,$(US_LAYERS),$(patsubst userspace/%,%,$(sort $(wildcard userspace/$(l)/*.c))))
# the CLI's own files, at userspace/ root above every layer (options.c);
# tprof-read.c, with main(), is linked into the program alone
US_CLI_SRCS := $(filter-out tprof-read.c tprof-agent.c,$(patsubst userspace/%,%,$(sort $(wildcard userspace/*.c))))
# tprof-agent: its own folder above the reader's layers, and main()
AGENT_SRCS := $(patsubst userspace/%,%,$(sort $(wildcard userspace/agent/*.c))) tprof-agent.c
AGENT_LIBS := -lmicrohttpd
# -lstdc++: __cxa_demangle (demangle.c)
US_LIBS := -lprotobuf-c -ldw -lelf -ldebuginfod -lz -lstdc++
# The release, from dkms.conf (packaging/version.sh): tprof-read --version.
TPROF_PKG_VERSION := $(shell packaging/version.sh)
# userspace/ first: kmod/ has headers of the same names (stack.h,
# records.h, procs.h). Ours are included by their folder
# ("live/device.h"); from kmod/ only "uapi/tprof.h" is meant to come.
US_CPPFLAGS := -Iuserspace $(CPPFLAGS_COMMON) -I$(US_GEN) \
	-DTPROF_READ_VERSION='"$(TPROF_PKG_VERSION)"'
US_HDRS := $(wildcard userspace/*.h userspace/*/*.h) $(US_GEN)/profile.pb-c.h kmod/uapi/tprof.h

# objects of one build flavour: $(call us_objs,DIR)
us_objs = $(addprefix $(1)/,$(US_LIB_SRCS:.c=.o) $(US_CLI_SRCS:.c=.o)) \
	$(1)/profile.pb-c.o

.PHONY: userspace userspace-werror fuzz layers
.SECONDARY:

userspace: $(BUILD)/tprof-read $(BUILD)/tprof-agent

$(US_GEN)/profile.pb-c.c $(US_GEN)/profile.pb-c.h: $(PPROF_PROTO_DIR)/profile.proto
	@mkdir -p $(US_GEN)
	$(PROTOC_C) --c_out=$(US_GEN) -I$(PPROF_PROTO_DIR) $(PPROF_PROTO_DIR)/profile.proto

$(PPROF_PROTO_DIR)/profile.proto:
	@echo "missing $@: apt-get install golang-github-google-pprof-dev" >&2
	@false

# default flavour: $(BUILD)/us
$(BUILD)/us/%.o: userspace/%.c $(US_HDRS)
	@mkdir -p $(@D)
	$(CC) $(US_CPPFLAGS) $(WARN_CFLAGS) $(USER_CFLAGS) $(EXTRA_CFLAGS) -c -o $@ $<
$(BUILD)/us/profile.pb-c.o: $(US_GEN)/profile.pb-c.c $(US_GEN)/profile.pb-c.h
	@mkdir -p $(@D)
	$(CC) $(US_CPPFLAGS) $(USER_CFLAGS) -c -o $@ $<
$(BUILD)/us/options.o $(BUILD)/us-san/options.o: dkms.conf
$(BUILD)/tprof-read: $(BUILD)/us/tprof-read.o $(call us_objs,$(BUILD)/us)
	$(CC) $(USER_CFLAGS) -o $@ $^ $(US_LIBS)

$(BUILD)/tprof-agent: $(addprefix $(BUILD)/us/,$(AGENT_SRCS:.c=.o)) $(call us_objs,$(BUILD)/us)
	$(CC) $(USER_CFLAGS) -o $@ $^ $(US_LIBS) $(AGENT_LIBS)

# sanitizer flavour (unit tests): $(BUILD)/us-san
$(BUILD)/us-san/%.o: userspace/%.c $(US_HDRS)
	@mkdir -p $(@D)
	$(CC) $(US_CPPFLAGS) $(WARN_CFLAGS) $(SAN_CFLAGS) -c -o $@ $<
$(BUILD)/us-san/profile.pb-c.o: $(US_GEN)/profile.pb-c.c $(US_GEN)/profile.pb-c.h
	@mkdir -p $(@D)
	$(CC) $(US_CPPFLAGS) $(SAN_CFLAGS) -c -o $@ $<
$(BUILD)/tprof-read-san: $(BUILD)/us-san/tprof-read.o $(call us_objs,$(BUILD)/us-san)
	$(CC) $(SAN_CFLAGS) -o $@ $^ $(US_LIBS)
$(BUILD)/tprof-agent-san: $(addprefix $(BUILD)/us-san/,$(AGENT_SRCS:.c=.o)) $(call us_objs,$(BUILD)/us-san)
	$(CC) $(SAN_CFLAGS) -o $@ $^ $(US_LIBS) $(AGENT_LIBS)

# -Werror flavour for `make check`: every userspace and unit-test source
# (tests/progs/*_arm64.c are arm64 programs: the unit test that cross-builds
# them passes -Wall -Wextra and fails on a warning)
US_WERROR_SRCS := $(filter-out %_arm64.c,$(wildcard userspace/*.c userspace/*/*.c \
	tests/unit/*.c tests/progs/*.c))
userspace-werror: $(US_GEN)/profile.pb-c.h
	@mkdir -p $(BUILD)/werror
	@set -e; for f in $(US_WERROR_SRCS); do \
		echo "  CC -Werror $$f"; \
		$(CC) $(US_CPPFLAGS) $(WARN_CFLAGS) $(USER_CFLAGS) -Werror \
			-c -o $(BUILD)/werror/$$(echo $${f%.c} | tr / _).o $$f; \
	done

# the layer rule (US_LAYERS) and no include cycles, in the reader and the
# module
layers:
	python3 tests/tools/check-layers.py userspace $(US_LAYERS) agent
	python3 tests/tools/check-layers.py kmod

# libFuzzer on the CLI's pass order (stream reader, aggregation,
# output__write() with symbolization), bounded in time
FUZZ_SRCS := tests/unit/fuzz_records.c $(addprefix userspace/,$(US_LIB_SRCS)) \
	$(US_GEN)/profile.pb-c.c
$(BUILD)/fuzz/fuzz_records: $(FUZZ_SRCS) $(US_HDRS)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(US_CPPFLAGS) -g -O1 -fsanitize=fuzzer,address,undefined \
		-fno-sanitize-recover=all -o $@ $(FUZZ_SRCS) $(US_LIBS)

# Seeds: the unit tests' "seed stream"s, seed-names.raw for the naming pass
# (KALLSYMS, VDSO, PERFMAP). -close_fd_mask=2: the reader's and the
# symbolizer's warnings on stderr, a line or more per input, would slow it;
# libFuzzer's and the sanitizers' own reports still show.
fuzz: $(BUILD)/fuzz/fuzz_records $(BUILD)/unit/seed.raw
	@mkdir -p $(BUILD)/fuzz/corpus
	cp $(BUILD)/unit/seed.raw $(BUILD)/fuzz/corpus/
	cp $(BUILD)/unit/seed-ustack.raw $(BUILD)/fuzz/corpus/
	cp $(BUILD)/unit/seed-names.raw $(BUILD)/fuzz/corpus/
	$(BUILD)/fuzz/fuzz_records -max_total_time=$(FUZZ_SECONDS) \
		-max_len=65536 -rss_limit_mb=2048 -print_final_stats=1 \
		-close_fd_mask=2 $(BUILD)/fuzz/corpus

# ---- test programs (symbolization references, in-guest workloads) ----
PROGS_CFLAGS := -O2 -g -fno-omit-frame-pointer
PROGS := $(BUILD)/progs/inlines $(BUILD)/progs/inlines.stripped \
	$(BUILD)/progs/libhot.so $(BUILD)/progs/cxxprog \
	$(BUILD)/progs/unwind $(BUILD)/progs/unwind32 $(BUILD)/progs/unwind_cxx \
	$(BUILD)/progs/redzone
GO ?= $(shell command -v go 2>/dev/null)
ifneq ($(GO),)
PROGS += $(BUILD)/progs/goprog
endif
# Go >= 1.21 (DW_AT_decl_line, PGO), e.g. golang-1.23-go from bookworm-backports
GO_MODERN ?= $(lastword $(sort $(wildcard /usr/lib/go-1.2[1-9]/bin/go /usr/lib/go-1.[3-9][0-9]/bin/go)))
ifneq ($(GO_MODERN),)
PROGS += $(BUILD)/progs/goprog-modern $(BUILD)/progs/goleaf
endif

.PHONY: progs
progs: $(PROGS)
userspace: progs

$(BUILD)/progs/inlines: tests/progs/inlines.c
	@mkdir -p $(@D)
	$(CC) $(PROGS_CFLAGS) $(WARN_CFLAGS) -o $@ $< -pthread -ldl

# stripped copy + separate debug file found through .gnu_debuglink
$(BUILD)/progs/inlines.stripped: $(BUILD)/progs/inlines
	objcopy --only-keep-debug $< $(BUILD)/progs/inlines.debug
	objcopy --strip-debug --add-gnu-debuglink=$(BUILD)/progs/inlines.debug $< $@

# C++: same-named methods, templates, lambdas, overloads (demangled names)
CXX ?= g++
$(BUILD)/progs/cxxprog: tests/progs/cxxprog.cc
	@mkdir -p $(@D)
	$(CXX) $(PROGS_CFLAGS) -Wall -Wextra -o $@ $<

# unwinding tests (tests/unit/test_unwind.c): frameless leaves, libc's qsort,
# signal frames; 64-bit and IA32 (gcc-multilib)
$(BUILD)/progs/unwind: tests/progs/unwind.c tests/progs/unwind_work.h
	@mkdir -p $(@D)
	$(CC) $(PROGS_CFLAGS) $(WARN_CFLAGS) -o $@ $<

$(BUILD)/progs/redzone: tests/progs/redzone.c
	@mkdir -p $(@D)
	$(CC) $(PROGS_CFLAGS) $(WARN_CFLAGS) -o $@ $< -ldl

$(BUILD)/progs/unwind32: tests/progs/unwind.c tests/progs/unwind_work.h
	@mkdir -p $(@D)
	$(CC) -m32 $(PROGS_CFLAGS) $(WARN_CFLAGS) -o $@ $<

# Debian's default flags: -O2 -g, no frame pointers
$(BUILD)/progs/unwind_cxx: tests/progs/unwind_cxx.cc
	@mkdir -p $(@D)
	$(CXX) -O2 -g -Wall -Wextra -o $@ $<

$(BUILD)/progs/libhot.so: tests/progs/libhot.c
	@mkdir -p $(@D)
	$(CC) $(PROGS_CFLAGS) $(WARN_CFLAGS) -shared -fPIC -o $@ $<

# Go test program: stdlib only, offline, GOPATH mode (no go.mod to resolve)
$(BUILD)/progs/goprog: tests/progs/goprog/main.go
	@mkdir -p $(@D)
	cd tests/progs/goprog && GOCACHE=$(abspath $(BUILD))/gocache \
		GOPATH=$(abspath $(BUILD))/gopath GOPROXY=off GO111MODULE=off \
		GOTOOLCHAIN=local $(GO) build -o $(abspath $@) .

$(BUILD)/progs/goprog-modern: tests/progs/goprog/main.go
	@mkdir -p $(@D)
	cd tests/progs/goprog && GOCACHE=$(abspath $(BUILD))/gocache-modern \
		GOPATH=$(abspath $(BUILD))/gopath GOPROXY=off GO111MODULE=off \
		GOTOOLCHAIN=local $(GO_MODERN) build -o $(abspath $@) .

# Go's frameless leaf main.mix under main.crunch (tests/cases/51-unwind.sh)
$(BUILD)/progs/goleaf: tests/progs/goleaf/main.go
	@mkdir -p $(@D)
	cd tests/progs/goleaf && GOCACHE=$(abspath $(BUILD))/gocache-modern \
		GOPATH=$(abspath $(BUILD))/gopath GOPROXY=off GO111MODULE=off \
		GOTOOLCHAIN=local $(GO_MODERN) build -o $(abspath $@) .

# ---- in-guest cases 46-49: code at reused addresses, a
# target's own root, thousands of mappings ----
# samebase: the same layout under another hot function name (-DHOT), non-PIE
# so each build has it at the same address; dynamic for the exec case,
# static for the chroot case (nothing else needed in the chroot).
PROGS_REUSE := $(BUILD)/progs/samebase-a $(BUILD)/progs/samebase-b \
	$(BUILD)/progs/rootfile-host $(BUILD)/progs/rootfile-jail \
	$(BUILD)/progs/dlreuse $(BUILD)/progs/libreuse-a.so \
	$(BUILD)/progs/libreuse-b.so $(BUILD)/progs/newroot \
	$(BUILD)/progs/manymaps
PROGS += $(PROGS_REUSE)
progs: $(PROGS_REUSE)

# process trees (tests/cases/53-children.sh): one program, three hot
# functions at the same address (non-PIE: a tree's processes are named from
# their own maps, not whichever was read last), and a small C project to
# build with make -j
PROGS_TREE := $(BUILD)/progs/tree-a $(BUILD)/progs/tree-b $(BUILD)/progs/tree-c
PROGS += $(PROGS_TREE)
progs: $(PROGS_TREE)
$(BUILD)/progs/tree-%: tests/progs/tree.c
	@mkdir -p $(@D)
	$(CC) $(PROGS_CFLAGS) $(WARN_CFLAGS) -DHOT=hot_$* -no-pie -o $@ $<
$(BUILD)/progs/samebase-%: tests/progs/samebase.c
	@mkdir -p $(@D)
	$(CC) $(PROGS_CFLAGS) $(WARN_CFLAGS) -DHOT=hot_$* -no-pie -o $@ $<
$(BUILD)/progs/rootfile-%: tests/progs/samebase.c
	@mkdir -p $(@D)
	$(CC) $(PROGS_CFLAGS) $(WARN_CFLAGS) -DHOT=hot_$* -static -o $@ $<
$(BUILD)/progs/libreuse-%.so: tests/progs/dlreuse-lib.c
	@mkdir -p $(@D)
	$(CC) $(PROGS_CFLAGS) $(WARN_CFLAGS) -DHOT=lib_hot_$* -shared -fPIC -o $@ $<
$(BUILD)/progs/dlreuse $(BUILD)/progs/newroot $(BUILD)/progs/manymaps: $(BUILD)/progs/%: tests/progs/%.c
	@mkdir -p $(@D)
	$(CC) $(PROGS_CFLAGS) $(WARN_CFLAGS) -D_GNU_SOURCE -o $@ $< -ldl

# late timers on purpose (tests/cases/62-late.sh)
PROGS += $(BUILD)/progs/late
progs: $(BUILD)/progs/late
$(BUILD)/progs/late: tests/progs/late.c
	@mkdir -p $(@D)
	$(CC) $(PROGS_CFLAGS) $(WARN_CFLAGS) -o $@ $<

# threads that leave while their process lives on (tests/cases/57-process-exit.sh)
PROGS += $(BUILD)/progs/threadexit
progs: $(BUILD)/progs/threadexit
$(BUILD)/progs/threadexit: tests/progs/threadexit.c
	@mkdir -p $(@D)
	$(CC) $(PROGS_CFLAGS) $(WARN_CFLAGS) -pthread -o $@ $<

# off-CPU workloads (tests/cases/54-off-cpu.sh, bench/guest/80-off-cpu.sh)
PROGS += $(BUILD)/progs/offcpu
progs: $(BUILD)/progs/offcpu
$(BUILD)/progs/offcpu: tests/progs/offcpu.c
	@mkdir -p $(@D)
	$(CC) $(PROGS_CFLAGS) $(WARN_CFLAGS) -pthread -o $@ $<

# waits with known wakers (tests/cases/68-wakers.sh)
PROGS += $(BUILD)/progs/wakers
progs: $(BUILD)/progs/wakers
$(BUILD)/progs/wakers: tests/progs/wakers.c
	@mkdir -p $(@D)
	$(CC) $(PROGS_CFLAGS) $(WARN_CFLAGS) -pthread -o $@ $<
