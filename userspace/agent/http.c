// SPDX-License-Identifier: GPL-2.0
/*
 * tprof-agent: HTTP through libmicrohttpd, polled by the live loop
 * (MHD_USE_EPOLL without a thread of its own: one epoll fd in the loop's
 * poll(), MHD_run() after it). A request that waits for its window is
 * suspended (MHD_suspend_connection()): nothing of it is read or timed out
 * until its answer resumes it.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <microhttpd.h>

#include "agent/http.h"
#include "lib/parse.h"
#include "lib/util.h"

/* Scrapers are few; a flood of connections waits in the kernel's queue. */
#define HTTP_MAX_CONNECTIONS	64
/* An idle or slow client's connection, seconds (a waiting one has none). */
#define HTTP_IDLE_TIMEOUT_S	30

struct http {
	struct MHD_Daemon *d;
	const struct http_route *routes;
	void *ctx;
	unsigned int port;
	/* suspended requests, for http__stop() */
	struct http_req *waiting;
	unsigned int nwaiting;
};

struct http_req {
	struct http *h;
	struct MHD_Connection *c;
	const char *url;		/* MHD's, valid for the request */
	struct MHD_Response *resp;	/* the answer, once given */
	unsigned int status;
	bool routed, suspended;
	struct http_req *prev, *next;	/* in h->waiting while suspended */
};

static void unlink_waiting(struct http_req *q)
{
	struct http *h = q->h;

	if (q->prev)
		q->prev->next = q->next;
	else
		h->waiting = q->next;
	if (q->next)
		q->next->prev = q->prev;
	q->prev = q->next = NULL;
	h->nwaiting--;
}

static const struct http_route *route_of(const struct http *h,
					 const char *url)
{
	const struct http_route *r;

	for (r = h->routes; r->path; r++)
		if (!strcmp(r->path, url))
			return r;
	return NULL;
}

/* MHD's access handler: called when the headers are in, then again for
 * each piece of a body (discarded), and once more after a resume. */
static enum MHD_Result on_request(void *cls, struct MHD_Connection *c,
				  const char *url, const char *method,
				  const char *version, const char *upload,
				  size_t *upload_size, void **con_cls)
{
	struct http *h = cls;
	struct http_req *q = *con_cls;
	const struct http_route *r;
	enum MHD_Result ret;

	(void)version;
	(void)upload;
	if (!q) {
		q = xcalloc(1, sizeof(*q));
		q->h = h;
		q->c = c;
		q->url = url;
		*con_cls = q;
		return MHD_YES;
	}
	if (*upload_size) {
		*upload_size = 0;
		return MHD_YES;
	}
	if (!q->routed) {
		q->routed = true;
		if (strcmp(method, MHD_HTTP_METHOD_GET) &&
		    strcmp(method, MHD_HTTP_METHOD_HEAD)) {
			http__error(q, MHD_HTTP_METHOD_NOT_ALLOWED,
				    "%s: only GET is served", method);
		} else if (!(r = route_of(h, url))) {
			http__error(q, MHD_HTTP_NOT_FOUND,
				    "%s: no such page (see /debug/pprof/)",
				    url);
		} else {
			r->fn(h->ctx, q);
		}
		if (!q->resp) {
			/* answered later: http__reply() resumes it */
			q->suspended = true;
			q->next = h->waiting;
			if (h->waiting)
				h->waiting->prev = q;
			h->waiting = q;
			h->nwaiting++;
			MHD_suspend_connection(c);
			return MHD_YES;
		}
	}
	if (!q->resp)
		return MHD_NO;	/* cannot happen: resumed only with one */
	ret = MHD_queue_response(c, q->status, q->resp);
	MHD_destroy_response(q->resp);
	q->resp = NULL;
	return ret;
}

static void on_completed(void *cls, struct MHD_Connection *c, void **con_cls,
			 enum MHD_RequestTerminationCode toe)
{
	struct http_req *q = *con_cls;

	(void)cls;
	(void)c;
	(void)toe;
	if (!q)
		return;
	/* suspended requests are resumed before they can end */
	if (q->suspended)
		unlink_waiting(q);
	if (q->resp)
		MHD_destroy_response(q->resp);
	free(q);
	*con_cls = NULL;
}

/* "ADDR:PORT" or "[ADDR6]:PORT" into ss; 0 or -EINVAL after one line. */
static int parse_listen(const char *listen, struct sockaddr_storage *ss,
			bool *v6)
{
	struct sockaddr_in *in = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)ss;
	char host[INET6_ADDRSTRLEN + 1];
	const char *colon = strrchr(listen, ':'), *h = listen;
	unsigned long long port;
	size_t len;

	memset(ss, 0, sizeof(*ss));
	if (!colon || parse_uint(colon + 1, 65535, &port))
		goto bad;
	len = colon - listen;
	if (len >= 2 && h[0] == '[' && h[len - 1] == ']') {
		h++;
		len -= 2;
		*v6 = true;
	} else {
		*v6 = false;
	}
	if (!len || len >= sizeof(host))
		goto bad;
	memcpy(host, h, len);
	host[len] = 0;
	if (*v6 && inet_pton(AF_INET6, host, &in6->sin6_addr) == 1) {
		in6->sin6_family = AF_INET6;
		in6->sin6_port = htons(port);
		return 0;
	}
	if (!*v6 && inet_pton(AF_INET, host, &in->sin_addr) == 1) {
		in->sin_family = AF_INET;
		in->sin_port = htons(port);
		return 0;
	}
