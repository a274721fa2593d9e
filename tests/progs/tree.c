// SPDX-License-Identifier: GPL-2.0
/*
 * Process trees for tests/cases/53-children.sh, built three times with
 * another hot function (-DHOT=hot_a, hot_b, hot_c: tree-a, tree-b, tree-c).
 * Each mode prints the kernel's own CPU accounting (rusage) of what it ran,
 * the truth tprof-read's profile is compared with.
 *
 *   work MS          burn MS ms of CPU in HOT; print "work PID HOT_NS",
 *                    the process's CPU time spent in HOT
 *   forks N MS       fork N children one after the other, each burning MS
 *                    ms in HOT; print "forks N SELF_NS CHILDREN_NS"
 *   server MS        fork 2 workers now, which wait; on SIGUSR1 wake them
 *                    and fork 2 more: each burns MS ms in HOT. Print
 *                    "worker PID early|late" as they are forked, "woke PID
 *                    CPU_NS" as an early one wakes (its CPU time before)
 *                    and "done PID CPU_NS" for each as it is reaped
 *   wide N           fork N children that wait, all alive at once; then
 *                    kill and reap them; print "wide N"
 *   wrap CMD ARGS    run CMD (gcc -wrapper): append "NAME CPU_NS PID" to
 *                    $TREE_LOG when it ends; exit with its status
 *
 * "done" and "wrap" read each child's CPU time when it is all done
 * (reap()); "forks" sums wait4()'s, which leaves out each child's last
 * moments after its parent reaped it (the case allows for that).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef HOT
#define HOT hot_a
#endif

static volatile unsigned long sink;
static volatile sig_atomic_t go_late;

static unsigned long long cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static unsigned long long ru_ns(const struct rusage *ru)
{
	return (ru->ru_utime.tv_sec + ru->ru_stime.tv_sec) * 1000000000ULL +
	       (ru->ru_utime.tv_usec + ru->ru_stime.tv_usec) * 1000ULL;
}

/* the hot function of this binary: all of its CPU is here */
__attribute__((noinline)) void HOT(unsigned long long ms)
{
	unsigned long long end = cpu_ns() + ms * 1000000ULL;
	unsigned long i = 0;

	while (cpu_ns() < end)
		for (i = 0; i < 2000; i++)
			sink += i ^ (sink >> 3);
}

static unsigned long long self_ns(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru_ns(&ru);
}

/*
 * Wait for pid to exit; its CPU time as the kernel has it once it is all
 * done. wait4()'s rusage leaves out what a child runs after its parent
 * reaped it (the end of do_exit(), milliseconds under TCG when the parent
 * preempts it), so the zombie is read first (/proc/PID/schedstat:
 * se.sum_exec_runtime) until it has not changed for 40 ms, then reaped.
 * Single-threaded children: schedstat is the leader's.
 */
static unsigned long long reap(pid_t pid, int *st)
{
	unsigned long long v = 0, last = ~0ULL;
	char path[64];
	siginfo_t si;
	int same = 0, tries;

	if (waitid(P_PID, pid, &si, WEXITED | WNOWAIT) == 0) {
		snprintf(path, sizeof(path), "/proc/%d/schedstat", (int)pid);
		for (tries = 0; tries < 300 && same < 4; tries++) {
			FILE *f = fopen(path, "re");
			int ok = f && fscanf(f, "%llu", &v) == 1;

			if (f)
				fclose(f);
			if (!ok)
				break;
			same = v == last ? same + 1 : 0;
			last = v;
			usleep(10000);
		}
	}
	if (waitpid(pid, st, 0) != pid)
		return 0;
	return v;
}

static void on_usr1(int sig)
{
	(void)sig;
	go_late = 1;
}

/* A child burning ms in HOT; with hold, once SIGUSR1 came. */
static pid_t spawn_wait(unsigned long long ms, bool hold)
{
	pid_t pid;

	fflush(stdout);		/* a child must not print the parent's lines */
	pid = fork();

	if (pid == 0) {
		while (hold && !go_late)
			pause();
		if (hold) {
			printf("woke %d %llu\n", (int)getpid(), self_ns());
			fflush(stdout);
		}
		HOT(ms);
		_exit(0);
	}
	return pid;
}

