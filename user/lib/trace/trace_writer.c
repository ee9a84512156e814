// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * The trace writer: the public handle, struct vmt_trace_writer, and its
 * record layer, what vmt_trace_writer_append_record() does with a ring's
 * records, above the container writer (frame_writer.c) and through its
 * streams. The write side of trace_cursor.c:
 *
 *   - each record goes to the record stream of its type and CPU ("exec.cpu0"),
 *     made on first use; with the model codec, every CPU's references and
 *     evictions share one stream ("mem"), so that a frame holds the
 *     references an eviction follows from, whichever CPU made them
 *     (codec_model.c replays them), for the time window it covers;
 *   - the order stream keeps the order they came in, as runs (stream, count)
 *     of consecutive records in one stream;
 *   - a record's variable-size data, put back together from the DATA
 *     records after it (record_assembler.c), goes to the data stream, and
 *     the record keeps its offset there (VMT_DATA_OFF_WORD);
 *   - with loops_window, exact accesses go to their thread's loop stream
 *     instead (loop_writer.c), which the order stream's runs name as they
 *     name record streams; their data only when values are kept.
 *
 * Frames, compression and the file are the container writer's. Every
 * vmt_trace_writer_*() is the entry: it finishes what the record layer
 * holds, then calls the container, which never calls back up.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/bytes.h"
#include "device/record_assembler.h"
#include "trace/frame_writer.h"
#include "trace/loop_writer.h"

struct vmt_trace_writer {
	struct vmt_frame_writer *frames;	/* the container below */
	struct vmt_record_assembler assembler;	/* records waiting for their data */
	int data_stream;		/* -1 until the first datum */
	uint64_t data_bytes, orphan_data, cut_data;
	int order_stream;		/* -1 until the first record */
	int run_stream;
	uint32_t run_count;
	int last_record_stream;
	struct vmt_loop_writer *loops;	/* NULL without loops_window */
	unsigned int loops_keep;
};

static bool to_loops(const struct vmt_trace_writer *w, const struct vmt_record *rec)
{
	return w->loops && rec->hdr.type == VMT_REC_EXACT;
}

static int append_assembled(void *ctx, const struct vmt_record *record, const uint8_t *data,
			    bool cut);

/* Whether @rec goes to the one stream of every CPU's memory records (see the top). */
static bool in_mem_stream(const struct vmt_trace_writer *w, const struct vmt_record *rec)
{
	return vmt_frame_writer_codec(w->frames) == VMT_CODEC_MODEL &&
	       (rec->hdr.type == VMT_REC_REFERENCE || rec->hdr.type == VMT_REC_EVICT);
}

/* The record stream for @rec's type and CPU, made on first use. */
static int record_stream(struct vmt_trace_writer *w, const struct vmt_record *rec)
{
	bool mem = in_mem_stream(w, rec);
	struct vmt_trace_stream_info info = {
		.entry_size = sizeof(*rec),
		.kind = VMT_STREAM_RECORDS,
		.record_type = mem ? VMT_TRACE_ANY_TYPE : rec->hdr.type,
		.cpu = mem ? VMT_TRACE_ANY_CPU : rec->hdr.cpu,
		.time_offset = 0,
	};
	const char *type = vmt_record_type_name(rec->hdr.type);
	const struct vmt_trace_stream_info *last;

	if (w->last_record_stream >= 0) {
		last = vmt_frame_writer_stream(w->frames, (uint32_t)w->last_record_stream);
		if (last->record_type == info.record_type && last->cpu == info.cpu)
			return w->last_record_stream;
	}
	for (uint32_t i = 0; i < vmt_frame_writer_nr_streams(w->frames); i++) {
		const struct vmt_trace_stream_info *si = vmt_frame_writer_stream(w->frames, i);

		if (si->kind == VMT_STREAM_RECORDS && si->record_type == info.record_type &&
		    si->cpu == info.cpu)
			return w->last_record_stream = (int)i;
	}
	if (mem)
		snprintf(info.name, sizeof(info.name), "mem");
	else if (type)
		snprintf(info.name, sizeof(info.name), "%s.cpu%u", type, rec->hdr.cpu);
	else
		snprintf(info.name, sizeof(info.name), "type%u.cpu%u", rec->hdr.type,
			 rec->hdr.cpu);
	return w->last_record_stream = vmt_frame_writer_add_stream(w->frames, &info);
}

/* Ends the order stream's current run. */
static int end_order_run(struct vmt_trace_writer *w)
{
	struct vmt_trace_order_run run;
	uint8_t entry[sizeof(run)];

	if (!w->run_count)
		return 0;
	vmt_put32(entry, (uint32_t)w->run_stream);
	vmt_put32(entry + 4, w->run_count);
	w->run_count = 0;
	return vmt_frame_writer_append(w->frames, (uint32_t)w->order_stream, entry, 1);
}

