# SPDX-License-Identifier: GPL-2.0
# Host unit tests (ASan/UBSan): `make unit`. Included by the top-level Makefile.

UNIT_SRCS := $(filter-out tests/unit/fuzz_records.c,$(wildcard tests/unit/*.c))
UNIT_OBJS := $(patsubst tests/unit/%.c,$(BUILD)/unit/obj/%.o,$(UNIT_SRCS))

$(BUILD)/unit/obj/%.o: tests/unit/%.c tests/unit/testlib.h $(US_HDRS)
	@mkdir -p $(@D)
	$(CC) $(US_CPPFLAGS) -Itests/unit $(WARN_CFLAGS) $(SAN_CFLAGS) -c -o $@ $<

$(BUILD)/unit/unit-tests: $(UNIT_OBJS) $(call us_objs,$(BUILD)/us-san)
	$(CC) $(SAN_CFLAGS) -o $@ $^ $(US_LIBS)

unit: $(BUILD)/unit/unit-tests $(BUILD)/tprof-read-san progs
	TPROF_BUILD=$(abspath $(BUILD)) TPROF_ROOT=$(CURDIR) \
	TPROF_READ=$(abspath $(BUILD))/tprof-read-san \
	PPROF_PROTO_DIR=$(PPROF_PROTO_DIR) \
	ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
		$(BUILD)/unit/unit-tests

$(BUILD)/unit/seed.raw: $(BUILD)/unit/unit-tests progs
	TPROF_BUILD=$(abspath $(BUILD)) TPROF_ROOT=$(CURDIR) \
		$(BUILD)/unit/unit-tests 'seed stream'
