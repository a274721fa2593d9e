/* SPDX-License-Identifier: GPL-2.0 */
/* tprof: following process trees (TPROF_F_CHILDREN), see children.c. */
#ifndef _TPROF_CHILDREN_H
#define _TPROF_CHILDREN_H

#include <linux/types.h>

struct pid;
struct tprof_session;

/**
 * struct tprof_walk - what ENABLE's walk of the descendants needs,
 *	allocated before publish (the walk itself cannot fail).
 * @seen: a bit per global tgid: the target and its descendants.
 * @got: references to the descendants it claimed a slot for.
 */
struct tprof_walk {
	unsigned long *seen;
	struct pid **got;
};

int tprof_walk_alloc(struct tprof_walk *w, u32 max);
void tprof_walk_free(struct tprof_walk *w);
bool tprof_children_inherit(struct tprof_session *s);
void tprof_children_join_existing(struct tprof_session *s,
				  struct tprof_walk *w);
int tprof_children_prove(struct tprof_session *s, const void __user *uarg);

#endif /* _TPROF_CHILDREN_H */
