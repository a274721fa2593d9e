/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tprof-read: kernel symbols from /proc/kallsyms (or a KALLSYMS record)
 * and the modules' extents from /proc/modules next to it.
 */
#ifndef _TPROF_OBJECT_KSYMS_H
#define _TPROF_OBJECT_KSYMS_H

#include <stddef.h>
#include <stdint.h>

struct ksyms;
struct ksyms *ksyms__load(const char *path);
/* The same from the texts of a KALLSYMS record (modules may be empty). */
struct ksyms *ksyms__load_text(const char *kallsyms, size_t len,
			       const char *modules, size_t mlen);
/*
 * Read the kallsyms file at path and the modules file next to it into
 * malloc'd buffers, for a KALLSYMS record. 0, or -errno; -EPERM when the
 * addresses read 0 (no CAP_SYSLOG, kptr_restrict).
 */
int ksyms__read(const char *path, char **kallsyms, size_t *len,
		char **modules, size_t *mlen);
void ksyms__free(struct ksyms *k);
/*
 * Name of the symbol containing addr (NULL if none); *module = "" or the
 * module name. A symbol ends at the next one, at _etext or _einittext, or at
 * its module's end (from the "modules" file next to the kallsyms file, as
 * /proc/modules is to /proc/kallsyms); the last symbol, with no module
 * extent to bound it, covers only its own address.
 */
const char *ksyms__lookup(const struct ksyms *k, uint64_t addr,
			  const char **module);

/* 1 if a and b are in one symbol, 0 if in two, -1 if either is in none. */
int ksyms__same(const struct ksyms *k, uint64_t a, uint64_t b);

#endif /* _TPROF_OBJECT_KSYMS_H */
