// SPDX-License-Identifier: GPL-2.0
/* tprof-read: is the target CPython, before ENABLE (live/pytarget.h). */
#include <fcntl.h>
#include <gelf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "live/pytarget.h"
#include "object/pyelf.h"

/* path's contents: an interpreter, or a launcher of one */
static bool runs_cpython(const char *path)
{
	enum py_elf_kind kind;
	int r = py_elf__probe_path(path, &kind);

	return r == PY_PROBE_RUNTIME || r == PY_PROBE_LAUNCHER;
}

bool pytarget__pid(pid_t pid, char *what, size_t n)
{
	char path[64], line[PATH_MAX + 256], last[PATH_MAX] = "";
	char file[PATH_MAX + 64];
	bool found = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		char *p = strchr(line, '/'), perms[8];

		/* the code of a file: "start-end r-xp ..." */
		if (!p || sscanf(line, "%*s %7s", perms) != 1 ||
		    perms[2] != 'x')
			continue;
		p[strcspn(p, "\n")] = 0;
		if (!strcmp(p, last))
			continue;
		snprintf(last, sizeof(last), "%s", p);
		snprintf(file, sizeof(file), "/proc/%d/root%s", (int)pid, p);
		if (runs_cpython(file)) {
			snprintf(what, n, "%s", p);
			found = true;
		}
	}
	fclose(f);
	return found;
}

/* name as execvp() finds it: a path if it has a '/', else along PATH */
static bool find_exec(const char *name, char *out, size_t n)
{
	const char *path = getenv("PATH"), *p, *end;

	if (strchr(name, '/')) {
		snprintf(out, n, "%s", name);
		return access(out, X_OK) == 0;
	}
	/* glibc's execvp() when PATH is unset */
	for (p = path ? path : "/bin:/usr/bin"; ; p = end + 1) {
		struct stat st;
		int len;

		end = strchrnul(p, ':');
		len = (int)(end - p);
		/* an empty element is the current directory */
		snprintf(out, n, "%.*s%s%s", len, p, len ? "/" : "", name);
		if (!stat(out, &st) && S_ISREG(st.st_mode) &&
		    !access(out, X_OK))
			return true;
		if (!*end)
			return false;
	}
}

/*
 * A #! line's interpreter into interp (and /usr/bin/env's program,
 * skipping its options, as found along PATH). false: no #! line.
 */
static bool shebang(const char *head, char *interp, size_t n)
{
	char line[256], *p, *arg;

	if (strncmp(head, "#!", 2))
		return false;
	snprintf(line, sizeof(line), "%s", head + 2);
	line[strcspn(line, "\n")] = 0;
	p = line + strspn(line, " \t");
	arg = p + strcspn(p, " \t");
	if (*arg)
		*arg++ = 0;
	if (strcmp(strrchr(p, '/') ? strrchr(p, '/') + 1 : p, "env")) {
		snprintf(interp, n, "%s", p);
		return true;
	}
	/* env [-S] [-i] NAME: the first word that is no option */
	for (;;) {
		arg += strspn(arg, " \t");
		p = arg;
		arg += strcspn(arg, " \t");
		if (*arg)
			*arg++ = 0;
		if (*p != '-')
			break;
	}
	return *p && find_exec(p, interp, n);
}

/* path (depth: #! lines followed so far) runs CPython */
static bool runs_python(const char *path, int depth, char *what, size_t n)
{
	char real[PATH_MAX], head[256] = { 0 }, interp[PATH_MAX];
	bool yes = false;
	ssize_t got;
	int fd;

	if (!realpath(path, real))
		return false;
	fd = open(real, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	got = pread(fd, head, sizeof(head) - 1, 0);
	if (got >= 4 && !memcmp(head, "\177ELF", 4)) {
		/* by what it is, not what it is called */
		yes = runs_cpython(real);
		if (yes)
			snprintf(what, n, "%s", real);
	} else if (got > 2 && depth < 4 && shebang(head, interp, sizeof(interp))) {
		yes = runs_python(interp, depth + 1, what, n);
	}
	close(fd);
	return yes;
}

bool pytarget__command(const char *argv0, char *what, size_t n)
{
	char path[PATH_MAX];

	return find_exec(argv0, path, sizeof(path)) &&
	       runs_python(path, 0, what, n);
}
