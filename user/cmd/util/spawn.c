// SPDX-License-Identifier: GPL-2.0
/* Running a command held until tracing is ready, and waiting for it. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "spawn.h"

pid_t spawn_held(char **argv, int *release_fd)
{
	int go[2];
	pid_t pid;
	char byte;

	if (pipe(go) < 0)
		return -errno;
	pid = fork();
	if (pid < 0) {
		close(go[0]);
		close(go[1]);
		return -errno;
	}
	if (pid == 0) {
		close(go[1]);
		/* EOF instead of the byte: the parent gave up; do not run. */
		if (read(go[0], &byte, 1) != 1)
			_exit(127);
		close(go[0]);
		execvp(argv[0], argv);
		fprintf(stderr, "vmtrace: cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	close(go[0]);
	*release_fd = go[1];
	return pid;
}

int spawn_release(int release_fd)
{
	int err = write(release_fd, "g", 1) == 1 ? 0 : -errno;

	close(release_fd);
	return err;
}

int spawn_abandon(pid_t pid, int release_fd)
{
	close(release_fd);
	return spawn_wait(pid);
}

int spawn_wait(pid_t pid)
{
	int status;

	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return 1;
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return 128 + WTERMSIG(status);
}
