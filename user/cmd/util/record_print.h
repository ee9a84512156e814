/* SPDX-License-Identifier: GPL-2.0 */
/* record_print.c: one record as one line of text, dump-raw's and dump's format. */
#ifndef VMTRACE_CMD_RECORD_PRINT_H
#define VMTRACE_CMD_RECORD_PRINT_H

#include <stdint.h>
#include <stdio.h>
#include <linux/vmtrace.h>

/*
 * @data is its hdr.data_len bytes of variable-size data, or NULL when it
 * has none or they could not be had.
 */
void print_record(FILE *out, const struct vmt_record *rec, const void *data);
/*
 * The names dump gives these fields' values (R, W, X; protection...;
 * mmap...); "?" past the known ones.
 */
const char *access_name(unsigned int access);
const char *fault_cause_name(unsigned int cause);
const char *vma_cause_name(unsigned int cause);
const char *vma_kind_name(unsigned int kind);
const char *dma_op_name(unsigned int op);
const char *dma_dir_name(unsigned int dir);
/*
 * @len bytes as dump prints data, without the quotes around: \\ for a
 * backslash, \xNN for a byte that is not printable ASCII, and @quote for a
 * double quote (dump's \", CSV's "").
 */
void print_escaped(FILE *out, const void *bytes, uint32_t len, const char *quote);
/* The length of a NUL-padded comm (struct vmt_comm, struct vmt_task). */
uint32_t comm_len(const char *comm);
/* CPUs whose records dump-raw joins with their data; records of others print alone. */
#define VMT_MAX_CPUS	8192

#endif
