/* SPDX-License-Identifier: GPL-2.0 */
/* heatmap_plot.c: what vmtrace heatmap shares with report --html. */
#ifndef VMTRACE_CMD_HEATMAP_PLOT_H
#define VMTRACE_CMD_HEATMAP_PLOT_H

#include <stdbool.h>
#include <stdio.h>

#include "vmtrace/analysis.h"

/*
 * Every non-empty cell of @h (@all: every cell, for an image) as a line
 * "time address count", the fields apart by @sep.
 */
void heatmap_print_cells(FILE *out, const struct vmt_analysis *h, const char *sep, bool all);
/* Of a per-process analysis of heatmaps, the index of the one with the most references. */
unsigned int heatmap_busiest(const struct vmt_analysis *per_process);
/* @h drawn by gnuplot into @path (.svg or .png): 0, or 1 having said why not as @cmd. */
int heatmap_plot(const char *cmd, const struct vmt_analysis *h, const char *path,
		 const char *title);

#endif
