/* SPDX-License-Identifier: GPL-2.0 */
/* The vmtrace command's subcommands: each returns the process exit status. */
#ifndef VMTRACE_CMD_COMMANDS_H
#define VMTRACE_CMD_COMMANDS_H

int cmd_version(int argc, char **argv);
int cmd_faults(int argc, char **argv);

#endif