static pid_t spawn(unsigned long long ms)
{
	return spawn_wait(ms, false);
}

static int server(unsigned long long ms)
{
	pid_t pid, early[2];
	int i, st, left = 4;

	signal(SIGUSR1, on_usr1);
	for (i = 0; i < 2; i++) {
		early[i] = spawn_wait(ms, true);
		printf("worker %d early\n", (int)early[i]);
	}
	fflush(stdout);
	while (!go_late)
		pause();
	for (i = 0; i < 2; i++)
		kill(early[i], SIGUSR1);
	for (i = 0; i < 2; i++) {
		pid = spawn(ms);
		printf("worker %d late\n", (int)pid);
	}
	fflush(stdout);
	while (left > 0) {
		siginfo_t si = { 0 };

		/* which one exited, left a zombie for reap() to read */
		if (waitid(P_ALL, 0, &si, WEXITED | WNOWAIT) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		pid = si.si_pid;
		printf("done %d %llu\n", (int)pid, reap(pid, &st));
		left--;
	}
	return 0;
}

static int wrap(char **argv)
{
	const char *log = getenv("TREE_LOG"), *name = strrchr(argv[0], '/');
	unsigned long long ns;
	pid_t pid = fork();
	int st = 0, fd;

	if (pid == 0) {
		execvp(argv[0], argv);
		_exit(127);
	}
	if (pid < 0)
		return 127;
	ns = reap(pid, &st);
	if (log) {
		char line[512];
		int n = snprintf(line, sizeof(line), "%s %llu %d\n",
				 name ? name + 1 : argv[0], ns, (int)pid);

		fd = open(log, O_WRONLY | O_APPEND | O_CREAT, 0644);
		if (fd >= 0) {
			if (write(fd, line, n) != n)
				perror(log);
			close(fd);
		}
	}
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

int main(int argc, char **argv)
{
	struct rusage ru;
	int i, n;

	if (argc >= 3 && !strcmp(argv[1], "work")) {
		unsigned long long t0 = cpu_ns();

		HOT(strtoull(argv[2], NULL, 0));
		printf("work %d %llu\n", (int)getpid(), cpu_ns() - t0);
		return 0;
	}
	if (argc >= 4 && !strcmp(argv[1], "forks")) {
		n = atoi(argv[2]);
		for (i = 0; i < n; i++) {
			pid_t pid = spawn(strtoull(argv[3], NULL, 0));

			if (pid < 0 || waitpid(pid, NULL, 0) != pid) {
				perror("fork");
				return 1;
			}
		}
		getrusage(RUSAGE_CHILDREN, &ru);
		printf("forks %d %llu %llu\n", n, self_ns(), ru_ns(&ru));
		return 0;
	}
	if (argc >= 3 && !strcmp(argv[1], "wide")) {
		pid_t *kids;

		n = atoi(argv[2]);
		kids = calloc(n > 0 ? n : 1, sizeof(*kids));
		for (i = 0; kids && i < n; i++) {
			kids[i] = fork();
			if (kids[i] == 0) {
				for (;;)
					pause();
			}
			if (kids[i] < 0) {
				perror("fork");
				return 1;
			}
		}
		printf("wide %d\n", n);
		for (i = 0; kids && i < n; i++)
			kill(kids[i], SIGKILL);
		for (i = 0; kids && i < n; i++)
			waitpid(kids[i], NULL, 0);
		free(kids);
		return 0;
	}
	if (argc >= 3 && !strcmp(argv[1], "server"))
		return server(strtoull(argv[2], NULL, 0));
	if (argc >= 3 && !strcmp(argv[1], "wrap"))
		return wrap(argv + 2);
	fprintf(stderr, "usage: %s work MS | forks N MS | wide N | server MS | wrap CMD...\n",
		argv[0]);
	return 2;
}
