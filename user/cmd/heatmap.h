/* SPDX-License-Identifier: GPL-2.0 */
/* heatmap.c: what vmtrace heatmap lends report --html. */
#ifndef VMTRACE_CMD_HEATMAP_H
#define VMTRACE_CMD_HEATMAP_H

#include "vmtrace/analysis.h"

/* Of a per-process analysis of heatmaps, the index of the one with the most references. */
unsigned int heatmap_busiest(const struct vmt_analysis *per_process);
/* @h drawn by gnuplot into @path (.svg or .png): 0, or 1 having said why not as @cmd. */
int heatmap_plot(const char *cmd, const struct vmt_analysis *h, const char *path,
		 const char *title);

#endif
