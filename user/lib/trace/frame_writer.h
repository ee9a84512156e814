/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * The trace writer's container layer (frame_writer.c): the file's streams,
 * frames and directory, and the pool of compression workers. Internal to
 * libvmtrace: the public writer, struct vmt_trace_writer (trace_writer.c,
 * the record layer), is the one caller. What each function does is what
 * the vmt_trace_writer_*() of the same name does in vmtrace/trace.h, for
 * the entries of any stream.
 */
#ifndef VMTRACE_INTERNAL_FRAME_WRITER_H
#define VMTRACE_INTERNAL_FRAME_WRITER_H

#include <stddef.h>
#include <stdint.h>

#include "vmtrace/trace.h"

struct vmt_frame_writer;

/* Checks @options, creates @path and writes its header; @err says why not. */
int vmt_frame_writer_create(struct vmt_frame_writer **writer, const char *path,
			    const struct vmt_trace_writer_options *options,
			    struct vmt_trace_error *err);
/* Returns the stream's id or -errno. */
int vmt_frame_writer_add_stream(struct vmt_frame_writer *w,
				const struct vmt_trace_stream_info *info);
int vmt_frame_writer_append(struct vmt_frame_writer *w, uint32_t stream_id, const void *entries,
			    size_t count);
/* Every stream's pending entries into a frame, and the workers' frames into the file. */
int vmt_frame_writer_flush(struct vmt_frame_writer *w);
/* Flushes, writes the directory, closes and frees @w. */
int vmt_frame_writer_close(struct vmt_frame_writer *w, struct vmt_trace_error *err);
/* Frees @w (NULL too), leaving the file as it is. */
void vmt_frame_writer_abandon(struct vmt_frame_writer *w);
/* Fills the container's part of @stats: frames, bytes, raw_bytes, stalls. */
void vmt_frame_writer_stats(struct vmt_frame_writer *w, struct vmt_trace_writer_stats *stats);
const char *vmt_frame_writer_error_message(const struct vmt_frame_writer *w);

/*
 * Keep the message as the writer's error (what
 * vmt_frame_writer_error_message() returns) and return @err.
 */
int vmt_frame_writer_fail(struct vmt_frame_writer *w, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
uint32_t vmt_frame_writer_nr_streams(const struct vmt_frame_writer *w);
/* The codec the writer was created with (enum vmt_codec). */
unsigned int vmt_frame_writer_codec(const struct vmt_frame_writer *w);
/* Stream @id, which must be below vmt_frame_writer_nr_streams(). */
const struct vmt_trace_stream_info *vmt_frame_writer_stream(const struct vmt_frame_writer *w,
							    uint32_t id);

/*
 * Encoded blocks (a relay's writer): vmt_trace_writer_open_blocks(),
 * vmt_trace_writer_append_block(), vmt_trace_writer_set_sink() and
 * vmt_trace_writer_blocks() in vmtrace/trace.h are these.
 */
void vmt_frame_writer_set_sink(struct vmt_frame_writer *w, vmt_trace_block_sink sink, void *ctx);
uint64_t vmt_frame_writer_blocks(struct vmt_frame_writer *w);
int vmt_frame_writer_append_block(struct vmt_frame_writer *w, const void *block, size_t len);
/* A new file for encoded blocks, or one a writer left unfinished, cut after its last block. */
int vmt_frame_writer_create_encoded(struct vmt_frame_writer **writer, const char *path,
				    struct vmt_trace_error *err);
int vmt_frame_writer_resume(struct vmt_frame_writer **writer, const char *path,
			    struct vmt_trace_error *err);

#endif /* VMTRACE_INTERNAL_FRAME_WRITER_H */
