/* SPDX-License-Identifier: GPL-2.0 */
/* tprof-read: launch a command so that it runs no instruction unsampled. */
#ifndef _TPROF_LAUNCH_H
#define _TPROF_LAUNCH_H

#include <stdbool.h>
#include <sys/types.h>

struct launch {
	pid_t pid;
	int go_fd;		/* write end: releases the child to exec */
	int err_fd;		/* read end: errno of a failed exec */
	bool traced;		/* PTRACE_SEIZE worked */
	bool at_exec;		/* held at its exec stop (launch__exec) */
	bool exited;
	int status;		/* wait(2) status of the command */
};

enum launch_event {
	LAUNCH_EXEC,		/* stopped right after execve, before user code */
	LAUNCH_EXIT,		/* a thread stopped at exit, mm still intact */
};

/*
 * Fork a child that waits before exec, and seize it with ptrace
 * (PTRACE_O_TRACEEXEC | TRACEEXIT, and with all_threads TRACECLONE: every
 * thread it makes is traced too, and stops at its creation and exit).
 * 0 or -errno.
 */
int launch__fork(struct launch *l, char *const argv[], bool all_threads);

/*
 * Let the child exec. Returns 0, or -errno if exec failed (the child then
 * exits with 127).
 */
int launch__release(struct launch *l);

/*
 * Let the child exec and hold it at its exec stop, before the command's
 * first instruction (as perf's enable_on_exec starts there): a session
 * enabled now holds the command alone, not the child's wait for the
 * go-ahead. 0 with l->at_exec set; -EAGAIN when the child is not traced
 * (nothing done: enable, then launch__release()); or -errno if exec
 * failed (the child exits with 127).
 */
int launch__exec(struct launch *l);

/* The command held at its exec stop goes on. */
void launch__resume(struct launch *l);

/*
 * Handle pending ptrace stops and exits without blocking; on_stop is called
 * while the stopped thread still has its memory. Returns true once the
 * command has exited (l->status set).
 */
bool launch__poll(struct launch *l,
		  void (*on_stop)(void *ctx, enum launch_event ev), void *ctx);

/* Exit code tprof-read should use for the command's wait status. */
int launch__exit_code(const struct launch *l);

#endif /* _TPROF_LAUNCH_H */
