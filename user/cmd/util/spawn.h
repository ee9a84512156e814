/* SPDX-License-Identifier: GPL-2.0 */
/*
 * spawn.c: fork COMMAND held before exec until spawn_release(); negative
 * errno on failure. spawn_abandon() lets it exit without running.
 * spawn_wait() returns its exit status, or 128 + the signal that ended it.
 */
#ifndef VMTRACE_CMD_SPAWN_H
#define VMTRACE_CMD_SPAWN_H

#include <sys/types.h>

pid_t spawn_held(char **argv, int *release_fd);
int spawn_release(int release_fd);
int spawn_abandon(pid_t pid, int release_fd);
int spawn_wait(pid_t pid);

#endif
