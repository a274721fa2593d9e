# SPDX-License-Identifier: GPL-2.0
# QEMU harness targets (included by the top-level Makefile).
#   make kernels                  install the kernels of tests/kernels, build the debug kernel
#   make vm-test [KERNELS="6.1 6.12"] [CASES='2*']
#   make vm-test-arm64 [ARM64_KERNELS=6.1-arm64]  the arm64 lane
#   make vm-selftest              prove the harness fails when it must
#   make check                    checkpatch --strict + W=1 on every kernel + -Werror userspace

CHECKPATCH := .cache/checkpatch/checkpatch.pl

kernels:
	tests/vm/kernels.sh --install --all >/dev/null

# Test programs the guest runs come from the host's build/ (the guest sees
# the host's root filesystem), so build them first.
# arm64's programs when an arm64 row runs (every row when KERNELS is unset)
VM_TEST_ARM64 = $(if $(KERNELS),$(if $(filter %-arm64,$(KERNELS)),arm64),arm64)
vm-test: userspace kmod-tests lab $(VM_TEST_ARM64)
	BUILD=$(abspath $(BUILD)) tests/vm/run-all.sh

# The arm64 lane (tests/kernels' arm64 rows, tests/arm64/README.md): its
# programs are cross-built (tests/arm64/cross.mk), its kernels unpacked.
ARM64_KERNELS ?= 6.1-arm64 6.12-arm64
vm-test-arm64: arm64
	tests/vm/kernels.sh --install $(ARM64_KERNELS) > /dev/null
	BUILD=$(abspath $(BUILD)) KERNELS="$(ARM64_KERNELS)" tests/vm/run-all.sh

vm-selftest:
	BUILD=$(abspath $(BUILD)) tests/vm/selftest.sh

$(CHECKPATCH):
	tests/tools/get-checkpatch.sh

style: $(CHECKPATCH)
	$(CHECKPATCH) --strict --no-tree --quiet --show-types \
		-f $(filter-out kmod/compat.h,$(wildcard kmod/*.c kmod/*.h kmod/uapi/*.h))
	# compat.h exists to hold the version checks checkpatch warns about.
	$(CHECKPATCH) --strict --no-tree --quiet --show-types \
		--ignore LINUX_VERSION_CODE,CONSTANT_COMPARISON -f kmod/compat.h

# W=1 on every kernel (arm64's cross-built, its make output in build.log);
# any compiler or modpost warning fails.
module-w1:
	@set -e; list=$$(tests/vm/kernels.sh --all); \
	printf '%s\n' "$$list" | while read -r name kver; do \
		log=$(BUILD)/w1-$$kver.log; mkdir -p $(BUILD); \
		dest=$(abspath $(BUILD))/w1/$$kver; bm=tests/vm/build-module.sh; \
		case $$kver in *-arm64) bm=tests/arm64/build-module.sh ;; esac; \
		$$bm $$kver $$dest W=1 >/dev/null 2>$$log || \
			{ cat $$log $$dest/build.log 2>/dev/null; exit 1; }; \
		[ ! -f $$dest/build.log ] || cat $$dest/build.log >> $$log; \
		if grep -i 'warning:' $$log; then echo "W=1 warnings on $$kver"; exit 1; fi; \
		echo "W=1 clean: $$name ($$kver)"; \
	done

check: style module-w1 userspace-werror layers

.PHONY: kernels vm-test vm-test-arm64 vm-selftest style module-w1
