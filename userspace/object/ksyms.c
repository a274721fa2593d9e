// SPDX-License-Identifier: GPL-2.0
/* tprof-read: kernel symbols from kallsyms and modules (object/ksyms.h). */
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/util.h"
#include "object/ksyms.h"

struct ksym {
	uint64_t addr;
	uint64_t end;		/* first address not in it */
	char *name;
	char *module;
	bool marker;		/* _etext, _einittext: where text ends */
};

struct ksyms {
	struct ksym *syms;
	size_t n, cap;
};

struct kmod_extent {
	char name[128];
	uint64_t start, end;
};

static int cmp_ksym(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* The "modules" file next to a kallsyms file (/proc/modules). */
static void modules_path(const char *kallsyms, char *path, size_t len)
{
	const char *slash = strrchr(kallsyms, '/');

	snprintf(path, len, "%.*smodules",
		 slash ? (int)(slash - kallsyms + 1) : 0, kallsyms);
}

/*
 * The modules' extents, from the lines of /proc/modules: "name size refs
 * deps state 0xaddr". Addresses read 0 without CAP_SYSLOG; those modules
 * get no extent.
 */
static struct kmod_extent *load_modules(FILE *fp, size_t *n)
{
	struct kmod_extent *m = NULL;
	size_t cap = 0, lcap = 0;
	char *line = NULL;

	*n = 0;
	if (!fp)
		return NULL;
	/* whole lines: a module used by many has a long list of them */
	while (getline(&line, &lcap, fp) > 0) {
		struct kmod_extent e;
		uint64_t size;

		if (sscanf(line, "%127s %" SCNu64 " %*s %*s %*s %" SCNx64,
			   e.name, &size, &e.start) != 3 || !e.start ||
		    e.start + size < e.start)
			continue;
		e.end = e.start + size;
		GROW(m, cap, *n + 1);
		m[(*n)++] = e;
	}
	free(line);
	return m;
}

/*
 * Where each symbol ends: the next symbol, a module's end if that comes
 * first, and for the last symbol with no extent known, its first byte only;
 * an address past the text must not take the last name before it.
 */
static void set_ends(struct ksyms *k, const struct kmod_extent *mods,
		     size_t nmods)
{
	size_t i, j;

	for (i = 0; i < k->n; i++) {
		struct ksym *s = &k->syms[i];

		s->end = i + 1 < k->n ? k->syms[i + 1].addr : s->addr + 1;
		if (!s->module[0])
			continue;
		for (j = 0; j < nmods; j++) {
			if (strcmp(mods[j].name, s->module) ||
			    s->addr < mods[j].start || s->addr >= mods[j].end)
				continue;
			if (i + 1 == k->n || mods[j].end < s->end)
				s->end = mods[j].end;
			break;
		}
	}
}

/*
 * One line of kallsyms: "ADDR TYPE NAME [MODULE]". false: not a text
 * symbol with an address. name and module point into line, cut there.
 */
static bool parse_line(char *line, uint64_t *addr, char **name, char **mod)
{
	char type, *p;
	int off = 0;

	if (sscanf(line, "%" SCNx64 " %c %n", addr, &type, &off) < 2 ||
	    !off || !*addr)
		return false;
	if (type != 't' && type != 'T' && type != 'w' && type != 'W')
		return false;
	*name = line + off;
	p = *name + strcspn(*name, " \t\n");
	if (p == *name)
		return false;
	*mod = p;	/* "" unless a [module] follows */
	if (!*p)
		return true;
	*p++ = 0;
	p += strspn(p, " \t");
	if (*p == '[' && p[1] && p[1] != ']' && p[1] != '\n') {
		*mod = ++p;
		p += strcspn(p, "]\n");
	}
	*p = 0;
	return true;
}

static struct ksyms *parse_ksyms(FILE *fp, FILE *modules)
{
	struct kmod_extent *mods;
	struct ksyms *k;
	size_t nmods, cap = 0;
	char *line = NULL;

	k = xcalloc(1, sizeof(*k));
	/* whole lines: Linux allows symbol names of 512 bytes (KSYM_NAME_LEN) */
	while (getline(&line, &cap, fp) > 0) {
		char *name, *mod;
		uint64_t addr;

		if (!parse_line(line, &addr, &name, &mod))
			continue;
		GROW(k->syms, k->cap, k->n + 1);
		k->syms[k->n].addr = addr;
		k->syms[k->n].name = xstrdup(name);
		k->syms[k->n].module = xstrdup(mod);
		k->syms[k->n].marker = !mod[0] && (!strcmp(name, "_etext") ||
						   !strcmp(name, "_einittext"));
		k->n++;
	}
	free(line);
	if (k->n)	/* qsort(NULL, 0) is undefined */
		qsort(k->syms, k->n, sizeof(*k->syms), cmp_ksym);
	mods = load_modules(modules, &nmods);
	set_ends(k, mods, nmods);
	free(mods);
	return k;
}

struct ksyms *ksyms__load(const char *path)
{
	char mpath[4096];
	struct ksyms *k;
	FILE *fp, *mfp;

	fp = fopen(path, "re");
	if (!fp)
		return NULL;
	modules_path(path, mpath, sizeof(mpath));
	mfp = fopen(mpath, "re");
	k = parse_ksyms(fp, mfp);
	fclose(fp);
	if (mfp)
		fclose(mfp);
	return k;
}

struct ksyms *ksyms__load_text(const char *kallsyms, size_t len,
			       const char *modules, size_t mlen)
{
	FILE *fp, *mfp = NULL;
	struct ksyms *k;

	if (!len)
		return NULL;
	fp = fmemopen((void *)kallsyms, len, "r");
	if (!fp)
		return NULL;
	if (mlen)
		mfp = fmemopen((void *)modules, mlen, "r");
	k = parse_ksyms(fp, mfp);
	fclose(fp);
	if (mfp)
		fclose(mfp);
	return k;
}

int ksyms__read(const char *path, char **kallsyms, size_t *len,
		char **modules, size_t *mlen)
{
	char mpath[4096];
	size_t i;
	int ret;

	*modules = NULL;
	*mlen = 0;
	ret = file_read_all(path, kallsyms, len);
	if (ret) {
		*kallsyms = NULL;
		*len = 0;
		return ret;
	}
	/* without CAP_SYSLOG every address reads 0 (per-cpu symbols do
	 * anyway): keep it only if some line has an address */
	for (i = 0; i < *len; i++) {
		char c = (*kallsyms)[i];

		if (c == '\n' || c == ' ') {
			/* to the next line */
			while (i < *len && (*kallsyms)[i] != '\n')
				i++;
			continue;
		}
		if (c != '0')
			break;
	}
	if (i >= *len) {
		free(*kallsyms);
		*kallsyms = NULL;
		*len = 0;
		return -EPERM;
	}
	modules_path(path, mpath, sizeof(mpath));
	if (file_read_all(mpath, modules, mlen)) {
		*modules = NULL;
		*mlen = 0;
	}
	return 0;
}

void ksyms__free(struct ksyms *k)
{
	size_t i;

	if (!k)
		return;
	for (i = 0; i < k->n; i++) {
		free(k->syms[i].name);
		free(k->syms[i].module);
	}
	free(k->syms);
	free(k);
}

/* The symbol containing addr, or NULL. */
static const struct ksym *ksym_at(const struct ksyms *k, uint64_t addr)
{
	size_t lo;

	if (!k || !k->n || addr < k->syms[0].addr)
		return NULL;
	lo = last_at_most(k->syms, k->n, sizeof(*k->syms),
			  offsetof(struct ksym, addr), addr);
	/* past the end of the text, or of the last symbol we can bound */
	if (k->syms[lo].marker || addr >= k->syms[lo].end)
		return NULL;
	return &k->syms[lo];
}

const char *ksyms__lookup(const struct ksyms *k, uint64_t addr,
			  const char **module)
{
	const struct ksym *s = ksym_at(k, addr);

	if (!s)
		return NULL;
	if (module)
		*module = s->module;
	return s->name;
}

int ksyms__same(const struct ksyms *k, uint64_t a, uint64_t b)
{
	const struct ksym *sa = ksym_at(k, a), *sb = ksym_at(k, b);

	if (!sa || !sb)
		return -1;
	return sa == sb;
}
