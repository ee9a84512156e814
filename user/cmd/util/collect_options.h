/* SPDX-License-Identifier: GPL-2.0 */
/*
 * collect_options.c: the tracer's options, which record, record-raw and
 * start take, parsed into what the collector (collect.h) is opened with.
 */
#ifndef VMTRACE_CMD_COLLECT_OPTIONS_H
#define VMTRACE_CMD_COLLECT_OPTIONS_H

#include <getopt.h>
#include <stdbool.h>

#include "vmtrace/vmtrace.h"

/* getopt_long entries of the tracer's options; their short letters. */
#define COLLECT_LONG_OPTIONS \
	{ "all", no_argument, NULL, 'a' }, \
	{ "ring-records", required_argument, NULL, 'r' }, \
	{ "overwrite", no_argument, NULL, 'O' }, \
	{ "protect", no_argument, NULL, 'P' }, \
	{ "follow", no_argument, NULL, 'F' }, \
	{ "pid", required_argument, NULL, 'p' }, \
	{ "enabled-pages", required_argument, NULL, 'n' }, \
	{ "policy", required_argument, NULL, 'L' }, \
	{ "reprotect-ms", required_argument, NULL, 'R' }, \
	{ "events", required_argument, NULL, 'e' }, \
	{ "exact", required_argument, NULL, 'X' }, \
	{ "exact-max-pages", required_argument, NULL, 'M' }
#define COLLECT_SHORT_OPTIONS "ar:p:n:e:"

/* Usage lines of those options. */
extern const char collect_options_usage[];

/* --exact: a range as numbers, or a mapping's name to find in /proc/PID/maps. */
struct collect_exact {
	__u64 start, end;
	const char *mapping;	/* NULL: numbers */
};

struct collect_options {
	struct vmt_config config;
	__u32 pids[VMT_MAX_PIDS];	/* -p, in order */
	unsigned int nr_pids;
	struct collect_exact exact[VMT_EXACT_RANGES];
	unsigned int nr_exact;
	long exact_max_pages;		/* --exact-max-pages; 0: the module's cap */
	long enabled_pages, policy, reprotect_ms;
	bool enabled_options;		/* -n, --policy or --reprotect-ms given */
	bool quiet;			/* no "tracing ..." line */
};

void collect_options_init(struct collect_options *o);
/* 1: @opt was a tracer option and is taken; 0: not one of them; -1: bad value (said). */
int collect_parse_option(const char *cmd, int opt, const char *arg, struct collect_options *o);
/* After parsing: 0, or -1 having said what is wrong with the combination. */
int collect_check_options(const char *cmd, struct collect_options *o, bool have_command);

#endif
