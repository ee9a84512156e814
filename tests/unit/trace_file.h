/* SPDX-License-Identifier: GPL-2.0 */
/*
 * For cmocka tests that write a trace and read it back: @recs written to
 * @path (temp_file.h's) in frames of @frame_bytes, the writer's stats in
 * *@stats (may be NULL), and the trace opened.
 */
#ifndef VMTRACE_TESTS_TRACE_FILE_H
#define VMTRACE_TESTS_TRACE_FILE_H

#include "vmtrace/trace.h"

static struct vmt_trace *write_trace_and_open(const char *file, const struct vmt_record *recs,
					      size_t n, uint32_t frame_bytes,
					      struct vmt_trace_writer_stats *stats)
{
	struct vmt_trace_writer_options o = { .frame_bytes = frame_bytes,
					      .codec = VMT_CODEC_VPC };
	struct vmt_trace_writer *w;
	struct vmt_trace_error err;
	struct vmt_trace *t;

	assert_int_equal(vmt_trace_writer_create(&w, file, &o, &err), 0);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(vmt_trace_writer_append_record(w, &recs[i]), 0);
	if (stats)
		vmt_trace_writer_stats(w, stats);
	assert_int_equal(vmt_trace_writer_close(w, &err), 0);
	assert_int_equal(vmt_trace_open(&t, file, 0, &err), 0);
	return t;
}

#endif
