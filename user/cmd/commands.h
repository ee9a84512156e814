/* SPDX-License-Identifier: GPL-2.0 */
/* The vmtrace command's subcommands: each returns the process exit status. */
#ifndef VMTRACE_CMD_COMMANDS_H
#define VMTRACE_CMD_COMMANDS_H

#include <stdio.h>
#include <sys/types.h>
#include <linux/vmtrace.h>

int cmd_version(int argc, char **argv);
int cmd_faults(int argc, char **argv);
int cmd_record_raw(int argc, char **argv);
int cmd_dump_raw(int argc, char **argv);
int cmd_convert(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_dump(int argc, char **argv);
int cmd_verify(int argc, char **argv);
int cmd_export(int argc, char **argv);

/* record_print.c: one record as one line of text (dump-raw's and dump's format). */
void print_record(FILE *out, const struct vmt_record *rec);

/*
 * spawn.c: fork COMMAND held before exec until spawn_release(); negative
 * errno on failure. spawn_abandon() lets it exit without running.
 * spawn_wait() returns its exit status, or 128 + the signal that ended it.
 */
pid_t spawn_held(char **argv, int *release_fd);
int spawn_release(int release_fd);
int spawn_abandon(pid_t pid, int release_fd);
int spawn_wait(pid_t pid);

#endif
