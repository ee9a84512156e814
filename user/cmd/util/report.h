/* SPDX-License-Identifier: GPL-2.0 */
/*
 * report.c: what vmtrace report's text and its page (--html) share, so
 * that both show the same numbers, and the summary vmtrace stats prints
 * too.
 */
#ifndef VMTRACE_CMD_REPORT_H
#define VMTRACE_CMD_REPORT_H

#include <stdbool.h>
#include <stdint.h>

#include "vmtrace/trace.h"
#include "filter_options.h"

/*
 * @path opened and summarized with @o, through @filter when not NULL: the
 * summary with the trace in *@trace, or NULL having said why not as @cmd.
 * As one of several processes (ranks.h), each summarizes its part and
 * rank 0 gets the whole; the others get NULL with *@elsewhere set.
 */
struct vmt_trace_summary *report_summarize(const char *cmd, const char *path,
					    const struct vmt_trace_summary_options *o,
					    struct filter_options *filter,
					    struct vmt_trace **trace, bool *elsewhere);

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

#endif
