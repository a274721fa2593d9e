/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tprof: every kernel-version shim lives here and only here. Feature code
 * uses the modern API; old kernels get it from this file.
 */
#ifndef _TPROF_COMPAT_H
#define _TPROF_COMPAT_H

#include <linux/version.h>

/* Supported floor: Debian bookworm's 6.1 (mirrored in dkms.conf). */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 1, 0)
#error "tprof needs Linux 6.1 or newer"
#endif

#endif /* _TPROF_COMPAT_H */
