/* SPDX-License-Identifier: GPL-2.0 */
/*
 * export_records.c: what vmtrace export's formats (export.c's raw, and
 * export_csv.c, export_din.c, export_perfetto.c) share: their options,
 * their errors, and the loop over the records.
 */
#ifndef VMTRACE_CMD_EXPORT_RECORDS_H
#define VMTRACE_CMD_EXPORT_RECORDS_H

#include <stdint.h>
#include <stdio.h>

#include "vmtrace/trace.h"

struct export_options {
	const char *out_path;	/* -o; NULL: standard output */
	uint32_t types;		/* the --type filter's bits; 0: every type */
	uint64_t from_time, to_time;	/* --from, --to; 0 and UINT64_MAX without */
	uint64_t bucket_ns;	/* perfetto's counters; 0: about 1000 buckets */
	uint64_t max_references;	/* perfetto: references written as events */
};

/* What the writers return besides a count of records. */
enum {
	EXPORT_TRACE_ERROR = -1,	/* reading the trace: vmt_trace_error_message() */
	EXPORT_WRITE_ERROR = -2,	/* writing: errno */
	EXPORT_NO_MEMORY = -3,
	EXPORT_SAID = -4,		/* the writer said what went wrong */
};

/*
 * Each record the trace's filter passes, in @order, to @fn (which returns
 * 0 or an EXPORT_* error); the count of records, or the error.
 */
int64_t export_each(struct vmt_trace *t, enum vmt_trace_order order,
		    int (*fn)(void *ctx, const struct vmt_record *rec), void *ctx);
/* @rec's variable-size data in a buffer of VMT_MAX_DATA_LEN, or NULL: none, or not had. */
const void *export_record_data(struct vmt_trace *t, const struct vmt_record *rec);
/* EXPORT_WRITE_ERROR when @out had an error writing, else @ret. */
int64_t export_check_output(FILE *out, int64_t ret);

#endif
