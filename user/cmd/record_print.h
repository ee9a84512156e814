/* SPDX-License-Identifier: GPL-2.0 */
/* record_print.c: one record as one line of text, dump-raw's and dump's format. */
#ifndef VMTRACE_CMD_RECORD_PRINT_H
#define VMTRACE_CMD_RECORD_PRINT_H

#include <stdio.h>
#include <linux/vmtrace.h>

/*
 * @data is its hdr.data_len bytes of variable-size data, or NULL when it
 * has none or they could not be had.
 */
void print_record(FILE *out, const struct vmt_record *rec, const void *data);
/* CPUs whose records dump-raw joins with their data; records of others print alone. */
#define VMT_MAX_CPUS	8192

#endif
