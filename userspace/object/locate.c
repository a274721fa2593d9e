// SPDX-License-Identifier: GPL-2.0
/* tprof-read: where the target's file of a mapping is (object/locate.h). */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "object/locate.h"

/*
 * Where the target's file may be, in order. The host's path last, and with
 * no build-id recorded to check it by only when the target's root cannot be
 * read (it exited, or a replay on another day): while it runs in a chroot
 * or a container, the host's file at that path is another file. A replay's
 * pid may be another process's by now: with a recorded build-id the host's
 * file is still tried, and the check guards every candidate.
 */
size_t locate__candidates(const struct file_view *o, const struct mapping *m,
			  char bufs[LOCATE_MAX_CANDS][4096],
			  const char *cands[LOCATE_MAX_CANDS])
{
	const char *bid = m->build_id;
	bool root_ok = o->root && !access(o->root, X_OK);
	size_t n = 0;

	if (root_ok) {
		snprintf(bufs[n], sizeof(bufs[n]), "%s%s", o->root, m->path);
		cands[n] = bufs[n];
		n++;
	}
	if (o->live && m->pid > 0) {
		snprintf(bufs[n], sizeof(bufs[n]), "/proc/%d/map_files/%llx-%llx",
			 m->pid, (unsigned long long)m->start,
			 (unsigned long long)m->limit);
		cands[n] = bufs[n];
		n++;
	}
	if (!root_ok || bid)
		cands[n++] = m->path;
	/* separate debug info installed by build-id (Debian's -dbgsym) */
	if (bid && strlen(bid) > 2) {
		snprintf(bufs[n], sizeof(bufs[n]),
			 "/usr/lib/debug/.build-id/%.2s/%s.debug", bid, bid + 2);
		cands[n] = bufs[n];
		n++;
	}
	return n;
}
