/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tprof-read: is the target CPython, before ENABLE? Its snapshots are
 * sized from the answer (live/loop.c): the eval loop's C frames are large
 * and keep no frame pointers, so 1 KiB ends the CFI unwind below them.
 */
#ifndef _TPROF_LIVE_PYTARGET_H
#define _TPROF_LIVE_PYTARGET_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/*
 * pid's maps name a python3.X or libpython3.X file (attach; a launched
 * command held at its exec stop, whose executable is mapped): *what
 * (n bytes) gets its path.
 */
bool pytarget__pid(pid_t pid, char *what, size_t n);

/*
 * The command argv0 runs CPython: found as execvp() would (PATH), then
 * its real path named python3.X, an ELF that needs libpython3.X, or a
 * script whose #! interpreter (through /usr/bin/env NAME too) is one of
 * those. *what gets the file that said so.
 */
bool pytarget__command(const char *argv0, char *what, size_t n);

#endif /* _TPROF_LIVE_PYTARGET_H */
