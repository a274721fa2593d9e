// SPDX-License-Identifier: GPL-2.0
/* tprof-read: a process's cgroup v2 path, and the unit and container it names. */
#include <errno.h>
#include <string.h>

#include "lib/cgroup_names.h"

#define DELETED " (deleted)"

int cgroup_v2_path(const char *text, size_t len, const char **path,
		   size_t *plen)
{
	const char *line = text, *end = text + len;

	while (line < end) {
		const char *nl = memchr(line, '\n', (size_t)(end - line));
		const char *eol = nl ? nl : end;
		size_t n;

		if (eol - line < 3 || memcmp(line, "0::", 3)) {
			line = eol + 1;
			continue;
		}
		line += 3;
		n = (size_t)(eol - line);
		if (n >= sizeof(DELETED) - 1 &&
		    !memcmp(eol - (sizeof(DELETED) - 1), DELETED,
			    sizeof(DELETED) - 1))
			n -= sizeof(DELETED) - 1;
		if (!n || line[0] != '/' || n > CGROUP_PATH_MAX ||
		    memchr(line, 0, n))
			return -EINVAL;
		*path = line;
		*plen = n;
		return 0;
	}
	return -ENOENT;
}

static bool is_hex_id(const char *s, size_t n)
{
	size_t i;

	if (n != CGROUP_ID_LEN)
		return false;
	for (i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') ||
		      (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return true;
}

static bool ends_with(const char *s, size_t n, const char *suffix)
{
	size_t k = strlen(suffix);

	return n > k && !memcmp(s + n - k, suffix, k);
}

/* The container id in component c[0..n), or NULL. */
static const char *container_id(const char *c, size_t n)
{
	static const char *const prefixes[] = {
		"docker-", "cri-containerd-", "crio-", "libpod-",
	};
	size_t i, k;

	if (is_hex_id(c, n))
		return c;
	if (ends_with(c, n, ".scope"))
		n -= sizeof(".scope") - 1;
	for (i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++) {
		k = strlen(prefixes[i]);
		if (n > k && !memcmp(c, prefixes[i], k) &&
		    is_hex_id(c + k, n - k))
			return c + k;
	}
	return NULL;
}

void cgroup_names(const char *path, size_t len, struct cgroup_names *out)
{
	size_t end = len, start;

	memset(out, 0, sizeof(*out));
	/* innermost first: the first container stops the search for a unit */
	while (end > 0) {
		const char *id;
		size_t n;

		for (start = end; start > 0 && path[start - 1] != '/'; start--)
			;
		n = end - start;
		id = n ? container_id(path + start, n) : NULL;
		if (id) {
			out->id_off = (size_t)(id - path);
			out->id_len = CGROUP_ID_LEN;
			return;
		}
		if (!out->unit_len && (ends_with(path + start, n, ".service") ||
				       ends_with(path + start, n, ".scope"))) {
			out->unit_off = start;
			out->unit_len = n;
		}
		end = start ? start - 1 : 0;
	}
}
