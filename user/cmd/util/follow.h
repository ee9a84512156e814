/* SPDX-License-Identifier: GPL-2.0 */
/*
 * follow.c: `stats --follow` and `report --follow` wait with it for a file
 * still being written (record's, a relay's) to be finished, saying on
 * stderr, as frames complete, how many records each record type has so
 * far; then they read the finished file as they read any.
 */
#ifndef VMTRACE_CMD_FOLLOW_H
#define VMTRACE_CMD_FOLLOW_H

/* The option, and what --help says of it. */
#define FOLLOW_LONG_OPTION { "follow", no_argument, NULL, 0x4600 }
#define FOLLOW_OPT 0x4600
extern const char follow_usage[];

/*
 * Follow @path until its writer finishes it: 0, or 1 having said why not
 * (it is not a trace, it shrank, it cannot be read).
 */
int follow_until_finished(const char *cmd, const char *path);

#endif
