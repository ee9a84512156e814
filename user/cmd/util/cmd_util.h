/* SPDX-License-Identifier: GPL-2.0 */
/* cmd_util.c: small helpers the commands share, each saying what went wrong. */
#ifndef VMTRACE_CMD_CMD_UTIL_H
#define VMTRACE_CMD_CMD_UTIL_H

#include <stdbool.h>
#include <stdint.h>

#include "vmtrace/trace.h"

/* A number in [min, max], or -1 after saying what is wrong. */
long long parse_number(const char *cmd, const char *what, const char *text, long long min,
		       long long max);
/*
 * START-END, each in C's notation (0x: hexadecimal), START < END, into
 * [*@start, *@end): 0, or -1 after saying what is wrong (@what: "--addr").
 */
int parse_addr_range(const char *cmd, const char *what, const char *text, uint64_t *start,
		     uint64_t *end);
/*
 * A duration (--window T) into *@ns: a number, a fraction allowed, and a
 * unit, ns, us, ms or s ("100ms", "1.5s"); with @bare_ns a number alone
 * too, in ns. 0; -EINVAL, not a duration; -ERANGE, not from 1 ns to 1e18 ns.
 */
int parse_duration(const char *text, bool bare_ns, uint64_t *ns);
/* Whether @out names @in's file (a hard link included): writing it would destroy the input. */
bool same_file(const char *in, const char *out);
/* A file's size in bytes, or -1. */
long long file_size(const char *path);
/* Open a trace, or say why not and return NULL. */
struct vmt_trace *open_or_say(const char *cmd, const char *path, unsigned int flags);

/*
 * What a trace's session settings say, in @buf: "protect: N=512 fifo",
 * "no --protect: page faults only", or "settings not recorded (older
 * trace)" (vmt_trace_session()'s -ENOENT). @err is that call's result.
 */
const char *describe_session(int err, const struct vmt_trace_session *s, char *buf,
			     size_t size);

/*
 * A reduced trace's parameters (vmtrace/analysis.h) in @buf: "SAD-reduced
 * with R=64 (per process): 1,234 of 98,765 references; LRU exact at 64
 * pages or more".
 */
struct vmt_trace_reduction;
const char *describe_reduction(const struct vmt_trace_reduction *r, char *buf, size_t size);

#endif
