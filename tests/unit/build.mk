# SPDX-License-Identifier: GPL-2.0
# Host unit tests (ASan/UBSan): `make unit`. Included by the top-level Makefile.

UNIT_SRCS := $(filter-out tests/unit/fuzz_records.c tests/unit/fakedev.c \
	tests/unit/fakering.c,\
	$(wildcard tests/unit/*.c))
UNIT_OBJS := $(patsubst tests/unit/%.c,$(BUILD)/unit/obj/%.o,$(UNIT_SRCS))

$(BUILD)/unit/obj/%.o: tests/unit/%.c tests/unit/testlib.h tests/unit/pbload.h $(US_HDRS)
	@mkdir -p $(@D)
	$(CC) $(US_CPPFLAGS) -Itests/unit $(WARN_CFLAGS) $(SAN_CFLAGS) -c -o $@ $<

# CPython 3.11's offsets from the installed headers (test_python_live.c)
PY311_INC ?= /usr/include/python3.11
$(BUILD)/unit/obj/py311-offsets.o: tests/unit/py311/offsets.c $(US_HDRS)
	@mkdir -p $(@D)
	$(CC) $(US_CPPFLAGS) -I$(PY311_INC) $(WARN_CFLAGS) $(SAN_CFLAGS) -c -o $@ $<

# the agent's layer too (test_evict.c), without its main()
UNIT_AGENT_OBJS := $(addprefix $(BUILD)/us-san/,$(patsubst %.c,%.o,$(filter agent/%,$(AGENT_SRCS))))
$(BUILD)/unit/unit-tests: $(UNIT_OBJS) $(BUILD)/unit/obj/py311-offsets.o \
		$(call us_objs,$(BUILD)/us-san) $(UNIT_AGENT_OBJS)
	$(CC) $(SAN_CFLAGS) -o $@ $^ $(US_LIBS) $(AGENT_LIBS) -lm

# LD_PRELOAD'ed into tprof-read: a fake /dev/tprof for live-mode tests
$(BUILD)/unit/fakedev.so: tests/unit/fakedev.c tests/unit/fakecommon.h kmod/uapi/tprof.h
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS_COMMON) $(WARN_CFLAGS) -O1 -g -shared -fPIC -o $@ $< -ldl

# LD_PRELOAD'ed before fakedev.so: the fake device as a ring that drops
$(BUILD)/unit/fakering.so: tests/unit/fakering.c tests/unit/fakecommon.h kmod/uapi/tprof.h
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS_COMMON) $(WARN_CFLAGS) -O1 -g -shared -fPIC -o $@ $< -ldl -pthread

# $(BUILD)/tprof-read: test_scale.c measures the optimised build's memory
unit: $(BUILD)/unit/unit-tests $(BUILD)/tprof-read-san $(BUILD)/tprof-read \
		$(BUILD)/tprof-agent-san \
		$(BUILD)/unit/fakedev.so $(BUILD)/unit/fakering.so progs
	TPROF_BUILD=$(abspath $(BUILD)) TPROF_ROOT=$(CURDIR) \
	TPROF_READ=$(abspath $(BUILD))/tprof-read-san \
	PPROF_PROTO_DIR=$(PPROF_PROTO_DIR) \
	ASAN_OPTIONS=detect_leaks=1:fast_unwind_on_malloc=0 \
	UBSAN_OPTIONS=print_stacktrace=1 \
		timeout -k 10 1800 $(BUILD)/unit/unit-tests

$(BUILD)/unit/seed.raw: $(BUILD)/unit/unit-tests progs
	TPROF_BUILD=$(abspath $(BUILD)) TPROF_ROOT=$(CURDIR) \
		$(BUILD)/unit/unit-tests 'seed stream'
