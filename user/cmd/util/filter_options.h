/* SPDX-License-Identifier: GPL-2.0 */
/*
 * filter_options.c: the commands' --pid, --cpu, --type, --from, --to,
 * --marker and --between-markers (phases between markers), and -j (the
 * threads that decode); and dump's, stats's and export's --addr and
 * --ip (the analyses' --addr is their own: analysis_command.h).
 */
#ifndef VMTRACE_CMD_FILTER_OPTIONS_H
#define VMTRACE_CMD_FILTER_OPTIONS_H

#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>

#include "vmtrace/trace.h"

#define FILTER_MAX_IDS	256
#define FILTER_MAX_RANGES	64
enum {
	FILTER_OPT_PID = 0x100,
	FILTER_OPT_CPU,
	FILTER_OPT_TYPE,
	FILTER_OPT_FROM,
	FILTER_OPT_TO,
	FILTER_OPT_ADDR,
	FILTER_OPT_IP,
	FILTER_OPT_MARKER,
	FILTER_OPT_BETWEEN,
	FILTER_OPT_JOBS = 'j',
};
/* getopt's short options of FILTER_LONG_OPTIONS. */
#define FILTER_SHORT_OPTIONS "j:"
#define FILTER_LONG_OPTIONS \
	{ "pid", required_argument, NULL, FILTER_OPT_PID }, \
	{ "cpu", required_argument, NULL, FILTER_OPT_CPU }, \
	{ "type", required_argument, NULL, FILTER_OPT_TYPE }, \
	{ "from", required_argument, NULL, FILTER_OPT_FROM }, \
	{ "to", required_argument, NULL, FILTER_OPT_TO }, \
	{ "marker", required_argument, NULL, FILTER_OPT_MARKER }, \
	{ "between-markers", required_argument, NULL, FILTER_OPT_BETWEEN }, \
	{ "jobs", required_argument, NULL, FILTER_OPT_JOBS }
#define FILTER_RANGE_LONG_OPTIONS \
	{ "addr", required_argument, NULL, FILTER_OPT_ADDR }, \
	{ "ip", required_argument, NULL, FILTER_OPT_IP }
extern const char filter_options_usage[];
extern const char filter_range_options_usage[];
struct filter_options {
	struct vmt_trace_filter filter;
	uint32_t pids[FILTER_MAX_IDS];
	uint32_t cpus[FILTER_MAX_IDS];
	struct vmt_trace_range addrs[FILTER_MAX_RANGES];
	struct vmt_trace_range ips[FILTER_MAX_RANGES];
	bool used;		/* any of the filter's options given */
	unsigned int threads;	/* -j: threads that decode; 0: one a CPU */
	/* --marker, --between-markers: phases from marker @first to @last */
	bool phases;
	uint32_t first_marker, last_marker;
};
/* 1: @opt was a filter option, taken; 0: not one; -1: a bad value (said). */
int parse_filter_option(const char *cmd, int opt, const char *arg, struct filter_options *o);
/*
 * Make the options @t's filter (the phases between markers found in @t
 * first: the list lives as long as the process), and decode on -j threads
 * (one a CPU when not given); 0, or -1 having said why not.
 */
int apply_filter_options(const char *cmd, struct vmt_trace *t, struct filter_options *o);
/* @t decoded on @threads threads (0: one a CPU); 0, or -1 having said why not. */
int set_decode_threads(const char *cmd, struct vmt_trace *t, unsigned int threads);

#endif
