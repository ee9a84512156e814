// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * The trace writer's record layer: what vmt_trace_writer_append_record()
 * does with a ring's records, above the container writer (frame_writer.c)
 * and through its streams. The write side of trace_cursor.c:
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
 *     the record keeps its offset there (VMT_DATA_OFF_WORD).
 *
 * Frames, compression and the file are the container writer's.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "util/bytes.h"
#include "device/record_assembler.h"
#include "trace/frame_writer.h"

struct vmt_record_writer {
	struct vmt_trace_writer *writer;
	struct vmt_record_assembler assembler;	/* records waiting for their data */
	int data_stream;		/* -1 until the first datum */
	uint64_t data_bytes, orphan_data, cut_data;
	int order_stream;		/* -1 until the first record */
	int run_stream;
	uint32_t run_count;
	int last_record_stream;
};

static int append_assembled(void *ctx, const struct vmt_record *record, const uint8_t *data,
			    bool cut);

struct vmt_record_writer *vmt_record_writer_new(struct vmt_trace_writer *w)
{
	struct vmt_record_writer *rw = calloc(1, sizeof(*rw));

	if (!rw)
		return NULL;
	rw->writer = w;
	vmt_record_assembler_init(&rw->assembler, append_assembled, rw);
	rw->order_stream = rw->run_stream = rw->last_record_stream = rw->data_stream = -1;
	return rw;
}

/* Whether @rec goes to the one stream of every CPU's memory records (see the top). */
static bool in_mem_stream(const struct vmt_record_writer *rw, const struct vmt_record *rec)
{
	return vmt_trace_writer_codec(rw->writer) == VMT_CODEC_MODEL &&
	       (rec->hdr.type == VMT_REC_REFERENCE || rec->hdr.type == VMT_REC_EVICT);
}

/* The record stream for @rec's type and CPU, made on first use. */
static int record_stream(struct vmt_record_writer *rw, const struct vmt_record *rec)
{
	bool mem = in_mem_stream(rw, rec);
	struct vmt_trace_stream_info info = {
		.entry_size = sizeof(*rec),
		.kind = VMT_STREAM_RECORDS,
		.record_type = mem ? VMT_TRACE_ANY_TYPE : rec->hdr.type,
		.cpu = mem ? VMT_TRACE_ANY_CPU : rec->hdr.cpu,
		.time_offset = 0,
	};
	const char *type = vmt_record_type_name(rec->hdr.type);
	const struct vmt_trace_stream_info *last;

	if (rw->last_record_stream >= 0) {
		last = vmt_trace_writer_stream(rw->writer, (uint32_t)rw->last_record_stream);
		if (last->record_type == info.record_type && last->cpu == info.cpu)
			return rw->last_record_stream;
	}
	for (uint32_t i = 0; i < vmt_trace_writer_nr_streams(rw->writer); i++) {
		const struct vmt_trace_stream_info *si = vmt_trace_writer_stream(rw->writer, i);

		if (si->kind == VMT_STREAM_RECORDS && si->record_type == info.record_type &&
		    si->cpu == info.cpu)
			return rw->last_record_stream = (int)i;
	}
	if (mem)
		snprintf(info.name, sizeof(info.name), "mem");
	else if (type)
		snprintf(info.name, sizeof(info.name), "%s.cpu%u", type, rec->hdr.cpu);
	else
		snprintf(info.name, sizeof(info.name), "type%u.cpu%u", rec->hdr.type,
			 rec->hdr.cpu);
	return rw->last_record_stream = vmt_trace_writer_add_stream(rw->writer, &info);
}

int vmt_record_writer_flush(struct vmt_record_writer *rw)
{
	struct vmt_trace_order_run run;
	uint8_t entry[sizeof(run)];

	if (!rw->run_count)
		return 0;
	vmt_put32(entry, (uint32_t)rw->run_stream);
	vmt_put32(entry + 4, rw->run_count);
	rw->run_count = 0;
	return vmt_trace_writer_append(rw->writer, (uint32_t)rw->order_stream, entry, 1);
}

