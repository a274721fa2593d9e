# SPDX-License-Identifier: GPL-2.0
# `make bench` (included by the top-level Makefile): tprof's cost against
# perf's on exact guests (bench/exact/). `make bench-tcg`: the older
# plain-TCG benchmarks (bench/bench.sh, bench/guest/NN-*.sh). Nothing in
# `make test` depends on either.
BENCH_BIN := $(BUILD)/bench
BENCH_KERNEL ?= 6.12

$(BENCH_BIN)/bench-work: bench/work/bench-work.c kmod/uapi/tprof.h
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS_COMMON) $(USER_CFLAGS) $(WARN_CFLAGS) -pthread -o $@ $<

# Synthetic raw record streams for tprof-read --input: the unit tests'
# stream builder (tests/unit/testlib.c), not a second writer.
$(BENCH_BIN)/gen-stream: bench/work/gen-stream.c tests/unit/testlib.c \
		tests/unit/testlib.h $(BUILD)/us/lib/util.o $(US_HDRS)
	@mkdir -p $(@D)
	$(CC) $(US_CPPFLAGS) -Itests/unit $(USER_CFLAGS) $(WARN_CFLAGS) -o $@ \
		bench/work/gen-stream.c tests/unit/testlib.c $(BUILD)/us/lib/util.o -lelf

# LD_PRELOADed into tprof-read to ask for STATS path timing (30-depth.sh)
$(BENCH_BIN)/path-timing.so: bench/work/path-timing.c kmod/uapi/tprof.h
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS_COMMON) $(USER_CFLAGS) $(WARN_CFLAGS) -shared -fPIC -o $@ $< -ldl

# the CFA offsets of ELF files' CFI: sizes the hybrid snapshot
# (docs/unwinding.md)
$(BENCH_BIN)/cfa-offsets: bench/work/cfa-offsets.c
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) $(WARN_CFLAGS) -o $@ $< -ldw -lelf

bench-progs: $(BENCH_BIN)/cfa-offsets $(BENCH_BIN)/bench-work $(BENCH_BIN)/gen-stream $(BENCH_BIN)/path-timing.so

# The exact-guest cost table (bench/exact/run.sh): 1-vCPU guests under
# QEMU's -icount on BENCH_KERNELS, every row against perf in the same boot
# -> docs/benchmarks.md.
BENCH_KERNELS ?= 6.1 6.12
bench: userspace bench-progs
	BUILD=$(abspath $(BUILD)) BENCH_KERNELS="$(BENCH_KERNELS)" bench/exact/run.sh

# The plain-TCG benchmarks (bench/bench.sh: reader throughput, timer
# operations per switch, the per-mode path timing), whose guest times follow
# the host's load -> build/bench/tcg.md, not docs/.
bench-tcg: userspace bench-progs
	BUILD=$(abspath $(BUILD)) BENCH_KERNEL="$(BENCH_KERNEL)" \
		BENCH_MD=$(abspath $(BUILD))/bench/tcg.md bench/bench.sh

.PHONY: bench bench-tcg bench-progs
