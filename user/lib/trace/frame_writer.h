/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * Between the trace writer's two layers: the container writer
 * (frame_writer.c: the file's streams, frames and directory) and the record
 * layer above it (trace_writer.c: a ring's records into record
 * streams, the order stream and the data stream). Internal to libvmtrace;
 * the public API of both is struct vmt_trace_writer in vmtrace/trace.h.
 */
#ifndef VMTRACE_INTERNAL_FRAME_WRITER_H
#define VMTRACE_INTERNAL_FRAME_WRITER_H

#include <stdint.h>

#include "vmtrace/trace.h"

/* ---- The container writer, for the record layer (frame_writer.c) -------- */

/*
 * Keep the message as the writer's error (what
 * vmt_trace_writer_error_message() returns) and return @err.
 */
int vmt_trace_writer_fail(struct vmt_trace_writer *w, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
uint32_t vmt_trace_writer_nr_streams(const struct vmt_trace_writer *w);
/* The codec the writer was created with (enum vmt_codec). */
unsigned int vmt_trace_writer_codec(const struct vmt_trace_writer *w);
/* Stream @id, which must be below vmt_trace_writer_nr_streams(). */
const struct vmt_trace_stream_info *vmt_trace_writer_stream(const struct vmt_trace_writer *w,
							    uint32_t id);

/* ---- The record layer, for the container writer (trace_writer.c) ------- */

struct vmt_record_writer;

/* The record layer over @w; NULL when out of memory. */
struct vmt_record_writer *vmt_record_writer_new(struct vmt_trace_writer *w);
/* vmt_trace_writer_append_record(). */
int vmt_record_writer_append(struct vmt_record_writer *rw, const struct vmt_record *record);
/* vmt_trace_writer_append_record_data(). */
int vmt_record_writer_append_data(struct vmt_record_writer *rw, const struct vmt_record *record,
				  const void *data);
/* Ends the order stream's current run: vmt_trace_writer_flush() calls it first. */
int vmt_record_writer_flush(struct vmt_record_writer *rw);
/* At close: records still waiting for their data get what came. */
int vmt_record_writer_finish(struct vmt_record_writer *rw);
/* Fills the record layer's part of @stats: data_bytes, orphan_data, cut_data. */
void vmt_record_writer_stats(const struct vmt_record_writer *rw,
			     struct vmt_trace_writer_stats *stats);
void vmt_record_writer_free(struct vmt_record_writer *rw);

#endif /* VMTRACE_INTERNAL_FRAME_WRITER_H */