/* @record to its stream, and to the order stream's run. */
static int append_one_record(struct vmt_trace_writer *w, const struct vmt_record *record)
{
	int stream, err;

	if (w->order_stream < 0) {
		struct vmt_trace_stream_info info = {
			.entry_size = sizeof(struct vmt_trace_order_run),
			.kind = VMT_STREAM_ORDER,
			.cpu = VMT_TRACE_ANY_CPU,
			.time_offset = VMT_TRACE_NO_TIME,
			.name = "order",
		};

		w->order_stream = vmt_frame_writer_add_stream(w->frames, &info);
		if (w->order_stream < 0)
			return w->order_stream;
	}
	stream = to_loops(w, record) ? vmt_loop_writer_add(w->loops, record)
				     : record_stream(w, record);
	if (stream < 0)
		return stream;
	if (stream != w->run_stream || w->run_count == UINT32_MAX) {
		err = end_order_run(w);
		if (err)
			return err;
		w->run_stream = stream;
	}
	if (!to_loops(w, record)) {
		err = vmt_frame_writer_append(w->frames, (uint32_t)stream, record, 1);
		if (err)
			return err;
	}
	w->run_count++;
	return 0;
}

/* The data stream, made on first use. */
static int data_stream(struct vmt_trace_writer *w)
{
	struct vmt_trace_stream_info info = {
		.entry_size = 1,
		.kind = VMT_STREAM_DATA,
		.cpu = VMT_TRACE_ANY_CPU,
		.time_offset = VMT_TRACE_NO_TIME,
		.name = "data",
	};

	if (w->data_stream < 0)
		w->data_stream = vmt_frame_writer_add_stream(w->frames, &info);
	return w->data_stream;
}

/* A record whose data is in, or is all there will be: its bytes to the data stream. */
static int append_assembled(void *ctx, const struct vmt_record *record, const uint8_t *data,
			    bool cut)
{
	struct vmt_trace_writer *w = ctx;
	struct vmt_record owner = *record;
	int stream, err;

	if (cut)
		w->cut_data++;
	/* A loop stream's dropped values drop their data too. */
	if (to_loops(w, &owner) && !(w->loops_keep & VMT_LOOPS_KEEP_VALUES))
		owner.hdr.data_len = 0;
	/*
	 * Only a record with data gives its last word to the data's offset: in
	 * any other it is the record's own (a reference's flags, an exact
	 * access's value), and is kept as it came.
	 */
	if (owner.hdr.data_len) {
		stream = data_stream(w);
		if (stream < 0)
			return stream;
		err = vmt_frame_writer_append(w->frames, (uint32_t)stream, data, owner.hdr.data_len);
		if (err)
			return err;
		owner.raw[VMT_DATA_OFF_WORD] = w->data_bytes;
		w->data_bytes += owner.hdr.data_len;
	}
	return append_one_record(w, &owner);
}

int vmt_trace_writer_append_record(struct vmt_trace_writer *w, const struct vmt_record *record)
{
	int ret = vmt_record_assembler_add(&w->assembler, record);

	switch (ret) {
	case VMT_ASSEMBLY_TAKEN:
		return 0;
	case VMT_ASSEMBLY_NO_DATA:
		return append_one_record(w, record);
	case VMT_ASSEMBLY_ORPHAN:
		w->orphan_data++;
		return 0;
	case VMT_ASSEMBLY_TOO_LONG:
		return vmt_frame_writer_fail(w->frames, -EINVAL,
					     "a record of type %u claims %u bytes of data (at most %u)",
					     record->hdr.type, record->hdr.data_len, VMT_MAX_DATA_LEN);
	case -ENOMEM:
		/* The assembler's own; every other one has said this already. */
		return vmt_frame_writer_fail(w->frames, ret, "out of memory");
	}
	return ret;
}

int vmt_trace_writer_append_records(struct vmt_trace_writer *w, const struct vmt_record *records,
				    size_t count)
{
	for (size_t i = 0, j; i < count; i = j) {
		const struct vmt_record *r = &records[i];
		int err = vmt_trace_writer_append_record(w, r);

		if (err)
			return err;
		j = i + 1;
		if (w->loops || r->hdr.type == VMT_REC_DATA || r->hdr.data_len)
			continue;
		/*
		 * Its CPU holds nothing back now, and the records like it
		 * after it (no data, the same type and CPU) would each go to
		 * its stream, w->run_stream, and its order run: all at once.
		 */
		while (j < count && records[j].hdr.type == r->hdr.type &&
		       records[j].hdr.cpu == r->hdr.cpu && !records[j].hdr.data_len &&
		       (uint64_t)w->run_count + (j - i - 1) < UINT32_MAX)
			j++;
		if (j == i + 1)
			continue;
		err = vmt_frame_writer_append(w->frames, (uint32_t)w->run_stream, r + 1, j - i - 1);
		if (err)
			return err;
		w->run_count += (uint32_t)(j - i - 1);
	}
	return 0;
}

int vmt_trace_writer_append_record_data(struct vmt_trace_writer *w,
					const struct vmt_record *record, const void *data)
{
	if (record->hdr.type == VMT_REC_DATA || record->hdr.data_len > VMT_MAX_DATA_LEN)
		return vmt_frame_writer_fail(w->frames, -EINVAL,
					     "a record of type %u with %u bytes of data",
					     record->hdr.type, record->hdr.data_len);
	return append_assembled(w, record, data, false);
}

