// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * A trace cut into parts of about as many records each by time
 * (vmt_trace_time_parts()), so that processes or threads can each read
 * one part, through a time range filter, and decode its frames alone. The
 * directory answers: every record stream's frames, sorted by their least
 * time, give how many records lie before a time, to within a frame.
 *
 *   records by time:  |frame|frame|frame|frame|frame|frame|frame|frame|
 *   3 parts:          [0 ............)[b1 ...............)[b2 ........ max]
 */
#include <errno.h>
#include <stdlib.h>

#include "trace/trace_reader.h"

struct span {
	uint64_t least;
	uint32_t count;
};

static int by_least(const void *a, const void *b)
{
	const struct span *x = a, *y = b;

	return x->least < y->least ? -1 : x->least > y->least;
}

int vmt_trace_time_parts(struct vmt_trace *t, unsigned int parts, uint64_t *bounds)
{
	uint64_t nr = 0, total = 0, seen = 0;
	struct span *spans;
	unsigned int k = 1;

	if (!parts)
		return vmt_trace_fail(t, -EINVAL, "no parts to cut the trace into");
	for (uint32_t id = 0; id < vmt_trace_nr_streams(t); id++) {
		struct vmt_trace_stream_stats st;

		if (vmt_trace_stream(t, id)->kind == VMT_STREAM_RECORDS &&
		    !vmt_trace_stream_stats(t, id, &st))
			nr += st.frames;
	}
	spans = malloc((nr ? nr : 1) * sizeof(*spans));
	if (!spans)
		return vmt_trace_fail(t, -ENOMEM, "out of memory");
	nr = 0;
	for (uint32_t id = 0; id < vmt_trace_nr_streams(t); id++) {
		struct vmt_trace_stream_stats st;
		uint64_t first, greatest;

		if (vmt_trace_stream(t, id)->kind != VMT_STREAM_RECORDS ||
		    vmt_trace_stream_stats(t, id, &st))
			continue;
		/* An unsorted frame before version 3 gives its first time (-ENOENT): near enough. */
		for (uint64_t f = 0; f < st.frames; f++, nr++) {
			vmt_trace_frame_span(t, id, f, &first, &spans[nr].count, &spans[nr].least,
					     &greatest);
			total += spans[nr].count;
		}
	}
	qsort(spans, nr, sizeof(*spans), by_least);
	bounds[0] = 0;
	/* Part k begins at the first frame before which k / parts of the records lie. */
	for (uint64_t i = 0; i < nr && k < parts; i++) {
		while (k < parts && seen >= total * k / parts)
			bounds[k++] = spans[i].least;
		seen += spans[i].count;
	}
	while (k < parts)
		bounds[k++] = UINT64_MAX;
	bounds[parts] = UINT64_MAX;
	free(spans);
	return 0;
}
