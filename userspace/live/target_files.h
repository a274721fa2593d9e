/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tprof-read: what a live session reads of the target's mapped files for
 * the stream (BUILDID and VDSO records): the GNU build-id of a file as the
 * target maps it, and its vDSO image.
 */
#ifndef _TPROF_TARGET_FILES_H
#define _TPROF_TARGET_FILES_H

#include <stddef.h>

#include "lib/buildid.h"
#include "model/maps.h"

/*
 * The build-id of m's file as pid maps it: through /proc/PID/map_files
 * (exactly the mapped file; CAP_SYS_ADMIN only), else the path under
 * /proc/PID/root while it is still the mapped inode. Returns its length (0:
 * the file has none), or -errno when the mapped file cannot be read.
 */
int target_files__buildid(int pid, const struct mapping *m,
			  unsigned char bits[BUILDID_MAX]);

/*
 * pid's vDSO image, the [vdso] mapping m, from /proc/PID/mem (ptrace
 * access). A malloc'd copy in *image, or NULL; 0 or -errno.
 */
int target_files__vdso(int pid, const struct mapping *m,
		       unsigned char **image, size_t *len);

#endif /* _TPROF_TARGET_FILES_H */
