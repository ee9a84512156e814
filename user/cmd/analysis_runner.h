/* SPDX-License-Identifier: GPL-2.0 */
/*
 * analysis_runner.c: the body every analysis command shares: open the
 * trace, make the analysis (and with --per-process one for each process
 * too), run the pass, and print each result.
 */
#ifndef VMTRACE_CMD_ANALYSIS_RUNNER_H
#define VMTRACE_CMD_ANALYSIS_RUNNER_H

#include "analysis_options.h"

struct analysis_runner {
	const char *cmd;
	/* Makes the analysis of all processes (@pid 0), or of one. */
	vmt_analysis_create_fn create;
	void *ctx;
	/* After the pass: once, before the results. */
	void (*print_header)(void *ctx, const char *path, const struct vmt_analyze_stats *stats);
	/* Each result: all together first (@pid NULL), then each process's. */
	void (*print)(void *ctx, const struct vmt_analysis *analysis, const char *pid);
	/* --plot: all together's; 0, or 1 having said why not. */
	int (*plot)(void *ctx, const struct vmt_analysis *analysis);
};

/* 0, or 1 having said what went wrong. */
int run_analysis(const struct analysis_runner *r, const char *path, struct analysis_options *o);

#endif
