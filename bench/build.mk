# SPDX-License-Identifier: GPL-2.0
# `make bench` (included by the top-level Makefile): overhead and throughput
# benchmarks against perf (issue 6). Boots one kernel (BENCH_KERNEL, default
# 6.12) under QEMU, runs bench/guest/NN-*.sh there, runs the reader benchmark
# on the host, writes docs/benchmarks.md and docs/benchmarks/*.png.
# BENCH_REPS (default 5) runs per variant; BENCH_QUICK=1 for a smoke run.
# Nothing in `make test` depends on it.
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

bench: userspace bench-progs
	BUILD=$(abspath $(BUILD)) BENCH_KERNEL="$(BENCH_KERNEL)" bench/bench.sh

.PHONY: bench bench-progs
