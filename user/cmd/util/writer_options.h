/* SPDX-License-Identifier: GPL-2.0 */
/*
 * writer_options.c: the trace writer's options, which record, start and
 * convert share: --codec, --stage2, --level, --frame-bytes.
 */
#ifndef VMTRACE_CMD_WRITER_OPTIONS_H
#define VMTRACE_CMD_WRITER_OPTIONS_H

#include <getopt.h>

#include "vmtrace/trace.h"

/* The usage lines of the writer's options. */
extern const char writer_options_usage[];
/* 1: @opt was a writer option, taken; 0: not one; -1: a bad value (said). */
int parse_writer_option(const char *cmd, int opt, const char *arg,
			struct vmt_trace_writer_options *o);
/* getopt_long entries of the writer's options. */
#define WRITER_LONG_OPTIONS \
	{ "codec", required_argument, NULL, 'c' }, \
	{ "stage2", required_argument, NULL, 's' }, \
	{ "level", required_argument, NULL, 'l' }, \
	{ "frame-bytes", required_argument, NULL, 'f' }

#endif
