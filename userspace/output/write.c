// SPDX-License-Identifier: GPL-2.0
/* tprof-read: the passes from an aggregated profile to the written file. */
#include <stdlib.h>
#include <string.h>

#include "analyze/resolve.h"
#include "analyze/symbolize.h"
#include "lib/outfile.h"
#include "lib/util.h"
#include "output/pprof.h"
#include "output/write.h"

int output__write(struct profile *p, const struct output_opts *oo)
{
	struct pprof_opts o = { .default_period_ns = TPROF_DEFAULT_PERIOD_NS };
	struct symbolize_opts no = { .view = { .root = oo->root,
						.live = oo->live } };
	uint8_t *pb = NULL, *gz = NULL;
	struct resolved res;
	size_t pblen, gzlen;
	int ret;

	if (!oo->no_symbolize) {
		no.sym = symbolizer__new();
		if (p->nsamples) {
			size_t i;

			for (i = 0; i < p->nsamples; i++)
				if (p->samples[i].nr_kernel)
					break;
			/* the session's own symbols, unless told otherwise:
			 * this host's may be another boot's (KASLR) */
			if (i < p->nsamples && p->kallsyms &&
			    !oo->kallsyms_given)
				no.ksyms = ksyms__load_text(p->kallsyms,
							    p->kallsyms_len,
							    p->modules,
							    p->modules_len);
			else if (i < p->nsamples)
				no.ksyms = ksyms__load(oo->kallsyms);
		}
	}
	/* profile -> resolve -> symbolize -> encode, as separate passes */
	resolve__run(&res, p);
	symbolize__run(&res, p, &no);
	ret = pprof__encode(p, &res, &o, &pb, &pblen);
	resolve__free(&res);
	if (!ret)
		ret = pprof__gzip(pb, pblen, &gz, &gzlen);
	if (!ret) {
		if (!oo->path || !strcmp(oo->path, "-"))
			ret = write_all(oo->fd, gz, gzlen);
		else
			ret = write_file_atomic(oo->path, gz, gzlen);
		if (ret)
			pr_err("%s: write: %s", oo->path ? oo->path : "stdout",
			       strerror(-ret));
	} else {
		pr_err("encoding the profile: %s", strerror(-ret));
	}
	free(pb);
	free(gz);
	symbolizer__free(no.sym);
	ksyms__free(no.ksyms);
	return ret;
}
