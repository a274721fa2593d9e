# SPDX-License-Identifier: GPL-2.0
# In-guest test programs for tprof.ko (included by the top-level Makefile).
# -m32 needs gcc-multilib.

KT_DIR := $(BUILD)/kmod-tests
KT_CFLAGS := $(WARN_CFLAGS) -O2 -g -fno-omit-frame-pointer
KT_STACK_CFLAGS := -O1 -g -fno-omit-frame-pointer -static

.PHONY: kmod-tests

kmod-tests: $(KT_DIR)/tprof-ktest $(KT_DIR)/tprof-ktest32 $(KT_DIR)/stacktarget64 \
	$(KT_DIR)/stacktarget32 $(KT_DIR)/secret $(KT_DIR)/uwalktarget

KT_SRCS := tests/kmod/ktest.c tests/kmod/security.c tests/kmod/snapshot.c \
	tests/kmod/mmap.c tests/kmod/trust.c tests/kmod/uwalk.c tests/kmod/lib.c \
	tests/kmod/budget.c tests/kmod/wakers.c
KT_DEPS := $(KT_SRCS) tests/kmod/ktest.h kmod/uapi/tprof.h

$(KT_DIR)/tprof-ktest: $(KT_DEPS)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS_COMMON) $(KT_CFLAGS) -o $@ $(KT_SRCS) -lpthread -lm

# The same client as a 32-bit program: the ioctls through compat_ioctl.
$(KT_DIR)/tprof-ktest32: $(KT_DEPS)
	@mkdir -p $(@D)
	$(CC) -m32 -static $(CPPFLAGS_COMMON) $(KT_CFLAGS) -o $@ $(KT_SRCS) -lpthread -lm

$(KT_DIR)/stacktarget64: tests/kmod/stacktarget.c
	@mkdir -p $(@D)
	$(CC) $(WARN_CFLAGS) $(KT_STACK_CFLAGS) -o $@ $<

$(KT_DIR)/stacktarget32: tests/kmod/stacktarget.c
	@mkdir -p $(@D)
	$(CC) -m32 $(WARN_CFLAGS) $(KT_STACK_CFLAGS) -o $@ $<

# The image the permission tests exec (setuid root or 0711, by the case).
$(KT_DIR)/secret: tests/kmod/secret.c
	@mkdir -p $(@D)
	$(CC) $(WARN_CFLAGS) -O1 -g -fno-omit-frame-pointer -static -o $@ $<

# The user-memory walk tests' target (tests/kmod/uwalk.c): its threads'
# chains in their own memory, a __thread slot at a fixed fs_base offset.
$(KT_DIR)/uwalktarget: tests/kmod/uwalktarget.c
	@mkdir -p $(@D)
	$(CC) $(WARN_CFLAGS) -O1 -g -fno-omit-frame-pointer -pthread -o $@ $<
