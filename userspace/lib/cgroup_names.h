/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tprof-read: what a process's cgroup says about it: the cgroup v2 path of
 * a /proc/PID/cgroup text, and the systemd unit and container id that path
 * names (the profile's cgroup, systemd_unit and container_id labels).
 * Pure: text in, positions in that text out.
 */
#ifndef _TPROF_CGROUP_NAMES_H
#define _TPROF_CGROUP_NAMES_H

#include <stdbool.h>
#include <stddef.h>

/* a path longer than the kernel prints (PATH_MAX with its NUL) is none */
#define CGROUP_PATH_MAX 4095
#define CGROUP_ID_LEN 64	/* a container id: 64 lowercase hex digits */

/*
 * The path of text's "0::PATH" line (the unified hierarchy; len bytes,
 * any other lines, cgroup v1's "N:controllers:PATH", ignored), without the
 * " (deleted)" the kernel appends for a removed cgroup: 0 with *path into
 * text and *plen, -ENOENT without such a line (a cgroup v1-only system),
 * -EINVAL for a path that does not start with '/', holds a NUL, or is
 * longer than CGROUP_PATH_MAX.
 */
int cgroup_v2_path(const char *text, size_t len, const char **path,
		   size_t *plen);

/*
 * The names in a cgroup path, as offsets into it (len 0: none).
 * container id: of the innermost component that is one: a bare
 * 64-hex id (cgroupfs drivers: /docker/ID, /kubepods/QOS/podUID/ID) or
 * PREFIX-ID with an optional ".scope", PREFIX one of docker, cri-containerd,
 * crio, libpod (systemd drivers: docker-ID.scope, kubepods' ...-podUID.slice/
 * cri-containerd-ID.scope; CRI-O's cgroupfs crio-ID).
 * systemd unit: the innermost component ending in ".service" or ".scope"
 * that is not a container's, below the container's component if there is
 * one: a container's scope is its id, not a unit, and the units above it
 * (the host's service that runs the container engine, a rootless engine's
 * user@UID.service) are not the process's.
 */
struct cgroup_names {
	size_t unit_off, unit_len;
	size_t id_off, id_len;		/* id_len 0 or CGROUP_ID_LEN */
};
void cgroup_names(const char *path, size_t len, struct cgroup_names *n);

#endif /* _TPROF_CGROUP_NAMES_H */
