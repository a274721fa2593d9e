// SPDX-License-Identifier: GPL-2.0
/*
 * tprof test helper: run PROG with DIR as its root the way a container
 * runtime does, so that /proc/PID/maps, read from outside, names the
 * target's files by the paths the target sees, which on the host may be
 * other files (issue 13, item 3). A plain chroot(2) would not do: the
 * kernel prints a path from the reader's root, so a chrooted file shows up
 * as DIR/PATH, the very file.
 *
 * In a mount namespace of its own: bind DIR on itself, go up to the
 * namespace's real root (the test guest runs chrooted into the host's
 * root), move DIR's mount over it, chroot into it (switch_root(8)'s steps).
 * Then the path walk from a mapped file ends at DIR's mount as at a root.
 *
 * Usage (root): newroot DIR PROG [ARGS...]
 */
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <sys/mount.h>
#include <unistd.h>

static int die(const char *what)
{
	perror(what);
	return 1;
}

int main(int argc, char **argv)
{
	int fd, i;

	if (argc < 3) {
		fprintf(stderr, "usage: newroot DIR PROG [ARGS...]\n");
		return 2;
	}
	if (unshare(CLONE_NEWNS))
		return die("unshare(CLONE_NEWNS)");
	/* nothing we do here may show in the parent namespace */
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL))
		return die("mount --make-rprivate /");
	if (mount(argv[1], argv[1], NULL, MS_BIND | MS_REC, NULL))
		return die("mount --bind DIR DIR");
	fd = open(argv[1], O_PATH | O_DIRECTORY);	/* the new mount's root */
	if (fd < 0)
		return die(argv[1]);
	/* out of our chroot: root inside DIR, cwd outside it, then ".." */
	if (chroot(argv[1]))
		return die("chroot DIR");
	for (i = 0; i < 256; i++)
		if (chdir(".."))
			return die("chdir ..");
	if (chroot("."))
		return die("chroot to the namespace's root");
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL))
		return die("mount --make-rprivate / (namespace root)");
	if (fchdir(fd))
		return die("fchdir DIR");
	if (mount(".", "/", NULL, MS_MOVE, NULL))
		return die("mount --move DIR /");
	if (chroot(".") || chdir("/"))
		return die("chroot DIR");
	close(fd);
	execv(argv[2], argv + 2);
	return die(argv[2]);
}
