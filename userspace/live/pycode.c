// SPDX-License-Identifier: GPL-2.0
/* tprof-read: CPython code objects and strings read from a live target. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/util.h"
#include "live/pycode.h"

int py_mem__open(struct py_mem *m, int pid)
{
	char path[64];

	m->pid = pid;
	snprintf(path, sizeof(path), "/proc/%d/mem", pid);
	m->fd = open(path, O_RDONLY | O_CLOEXEC);
	return m->fd < 0 ? -errno : 0;
}

void py_mem__close(struct py_mem *m)
{
	if (m->fd >= 0)
		close(m->fd);
	m->fd = -1;
}

int py_mem__read(const struct py_mem *m, uint64_t addr, void *buf,
		 size_t len)
{
	ssize_t n;

	/* user addresses only: pread's offset is signed */
	if (m->fd < 0 || addr >= (1ULL << 63) || len > (1ULL << 63) - addr)
		return -EFAULT;
	do
		n = pread(m->fd, buf, len, (off_t)addr);
	while (n < 0 && errno == EINTR);
	return n == (ssize_t)len ? 0 : -EFAULT;
}

int py_mem__u64(const struct py_mem *m, uint64_t addr, uint64_t *v)
{
	return py_mem__read(m, addr, v, 8);
}

/* ---- str ---- */

/* PyASCIIObject.state: interned 0-1, kind 2-4, compact 5, ascii 6 */
#define ST_KIND(s)	(((s) >> 2) & 7)
#define ST_COMPACT	(1U << 5)
#define ST_ASCII	(1U << 6)

static size_t put_utf8(char *o, uint32_t c)
{
	if ((c >= 0xd800 && c < 0xe000) || c > 0x10ffff)
		c = 0xfffd;
	if (c < 0x80) {
		o[0] = c;
		return 1;
	}
	if (c < 0x800) {
		o[0] = 0xc0 | (c >> 6);
		o[1] = 0x80 | (c & 0x3f);
		return 2;
	}
	if (c < 0x10000) {
		o[0] = 0xe0 | (c >> 12);
		o[1] = 0x80 | ((c >> 6) & 0x3f);
		o[2] = 0x80 | (c & 0x3f);
		return 3;
	}
	o[0] = 0xf0 | (c >> 18);
	o[1] = 0x80 | ((c >> 12) & 0x3f);
	o[2] = 0x80 | ((c >> 6) & 0x3f);
	o[3] = 0x80 | (c & 0x3f);
	return 4;
}

int py_str__read(const struct py_mem *m, const struct py_layout *L,
		 uint64_t addr, char **out)
{
	unsigned char *data;
	uint32_t state, kind;
	int64_t length;
	size_t i, off, o = 0;
	char *s;

	if (py_mem__read(m, addr + L->u_length, &length, 8) ||
	    py_mem__read(m, addr + L->u_state, &state, 4))
		return -EFAULT;
	kind = ST_KIND(state);
	if (!(state & ST_COMPACT) || length < 0 || length > PY_STR_MAX_CHARS ||
	    (kind != 1 && kind != 2 && kind != 4) ||
	    ((state & ST_ASCII) && kind != 1))
		return -EINVAL;
	/* compact: the characters right after the object's head */
	off = state & ST_ASCII ? L->u_ascii_size : L->u_compact_size;
	data = xmalloc(length * kind + 1);
	if (py_mem__read(m, addr + off, data, length * kind)) {
		free(data);
		return -EFAULT;
	}
	s = xmalloc(length * 4 + 1);
	for (i = 0; i < (size_t)length; i++) {
		uint32_t c;

		if (kind == 1) {
			c = data[i];
		} else if (kind == 2) {
			uint16_t u;

			memcpy(&u, data + 2 * i, 2);
			c = u;
		} else {
			memcpy(&c, data + 4 * i, 4);
		}
		/* an ASCII str holds nothing past 0x7f */
		if ((state & ST_ASCII) && c > 0x7f)
			c = 0xfffd;
		o += put_utf8(s + o, c);
	}
	s[o] = 0;
	free(data);
	*out = s;
	return 0;
}

/* ---- code objects ---- */

void pyc__free(struct pyc_read *c)
{
	free(c->qualname);
	free(c->filename);
	free(c->linetable);
	memset(c, 0, sizeof(*c));
}

/* co_linetable: a bytes object, at most PY_LINETABLE_MAX long */
static int read_linetable(const struct py_mem *m, const struct py_layout *L,
			  uint64_t addr, struct pyc_read *c)
{
	int64_t size;

	if (py_mem__read(m, addr + L->b_size, &size, 8))
		return -EFAULT;
	if (size < 0 || size > PY_LINETABLE_MAX)
		return -EINVAL;
	c->linetable = xmalloc(size ? size : 1);
	c->linetable_len = size;
	return py_mem__read(m, addr + L->b_sval, c->linetable, size);
}

/* The code object at addr still the one of the walk's words? */
static bool same_code(const struct py_mem *m, const struct py_layout *L,
		      uint64_t code_type, uint64_t addr,
		      const struct pyc_want *w)
{
	uint64_t type, qualname, filename;

	return !py_mem__u64(m, addr + L->ob_type, &type) &&
	       type == code_type &&
	       !py_mem__u64(m, addr + L->co_qualname, &qualname) &&
	       qualname == w->qualname &&
	       !py_mem__u64(m, addr + L->co_filename, &filename) &&
	       filename == w->filename;
}

int pyc__read(const struct py_mem *m, const struct py_layout *L,
	      uint64_t code_type, uint64_t addr, const struct pyc_want *w,
	      struct pyc_read *c)
{
	uint64_t linetable;
	int32_t first;

	memset(c, 0, sizeof(*c));
	c->stale = true;
	if (!same_code(m, L, code_type, addr, w) ||
	    py_mem__u64(m, addr + L->co_linetable, &linetable) ||
	    py_mem__read(m, addr + L->co_firstlineno, &first, 4))
		return 0;
	if (py_str__read(m, L, w->qualname, &c->qualname) ||
	    py_str__read(m, L, w->filename, &c->filename) ||
	    read_linetable(m, L, linetable, c))
		goto stale;
	/* read last: the object may have been freed while we read it */
	if (!same_code(m, L, code_type, addr, w))
		goto stale;
	c->first_line = first > 0 ? first : 0;
	c->stale = false;
	return 0;

stale:
	pyc__free(c);
	c->stale = true;
	return 0;
}

/* A str object at addr (its ob_type is str_type): its text. */
static int typed_str(const struct py_mem *m, const struct py_layout *L,
		     uint64_t str_type, uint64_t addr, char **out)
{
	uint64_t type;

	if (py_mem__u64(m, addr + L->ob_type, &type) || type != str_type)
		return -EINVAL;
	return py_str__read(m, L, addr, out);
}

int pyc__read_names(const struct py_mem *m, const struct py_layout *L,
		    uint64_t str_type, const struct pyc_want *w,
		    struct pyc_read *c)
{
	memset(c, 0, sizeof(*c));
	c->stale = true;
	if (!str_type || !w->qualname || !w->filename)
		return 0;
	if (typed_str(m, L, str_type, w->qualname, &c->qualname) ||
	    typed_str(m, L, str_type, w->filename, &c->filename) ||
	    !*c->qualname) {
		pyc__free(c);
		c->stale = true;
		return 0;
	}
	c->stale = false;
	c->names_only = true;
	return 0;
}
