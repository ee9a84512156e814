// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Reading the variable-size data of records (paths, names, marker texts)
 * from a trace's data stream.
 */
#include <errno.h>
#include <stdint.h>

#include <vmtrace/trace.h>

static int find_data_stream(const struct vmt_trace *trace)
{
	for (uint32_t i = 0; i < vmt_trace_nr_streams(trace); i++)
		if (vmt_trace_stream(trace, i)->kind == VMT_STREAM_DATA)
			return (int)i;
	return -ENOENT;
}

int vmt_trace_record_data(struct vmt_trace *trace, const struct vmt_record *record, void *buf,
			  size_t size)
{
	uint64_t off = record->raw[VMT_DATA_OFF_WORD];
	uint32_t len = record->hdr.data_len;
	uint8_t *out = buf;
	int stream, err;

	if (!len)
		return 0;
	if (len > size)
		return -ENOSPC;
	stream = find_data_stream(trace);
	if (stream < 0)
		return stream;
	/* Entries are single bytes; the reader keeps the frame they are in. */
	for (uint32_t i = 0; i < len; i++) {
		err = vmt_trace_read(trace, (uint32_t)stream, off + i, out + i);
		if (err)
			return err;
	}
	return (int)len;
}
