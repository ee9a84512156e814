// SPDX-License-Identifier: GPL-2.0
/*
 * What vmtrace export's formats share (export_records.h): each record the
 * trace's filter passes, a record's data, and the output's last check.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>

#include "export_records.h"

int64_t export_each(struct vmt_trace *t, enum vmt_trace_order order,
		    int (*fn)(void *ctx, const struct vmt_record *rec), void *ctx)
{
	struct vmt_trace_cursor *cursor;
	const struct vmt_record *rec;
	int64_t count = 0;
	uint32_t stream;
	int n, ret = 0;

	if (vmt_trace_cursor_create(t, order, &cursor))
		return EXPORT_TRACE_ERROR;
	while ((n = vmt_trace_cursor_next(cursor, &rec, &stream)) > 0) {
		ret = fn(ctx, rec);
		if (ret)
			break;
		count++;
	}
	vmt_trace_cursor_free(cursor);
	if (ret)
		return ret;
	return n < 0 ? EXPORT_TRACE_ERROR : count;
}

const void *export_record_data(struct vmt_trace *t, const struct vmt_record *rec)
{
	static unsigned char data[VMT_MAX_DATA_LEN];

	if (!rec->hdr.data_len)
		return NULL;
	return vmt_trace_record_data(t, rec, data, sizeof(data)) >= 0 ? data : NULL;
}

int64_t export_check_output(FILE *out, int64_t ret)
{
	if (fflush(out) || ferror(out)) {
		if (!errno)
			errno = EIO;
		return EXPORT_WRITE_ERROR;
	}
	return ret;
}
