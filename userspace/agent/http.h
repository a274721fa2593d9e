/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tprof-agent: the HTTP side, libmicrohttpd in external-poll mode, driven
 * from the live loop's poll() (one thread, no locks). A request is routed
 * by its path; its answer may come later (a profile window): the
 * connection is suspended until http__reply().
 */
#ifndef _TPROF_AGENT_HTTP_H
#define _TPROF_AGENT_HTTP_H

#include <poll.h>
#include <stddef.h>
#include <stdint.h>

struct http;
struct http_req;

/* A route's handler: answers q now or later (http__reply(), exactly once). */
typedef void (*http_route_fn)(void *ctx, struct http_req *q);

struct http_route {
	const char *path;	/* exact match */
	http_route_fn fn;
};

/*
 * Listen on ADDR:PORT (a numeric IPv4 address, or [IPv6]:PORT; PORT 0: any
 * free one). routes ends with a NULL path. 0, or -errno after one line.
 */
int http__start(struct http **hp, const char *listen,
		const struct http_route *routes, void *ctx);
/* The port bound (what PORT 0 got). */
unsigned int http__port(const struct http *h);
/* The daemon's fd for poll() (POLLIN): at most one; returns how many. */
int http__fds(struct http *h, struct pollfd *pfd, int room);
/* The most poll() may wait for the daemon's own timers, ms (-1: none). */
int http__timeout_ms(struct http *h);
/* After poll(): accept, read, route, write what is ready. */
void http__run(struct http *h);
/* Requests suspended, waiting for an answer. */
unsigned int http__pending(const struct http *h);
/* Answer every waiting request with 503 and close the daemon. */
void http__stop(struct http *h);

/* A query argument of q, or NULL. */
const char *http__arg(struct http_req *q, const char *name);
/* The request's path (no query). */
const char *http__path(const struct http_req *q);
/*
 * The answer to q: status, content type, body (taken over: freed by the
 * daemon; NULL with len 0 for none), extra headers ("Name: value" pairs,
 * NULL-terminated, or NULL). q is gone for the caller after it.
 */
void http__reply(struct http_req *q, unsigned int status, const char *type,
		 void *body, size_t len, const char *const *headers);
/* A one-line text/plain error: "reason\n". */
void http__error(struct http_req *q, unsigned int status, const char *fmt,
		 ...) __attribute__((format(printf, 3, 4)));

#endif /* _TPROF_AGENT_HTTP_H */
