// SPDX-License-Identifier: GPL-2.0
/*
 * What stats, report and report --html share (report.h): the trace's
 * summary, the references by mapping, the processes the tables leave out,
 * and the memory sizes the LRU faults are given at.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cmd_util.h"
#include "report.h"

struct vmt_trace_summary *report_summarize(const char *cmd, const char *path,
					    const struct vmt_trace_summary_options *o,
					    struct filter_options *filter,
					    struct vmt_trace **trace)
{
	struct vmt_trace_summary *s;
	int err;

	*trace = open_or_say(cmd, path, 0);
	if (!*trace)
		return NULL;
	if (filter && apply_filter_options(cmd, *trace, filter)) {
		vmt_trace_close(*trace);
		return NULL;
	}
	err = vmt_trace_summarize(*trace, o, &s);
	if (err) {
		fprintf(stderr, "vmtrace %s: %s: %s\n", cmd, path,
			err == -ENOMEM ? strerror(ENOMEM) : vmt_trace_error_message(*trace));
		vmt_trace_close(*trace);
		return NULL;
	}
	return s;
}

int report_attribute(struct vmt_trace *t, const char *path, struct vmt_trace_attribution **a)
{
	uint32_t i;
	int err;

	*a = NULL;
	for (i = 0; i < vmt_trace_nr_streams(t); i++)
		if (vmt_trace_stream(t, i)->kind == VMT_STREAM_RECORDS &&
		    vmt_trace_stream(t, i)->record_type == VMT_REC_VMA)
			break;
	if (i == vmt_trace_nr_streams(t))
		return 0;
	err = vmt_trace_attribute(t, a);
	if (err) {
		fprintf(stderr, "vmtrace report: %s: %s\n", path,
			err == -ENOMEM ? strerror(ENOMEM) : vmt_trace_error_message(t));
		return 1;
	}
	return 0;
}

uint64_t report_silent_processes(const struct vmt_trace_summary *s, uint64_t *records)
{
	uint64_t n = 0;

	*records = 0;
	for (uint32_t i = 0; i < s->nr_processes; i++) {
		if (!s->processes[i].references) {
			n++;
			*records += s->processes[i].records;
		}
	}
	return n;
}

const uint64_t report_sizes[REPORT_NR_SIZES] = { 64, 512, 4096, 32768 };

bool report_shows_size(unsigned int i, uint64_t footprint)
{
	return !i || report_sizes[i] <= 2 * footprint;
}
