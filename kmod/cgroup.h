/* SPDX-License-Identifier: GPL-2.0 */
/* tprof: cgroup v2 subtrees as targets (TPROF_F_CGROUP), see cgroup.c. */
#ifndef _TPROF_CGROUP_H
#define _TPROF_CGROUP_H

#include <linux/compiler.h>
#include <linux/types.h>

struct cgroup;
struct task_struct;
struct tprof_session;
struct tprof_walk;

/* Published TPROF_F_CGROUP sessions; written under tprof_sessions_mutex. */
extern unsigned int tprof_cgroup_sessions;

/*
 * Might a cgroup session want a process forked or moved now? false is
 * certain. Context: any.
 */
static inline bool tprof_cgroup_any(void)
{
	return READ_ONCE(tprof_cgroup_sessions);
}

int tprof_cgroup_resolve(struct tprof_session *s, int fd);
void tprof_cgroup_release(struct tprof_session *s);
void tprof_cgroup_published(struct tprof_session *s, bool on);
void tprof_cgroup_join_existing(struct tprof_session *s, struct tprof_walk *w);
void tprof_cgroup_fork(struct task_struct *parent, struct task_struct *child);
void tprof_cgroup_attach(struct task_struct *task, bool threadgroup);

#endif /* _TPROF_CGROUP_H */
