/* SPDX-License-Identifier: GPL-2.0 */
/* tprof: the lifecycle records (records.c). */
#ifndef _TPROF_RECORDS_H
#define _TPROF_RECORDS_H

#include <linux/types.h>

struct task_struct;
struct tprof_proc;
struct tprof_session;
struct tprof_thread;

void tprof_fill_comm(void *dst, const char *src);
void tprof_emit_thread(struct tprof_session *s, u32 vpid, u32 vtid,
		       const char *comm, u16 flags);
void tprof_thread_emit_exit(struct tprof_session *s, struct tprof_thread *t,
			    u16 type);
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

#endif /* _TPROF_RECORDS_H */
