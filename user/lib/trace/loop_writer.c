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
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codec/loop_codec.h"
#include "codec/loop_sets.h"
#include "format/trace_format.h"
#include "trace/loop_writer.h"

#define LOOP_HOLD_THREAD	(1u << 20)
#define LOOP_HOLD_ALL		(64u << 20)

struct loop_thread {
	struct vmt_loop_writer *writer;
	struct vmt_trace_loops_thread info;
	struct vmt_loop_encoder *encoder;
	uint8_t *held;			/* its bytes, until written */
	size_t len, cap;
	bool written;			/* its bytes go straight to its stream */
	/* At close: its canonical form, bases and set. */
	uint8_t *canon;
	size_t canon_len;
	uint64_t canon_hash;
	struct vmt_loop_key_base *keys;
	uint32_t nr_keys;
	bool in_set;
};

struct vmt_loop_writer {
	struct vmt_frame_writer *frames;
	uint32_t window;
	unsigned int keep;
	struct loop_thread **threads;
	uint32_t nr_threads, capacity;
	struct loop_thread *last;
	size_t held;			/* bytes held, all threads */
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

/* The bytes held for @th to its stream, and the rest after them: 0 or -errno. */
static int write_held(struct loop_thread *th)
{
	int err = th->len ? vmt_frame_writer_append(th->writer->frames, th->info.stream_id,
						    th->held, th->len) : 0;

	th->writer->held -= th->len;
	free(th->held);
	th->held = NULL;
	th->len = th->cap = 0;
	th->written = true;
	return err;
}

static int sink(void *arg, const uint8_t *bytes, size_t n)
{
	struct loop_thread *th = arg;
	struct vmt_loop_writer *w = th->writer;

	if (th->written)
		return vmt_frame_writer_append(w->frames, th->info.stream_id, bytes, n);
	if (th->len + n > LOOP_HOLD_THREAD || w->held + n > LOOP_HOLD_ALL) {
		int err = write_held(th);

		return err ? err : vmt_frame_writer_append(w->frames, th->info.stream_id, bytes, n);
	}
	if (th->len + n > th->cap) {
		size_t cap = th->cap ? th->cap : 4096;
		uint8_t *held;

		while (cap < th->len + n)
			cap *= 2;
		held = realloc(th->held, cap);
		if (!held)
			return -ENOMEM;
		th->held = held;
		th->cap = cap;
	}
	memcpy(th->held + th->len, bytes, n);
	th->len += n;
	w->held += n;
	return 0;
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

/* @th's canonical form, bases and its hash: 0 or -errno. */
static int canon_of(struct loop_thread *th)
{
	uint64_t h = 0xcbf29ce484222325ull;

	th->canon = malloc(th->len + 1);
	if (!th->canon)
		return -ENOMEM;
	if (vmt_loop_canon(th->held, th->len, th->canon, &th->canon_len, &th->keys,
			   &th->nr_keys))
		return -EBADMSG;
	for (size_t i = 0; i < th->canon_len; i++)
		h = (h ^ th->canon[i]) * 0x100000001b3ull;
	th->canon_hash = h;
	return 0;
}

static bool same_loops(const struct loop_thread *a, const struct loop_thread *b)
{
	return a->canon_hash == b->canon_hash && a->canon_len == b->canon_len &&
	       a->info.records == b->info.records && a->nr_keys == b->nr_keys &&
	       !memcmp(a->canon, b->canon, a->canon_len);
}

static int by_thread(const void *a, const void *b)
{
	const struct loop_thread *x = *(struct loop_thread *const *)a;
	const struct loop_thread *y = *(struct loop_thread *const *)b;

	if (x->info.pid != y->info.pid)
		return x->info.pid < y->info.pid ? -1 : 1;
	return x->info.tid < y->info.tid ? -1 : x->info.tid > y->info.tid;
}

/* The set of @th[0] and the @n - 1 after it: its stream and bytes. 0 or -errno. */
static int write_set(struct vmt_loop_writer *w, struct loop_thread **th, uint32_t n)
{
	struct vmt_trace_stream_info info = {
		.entry_size = 1,
		.kind = VMT_STREAM_LOOPSET,
		.cpu = VMT_TRACE_ANY_CPU,
		.time_offset = VMT_TRACE_NO_TIME,
	};
	struct vmt_loop_set_rank *ranks = calloc(n, sizeof(*ranks));
	uint8_t *bytes = NULL;
	size_t len;
	int id, err;

	if (!ranks)
		return -ENOMEM;
	for (uint32_t r = 0; r < n; r++)
		ranks[r] = (struct vmt_loop_set_rank){ th[r]->info.stream_id, th[r]->keys };
	err = vmt_loop_set_encode(ranks, n, th[0]->nr_keys, &bytes, &len);
	free(ranks);
	if (err)
		return err;
	snprintf(info.name, sizeof(info.name), "loopset.%u", th[0]->info.tid);
	id = vmt_frame_writer_add_stream(w->frames, &info);
	err = id < 0 ? id : vmt_frame_writer_append(w->frames, (uint32_t)id, bytes, len);
	free(bytes);
	for (uint32_t r = 1; r < n; r++) {
		/* A member's stream stays empty: its bytes are the template's. */
		w->held -= th[r]->len;
		th[r]->len = 0;
		th[r]->written = true;
	}
	return err ? err : write_held(th[0]);
}

/*
 * The threads still held, made sets where their loops are the same and
 * written. O(n^2) hash comparisons for n threads held, at close only.
 */
static int write_sets(struct vmt_loop_writer *w)
{
	struct loop_thread **th = calloc(w->nr_threads + 1, sizeof(*th)), **set;
	uint32_t n = 0;
	int err = 0;

	set = calloc(w->nr_threads + 1, sizeof(*set));
	if (!th || !set) {
		free(th);
		free(set);
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < w->nr_threads; i++)
		if (!w->threads[i]->written && w->threads[i]->info.records)
			th[n++] = w->threads[i];
	qsort(th, n, sizeof(*th), by_thread);
	for (uint32_t i = 0; !err && i < n; i++)
		err = canon_of(th[i]);
	for (uint32_t i = 0; !err && i < n; i++) {
		uint32_t m = 0;

		if (th[i]->in_set)
			continue;
		set[m++] = th[i];
		for (uint32_t j = i + 1; j < n; j++)
			if (!th[j]->in_set && same_loops(th[i], th[j])) {
				th[j]->in_set = true;
				set[m++] = th[j];
			}
		err = m > 1 ? write_set(w, set, m) : 0;
	}
	free(th);
	free(set);
	return err;
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
	err = write_sets(w);
	for (uint32_t i = 0; !err && i < w->nr_threads; i++)
		err = w->threads[i]->written ? 0 : write_held(w->threads[i]);
	if (err == -ENOMEM || err == -EBADMSG)
		return vmt_frame_writer_fail(w->frames, err, err == -ENOMEM ? "out of memory" :
					     "loop sets: the encoder's descriptors do not parse");
	if (err)
		return err;
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
		free(w->threads[i]->held);
		free(w->threads[i]->canon);
		free(w->threads[i]->keys);
		free(w->threads[i]);
	}
	free(w->threads);
	free(w);
}
