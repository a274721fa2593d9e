/* SPDX-License-Identifier: GPL-2.0 */
/* tprof: the probes, their registration and the lifecycle records. */
#ifndef _TPROF_PROBES_H
#define _TPROF_PROBES_H

#include <linux/types.h>

struct task_struct;
struct tprof_proc;
struct tprof_session;
struct tprof_thread;

int tprof_probes_init(void);
int tprof_probes_get(void);
void tprof_probes_put(void);

void tprof_procs_emit_existing(struct tprof_session *s);
void tprof_threads_emit_stats(struct tprof_session *s);
void tprof_thread_exited(struct tprof_session *s, struct tprof_thread *t);
void tprof_emit_proc_exit(struct tprof_session *s, struct tprof_proc *pr);
void tprof_emit_proc(struct tprof_session *s, struct task_struct *task,
		     u32 vpid, u32 ppid, u16 flags);
u32 tprof_vppid(struct tprof_session *s, struct task_struct *task);
struct tprof_proc *tprof_proc_join(struct tprof_session *s,
				   struct task_struct *task, u32 ppid,
				   u16 flags, bool pending);
void tprof_emit_threads_of(struct tprof_session *s, struct task_struct *leader,
			   u32 vpid);

#endif /* _TPROF_PROBES_H */
