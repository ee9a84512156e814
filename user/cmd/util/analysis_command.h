/* SPDX-License-Identifier: GPL-2.0 */
/*
 * analysis_command.c: what every analysis command (mrc, reuse, wss,
 * heatmap, hmtt, reduce) shares: the filters, the unit and space, per
 * process, --csv and --plot; reading the command line, opening the trace,
 * running the pass (with --per-process an analysis for each process too),
 * the header line, and numbers and plots as people read them.
 */
#ifndef VMTRACE_CMD_ANALYSIS_COMMAND_H
#define VMTRACE_CMD_ANALYSIS_COMMAND_H

#include <getopt.h>
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
	ANALYSIS_OPT_SOURCE,
};
#define ANALYSIS_LONG_OPTIONS \
	FILTER_LONG_OPTIONS, \
	{ "space", required_argument, NULL, ANALYSIS_OPT_SPACE }, \
	{ "unit", required_argument, NULL, ANALYSIS_OPT_UNIT }, \
	{ "per-process", no_argument, NULL, ANALYSIS_OPT_PER_PROCESS }, \
	{ "csv", no_argument, NULL, ANALYSIS_OPT_CSV }, \
	{ "plot", required_argument, NULL, ANALYSIS_OPT_PLOT }, \
	{ "addr", required_argument, NULL, ANALYSIS_OPT_ADDR }, \
	{ "source", required_argument, NULL, ANALYSIS_OPT_SOURCE }
extern const char analysis_options_usage[];

struct analysis_options {
	struct filter_options filter;
	struct vmt_ref_options ref;
	bool per_process;
	bool source_given;	/* --source; else analysis_open() chooses */
	/*
	 * Under MPI: every process reads the whole trace, its analyses count
	 * their share of the units; not set: each reads its part by time.
	 */
	bool split_by_units;
	bool csv;		/* machine-readable output */
	/* The command never looks at exact records' values: vmt_trace_skip_values(). */
	bool skip_values;
	const char *plot;	/* an image to draw, .svg or .png; NULL: none */
	/* analysis_open(): the trace's settings and, if it is reduced, how */
	struct vmt_trace_session session;
	int session_err;	/* vmt_trace_session(): -ENOENT when not recorded */
	struct vmt_trace_reduction reduction;
	int reduction_err;	/* -ENOENT: not a reduced trace */
};

/* 1: @opt was an analysis option, taken; 0: not one; -1: a bad value (said). */
int parse_analysis_option(const char *cmd, int opt, const char *arg, struct analysis_options *o);

/* An analysis command's line: its options and what to do with them. */
struct analysis_command_line {
	const char *cmd;
	const char *short_options;	/* getopt's; 'h' (when in it) prints the usage */
	const struct option *options;	/* the command's own, then ANALYSIS_LONG_OPTIONS */
	void (*usage)(FILE *out);
	/* The command's own options: 1 taken, 0 not one of them, -1 a bad value (said). */
	int (*parse)(void *ctx, int opt, const char *arg);
	void *ctx;
};

/*
 * getopt_long() over @argv: each option offered to @l->parse, then to
 * parse_analysis_option(); -h prints the usage on stdout, an unknown
 * option or anything but one TRACE prints it on stderr.
 * Return: -1 to go on with the TRACE in *@path; else the exit status, 0
 * after -h, 2 after a bad option.
 */
int parse_analysis_command_line(const struct analysis_command_line *l, int argc, char **argv,
				struct analysis_options *o, const char **path);
/* The trace at @path with the filters applied; NULL having said why not. */
struct vmt_trace *analysis_open(const char *cmd, const char *path, struct analysis_options *o);
/*
 * The pass over @t with @analyses; 0, or 1 having said why it failed. A
 * pass that finds no reference is an error ("no references"), said. As
 * one of several processes (ranks.h), each analyses its part, and process
 * 0 gets the whole, finished; the others get ANALYSIS_ELSEWHERE, and print
 * nothing.
 */
#define ANALYSIS_ELSEWHERE	3
/*
 * 1, having told the other processes, which wait in analysis_run() (or a
 * command's own ranks_agree()), that this one failed before it: for a
 * failure between analysis_open() and analysis_run().
 */
int failed_before_run(void);
int analysis_run(const char *cmd, struct vmt_trace *t, const struct analysis_options *o,
		 struct vmt_analysis *const *analyses, unsigned int n,
		 struct vmt_analyze_stats *stats);

/*
 * The body of a command with one analysis (mrc, reuse, wss): open the
 * trace, make the analysis of all processes (and with --per-process one for
 * each process too), run the pass, and print each result.
 */
struct analysis_runner {
	const char *cmd;
	/* Makes the analysis of all processes (@pid 0), or of one. */
	vmt_analysis_create_fn create;
	void *ctx;
	/* After the pass: once, before the results. */
	void (*print_header)(void *ctx, const char *path, const struct vmt_analyze_stats *stats);
	/* Each result: all together first (@pid NULL), then each process's. */
	void (*print)(void *ctx, const struct vmt_analysis *analysis, const char *pid);
	/*
	 * --plot: from all together's and (with --per-process, else NULL)
	 * each process's; 0, or 1 having said why not.
	 */
	int (*plot)(void *ctx, const struct vmt_analysis *all,
		    const struct vmt_analysis *per_process);
};

/* 0, or 1 having said what went wrong. */
int run_analysis(const struct analysis_runner *r, const char *path, struct analysis_options *o);
/*
 * The first lines of a table: the trace, what was counted, in which unit,
 * the settings it was traced with (N and the policy) and its reduction.
 */
void analysis_print_header(FILE *out, const char *path, const struct analysis_options *o,
			   const struct vmt_analyze_stats *stats);
/*
 * A table's title: a line of its own, after an empty line between tables;
 * in CSV none, the tables apart by the empty line alone. *@first: no table
 * printed yet.
 */
void print_table_title(bool csv, bool *first, const char *title);
/* @part of @all in percent: 0 when @all is 0. */
double percent_of(uint64_t part, uint64_t all);
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

/* A picture being written: gnuplot's data and its script, each in memory. */
struct plot {
	FILE *data, *script;
	char *data_text, *script_text;
	size_t data_len, script_len;
};

/* Open both streams: 0, or 1 having said why not (and nothing to end). */
int plot_begin(const char *cmd, struct plot *p);
/* Close them and draw @path with plot_with_gnuplot(); frees them. 0, or 1 having said why not. */
int plot_end(const char *cmd, struct plot *p, const char *path);

#endif
