// SPDX-License-Identifier: GPL-2.0
/* tprof-read: launch a command so that it runs no instruction unsampled. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

#include "live/launch.h"
#include "lib/util.h"
#include "object/object.h"

int launch__fork(struct launch *l, char *const argv[], bool all_threads)
{
	int go[2], err[2];
	long opts = PTRACE_O_TRACEEXEC | PTRACE_O_TRACEEXIT |
		    (all_threads ? PTRACE_O_TRACECLONE : 0) | PTRACE_O_EXITKILL;

	memset(l, 0, sizeof(*l));
	l->go_fd = l->err_fd = -1;
	if (pipe2(go, O_CLOEXEC))
		return -errno;
	if (pipe2(err, O_CLOEXEC)) {
		int e = -errno;

		close(go[0]);
		close(go[1]);
		return e;
	}
	fflush(NULL);
	l->pid = fork();
	if (l->pid < 0) {
		int e = -errno;

		close(go[0]);
		close(go[1]);
		close(err[0]);
		close(err[1]);
		return e;
	}
	if (l->pid == 0) {
		char c;
		int e;

		close(go[1]);
		close(err[0]);
		/* wait until the parent has enabled sampling on us */
		if (read(go[0], &c, 1) != 1)
			_exit(127);
		close(go[0]);
		signal(SIGPIPE, SIG_DFL);
		/* the command's own descriptor limit, not the one we raised */
		objects__restore_nofile();
		execvp(argv[0], argv);
		e = errno;
		if (write(err[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(127);
	}
	close(go[0]);
	close(err[1]);
	l->go_fd = go[1];
	l->err_fd = err[0];
	if (ptrace(PTRACE_SEIZE, l->pid, 0, (void *)opts) == 0)
		l->traced = true;
	else
		pr_err("warning: ptrace(PTRACE_SEIZE, %d): %s: mappings of code unloaded before exit may be missing",
		       l->pid, strerror(errno));
	return 0;
}

int launch__release(struct launch *l)
{
	int e = 0;
	ssize_t n;

	if (write(l->go_fd, "g", 1) != 1)
		return -errno;
	close(l->go_fd);
	l->go_fd = -1;
	/* EOF (close-on-exec) means exec succeeded */
	do {
		n = read(l->err_fd, &e, sizeof(e));
	} while (n < 0 && errno == EINTR);
	close(l->err_fd);
	l->err_fd = -1;
	return n == sizeof(e) ? -e : 0;
}

int launch__exec(struct launch *l)
{
	int ret, st;
	pid_t w;

	if (!l->traced)
		return -EAGAIN;
	ret = launch__release(l);
	if (ret)
		return ret;
	/* exec succeeded: its PTRACE_EVENT_EXEC stop comes next */
	for (;;) {
		w = waitpid(l->pid, &st, __WALL);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -errno;
		if (WIFEXITED(st) || WIFSIGNALED(st)) {
			l->exited = true;
			l->status = st;
			return -ECHILD;
		}
		if ((unsigned int)st >> 16 == PTRACE_EVENT_EXEC)
			break;
		/* a signal on its way (not ours): deliver it, wait on */
		ptrace(PTRACE_CONT, l->pid, 0,
		       (void *)(long)((unsigned int)st >> 16 ? 0 :
				      WSTOPSIG(st)));
	}
	l->at_exec = true;
	return 0;
}

void launch__resume(struct launch *l)
{
	if (l->at_exec)
		ptrace(PTRACE_CONT, l->pid, 0, 0);
	l->at_exec = false;
}

bool launch__poll(struct launch *l,
		  void (*on_stop)(void *ctx, enum launch_event ev), void *ctx)
{
	int st;
	pid_t tid;

	while (!l->exited && (tid = waitpid(-1, &st, WNOHANG | __WALL)) > 0) {
		int event = (unsigned int)st >> 16, sig;

		if (WIFEXITED(st) || WIFSIGNALED(st)) {
			if (tid == l->pid) {
				l->exited = true;
				l->status = st;
			}
			continue;
		}
		if (!WIFSTOPPED(st))
			continue;
		sig = WSTOPSIG(st);
		switch (event) {
		case PTRACE_EVENT_EXEC:
			if (on_stop)
				on_stop(ctx, LAUNCH_EXEC);
			ptrace(PTRACE_CONT, tid, 0, 0);
			break;
		case PTRACE_EVENT_EXIT:
			if (on_stop)
				on_stop(ctx, LAUNCH_EXIT);
			ptrace(PTRACE_CONT, tid, 0, 0);
			break;
		case PTRACE_EVENT_STOP:
			if (sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN ||
			    sig == SIGTTOU)
				ptrace(PTRACE_LISTEN, tid, 0, 0);	/* group-stop */
			else
				ptrace(PTRACE_CONT, tid, 0, 0);
			break;
		case 0:
			/* signal-delivery-stop: deliver it */
			ptrace(PTRACE_CONT, tid, 0, (void *)(long)sig);
			break;
		default:	/* clone and other events */
			ptrace(PTRACE_CONT, tid, 0, 0);
			break;
		}
	}
	return l->exited;
}

int launch__exit_code(const struct launch *l)
{
	if (WIFEXITED(l->status))
		return WEXITSTATUS(l->status);
	if (WIFSIGNALED(l->status))
		return 128 + WTERMSIG(l->status);
	return 1;
}
