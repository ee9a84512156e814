/* SPDX-License-Identifier: GPL-2.0 */
/* cmd_util.c: small helpers the commands share, each saying what went wrong. */
#ifndef VMTRACE_CMD_CMD_UTIL_H
#define VMTRACE_CMD_CMD_UTIL_H

#include "vmtrace/trace.h"

/* A number in [min, max], or -1 after saying what is wrong. */
long long parse_number(const char *cmd, const char *what, const char *text, long long min,
		       long long max);
/* A file's size in bytes, or -1. */
long long file_size(const char *path);
/* Open a trace, or say why not and return NULL. */
struct vmt_trace *open_or_say(const char *cmd, const char *path, unsigned int flags);

#endif
