# SPDX-License-Identifier: GPL-2.0
# Bias lab programs (included by the top-level Makefile): workloads, the
# minimal SIGPROF sampler, the Go workload and the independent pprof reader.
LAB_BIN := $(BUILD)/lab
LAB_GOENV := GO111MODULE=off GOPATH=/usr/share/gocode GOFLAGS= \
	GOCACHE=$(abspath $(BUILD))/gocache

lab: $(LAB_BIN)/lab-work $(LAB_BIN)/sigprof.so $(LAB_BIN)/labgo $(LAB_BIN)/pprofsum

$(LAB_BIN)/lab-work: lab/work/lab-work.c
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) $(WARN_CFLAGS) -D_GNU_SOURCE -pthread $< -o $@

$(LAB_BIN)/sigprof.so: lab/sigprof/sigprof.c
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) $(WARN_CFLAGS) -D_GNU_SOURCE -fPIC -shared $< -o $@

$(LAB_BIN)/labgo: lab/go/labgo/main.go
	@mkdir -p $(@D)
	cd lab/go && $(LAB_GOENV) go build -o $(abspath $@) ./labgo

$(LAB_BIN)/pprofsum: lab/go/pprofsum/main.go
	@mkdir -p $(@D)
	cd lab/go && $(LAB_GOENV) go build -o $(abspath $@) ./pprofsum

# The lab in a guest per kernel (KERNELS=... to choose), 8 vCPUs; results in
# build/bias/NAME/ and docs/bias.md.
bias: userspace lab
	BUILD=$(abspath $(BUILD)) lab/bias.sh

.PHONY: lab bias
