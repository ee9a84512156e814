/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * What trace_reader.c lends the files that work on an open trace beside it
 * (trace_cursor.c, trace_repair.c): the trace's error, its filter and the
 * block scan. Internal to libvmtrace; the reader's public API is
 * vmtrace/trace.h.
 */
#ifndef VMTRACE_INTERNAL_TRACE_READER_H
#define VMTRACE_INTERNAL_TRACE_READER_H

#include <stdint.h>

#include "vmtrace/trace.h"
#include "format/trace_format.h"

/*
 * For vmt_trace_repair(): scan @path's blocks up to the first
 * incomplete or corrupt one, and hand over the streams and frames found.
 */
int vmt_trace_scan_for_repair(const char *path, struct vmt_trace_stream_info **streams,
			      uint32_t *nr_streams, struct vmt_frame_ref **frames,
			      uint64_t *nr_frames, struct vmt_trace_repair_report *report,
			      struct vmt_trace_error *err);

/*
 * Keep the message as the trace's error (what
 * vmt_trace_error_message() returns) and return @err.
 */
int vmt_trace_fail(struct vmt_trace *t, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/*
 * Frame @k of stream @stream_id, in entry order: its first entry, its
 * count and its least and greatest entry times. 0; -ENOENT when the frame
 * does not say its least and greatest times (an unsorted frame before
 * version 3: they are then its first and last entry's); -EINVAL when there
 * is no such frame.
 */
int vmt_trace_frame_span(const struct vmt_trace *t, uint32_t stream_id, uint64_t k,
			 uint64_t *first_entry, uint32_t *count, uint64_t *least_time,
			 uint64_t *greatest_time);
/*
 * A copy of @filter in one allocation (free() frees it all, its lists
 * within), or NULL when out of memory.
 */
struct vmt_trace_filter *vmt_trace_filter_copy(const struct vmt_trace_filter *filter);
/*
 * Decode no frame of stream @stream_id ahead (vmt_trace_set_threads())
 * from entry @end on: a cursor's end, so that a range read decodes no
 * frame past it.
 */
void vmt_trace_read_ahead_limit(struct vmt_trace *t, uint32_t stream_id, uint64_t end);
/* The filter vmt_trace_set_filter() gave (a copy), or NULL. */
const struct vmt_trace_filter *vmt_trace_filter(const struct vmt_trace *t);

#endif /* VMTRACE_INTERNAL_TRACE_READER_H */
