// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests: --debuginfod (issue 13 item 6). Debian's own debuginfod
 * server, started here on a free port over a folder holding the debug file
 * of a stripped copy of the -O2 -g test program, gives that binary names,
 * source lines and inline frames; without --debuginfod the server is never
 * asked, though DEBUGINFOD_URLS names it.
 */
#include <arpa/inet.h>
#include <elfutils/debuginfod.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/buildid.h"
#include "pbload.h"
#include "testlib.h"
#include "lib/util.h"

#define PID 4194998
#define PIE_BASE 0x555555554000ULL
#define S(p, i) ((p)->string_table[(i)])

/* A TCP port nothing listens on now (the kernel's pick). */
static int free_port(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), port = -1;

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd >= 0 && !bind(fd, (struct sockaddr *)&a, sizeof(a)) &&
	    !getsockname(fd, (struct sockaddr *)&a, &len))
		port = ntohs(a.sin_port);
	if (fd >= 0)
		close(fd);
	return port;
}

static pid_t start_server(const char *dir, const char *db, const char *log,
			  int port)
{
	char p[16];
	pid_t pid;

	snprintf(p, sizeof(p), "%d", port);
	pid = fork();
	if (pid == 0) {
		int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
			      0644);

		if (fd >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
		}
		/* one scan of dir at start; no grooming, no rescans */
		execlp("debuginfod", "debuginfod", "-F", "-p", p, "-d", db,
		       "-t", "0", "-g", "0", "-c", "1", "-v", dir,
		       (char *)NULL);
		_exit(127);
	}
	return pid;
}

/*
 * Wait until the server answers for build-id hex: it listens, and its scan
 * of the folder is done. Asks it directly (its own client, cache dir).
 */
static bool server_ready(const char *url, const char *cache,
			 const unsigned char *bits, int len, pid_t server)
{
	int i;

	setenv("DEBUGINFOD_URLS", url, 1);
	setenv("DEBUGINFOD_CACHE_PATH", cache, 1);
	for (i = 0; i < 300; i++) {
		debuginfod_client *c;
		char *path = NULL, *out = NULL;
		int fd;

		/* a 404 before the scan is cached as a miss: start afresh */
		run_fmt(&out, "rm -rf '%s'", cache);
		free(out);
		c = debuginfod_begin();
		fd = c ? debuginfod_find_debuginfo(c, bits, len, &path) : -1;

		if (c)
			debuginfod_end(c);
		free(path);
		if (fd >= 0) {
			close(fd);
			break;
		}
		if (waitpid(server, NULL, WNOHANG) == server)
			break;
		usleep(100000);
	}
	unsetenv("DEBUGINFOD_URLS");
	unsetenv("DEBUGINFOD_CACHE_PATH");
	return i < 300;
}

/* How many requests for build-id hex the server's log shows. */
static size_t requests(const char *log, const char *hex)
{
	char *text = NULL;
	const char *s;
	size_t n = 0;

	run_fmt(&text, "grep -F 'GET /buildid/%s' '%s'", hex, log);
	for (s = text; s && (s = strstr(s, hex)); s++)
		n++;
	free(text);
	return n;
}

/* The innermost function name, file and line of the first sample's leaf. */
static const Perftools__Profiles__Location *leaf(const PbProfile *p)
{
	size_t i;

	for (i = 0; i < p->n_sample; i++)
		if (p->sample[i]->n_location_id)
			return p->location[p->sample[i]->location_id[0] - 1];
	return NULL;
}

static const char *fn_name(const PbProfile *p,
			   const Perftools__Profiles__Location *l, size_t i)
{
	return i < l->n_line ?
		S(p, p->function[l->line[i]->function_id - 1]->name) : "";
}

