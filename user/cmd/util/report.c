// SPDX-License-Identifier: GPL-2.0
/*
 * What stats, report and report --html share (report.h): the trace's
 * summary, the references by mapping, the processes the tables leave out,
 * and the memory sizes the LRU faults are given at.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd_util.h"
#include "ranks.h"
#include "report.h"

/*
 * As one of several processes (ranks.h): this rank's part summarized and
 * packed, and rank 0's summary the parts merged in rank order; the others
 * return NULL with *@elsewhere set.
 */
static struct vmt_trace_summary *summarize_parts(const char *cmd, const char *path,
						 struct vmt_trace *t,
						 const struct vmt_trace_summary_options *o,
						 const struct vmt_trace_filter *filter, bool *elsewhere)
{
	struct vmt_trace_summarizer *z = NULL, *all = NULL;
	struct vmt_trace_summary *s = NULL;
	void *packed = NULL, **parts = NULL;
	size_t size = 0, *sizes = NULL;
	int err, empty;

	empty = ranks_narrow(cmd, t, filter);
	err = empty < 0 ? -EINVAL : vmt_trace_summarizer_create(t, o, &z);
	if (!err && !empty)
		err = vmt_trace_summarizer_read(z);
	if (!err)
		err = vmt_trace_summarizer_pack(z, &packed, &size);
	if (err && err != -EINVAL)
		fprintf(stderr, "vmtrace %s: %s: %s\n", cmd, path,
			err == -ENOMEM ? strerror(ENOMEM) : vmt_trace_error_message(t));
	vmt_trace_summarizer_free(z);
	/* Every rank fails, or none: none then waits on another. */
	if (ranks_agree(err != 0)) {
		free(packed);
		return NULL;
	}
	err = ranks_gather(packed, size, &parts, &sizes);
	free(packed);
	if (err) {
		fprintf(stderr, "vmtrace %s: gathering the parts: %s\n", cmd, strerror(-err));
		return NULL;
	}
	if (!parts) {
		*elsewhere = true;
		return NULL;
	}
	err = vmt_trace_summarizer_create(t, o, &all);
	for (unsigned int i = 0; i < ranks_size(); i++) {
		if (!err)
			err = vmt_trace_summarizer_unpack_merge(all, parts[i], sizes[i]);
		free(parts[i]);
	}
	free(parts);
	free(sizes);
	if (!err)
		err = vmt_trace_summarizer_finish(all, &s);
	else
		vmt_trace_summarizer_free(all);
	if (err)
		fprintf(stderr, "vmtrace %s: merging the parts: %s\n", cmd, strerror(-err));
	return s;
}

struct vmt_trace_summary *report_summarize(const char *cmd, const char *path,
					    const struct vmt_trace_summary_options *o,
					    struct filter_options *filter,
					    struct vmt_trace **trace, bool *elsewhere)
{
	struct vmt_trace_summary *s;
	int err;

	*elsewhere = false;
	*trace = open_or_say(cmd, path, 0);
	/*
	 * Counts, footprints and the analyses: no exact record's value (and,
	 * before the decoding threads start, it cannot fail).
	 */
	if (*trace)
		vmt_trace_skip_values(*trace);
	if (*trace && filter && apply_filter_options(cmd, *trace, filter)) {
		vmt_trace_close(*trace);
		*trace = NULL;
	}
	if (ranks_size() > 1) {
		/* Each rank's failure to open its trace counts too. */
		if (!*trace) {
			ranks_agree(1);
			return NULL;
		}
		s = summarize_parts(cmd, path, *trace, o,
				    filter && filter->used ? &filter->filter : NULL, elsewhere);
		if (!s) {
			vmt_trace_close(*trace);
			*trace = NULL;
		}
		return s;
	}
	if (!*trace)
		return NULL;
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
