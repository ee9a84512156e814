/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hmtt_figures.c: what vmtrace hmtt's figures (--plot) share, and the
 * figures of the results' tables, each drawn from the numbers the table
 * prints: SCR against the window and the strides' CDF (scr), each
 * process's run-length CDF (interleave), the prefetch rate (prefetch), the
 * DMA request sizes' CDF by device (dma) and the traffic's kinds (traffic).
 * hmtt_plot.c draws v2p's and interleave's own and calls them in turn.
 */
#ifndef VMTRACE_CMD_HMTT_FIGURES_H
#define VMTRACE_CMD_HMTT_FIGURES_H

#include <stdbool.h>
#include <stdint.h>

#include "analysis_command.h"
#include "hmtt_streams.h"

/* What --plot draws from: the analyses of all the processes. */
struct hmtt_figures {
	const char *path;		/* --plot's: out.svg gives out-v2p.svg ... */
	const struct vmt_analysis *v2p;		/* NULL: no v2p figure */
	const struct vmt_analysis *interleave;	/* NULL: no interleave or runs figure */
	const struct vmt_analysis *names;	/* an interleave analysis: the names; or NULL */
	uint64_t slice_first, slice_count;	/* the slice it kept */
	enum vmt_ref_space space;	/* the slice's addresses' */
	const struct vmt_analysis *scr;		/* hmtt_scr_create()'s; NULL: no scr figures */
	const struct hmtt_streams_options *streams;	/* scr's windows, the prefetcher's */
	enum vmt_ref_unit unit;		/* the strides' */
	const struct vmt_analysis *prefetch;	/* hmtt_prefetch_create()'s, or NULL */
	const struct vmt_analysis *dma;		/* NULL: no dma-sizes figure */
	const struct vmt_analysis *traffic;	/* NULL: no traffic figure */
	bool quiet;		/* report --html's: no "wrote", no "no figure" on stderr */
};

/* A figure's legend: at most this many entries a process (or device). */
#define HMTT_MAX_KEYS	12

/*
 * @name fit for a CSV field or a gnuplot string, in quotes of either kind
 * (printable, no comma, quote or backslash: '_' for each), or "-" if none.
 */
const char *hmtt_clean_name(const char *name, char buf[VMT_COMM_LEN + 1]);
/* @path with "-@section" before its extension, in @buf. */
const char *hmtt_figure_path(const char *path, const char *section, char *buf, size_t size);
/* Whether @path can be written (gnuplot would say little), having said why not. */
bool hmtt_figure_writable(const char *cmd, const char *path);
/* plot_end() into @path, then "wrote PATH" on stderr (unless @f's quiet): 0, or 1 having said why not. */
int hmtt_figure_draw(const char *cmd, const struct hmtt_figures *f, struct plot *p,
		     const char *path);

/*
 * The figures of the tables, each into @path: 0; 1 having said why not;
 * -1 when there is nothing to draw, said (which figure, and why) unless
 * quiet.
 */
int hmtt_plot_scr(const char *cmd, const struct hmtt_figures *f, const char *path);
int hmtt_plot_strides(const char *cmd, const struct hmtt_figures *f, const char *path);
int hmtt_plot_runs(const char *cmd, const struct hmtt_figures *f, const char *path);
int hmtt_plot_prefetch(const char *cmd, const struct hmtt_figures *f, const char *path);
int hmtt_plot_dma_sizes(const char *cmd, const struct hmtt_figures *f, const char *path);
int hmtt_plot_traffic(const char *cmd, const struct hmtt_figures *f, const char *path);

#endif