static void test_debuginfod_server(void)
{
	const char *bin = build_path("progs/inlines");
	const char *dir = build_path("unit/debuginfod");
	char stripped[4096], dbg[4096], db[4096], log[4096], cache[4096];
	char cache2[4096], raw[4096], pb[4096], url[64], hex[BUILDID_HEX_LEN];
	unsigned char bits[BUILDID_MAX];
	const Perftools__Profiles__Location *l;
	char *maps = NULL, *out = NULL, *logtext = NULL;
	uint64_t v = 0, sz, addr;
	struct sbuf b = { 0 };
	PbProfile *p;
	pid_t server;
	size_t asked;
	int port, st, len = 0, fd, i;

	if (!need_cmd("debuginfod", "debuginfod (the server) not installed: apt-get install debuginfod"))
		return;
	if (access(bin, R_OK) || elf_symbol(bin, "hot_outer", &v, &sz)) {
		SKIP("progs/inlines not built");
		return;
	}
	snprintf(stripped, sizeof(stripped), "%s/bin/inlines", dir);
	snprintf(dbg, sizeof(dbg), "%s/srv/inlines.debug", dir);
	snprintf(db, sizeof(db), "%s/db.sqlite", dir);
	snprintf(log, sizeof(log), "%s/server.log", dir);
	snprintf(cache, sizeof(cache), "%s/cache", dir);
	snprintf(cache2, sizeof(cache2), "%s/cache-ready", dir);
	snprintf(raw, sizeof(raw), "%s/s.raw", dir);
	snprintf(pb, sizeof(pb), "%s/s.pb.gz", dir);
	/* all symbols and DWARF out of the binary, into the server's folder
	 * only (no .gnu_debuglink, no /usr/lib/debug copy) */
	st = run_fmt(&out, "rm -rf '%s' && mkdir -p '%s/bin' '%s/srv' '%s' && objcopy --only-keep-debug '%s' '%s' && strip --strip-all -o '%s' '%s' 2>&1",
		     dir, dir, dir, cache, bin, dbg, stripped, bin);
	CHECK_EQ(st, 0);
	free(out);
	out = NULL;
	fd = open(stripped, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		len = buildid__from_fd(fd, bits);
		close(fd);
	}
	CHECK(len > 0);
	if (st || len <= 0)
		return;
	buildid__hex(bits, len, hex);

	port = free_port();
	CHECK(port > 0);
	snprintf(url, sizeof(url), "http://127.0.0.1:%d", port);
	server = start_server(build_path("unit/debuginfod/srv"), db, log, port);
	CHECK(server > 0);
	if (server <= 0)
		return;
	if (!server_ready(url, cache2, bits, len, server)) {
		kill(server, SIGTERM);
		waitpid(server, NULL, 0);
		run_fmt(&logtext, "tail -5 '%s'", log);
		fprintf(stderr, "    debuginfod did not serve %s:\n%s", hex,
			logtext ? logtext : "");
		free(logtext);
		SKIP("the local debuginfod server did not start or serve the file (its log above)");
		return;
	}

	asked = requests(log, hex);
	CHECK(asked >= 1);

	/* one sample in hot_outer's inlined hot_leaf (see test_e2e.c) */
	maps = fake_maps(stripped, PIE_BASE);
	CHECK(maps != NULL);
	addr = PIE_BASE + v + 0x10;
	sb_session(&b, PID, 1000000, 1700000000000000000ULL, 1000);
	sb_maps(&b, PID, 1001, maps ? maps : "");
	sb_buildid(&b, PID, 8, 1, 1234, stripped, bits, len, 1002);
	for (i = 0; i < 3; i++)
		sb_sample(&b, PID, PID, 1000000, 1000000, 2000 + i, 0, NULL, 1,
			  &addr);
	/* tprof-read's: this server, and a cache of its own */
	setenv("DEBUGINFOD_URLS", url, 1);
	setenv("DEBUGINFOD_CACHE_PATH", cache, 1);

	/* without --debuginfod: nothing asked, though the URL is set */
	p = replay_profile(&b, raw, pb, "", &out);
	if (p && (l = leaf(p))) {
		CHECK(!strstr(fn_name(p, l, 0), "hot_"));
		CHECK_EQ(l->n_line > 1, 0);
	}
	if (p)
		pb_free(p);
	/* the server saw no request but server_ready()'s own */
	CHECK_EQ(requests(log, hex), asked);
	run_fmt(&logtext, "ls -A '%s'", cache);
	CHECK(logtext && !*logtext);	/* the client's cache stayed empty */
	if (!(logtext && !*logtext))
		fprintf(stderr, "    cache: %s\n", logtext);
	free(logtext);
	logtext = NULL;
	free(out);
	out = NULL;

	/* with it: names, the source file and line, the inline chain */
	p = input_profile(raw, pb, "--debuginfod", &out);
	if (p && (l = leaf(p))) {
		CHECK_STR(fn_name(p, l, 0), "hot_leaf");
		CHECK(l->n_line >= 3);
		CHECK_STR(fn_name(p, l, l->n_line - 1), "hot_outer");
		CHECK(l->n_line && l->line[0]->line > 0);
		CHECK(l->n_line && strstr(S(p, p->function[
			l->line[0]->function_id - 1]->filename), "inlines.c"));
		CHECK(p->n_mapping && p->mapping[0]->has_inline_frames);
		CHECK(requests(log, hex) > asked);
	} else {
		CHECK(0);
	}
	if (p)
		pb_free(p);

	/* --debuginfod without a server to ask is an error, not silence */
	free(out);
	out = NULL;
	unsetenv("DEBUGINFOD_URLS");
	st = run_read(&out, "--debuginfod --input '%s' -o '%s' 2>&1", raw, pb);
	unsetenv("DEBUGINFOD_CACHE_PATH");
	CHECK(st != 0);
	CHECK_HAS(out, "DEBUGINFOD_URLS is not set");

	kill(server, SIGTERM);
	waitpid(server, NULL, 0);
	out_done(out);
	free(maps);
	sb_free(&b);
}

const struct unit_test debuginfod_tests[] = {
	{ "debuginfod: a stripped binary gets names, lines and inline frames from a local debuginfod server; none asked without --debuginfod", test_debuginfod_server },
	{ NULL, NULL },
};
