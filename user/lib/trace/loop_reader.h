/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * The read side of loop streams (loop_reader.c): one thread's descriptors
 * replayed into its exact records, one at a time, with their times and
 * values from the side stream when the trace kept them. Internal to
 * libvmtrace; cursors (trace_cursor.c) read loop streams through it, and
 * vmt_trace_loops() (vmtrace/trace.h) lists them.
 */
#ifndef VMTRACE_INTERNAL_LOOP_READER_H
#define VMTRACE_INTERNAL_LOOP_READER_H

#include <stdint.h>

#include "vmtrace/trace.h"

struct vmt_loop_reader;

/* A reader of @thread's loop stream, from its first record: 0 or -errno with the message. */
int vmt_loop_reader_open(struct vmt_trace *trace, const struct vmt_trace_loops_thread *thread,
			 struct vmt_loop_reader **reader);
/*
 * The next record into @record: 0, or -errno with the trace's message
 * (-EBADMSG for descriptors that are damaged or end before the records
 * the "loops" stream gives them, -ERANGE past those records).
 */
int vmt_loop_reader_next(struct vmt_loop_reader *reader, struct vmt_record *record);
/*
 * Or the next top-level element of its descriptors whole, for a loop view
 * (vmtrace loops --show; not to be mixed with vmt_loop_reader_next()): 1
 * with *@element (valid until the next call), 0 at the end, or -errno with
 * the trace's message.
 */
struct vmt_loop_element;
int vmt_loop_reader_next_element(struct vmt_loop_reader *reader,
				 struct vmt_loop_element *element);
/*
 * Whether the thread is a loop set's member, replaying another's
 * descriptors (codec/loop_sets.h): 1 with that thread's stream, its rank
 * (1 or more) and the set's size, or 0 (its own descriptors).
 */
int vmt_loop_reader_set(const struct vmt_loop_reader *reader, uint32_t *template_stream,
			uint32_t *rank, uint32_t *nr_ranks);
void vmt_loop_reader_free(struct vmt_loop_reader *reader);

#endif /* VMTRACE_INTERNAL_LOOP_READER_H */
