/* SPDX-License-Identifier: GPL-2.0 */
/* report_html.c: vmtrace report --html, which report.c runs. */
#ifndef VMTRACE_CMD_REPORT_HTML_H
#define VMTRACE_CMD_REPORT_HTML_H

#include "vmtrace/trace.h"

/*
 * The report as one HTML page in @html_path, that needs nothing but itself:
 * its tables, and gnuplot's pictures inline as SVG. 0, or 1 having said why
 * not.
 */
int report_html(struct vmt_trace *t, const char *path, const struct vmt_trace_summary *s,
		const char *html_path);

#endif
