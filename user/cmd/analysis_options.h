/* SPDX-License-Identifier: GPL-2.0 */
/*
 * analysis_options.c: what every analysis command (mrc, reuse, wss,
 * heatmap...) shares: the filters, the unit and space, per process, --csv
 * and --plot; opening the trace, running the pass, the header line, and
 * numbers and plots as people read them.
 */
#ifndef VMTRACE_CMD_ANALYSIS_OPTIONS_H
#define VMTRACE_CMD_ANALYSIS_OPTIONS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "vmtrace/analysis.h"
#include "filter_options.h"

enum {
	ANALYSIS_OPT_SPACE = 0x200,
	ANALYSIS_OPT_UNIT,
	ANALYSIS_OPT_PER_PROCESS,
	ANALYSIS_OPT_CSV,
	ANALYSIS_OPT_PLOT,
	ANALYSIS_OPT_ADDR,
};
#define ANALYSIS_LONG_OPTIONS \
	FILTER_LONG_OPTIONS, \
	{ "space", required_argument, NULL, ANALYSIS_OPT_SPACE }, \
	{ "unit", required_argument, NULL, ANALYSIS_OPT_UNIT }, \
	{ "per-process", no_argument, NULL, ANALYSIS_OPT_PER_PROCESS }, \
	{ "csv", no_argument, NULL, ANALYSIS_OPT_CSV }, \
	{ "plot", required_argument, NULL, ANALYSIS_OPT_PLOT }, \
	{ "addr", required_argument, NULL, ANALYSIS_OPT_ADDR }
extern const char analysis_options_usage[];

struct analysis_options {
	struct filter_options filter;
	struct vmt_ref_options ref;
	bool per_process;
	bool csv;		/* machine-readable output */
	const char *plot;	/* an image to draw, .svg or .png; NULL: none */
	/* analysis_open(): the trace's settings and, if it is reduced, how */
	struct vmt_trace_session session;
	int session_err;	/* vmt_trace_session(): -ENOENT when not recorded */
	struct vmt_trace_reduction reduction;
	int reduction_err;	/* -ENOENT: not a reduced trace */
};

/* 1: @opt was an analysis option, taken; 0: not one; -1: a bad value (said). */
int parse_analysis_option(const char *cmd, int opt, const char *arg, struct analysis_options *o);
/* The trace at @path with the filters applied; NULL having said why not. */
struct vmt_trace *analysis_open(const char *cmd, const char *path, struct analysis_options *o);
/*
 * The pass over @t with @analyses; 0, or 1 having said why it failed. A
 * pass that finds no reference is an error ("no references"), said.
 */
int analysis_run(const char *cmd, struct vmt_trace *t, const struct analysis_options *o,
		 struct vmt_analysis *const *analyses, unsigned int n,
		 struct vmt_analyze_stats *stats);
/*
 * The first lines of a table: the trace, what was counted, in which unit,
 * the settings it was traced with (N and the policy) and its reduction.
 */
void analysis_print_header(FILE *out, const char *path, const struct analysis_options *o,
			   const struct vmt_analyze_stats *stats);
/* @n with thousands separators ("1,234,567"), in @buf. */
const char *fmt_count(uint64_t n, char buf[32]);
/* @bytes as people read them ("512 B", "48.0 KiB", "1.25 GiB"), in @buf. */
const char *fmt_bytes(double bytes, char buf[32]);
/*
 * Draw with gnuplot: @script (gnuplot commands reading the data file
 * '$DATA', which @data's text becomes) into @path, SVG or PNG by its
 * extension. 0, or 1 having said why not.
 */
int plot_with_gnuplot(const char *cmd, const char *path, const char *script, const char *data);

#endif
