// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Loop streams, written: one encoder a thread (pid, tid), its bytes
 * appended to the thread's VMT_STREAM_LOOPS stream ("loops.TID") as the
 * encoder lets go of them, so that memory stays the window's whatever the
 * trace's length. With times or values kept, each access also gets a
 * 32-byte side entry ("loopx.TID", an opaque stream with its time at
 * offset 0 when times are kept), compressed by the writer's codec as any
 * stream. The "loops" stream, written last, lists the threads.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codec/loop_codec.h"
#include "format/trace_format.h"
#include "trace/loop_writer.h"

struct loop_thread {
	struct vmt_loop_writer *writer;
	struct vmt_trace_loops_thread info;
	struct vmt_loop_encoder *encoder;
};

struct vmt_loop_writer {
	struct vmt_frame_writer *frames;
	uint32_t window;
	unsigned int keep;
	struct loop_thread **threads;
	uint32_t nr_threads, capacity;
	struct loop_thread *last;
};

int vmt_loop_writer_create(struct vmt_loop_writer **writer, struct vmt_frame_writer *frames,
			   uint32_t window, unsigned int keep)
{
	struct vmt_loop_writer *w;

	*writer = NULL;
	if (!window || window > VMT_LOOP_WINDOW_MAX)
		return vmt_frame_writer_fail(frames, -EINVAL, "loop window %u out of range (1..%u)",
					     window, VMT_LOOP_WINDOW_MAX);
	if (keep & ~(VMT_LOOPS_KEEP_TIMES | VMT_LOOPS_KEEP_VALUES))
		return vmt_frame_writer_fail(frames, -EINVAL, "unknown loops_keep 0x%x", keep);
	w = calloc(1, sizeof(*w));
	if (!w)
		return vmt_frame_writer_fail(frames, -ENOMEM, "out of memory");
	w->frames = frames;
	w->window = window;
	w->keep = keep;
	*writer = w;
	return 0;
}

static int sink(void *arg, const uint8_t *bytes, size_t n)
{
	struct loop_thread *th = arg;

	return vmt_frame_writer_append(th->writer->frames, th->info.stream_id, bytes, n);
}

static struct loop_thread *new_thread(struct vmt_loop_writer *w, uint32_t pid, uint32_t tid)
{
	struct vmt_trace_stream_info info = {
		.entry_size = 1,
		.kind = VMT_STREAM_LOOPS,
		.record_type = VMT_REC_EXACT,
		.cpu = VMT_TRACE_ANY_CPU,
		.time_offset = VMT_TRACE_NO_TIME,
	};
	struct loop_thread *th;
	int id;

	if (w->nr_threads == w->capacity) {
		uint32_t capacity = w->capacity ? 2 * w->capacity : 16;
		struct loop_thread **threads = realloc(w->threads, capacity * sizeof(*threads));

		if (!threads)
			return NULL;
		w->threads = threads;
		w->capacity = capacity;
	}
	th = calloc(1, sizeof(*th));
	if (!th || vmt_loop_encoder_create(&th->encoder, w->window, sink, th)) {
		free(th);
		return NULL;
	}
	th->writer = w;
	th->info = (struct vmt_trace_loops_thread){
		.side_stream_id = VMT_TRACE_NO_TIME, .pid = pid, .tid = tid, .keep = w->keep,
		.window = w->window,
	};
	w->threads[w->nr_threads++] = th;
	snprintf(info.name, sizeof(info.name), "loops.%u", tid);
	id = vmt_frame_writer_add_stream(w->frames, &info);
	if (id < 0)
		return NULL;
	th->info.stream_id = (uint32_t)id;
	if (w->keep) {
		info.kind = VMT_STREAM_OPAQUE;
		info.entry_size = VMT_LOOPS_SIDE_SIZE;
		info.record_type = 0;
		info.time_offset = w->keep & VMT_LOOPS_KEEP_TIMES ? 0 : VMT_TRACE_NO_TIME;
		snprintf(info.name, sizeof(info.name), "loopx.%u", tid);
		id = vmt_frame_writer_add_stream(w->frames, &info);
		if (id < 0)
			return NULL;
		th->info.side_stream_id = (uint32_t)id;
	}
	return th;
}

static struct loop_thread *thread_of(struct vmt_loop_writer *w, uint32_t pid, uint32_t tid)
{
	if (w->last && w->last->info.pid == pid && w->last->info.tid == tid)
		return w->last;
	for (uint32_t i = 0; i < w->nr_threads; i++)
		if (w->threads[i]->info.pid == pid && w->threads[i]->info.tid == tid)
			return w->last = w->threads[i];
	return w->last = new_thread(w, pid, tid);
}

int vmt_loop_writer_add(struct vmt_loop_writer *w, const struct vmt_record *record)
{
	const struct vmt_exact *x = &record->exact;
	struct loop_thread *th = thread_of(w, record->hdr.pid, record->hdr.tid);
	struct vmt_loop_access a = {
		.addr = x->addr, .ip = x->ip, .size = x->size, .cpu = record->hdr.cpu,
		.access = x->access, .kernel_mode = x->kernel_mode, .flags = x->flags,
	};
	int err;

	if (!th)
		return vmt_frame_writer_fail(w->frames, -ENOMEM, "a loop stream: out of memory");
	if (w->keep) {
		uint8_t side[VMT_LOOPS_SIDE_SIZE] = { 0 };

		if (w->keep & VMT_LOOPS_KEEP_TIMES)
			vmt_put64(side, record->hdr.time_ns);
		if (w->keep & VMT_LOOPS_KEEP_VALUES) {
			memcpy(side + 8, x->value, sizeof(x->value));
			vmt_put32(side + 24, record->hdr.data_len);
		}
		err = vmt_frame_writer_append(w->frames, th->info.side_stream_id, side, 1);
		if (err)
			return err;
	}
	err = vmt_loop_encoder_add(th->encoder, &a);
	if (err)
		return err == -ENOMEM ? vmt_frame_writer_fail(w->frames, err, "out of memory") : err;
	th->info.records++;
	return (int)th->info.stream_id;
}

int vmt_loop_writer_finish(struct vmt_loop_writer *w)
{
	struct vmt_trace_stream_info info = {
		.entry_size = VMT_LOOPS_ENTRY_SIZE,
		.kind = VMT_STREAM_OPAQUE,
		.cpu = VMT_TRACE_ANY_CPU,
		.time_offset = VMT_TRACE_NO_TIME,
		.name = "loops",
	};
	int id, err;

	if (!w->nr_threads)
		return 0;
	for (uint32_t i = 0; i < w->nr_threads; i++) {
		err = vmt_loop_encoder_finish(w->threads[i]->encoder);
		if (err)
			return err == -ENOMEM ? vmt_frame_writer_fail(w->frames, err, "out of memory")
					      : err;
	}
	id = vmt_frame_writer_add_stream(w->frames, &info);
	if (id < 0)
		return id;
	for (uint32_t i = 0; i < w->nr_threads; i++) {
		uint8_t entry[VMT_LOOPS_ENTRY_SIZE];

		vmt_loops_entry_encode(entry, &w->threads[i]->info);
		err = vmt_frame_writer_append(w->frames, (uint32_t)id, entry, 1);
		if (err)
			return err;
	}
	return 0;
}

void vmt_loop_writer_free(struct vmt_loop_writer *w)
{
	if (!w)
		return;
	for (uint32_t i = 0; i < w->nr_threads; i++) {
		vmt_loop_encoder_free(w->threads[i]->encoder);
		free(w->threads[i]);
	}
	free(w->threads);
	free(w);
}
