// SPDX-License-Identifier: GPL-2.0
/* tprof-read: the passes from an aggregated profile to the written file. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/resolve.h"
#include "analyze/symbolize.h"
#include "lib/gzip.h"
#include "lib/outfile.h"
#include "lib/util.h"
#include "object/ksyms.h"
#include "output/folded.h"
#include "output/format.h"
#include "output/pprof.h"
#include "output/report.h"
#include "output/summary.h"
#include "output/write.h"

/* Every --format; the first is the default. */
static const struct output_format *const formats[] = {
	&pprof_format,
	&folded_format,
};

#define NFORMATS ARRAY_SIZE(formats)

const struct output_format *output__format(const char *spec,
					   const char **value)
{
	const char *colon;
	size_t i, j, n;

	if (!spec)
		spec = formats[0]->name;
	colon = strchr(spec, ':');
	n = colon ? (size_t)(colon - spec) : strlen(spec);
	for (i = 0; i < NFORMATS; i++) {
		const struct output_format *f = formats[i];

		if (strlen(f->name) != n || strncmp(f->name, spec, n))
			continue;
		if (!colon) {
			if (value)
				*value = f->values ? f->values[0] : NULL;
			return f;
		}
		for (j = 0; f->values && f->values[j]; j++)
			if (!strcmp(f->values[j], colon + 1)) {
				if (value)
					*value = f->values[j];
				return f;
			}
		return NULL;
	}
	return NULL;
}

const char *output__format_list(void)
{
	static char list[256];
	size_t i, j, len = 0;

	if (*list)
		return list;
	for (i = 0; i < NFORMATS; i++) {
		const struct output_format *f = formats[i];

		len += snprintf(list + len, sizeof(list) - len, "%s%s",
				i ? ", " : "", f->name);
		/* the default value is the bare name */
		for (j = 1; f->values && f->values[j] && len < sizeof(list);
		     j++)
			len += snprintf(list + len, sizeof(list) - len,
					", %s:%s", f->name, f->values[j]);
		if (len >= sizeof(list))
			break;
	}
	return list;
}

/* Encode in format f, compress if it asks: 0 or -errno. */
static int encode(const struct output_format *f, const struct output_ctx *c,
		  uint8_t **out, size_t *outlen)
{
	uint8_t *raw = NULL;
	size_t rawlen;
	int ret;

	ret = f->encode(c, &raw, &rawlen);
	if (ret || !f->gzip) {
		*out = raw;
		*outlen = rawlen;
		return ret;
	}
	ret = gzip__compress(raw, rawlen, out, outlen);
	free(raw);
	return ret;
}

struct ksyms *output__ksyms(const struct profile *p, const char *path,
			   bool given)
{
	/* the session's own symbols, unless told otherwise: this host's
	 * may be another boot's (KASLR) */
	if (p->kallsyms && !given)
		return ksyms__load_text(p->kallsyms, p->kallsyms_len,
					p->modules, p->modules_len);
	return ksyms__load(path);
}

int output__encode(const struct profile *p, struct agg *a,
		   const struct output_window *w,
		   const struct output_env *env, uint8_t **bytes, size_t *len)
{
	struct output_ctx c = { .default_period_ns = TPROF_DEFAULT_PERIOD_NS,
				.window = w };
	struct symbolize_opts so = {
		.objs = env->objects, .sym = env->sym, .ksyms = env->ksyms,
		.view = { .root = env->root, .live = env->live },
	};
	const struct output_format *f = output__format(env->format, &c.value);
	struct agg_sample *samples;
	struct resolved res;
	struct summary sum;
	size_t n;
	int ret;

	if (!f) {
		pr_err("--format: unknown format '%s' (%s)", env->format,
		       output__format_list());
		return -EINVAL;
	}
	/* a caller's bugs: a window told as the session, or encoded twice */
	if (!env->objects || !w != agg__whole(a) || a->taken) {
		pr_err("output: %s", !env->objects ? "no objects to read" :
		       a->taken ? "the samples were encoded already" :
		       "a window's span and its aggregation disagree");
		return -EINVAL;
	}
	samples = agg__take_samples(a, &n);
	/* profile -> resolve -> symbolize -> summary -> encode, as passes */
	resolve__run(&res, p, samples, n, env->ksyms);
	symbolize__run(&res, p, &so);
	if (env->report_wakers)
		report__wakers(p, &res);
	summary__compute(&sum, p, a);
	c.p = p;
	c.r = &res;
	c.s = &sum;
	ret = encode(f, &c, bytes, len);
	if (ret)
		pr_err("encoding the profile: %s", strerror(-ret));
	summary__free(&sum);
	resolve__free(&res);
	return ret;
}

/* Does any of a's samples have kernel frames (kallsyms worth a read)? */
static bool has_kernel(const struct agg *a)
{
	size_t i;

	for (i = 0; i < a->nsamples; i++)
		if (a->samples[i].nr_kernel)
			return true;
	return false;
}

int output__write(struct profile *p, const struct output_opts *oo)
{
	struct output_env env = { .root = oo->root, .live = oo->live,
				  .format = oo->format,
				  .report_wakers = oo->report_wakers };
	struct objects *own = NULL;
	uint8_t *bytes = NULL;
	size_t len = 0;
	int ret;

	/* a caller's bugs: samples would be cut, or missing */
	if (!p->finished || p->whole.taken) {
		pr_err(p->finished ? "the profile was written already" :
				     "the profile was written before its stream ended");
		return -EINVAL;
	}
	env.objects = oo->objects ? oo->objects : (own = objects__new());
	if (!oo->no_symbolize) {
		env.sym = symbolizer__new_on(env.objects);
		if (has_kernel(&p->whole))
			env.ksyms = output__ksyms(p, oo->kallsyms,
						  oo->kallsyms_given);
	}
	ret = output__encode(p, &p->whole, NULL, &env, &bytes, &len);
	if (!ret) {
		if (!oo->path || !strcmp(oo->path, "-"))
			ret = write_all(oo->fd, bytes, len);
		else
			ret = write_file_atomic(oo->path, bytes, len);
		if (ret)
			pr_err("%s: write: %s", oo->path ? oo->path : "stdout",
			       strerror(-ret));
	}
	free(bytes);
	symbolizer__free(env.sym);
	objects__free(own);
	ksyms__free(env.ksyms);
	return ret;
}
