// SPDX-License-Identifier: GPL-2.0
/* tprof-read: debug info by build-id from debuginfod servers (--debuginfod). */
#include <elfutils/debuginfod.h>
#include <errno.h>
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

	fd = dwfl_standard_find_debuginfo(mod, userdata, modname, base,
					  file_name, debuglink_file,
					  debuglink_crc, debuginfo_file_name);
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
