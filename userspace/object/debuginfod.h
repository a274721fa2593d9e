/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tprof-read: separate debug info from a debuginfod server (--debuginfod),
 * through elfutils' libdebuginfod, by the GNU build-id of a file that the
 * local lookups (the file itself, .gnu_debuglink, /usr/lib/debug) left
 * without DWARF. Without --debuginfod nothing asks a server: libdwfl's
 * own debuginfod lookups, which DEBUGINFOD_URLS alone would turn on, are
 * kept off too.
 */
#ifndef _TPROF_DEBUGINFOD_H
#define _TPROF_DEBUGINFOD_H

#include <stdbool.h>
#include <elfutils/libdwfl.h>

/*
 * Call first, before any libdw use: takes DEBUGINFOD_URLS out of the
 * environment (libdwfl would otherwise ask those servers by itself) and,
 * with enable, keeps it for debuginfod__find_debuginfo(). 0, or -EINVAL
 * (with a message) when enable is asked without DEBUGINFOD_URLS.
 */
int debuginfod__setup(bool enable);
void debuginfod__end(void);

/*
 * A Dwfl_Callbacks.find_debuginfo: dwfl_standard_find_debuginfo() first,
 * then, with --debuginfod, the servers by the module's build-id.
 */
int debuginfod__find_debuginfo(Dwfl_Module *mod, void **userdata,
			       const char *modname, Dwarf_Addr base,
			       const char *file_name,
			       const char *debuglink_file,
			       GElf_Word debuglink_crc,
			       char **debuginfo_file_name);

#endif /* _TPROF_DEBUGINFOD_H */
