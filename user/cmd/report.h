/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vmtrace report: what its text (stats_report.c) and its page
 * (report_html.c, --html) share, so that both show the same numbers.
 */
#ifndef VMTRACE_CMD_REPORT_H
#define VMTRACE_CMD_REPORT_H

#include <stdbool.h>
#include <stdint.h>

#include "vmtrace/trace.h"

/* The memory sizes report gives LRU's fault counts at, in pages. */
#define REPORT_NR_SIZES	4
extern const uint64_t report_sizes[REPORT_NR_SIZES];

/* Whether report_sizes[@i] is shown: the first always, the others up to twice @footprint. */
bool report_shows_size(unsigned int i, uint64_t footprint);

/*
 * The processes of @s without references (a trace of every context switch
 * names every task that ran), which the tables leave out; their records in
 * *@records.
 */
uint64_t report_silent_processes(const struct vmt_trace_summary *s, uint64_t *records);

/*
 * With VMA records in the trace: which mapping each reference fell in.
 * 0 with *@a set (NULL: the trace has no VMA records), or 1 having said
 * why not (@path names the trace).
 */
int report_attribute(struct vmt_trace *t, const char *path, struct vmt_trace_attribution **a);

/*
 * The report as one HTML page in @html_path, that needs nothing but itself:
 * its tables, and gnuplot's pictures inline as SVG. 0, or 1 having said why
 * not.
 */
int report_html(struct vmt_trace *t, const char *path, const struct vmt_trace_summary *s,
		const char *html_path);

#endif
