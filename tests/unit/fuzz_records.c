// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: arbitrary bytes through the pass order the CLI runs on
 * --input: the stream reader (the record table; a malformed record is
 * skipped), the aggregation (maps snapshots, SAMPLE+USTACK pairing and
 * unwinding), then output__write() with symbolization on: resolve,
 * symbolize (kallsyms from a KALLSYMS record, vDSO images through libdwfl
 * from VDSO records, perf maps from PERFMAP records), encode, compress and
 * write, to /dev/null.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyze/unwind.h"
#include "model/profile.h"
#include "object/debuginfod.h"
#include "object/object.h"
#include "output/write.h"
#include "stream/reader.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int devnull = -1;

struct input {
	const uint8_t *p;
	size_t len, off;
	struct profile *prof;
};

/* the input in reads of up to 4 KiB, so records straddle reads */
static ssize_t input_read(void *ctx, void *buf, size_t cap)
{
	struct input *in = ctx;
	size_t n = in->len - in->off;

	if (n > cap)
		n = cap;
	if (n > 4096)
		n = 4096;
	memcpy(buf, in->p + in->off, n);
	in->off += n;
	return n;
}

static int input_record(void *ctx, const struct tprof_record *rec)
{
	struct input *in = ctx;

	profile__add(in->prof, rec);
	return 0;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	/* no debuginfod server is ever asked */
	debuginfod__setup(false);
	devnull = open("/dev/null", O_WRONLY | O_CLOEXEC);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct profile p;
	struct input in = { .p = data, .len = size, .prof = &p };
	struct stream_source src = {
		.read = input_read, .record = input_record, .ctx = &in,
	};
	/* kernel frames without a KALLSYMS record: none of this host's */
	struct output_opts o = { .kallsyms = "/dev/null", .fd = devnull };
	struct stream_reader sr;
	struct objects *objs;
	struct unwinder *u;

	profile__init(&p);
	objs = objects__new();
	u = unwinder__new(objs, false);
	unwinder__attach(u, &p, -1);
	stream__init(&sr, "fuzz", 4096, &src);
	stream__pump(&sr);
	stream__end(&sr);
	profile__finish(&p);
	o.objects = objs;
	output__write(&p, &o);
	unwinder__free(u);
	objects__free(objs);
	profile__free(&p);
	return 0;
}
