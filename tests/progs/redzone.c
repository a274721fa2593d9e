// SPDX-License-Identifier: GPL-2.0
/*
 * Test program: hashes a buffer with OpenSSL's SHA-256 in a loop, as
 * Python's hashlib does. libcrypto's x86-64 SHA-256 code keeps the
 * caller's stack pointer in the red zone (its CFI: CFA = *(rsp - 8) + 8),
 * so an unwinder needs the 128 bytes below sp to leave it
 * (tests/unit/test_unwind.c: "red zone"). libcrypto is dlopen'ed: the
 * program needs no headers, only Debian's libssl3.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef unsigned char *(*sha256_fn)(const unsigned char *, size_t,
				    unsigned char *);

static volatile unsigned char sink;

static __attribute__((noinline)) void hash_loop(sha256_fn sha256,
						const unsigned char *buf,
						size_t len)
{
	unsigned char md[32];

	for (;;) {
		sha256(buf, len, md);
		sink ^= md[0];
	}
}

int main(void)
{
	static unsigned char buf[1 << 20];
	void *lib = dlopen("libcrypto.so.3", RTLD_NOW);
	sha256_fn sha256;

	if (!lib) {
		fprintf(stderr, "redzone: %s\n", dlerror());
		return 1;
	}
	sha256 = (sha256_fn)dlsym(lib, "SHA256");
	if (!sha256) {
		fprintf(stderr, "redzone: no SHA256 in libcrypto.so.3\n");
		return 1;
	}
	memset(buf, 'x', sizeof(buf));
	hash_loop(sha256, buf, sizeof(buf));
	return 0;
}
