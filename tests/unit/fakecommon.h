/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fakedev.so and fakering.so, the unit tests' LD_PRELOADs: what both ask
 * of a descriptor or a path, and how both pass an open() on.
 */
#ifndef TPROF_TEST_FAKECOMMON_H
#define TPROF_TEST_FAKECOMMON_H

#include <dlfcn.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* fd is the fake device: a file whose path contains "tprof-fakedev" */
static inline int is_fake(int fd)
{
	char link[64], path[4096];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, path, sizeof(path) - 1);
	if (n <= 0)
		return 0;
	path[n] = '\0';
	return strstr(path, "tprof-fakedev") != NULL;
}

/* path is a /proc/PID/maps: the live loop's maps reads */
static inline int is_maps_path(const char *path)
{
	size_t n = strlen(path);

	return n >= 5 && !strcmp(path + n - 5, "/maps") &&
	       !strncmp(path, "/proc/", 6);
}

/*
 * open()'s mode into mode: its third argument, there only with O_CREAT
 * or O_TMPFILE. A macro: va_start() wants the open() wrapper's own frame.
 */
#define OPEN_MODE(flags, mode)						\
	do {								\
		va_list _ap;						\
									\
		if ((flags) & (O_CREAT | O_TMPFILE)) {			\
			va_start(_ap, flags);				\
			(mode) = va_arg(_ap, mode_t);			\
			va_end(_ap);					\
		}							\
	} while (0)

/* The open() this preload wraps (the next one: RTLD_NEXT). */
static inline int next_open(const char *path, int flags, mode_t mode)
{
	static int (*real)(const char *, int, ...);

	if (!real)
		real = (int (*)(const char *, int, ...))dlsym(RTLD_NEXT, "open");
	return real(path, flags, mode);
}

#endif
