/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hmtt_plot.c: vmtrace hmtt's interleaving a process (a table, and in CSV
 * each process's run-length CDF) and its figures (--plot): the v2p
 * mapping and a slice of the interleaved stream, and through
 * hmtt_figures.c the tables' figures, one image a figure.
 */
#ifndef VMTRACE_CMD_HMTT_PLOT_H
#define VMTRACE_CMD_HMTT_PLOT_H

#include <stdbool.h>
#include <stdint.h>

#include "analysis_command.h"
#include "hmtt_figures.h"

/* --plot-slice's default: the first this many references. */
#define HMTT_DEFAULT_SLICE	2000
/* The v2p figure's points at most: beyond, a sample (hmtt_plot.c). */
#define HMTT_V2P_MAX_POINTS	20000

extern const char hmtt_plot_usage[];

/* --plot-slice [START:]N: 0, or -1 having said why not as @cmd. */
int hmtt_parse_slice(const char *cmd, const char *arg, uint64_t *first, uint64_t *count);

/*
 * Before the pass: --plot (@plot, or NULL) with @figures, whether a section
 * asked for has a figure, in a folder that can be written; --plot-slice
 * (*@slice_count, 0 when not given: then the default) with --plot alone.
 * 0, or -1 having said why not (a bad option).
 */
int hmtt_plot_check(const char *cmd, const char *plot, bool figures, uint64_t *slice_count);

/*
 * The interleave section's table a process (pid, name, runs...) and, in
 * CSV, a table of each process's run lengths and their cumulative share.
 * @first: no table printed yet (the next needs a blank line before it).
 */
void hmtt_print_interleave_processes(const struct analysis_options *o,
				     const struct vmt_analysis *interleave, bool *first);


/*
 * Each figure of a section that ran into its file (hmtt_figures.c draws
 * those of the tables), saying on stderr which it wrote and which it had
 * nothing to draw for (v2p without a frame, dma-sizes without DMA records...).
 * 0, or 1 having said why not.
 */
int hmtt_plot(const char *cmd, const struct hmtt_figures *f);

#endif
