/* SPDX-License-Identifier: GPL-2.0 */
/* tprof: a session's lifetime, as the ioctls and the target drive it. */
#ifndef _TPROF_LIFETIME_H
#define _TPROF_LIFETIME_H

struct file;
struct tprof_session;

struct tprof_session *tprof_session_new(void);
void tprof_session_release(struct tprof_session *s);
int tprof_session_enable(struct tprof_session *s, struct file *file,
			 void __user *uarg, bool out);
void tprof_session_stop(struct tprof_session *s);
int tprof_session_set_period(struct tprof_session *s,
			     const void __user *uarg);
int tprof_session_stats(struct tprof_session *s, void __user *uarg,
			size_t size);

#endif /* _TPROF_LIFETIME_H */
