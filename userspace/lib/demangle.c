// SPDX-License-Identifier: GPL-2.0
/* tprof-read: C++ names as people read them (libstdc++'s demangler). */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "lib/demangle.h"

/*
 * abi::__cxa_demangle has C linkage (<cxxabi.h>, which is C++ only): the
 * demangler of the toolchain that built the program, as perf and
 * addr2line -C use, rather than one of our own.
 */
char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

char *demangle(const char *name)
{
	int status = 0;
	char *out;

	/* only Itanium-ABI names: a C or Go name is already what people read */
	if (!name || strncmp(name, "_Z", 2))
		return NULL;
	out = __cxa_demangle(name, NULL, NULL, &status);
	if (status) {
		free(out);
		return NULL;
	}
	return out;
}
