/* SPDX-License-Identifier: GPL-2.0 */
/*
 * record_diff.c: records as difference-encoded text (`vmtrace dump --diff`);
 * the format is described there and in `vmtrace dump --help`.
 */
#ifndef VMTRACE_CMD_RECORD_DIFF_H
#define VMTRACE_CMD_RECORD_DIFF_H

#include <stdbool.h>
#include <stdio.h>
#include <linux/vmtrace.h>

struct record_diff;

/* The encoder's state (each pid's last address); NULL without memory. */
struct record_diff *record_diff_new(void);
void record_diff_free(struct record_diff *d);
/* The format's first line. */
void record_diff_header(FILE *out);
/* One record, one line; 0 or -ENOMEM. */
int record_diff_print(struct record_diff *d, FILE *out, const struct vmt_record *rec);

#endif
