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
 * pid's maps have the code of a CPython interpreter (a file defining
 * _PyRuntime, or a launcher of one, whatever its name; attach, or a
 * launched command held at its exec stop, whose executable is mapped):
 * *what (n bytes) gets its path.
 */
bool pytarget__pid(pid_t pid, char *what, size_t n);

/*
 * The command argv0 runs CPython: found as execvp() would (PATH), then
 * its real path an ELF that defines _PyRuntime or needs libpython3.X
 * (whatever it is called), or a script whose #! interpreter (through
 * /usr/bin/env NAME too) is one of those. *what gets the file that said
 * so.
 */
bool pytarget__command(const char *argv0, char *what, size_t n);

#endif /* _TPROF_LIVE_PYTARGET_H */