int vmt_trace_writer_create(struct vmt_trace_writer **writer, const char *path,
			    const struct vmt_trace_writer_options *options,
			    struct vmt_trace_error *err)
{
	struct vmt_frame_writer *frames;
	struct vmt_trace_writer *w;
	int ret;

	*writer = NULL;
	w = calloc(1, sizeof(*w));
	if (!w) {
		snprintf(err->message, sizeof(err->message), "out of memory");
		return -ENOMEM;
	}
	ret = vmt_frame_writer_create(&frames, path, options, err);
	if (ret) {
		free(w);
		return ret;
	}
	w->frames = frames;
	if (options && options->loops_window) {
		ret = vmt_loop_writer_create(&w->loops, frames, options->loops_window,
					     options->loops_keep);
		if (ret) {
			snprintf(err->message, sizeof(err->message), "%s",
				 vmt_frame_writer_error_message(frames));
			vmt_frame_writer_abandon(frames);
			free(w);
			return ret;
		}
		w->loops_keep = options->loops_keep;
	}
	vmt_record_assembler_init(&w->assembler, append_assembled, w);
	w->order_stream = w->run_stream = w->last_record_stream = w->data_stream = -1;
	*writer = w;
	return 0;
}

int vmt_trace_writer_add_stream(struct vmt_trace_writer *w,
				const struct vmt_trace_stream_info *info)
{
	return vmt_frame_writer_add_stream(w->frames, info);
}

int vmt_trace_writer_append(struct vmt_trace_writer *w, uint32_t stream_id, const void *entries,
			    size_t count)
{
	return vmt_frame_writer_append(w->frames, stream_id, entries, count);
}

int vmt_trace_writer_flush(struct vmt_trace_writer *w)
{
	int err = end_order_run(w);

	return err ? err : vmt_frame_writer_flush(w->frames);
}

/* Only the appending thread changes the record layer's counts: no lock. */
void vmt_trace_writer_stats(struct vmt_trace_writer *w, struct vmt_trace_writer_stats *stats)
{
	vmt_frame_writer_stats(w->frames, stats);
	stats->data_bytes = w->data_bytes;
	stats->orphan_data = w->orphan_data;
	stats->cut_data = w->cut_data;
}

const char *vmt_trace_writer_error_message(const struct vmt_trace_writer *w)
{
	return vmt_frame_writer_error_message(w->frames);
}

static void writer_free(struct vmt_trace_writer *w)
{
	vmt_loop_writer_free(w->loops);
	vmt_record_assembler_free(&w->assembler);
	free(w);
}

void vmt_trace_writer_abandon(struct vmt_trace_writer *w)
{
	if (!w)
		return;
	vmt_frame_writer_abandon(w->frames);
	writer_free(w);
}

/*
 * Records still waiting for their data get what came, and the order
 * stream's last run is ended, before the container writes the directory.
 */
int vmt_trace_writer_close(struct vmt_trace_writer *w, struct vmt_trace_error *err)
{
	int ret = vmt_record_assembler_flush(&w->assembler);

	if (!ret && w->loops)
		ret = vmt_loop_writer_finish(w->loops);
	if (!ret)
		ret = end_order_run(w);
	if (ret) {
		if (err)
			snprintf(err->message, sizeof(err->message), "%s",
				 vmt_frame_writer_error_message(w->frames));
		vmt_frame_writer_abandon(w->frames);
	} else {
		ret = vmt_frame_writer_close(w->frames, err);
	}
	writer_free(w);
	return ret;
}

void vmt_trace_writer_set_sink(struct vmt_trace_writer *w, vmt_trace_block_sink sink, void *ctx)
{
	vmt_frame_writer_set_sink(w->frames, sink, ctx);
}

int vmt_trace_writer_open_blocks(struct vmt_trace_writer **writer, const char *path,
				 int resume, struct vmt_trace_error *err)
{
	struct vmt_trace_writer *w;
	int ret;

	*writer = NULL;
	w = calloc(1, sizeof(*w));
	if (!w) {
		snprintf(err->message, sizeof(err->message), "out of memory");
		return -ENOMEM;
	}
	ret = resume ? vmt_frame_writer_resume(&w->frames, path, err)
		     : vmt_frame_writer_create_encoded(&w->frames, path, err);
	if (ret) {
		free(w);
		return ret;
	}
	vmt_record_assembler_init(&w->assembler, append_assembled, w);
	w->order_stream = w->run_stream = w->last_record_stream = w->data_stream = -1;
	*writer = w;
	return 0;
}

int vmt_trace_writer_append_block(struct vmt_trace_writer *w, const void *block, size_t len)
{
	return vmt_frame_writer_append_block(w->frames, block, len);
}

uint64_t vmt_trace_writer_blocks(struct vmt_trace_writer *w)
{
	return vmt_frame_writer_blocks(w->frames);
}
