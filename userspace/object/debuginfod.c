// SPDX-License-Identifier: GPL-2.0
/* tprof-read: debug info by build-id from debuginfod servers (--debuginfod). */
#include <elfutils/debuginfod.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/buildid.h"
#include "object/debuginfod.h"
#include "lib/util.h"

#define URLS_ENV "DEBUGINFOD_URLS"

/* one client for the process: libdwfl's callbacks carry no context */
static char *urls;		/* --debuginfod: the servers to ask */
static debuginfod_client *client;
static bool client_failed;

int debuginfod__setup(bool enable)
{
	const char *env = getenv(URLS_ENV);

	free(urls);
	urls = enable && env && *env ? xstrdup(env) : NULL;
	/* libdwfl asks the servers named here on its own when it finds no
	 * debug file (and for executables): never without --debuginfod, and
	 * with it only through us, for files the local lookups left bare */
	unsetenv(URLS_ENV);
	if (enable && !urls) {
		pr_err("--debuginfod: %s is not set: no server to ask (e.g. DEBUGINFOD_URLS=https://debuginfod.debian.net)",
		       URLS_ENV);
		return -EINVAL;
	}
	return 0;
}

void debuginfod__end(void)
{
	if (client)
		debuginfod_end(client);
	client = NULL;
	client_failed = false;
	free(urls);
	urls = NULL;
}

/* The server's copy of the debug file of build-id bits; an fd or -errno. */
static int ask_servers(const unsigned char *bits, int len, char **path)
{
	char hex[BUILDID_HEX_LEN];
	int fd;

	if (!client && !client_failed) {
		client = debuginfod_begin();
		client_failed = !client;
		if (!client)
			pr_err("--debuginfod: debuginfod_begin: %s",
			       strerror(errno));
	}
	if (!client)
		return -ENOSYS;
	buildid__hex(bits, len, hex);
	/* the library reads the server list from the environment, which
	 * holds it only for this call */
	setenv(URLS_ENV, urls, 1);
	fd = debuginfod_find_debuginfo(client, bits, len, path);
	unsetenv(URLS_ENV);
	if (fd < 0)
		pr_debug("debuginfod: %s: %s", hex, strerror(-fd));
	else
		pr_debug("debuginfod: %s: %s", hex, *path);
	return fd;
}

/* the one absolute directory of libdwfl's default search path */
#define DEBUG_DIR "/usr/lib/debug"

static bool __attribute__((format(printf, 1, 2))) exists(const char *fmt, ...)
{
	char path[PATH_MAX];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(path, sizeof(path), fmt, ap);
	va_end(ap);
	return n < 0 || (size_t)n >= sizeof(path) || !access(path, F_OK);
}

/*
 * Could dwfl_standard_find_debuginfo() find a local file: does one of its
 * candidates exist (libdwfl's default path, ":.debug:/usr/lib/debug": by
 * build-id, then the debuglink's name, else FILE.debug, beside the file,
 * in its .debug/ and under /usr/lib/debug)? When none does, it ends in
 * libdwfl's own debuginfod lookup, which makes a client for the module's
 * Dwfl, server or not, and keeps it to dwfl_end(): a curl multi handle, a
 * Unix socketpair for each cached binary without debug info (strace of
 * the agent's soak: 6 in 100 s; its fds 22 -> 27 after the fifth scrape
 * in the 30-minute run). Anything unusual (a path in the debuglink, a
 * name too long): yes, and libdwfl looks.
 */
static bool may_find_locally(Dwfl_Module *mod, const char *file_name,
			     const char *debuglink_file)
{
	char hex[BUILDID_HEX_LEN], name[NAME_MAX + 1];
	const unsigned char *bits;
	const char *slash, *base;
	GElf_Addr vaddr;
	int len = dwfl_module_build_id(mod, &bits, &vaddr), dlen;

	if (len > 0 && (size_t)len * 2 < sizeof(hex)) {
		buildid__hex(bits, len, hex);
		if (exists("%s/.build-id/%.2s/%s.debug", DEBUG_DIR, hex, hex + 2))
			return true;
	}
	if (!file_name)
		return true;
	slash = strrchr(file_name, '/');
	base = slash ? slash + 1 : file_name;
	if (snprintf(name, sizeof(name), "%s",
		     debuglink_file ? debuglink_file : "") >= (int)sizeof(name) ||
	    (!debuglink_file &&
	     snprintf(name, sizeof(name), "%s.debug", base) >= (int)sizeof(name)) ||
	    strchr(name, '/'))
		return true;
	dlen = slash ? (int)(slash - file_name) : 1;
	if (!slash)
		file_name = ".";
	return exists("%.*s/%s", dlen, file_name, name) ||
	       exists("%.*s/.debug/%s", dlen, file_name, name) ||
	       exists("%s%.*s/%s", DEBUG_DIR, dlen, file_name, name) ||
	       exists("%s/%s", DEBUG_DIR, name);
}

int debuginfod__find_debuginfo(Dwfl_Module *mod, void **userdata,
			       const char *modname, Dwarf_Addr base,
			       const char *file_name,
			       const char *debuglink_file,
			       GElf_Word debuglink_crc,
			       char **debuginfo_file_name)
{
	unsigned char got[BUILDID_MAX];
	const unsigned char *bits;
	GElf_Addr vaddr;
	char *path = NULL;
	int fd, sfd, len;

	if (may_find_locally(mod, file_name, debuglink_file)) {
		fd = dwfl_standard_find_debuginfo(mod, userdata, modname, base,
						  file_name, debuglink_file,
						  debuglink_crc,
						  debuginfo_file_name);
	} else {
		fd = -1;
		errno = ENOENT;
	}
	if (fd >= 0 || !urls)
		return fd;
	len = dwfl_module_build_id(mod, &bits, &vaddr);
	if (len <= 0)
		return fd;
	sfd = ask_servers(bits, len, &path);
	if (sfd < 0)
		return fd;
	/* a server's answer is still checked: this build's, or nothing */
	if (buildid__from_fd(sfd, got) != len || memcmp(got, bits, len)) {
		pr_err("warning: debuginfod: %s: not the build-id asked for: ignored",
		       path);
		close(sfd);
		free(path);
		return fd;
	}
	*debuginfo_file_name = path;	/* libdwfl frees it */
	return sfd;
}
