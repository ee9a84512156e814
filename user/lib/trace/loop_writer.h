/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * The write side of loop streams (loop_writer.c): a trace writer made with
 * loops_window hands each exact access here, and it goes to its thread's
 * loop encoder (codec/loop_codec.h), whose descriptors fill the thread's
 * VMT_STREAM_LOOPS stream; times and values, when kept, fill a side
 * stream; at the end the "loops" stream lists them all. Internal to
 * libvmtrace; trace_writer.c is its one caller.
 */
#ifndef VMTRACE_INTERNAL_LOOP_WRITER_H
#define VMTRACE_INTERNAL_LOOP_WRITER_H

#include <stdint.h>

#include "trace/frame_writer.h"

struct vmt_loop_writer;

/* 0, or -errno with the message in @frames. */
int vmt_loop_writer_create(struct vmt_loop_writer **writer, struct vmt_frame_writer *frames,
			   uint32_t window, unsigned int keep);
/*
 * The exact access @record to its thread's loop stream, made on first use:
 * that stream's id (for the order stream's run), or -errno with the message
 * in the frame writer.
 */
int vmt_loop_writer_add(struct vmt_loop_writer *writer, const struct vmt_record *record);
/* Every encoder's last elements out, and the "loops" stream: 0 or -errno. */
int vmt_loop_writer_finish(struct vmt_loop_writer *writer);
void vmt_loop_writer_free(struct vmt_loop_writer *writer);

#endif /* VMTRACE_INTERNAL_LOOP_WRITER_H */