bad:
	pr_err("--listen %s: expected ADDR:PORT (127.0.0.1:6060, [::1]:6060)",
	       listen);
	return -EINVAL;
}

int http__start(struct http **hp, const char *listen,
		const struct http_route *routes, void *ctx)
{
	struct sockaddr_storage ss;
	const union MHD_DaemonInfo *di;
	struct http *h;
	bool v6;

	if (parse_listen(listen, &ss, &v6))
		return -EINVAL;
	h = xcalloc(1, sizeof(*h));
	h->routes = routes;
	h->ctx = ctx;
	h->d = MHD_start_daemon(MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME |
				(v6 ? MHD_USE_IPv6 : 0),
				0, NULL, NULL, on_request, h,
				MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&ss,
				MHD_OPTION_CONNECTION_LIMIT,
				(unsigned int)HTTP_MAX_CONNECTIONS,
				MHD_OPTION_CONNECTION_TIMEOUT,
				(unsigned int)HTTP_IDLE_TIMEOUT_S,
				MHD_OPTION_NOTIFY_COMPLETED, on_completed, h,
				MHD_OPTION_END);
	if (!h->d) {
		int err = errno ? errno : EADDRNOTAVAIL;

		pr_err("--listen %s: cannot listen: %s", listen, strerror(err));
		free(h);
		return -err;
	}
	di = MHD_get_daemon_info(h->d, MHD_DAEMON_INFO_BIND_PORT);
	h->port = di ? di->port : 0;
	*hp = h;
	return 0;
}

unsigned int http__port(const struct http *h)
{
	return h->port;
}

int http__fds(struct http *h, struct pollfd *pfd, int room)
{
	const union MHD_DaemonInfo *di;

	if (!h || room < 1)
		return 0;
	di = MHD_get_daemon_info(h->d, MHD_DAEMON_INFO_EPOLL_FD);
	if (!di)
		return 0;
	pfd->fd = di->epoll_fd;
	pfd->events = POLLIN;
	pfd->revents = 0;
	return 1;
}

int http__timeout_ms(struct http *h)
{
	MHD_UNSIGNED_LONG_LONG ms;

	if (!h || MHD_get_timeout(h->d, &ms) != MHD_YES)
		return -1;
	return ms > INT_MAX ? INT_MAX : (int)ms;
}

void http__run(struct http *h)
{
	if (h)
		MHD_run(h->d);
}

unsigned int http__pending(const struct http *h)
{
	return h ? h->nwaiting : 0;
}

void http__stop(struct http *h)
{
	unsigned int i;

	if (!h)
		return;
	while (h->waiting)
		http__error(h->waiting, MHD_HTTP_SERVICE_UNAVAILABLE,
			    "the profiling session ended");
	/* let the answers go out before the sockets close (a few seconds at
	 * most: a keep-alive client may hold its connection open) */
	for (i = 0; i < 200; i++) {
		const union MHD_DaemonInfo *di = MHD_get_daemon_info(h->d,
					MHD_DAEMON_INFO_CURRENT_CONNECTIONS);
		struct pollfd pfd;

		MHD_run(h->d);
		if (!di || !di->num_connections || !http__fds(h, &pfd, 1))
			break;
		poll(&pfd, 1, 10);
	}
	MHD_stop_daemon(h->d);
	free(h);
}

const char *http__arg(struct http_req *q, const char *name)
{
	return MHD_lookup_connection_value(q->c, MHD_GET_ARGUMENT_KIND, name);
}

const char *http__path(const struct http_req *q)
{
	return q->url;
}

void http__reply(struct http_req *q, unsigned int status, const char *type,
		 void *body, size_t len, const char *const *headers)
{
	struct MHD_Response *r;

	r = MHD_create_response_from_buffer(len, body, MHD_RESPMEM_MUST_FREE);
	if (!r) {
		free(body);
		r = MHD_create_response_from_buffer(0, NULL,
						    MHD_RESPMEM_PERSISTENT);
		status = MHD_HTTP_INTERNAL_SERVER_ERROR;
	}
	if (r && type)
		MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	if (r)
		MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
	for (; r && headers && headers[0]; headers += 2)
		MHD_add_response_header(r, headers[0], headers[1]);
	q->resp = r;
	q->status = status;
	if (q->suspended) {
		unlink_waiting(q);
		q->suspended = false;
		MHD_resume_connection(q->c);
	}
}

void http__error(struct http_req *q, unsigned int status, const char *fmt,
		 ...)
{
	static const char *const go_err[] = { "X-Go-Pprof", "1", NULL };
	char *msg = xmalloc(512);
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(msg, 510, fmt, ap);
	va_end(ap);
	if (n < 0)
		n = 0;
	if (n > 509)
		n = 509;
	msg[n++] = '\n';
	msg[n] = 0;
	/* as net/http/pprof marks its errors: go tool pprof prints the
	 * reason instead of trying to parse the body as a profile */
	http__reply(q, status, "text/plain; charset=utf-8", msg, n, go_err);
}