/* @record to its stream, and to the order stream's run. */
static int append_one_record(struct vmt_record_writer *rw, const struct vmt_record *record)
{
	int stream, err;

	if (rw->order_stream < 0) {
		struct vmt_trace_stream_info info = {
			.entry_size = sizeof(struct vmt_trace_order_run),
			.kind = VMT_STREAM_ORDER,
			.cpu = VMT_TRACE_ANY_CPU,
			.time_offset = VMT_TRACE_NO_TIME,
			.name = "order",
		};

		rw->order_stream = vmt_trace_writer_add_stream(rw->writer, &info);
		if (rw->order_stream < 0)
			return rw->order_stream;
	}
	stream = record_stream(rw, record);
	if (stream < 0)
		return stream;
	if (stream != rw->run_stream || rw->run_count == UINT32_MAX) {
		err = vmt_record_writer_flush(rw);
		if (err)
			return err;
		rw->run_stream = stream;
	}
	err = vmt_trace_writer_append(rw->writer, (uint32_t)stream, record, 1);
	if (err)
		return err;
	rw->run_count++;
	return 0;
}

/* The data stream, made on first use. */
static int data_stream(struct vmt_record_writer *rw)
{
	struct vmt_trace_stream_info info = {
		.entry_size = 1,
		.kind = VMT_STREAM_DATA,
		.cpu = VMT_TRACE_ANY_CPU,
		.time_offset = VMT_TRACE_NO_TIME,
		.name = "data",
	};

	if (rw->data_stream < 0)
		rw->data_stream = vmt_trace_writer_add_stream(rw->writer, &info);
	return rw->data_stream;
}

/* A record whose data is in, or is all there will be: its bytes to the data stream. */
static int append_assembled(void *ctx, const struct vmt_record *record, const uint8_t *data,
			    bool cut)
{
	struct vmt_record_writer *rw = ctx;
	struct vmt_record owner = *record;
	int stream, err;

	if (cut)
		rw->cut_data++;
	owner.raw[VMT_DATA_OFF_WORD] = 0;
	if (owner.hdr.data_len) {
		stream = data_stream(rw);
		if (stream < 0)
			return stream;
		err = vmt_trace_writer_append(rw->writer, (uint32_t)stream, data, owner.hdr.data_len);
		if (err)
			return err;
		owner.raw[VMT_DATA_OFF_WORD] = rw->data_bytes;
		rw->data_bytes += owner.hdr.data_len;
	}
	return append_one_record(rw, &owner);
}

int vmt_record_writer_append(struct vmt_record_writer *rw, const struct vmt_record *record)
{
	int ret = vmt_record_assembler_add(&rw->assembler, record);

	switch (ret) {
	case VMT_ASSEMBLY_TAKEN:
		return 0;
	case VMT_ASSEMBLY_NO_DATA:
		return append_one_record(rw, record);
	case VMT_ASSEMBLY_ORPHAN:
		rw->orphan_data++;
		return 0;
	case VMT_ASSEMBLY_TOO_LONG:
		return vmt_trace_writer_fail(rw->writer, -EINVAL,
					     "a record of type %u claims %u bytes of data (at most %u)",
					     record->hdr.type, record->hdr.data_len, VMT_MAX_DATA_LEN);
	case -ENOMEM:
		/* The assembler's own; every other one has said this already. */
		return vmt_trace_writer_fail(rw->writer, ret, "out of memory");
	}
	return ret;
}

int vmt_record_writer_append_data(struct vmt_record_writer *rw, const struct vmt_record *record,
				  const void *data)
{
	return append_assembled(rw, record, data, false);
}

int vmt_record_writer_finish(struct vmt_record_writer *rw)
{
	return vmt_record_assembler_flush(&rw->assembler);
}

/* Only the appending thread changes these: no lock. */
void vmt_record_writer_stats(const struct vmt_record_writer *rw,
			     struct vmt_trace_writer_stats *stats)
{
	stats->data_bytes = rw->data_bytes;
	stats->orphan_data = rw->orphan_data;
	stats->cut_data = rw->cut_data;
}

void vmt_record_writer_free(struct vmt_record_writer *rw)
{
	if (!rw)
		return;
	vmt_record_assembler_free(&rw->assembler);
	free(rw);
}
