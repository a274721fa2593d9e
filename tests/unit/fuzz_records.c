// SPDX-License-Identifier: GPL-2.0
/* libFuzzer target: arbitrary bytes through the record decoder, the
 * aggregation (maps snapshots, SAMPLE+USTACK pairing and unwinding
 * included), the resolve pass and the pprof encoder. */
#include <stdint.h>
#include <stdlib.h>

#include "output/pprof.h"
#include "analyze/unwind.h"
#include "model/profile.h"
#include "stream/records.h"
#include "analyze/resolve.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pprof_opts o = { .default_period_ns = 1000000 };
	struct tprof_record r;
	struct resolved res;
	struct profile p;
	struct unwinder *u;
	size_t off = 0;
	uint8_t *out = NULL;
	size_t outlen;
	long n;

	profile__init(&p);
	u = unwinder__new(false);
	unwinder__attach(u, &p, -1);
	while ((n = tprof_record_decode(data + off, size - off, &r)) > 0) {
		if ((size_t)n > size - off)
			abort();	/* the decoder overran its input */
		profile__add(&p, &r);
		off += n;
	}
	profile__flush(&p);
	resolve__run(&res, &p);
	if (!pprof__encode(&p, &res, &o, &out, &outlen))
		free(out);
	resolve__free(&res);
	unwinder__free(u);
	profile__free(&p);
	return 0;
}
