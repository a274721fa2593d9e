// SPDX-License-Identifier: GPL-2.0
/* tprof-agent: forgetting what ended (agent/evict.h). */
#include <malloc.h>
#include <stdlib.h>

#include "agent/evict.h"
#include "lib/util.h"

void evict__run(struct evict *e, uint64_t before_ns)
{
	uint64_t t0 = now_ns(CLOCK_MONOTONIC);
	int *gone = NULL;
	size_t i, n, freed = 0;

	n = profile__forget(e->p, before_ns, &gone);
	if (e->rc)
		recorder__forget(e->rc, gone, n);
	for (i = 0; e->py && i < n; i++)
		python_live__forget(e->py, gone[i]);
	free(gone);
	if (e->objs && e->max_objects)
		freed = objects__trim(e->objs, &e->p->maps, e->max_objects);
	/* maps.all was rebuilt (or not: the cache is cheap to refill) */
	if (e->u)
		unwinder__forget(e->u, freed > 0);
	/* what was freed goes back to the kernel: a months-long process's
	 * RSS is then what it holds, not its high-water mark (the drain's
	 * queue after a slow encode, a large binary's symbols let go) */
	malloc_trim(0);
	e->runs++;
	e->procs += n;
	e->objects += freed;
	e->run_ns += now_ns(CLOCK_MONOTONIC) - t0;
}

void evict__tick(struct evict *e, const struct windows *ws, uint64_t now_ns,
		 uint64_t consumed_to_ns)
{
	const struct window *w;
	uint64_t h;

	if (now_ns - e->last_ns < EVICT_EVERY_NS ||
	    consumed_to_ns == UINT64_MAX || consumed_to_ns < EVICT_LAG_NS)
		return;
	e->last_ns = now_ns;
	h = consumed_to_ns - EVICT_LAG_NS;
	for (w = ws->open; w; w = w->next)
		if (w->w.t0_ns < h)
			h = w->w.t0_ns;
	evict__run(e, h);
}
