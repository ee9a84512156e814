/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hmtt_streams.c: `vmtrace hmtt`'s stream sections, scr and prefetch
 * (docs/analysis/hmtt.md): their options, their analyses (each section's
 * one analysis grouping several of libvmtrace's: SCR at each window in
 * three views, the prefetcher merged and per process) and their tables.
 */
#ifndef VMTRACE_CMD_HMTT_STREAMS_H
#define VMTRACE_CMD_HMTT_STREAMS_H

#include <stdbool.h>
#include <getopt.h>

#include "vmtrace/analysis.h"

#define HMTT_MAX_SCR_WINDOWS		8
#define HMTT_DEFAULT_SCR_WINDOW		32	/* HMTT's */
#define HMTT_DEFAULT_PREFETCH_TRACKERS	8
#define HMTT_DEFAULT_PREFETCH_DEGREE	2

enum {
	HMTT_STREAMS_OPT_SCR_WINDOW = 0x380,
	HMTT_STREAMS_OPT_PREFETCH_TRACKERS,
	HMTT_STREAMS_OPT_PREFETCH_DEGREE,
};
#define HMTT_STREAMS_LONG_OPTIONS \
	{ "scr-window", required_argument, NULL, HMTT_STREAMS_OPT_SCR_WINDOW }, \
	{ "prefetch-trackers", required_argument, NULL, HMTT_STREAMS_OPT_PREFETCH_TRACKERS }, \
	{ "prefetch-degree", required_argument, NULL, HMTT_STREAMS_OPT_PREFETCH_DEGREE }

struct hmtt_streams_options {
	unsigned int scr_windows[HMTT_MAX_SCR_WINDOWS];
	unsigned int nr_scr_windows;
	unsigned int prefetch_trackers, prefetch_degree;
};

/* The defaults: SCR at 32, 8 trackers prefetching 2 lines ahead. */
void hmtt_streams_defaults(struct hmtt_streams_options *s);
/* 1: @opt was one of the streams' options, taken; 0: not one; -1: a bad value (said). */
int hmtt_streams_option(struct hmtt_streams_options *s, int opt, const char *arg);

/*
 * scr's analysis: at each window, SCR on virtual addresses (a window a
 * process), on physical ones a window a process, and on physical ones one
 * window for all. @pass: the pass's options (its unit, source, and --addr,
 * which bounds the analyses of its space).
 */
int hmtt_scr_create(struct vmt_analysis **analysis, const struct hmtt_streams_options *s,
		    const struct vmt_ref_options *pass);
/* prefetch's: the prefetcher over @options' lines, merged and a table a process. */
int hmtt_prefetch_create(struct vmt_analysis **analysis, const struct hmtt_streams_options *s,
			 const struct vmt_ref_options *options);

/*
 * The tables; @first: no table printed yet (the next one's title needs no
 * empty line before it), cleared.
 */
void hmtt_scr_print(const struct vmt_analysis *scr, const struct hmtt_streams_options *s,
		    enum vmt_ref_unit unit, bool csv, bool *first);
/* @options: the prefetcher's (the title says which addresses). */
void hmtt_prefetch_print(const struct vmt_analysis *prefetch,
			 const struct hmtt_streams_options *s,
			 const struct vmt_ref_options *options, bool csv, bool *first);

/* The figures' way in (hmtt_figures.c): scr's views, in the tables' order. */
#define HMTT_SCR_VIEWS		3	/* virtual, physical-process, physical */
#define HMTT_PREFETCH_VIEWS	2	/* merged, per-process */
/* The tables' name of scr's view @v. */
const char *hmtt_scr_view_name(unsigned int v);
/* scr's SCR analysis at the @w-th window (in --scr-window's order) in view @v. */
const struct vmt_analysis *hmtt_scr_view(const struct vmt_analysis *scr, unsigned int w,
					 unsigned int v);
/* The tables' name of prefetch's view @v, and its prefetcher. */
const char *hmtt_prefetch_view_name(unsigned int v);
const struct vmt_analysis *hmtt_prefetch_view(const struct vmt_analysis *prefetch,
					      unsigned int v);

#endif
