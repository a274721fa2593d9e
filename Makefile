# SPDX-License-Identifier: GPL-2.0
# tprof: top-level build. `make help` lists the targets.
#
# The module is built by kbuild through the top-level Kbuild file, exactly as
# DKMS does. Userspace and test programs go to build/ (see the *.mk files).

KVER ?= $(shell uname -r)
KDIR ?= /lib/modules/$(KVER)/build
BUILD ?= build
CC ?= cc

# Userspace flags: warning-free is enforced by `make check` (-Werror).
WARN_CFLAGS := -Wall -Wextra -Wshadow -Wformat=2 -Wstrict-prototypes
USER_CFLAGS ?= -O2 -g -fno-omit-frame-pointer
SAN_CFLAGS := -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined \
	-fno-sanitize-recover=all
CPPFLAGS_COMMON := -I$(CURDIR)/kmod -D_GNU_SOURCE

.PHONY: all module module-clean userspace unit check test vm-test kernels \
	clean help style bench bench-tcg bias fuzz deps deps-demo demo

all: module userspace

help:
	@echo "make              build tprof.ko (KVER=$(KVER)) and tprof-read"
	@echo "make userspace    build tprof-read and test programs into $(BUILD)/"
	@echo "make unit         host unit tests under ASan/UBSan"
	@echo "make check        checkpatch --strict, W=1 module builds on every kernel, -Werror userspace"
	@echo "make vm-test      boot every kernel in tests/kernels under QEMU and run tests/cases"
	@echo "make test         check, unit, vm-test, vm-selftest, demo, pkg-test (what CI runs; root)"
	@echo "make kernels      install the kernels of tests/kernels (idempotent)"
	@echo "make deps         install the Debian packages (.ci/packages) and the kernels"
	@echo "make demo         profile a bundled workload in a QEMU guest -> demo.pb.gz"
	@echo "make bias         the bias lab on every kernel -> build/bias/, docs/bias.md"
	@echo "make vm-test-arm64  the arm64 rows of tests/kernels alone"
	@echo "make vm-selftest  prove the harness fails when it must"
	@echo "make style        checkpatch --strict on the module"
	@echo "make layers       the reader's layer rule and no include cycles (reader, module)"
	@echo "make fuzz         libFuzzer on the record stream (FUZZ_SECONDS)"
	@echo "make bench        tprof's cost against perf's on exact (icount) guests -> docs/benchmarks.md"
	@echo "make bench-tcg    the older plain-TCG benchmarks -> build/bench/tcg.md"
	@echo "make soak         tprof-agent for 30 minutes of churn in a 6.12 guest (docs/agent.md)"
	@echo "make install      DKMS install of the module, tprof-read, udev rule, group (root)"
	@echo "make uninstall    remove all of it (root)"
	@echo "make deb          Debian packages tprof-dkms and tprof-tools -> build/deb/"
	@echo "make pkg-test     packaging tests: DKMS per kernel, .debs install/purge, installed module in guests (root)"

module:
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

module-clean:
	$(MAKE) -C $(KDIR) M=$(CURDIR) clean

-include userspace/build.mk
-include tests/unit/build.mk
-include tests/kmod/build.mk
-include lab/build.mk
-include bench/build.mk
-include packaging/install.mk
include tests/vm/build.mk
-include tests/arm64/cross.mk

deps:
	tests/tools/install-deps.sh

# The demo boots one kernel: it installs that one (DEMO_KERNEL, 6.12), not
# every kernel and the debug kernel's 20-minute build.
DEMO_KERNEL ?= 6.12
deps-demo:
	tests/tools/install-deps.sh --kernels $(DEMO_KERNEL)

demo: deps-demo userspace lab
	BUILD=$(abspath $(BUILD)) DEMO_KERNEL=$(DEMO_KERNEL) demo/demo.sh

# The README's test command. The host's checks and unit tests run beside
# vm-test's exact guests, whose results the host's load cannot move (CI's
# 2-CPU machine spent 7.5 of its minutes on deps, check and unit before
# the first guest); its plain-TCG guests start once they are done (beside
# them, two debug-kernel cases failed: 24's weights, 28's stacks). What both
# use is built first. Either half failing fails the target, after both
# ended. Then the harness's self-test and the demo beside the packaging
# tests: none of them measures time (their guests check outcomes: a FAIL
# row, a profile written, a module loaded), and pkg-test's builds and apt
# runs leave a CPU idle much of the time (669 s one after the other in a
# warm run, 228 of them the self-test's; the demo after the self-test,
# 138 + 40 s, ends before pkg-test's 285).
HOST_DONE = $(abspath $(BUILD))/host-checks.done
test: deps
	$(MAKE) userspace kmod-tests lab progs $(VM_TEST_ARM64)
	@rm -f $(HOST_DONE); \
	VM_GATE=$(HOST_DONE) $(MAKE) vm-test & vm=$$!; \
	$(MAKE) check unit; rc=$$?; touch $(HOST_DONE); \
	wait $$vm || rc=1; exit $$rc
	@$(MAKE) vm-selftest demo & st=$$!; \
	$(MAKE) pkg-test; rc=$$?; \
	wait $$st || rc=1; exit $$rc

# The agent's soak (docs/agent.md, Long-running): 30 minutes of guest time
# of churn in one 6.12 guest, outside `make test` (CI has no time for it).
# SOAK_CASES='05-*' runs the 150 s version.
SOAK_CASES ?= 10-*
soak: userspace kmod-tests progs lab
	VM_CPUS=2 VM_TIMEOUT=3000 VM_OUT=$(abspath $(BUILD))/vm/soak \
	BUILD=$(abspath $(BUILD)) CASE_DIR=tests/soak CASES='$(SOAK_CASES)' \
		tests/vm/run-kernel.sh 6.12 6.12.118+deb12-amd64
.PHONY: soak

clean:
	rm -rf $(BUILD)
	rm -f tprof.ko *.o *.mod *.mod.c *.mod.o modules.order Module.symvers .*.cmd
	rm -f kmod/*.o kmod/.*.cmd
