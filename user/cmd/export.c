// SPDX-License-Identifier: GPL-2.0
/*
 * vmtrace export --format raw [--stream ID] FILE -o OUT: a trace file's
 * records back out as raw records, or one stream's entries as they are.
 */
#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "vmtrace/trace.h"
#include "cmd_util.h"
#include "commands.h"

static int export_stream(struct vmt_trace *t, uint32_t stream, FILE *out)
{
	const struct vmt_trace_stream_info *info = vmt_trace_stream(t, stream);
	struct vmt_trace_stream_stats st;
	uint8_t entry[4096];

	vmt_trace_stream_stats(t, stream, &st);
	for (uint64_t i = 0; i < st.entries; i++) {
		if (vmt_trace_read(t, stream, i, entry))
			return -1;
		if (fwrite(entry, info->entry_size, 1, out) != 1)
			return -2;
	}
	return 0;
}

static int export_records(struct vmt_trace *t, FILE *out)
{
	struct vmt_trace_cursor *cursor;
	const struct vmt_record *rec;
	uint32_t stream;
	int n, ret = 0;

	if (vmt_trace_cursor_create(t, VMT_ORDER_WRITTEN, &cursor))
		return -1;
	while ((n = vmt_trace_cursor_next(cursor, &rec, &stream)) > 0)
		if (fwrite(rec, sizeof(*rec), 1, out) != 1) {
			ret = -2;
			break;
		}
	if (n < 0)
		ret = -1;
	vmt_trace_cursor_free(cursor);
	return ret;
}

static const char export_usage[] =
	"usage: vmtrace export --format raw [--stream ID] FILE -o OUT\n"
	"  every record, in the order they were written, as raw 64-byte records\n"
	"  (the format record-raw writes); with --stream, that stream's entries only\n";

void usage_export(FILE *out)
{
	fputs(export_usage, out);
}

int cmd_export(int argc, char **argv)
{
	static const struct option options[] = {
		{ "format", required_argument, NULL, 'F' },
		{ "stream", required_argument, NULL, 's' },
		{ "output", required_argument, NULL, 'o' },
		{ NULL, 0, NULL, 0 },
	};
	const char *out_path = NULL, *format = NULL;
	long long stream = -1;
	struct vmt_trace *t;
	int opt, ret;
	FILE *out;

	while ((opt = getopt_long(argc, argv, "o:", options, NULL)) != -1) {
		switch (opt) {
		case 'F':
			format = optarg;
			break;
		case 's':
			stream = parse_number("export", "stream", optarg, 0, UINT32_MAX);
			if (stream < 0)
				return 2;
			break;
		case 'o':
			out_path = optarg;
			break;
		default:
			usage_export(stderr);
			return 2;
		}
	}
	if (optind != argc - 1 || !out_path || !format) {
		usage_export(stderr);
		return 2;
	}
	if (strcmp(format, "raw")) {
		fprintf(stderr, "vmtrace export: unknown format '%s' (raw is the one there is)\n",
			format);
		return 2;
	}
	t = open_or_say("export", argv[optind], 0);
	if (!t)
		return 1;
	if (stream >= vmt_trace_nr_streams(t)) {
		fprintf(stderr, "vmtrace export: %s has no stream %lld (%u streams)\n",
			argv[optind], stream, vmt_trace_nr_streams(t));
		vmt_trace_close(t);
		return 1;
	}
	out = fopen(out_path, "wb");
	if (!out) {
		fprintf(stderr, "vmtrace export: cannot write %s: %s\n", out_path, strerror(errno));
		vmt_trace_close(t);
		return 1;
	}
	ret = stream >= 0 ? export_stream(t, (uint32_t)stream, out) : export_records(t, out);
	if (fclose(out) && !ret)
		ret = -2;
	if (ret == -1)
		fprintf(stderr, "vmtrace export: %s: %s\n", argv[optind], vmt_trace_error_message(t));
	else if (ret)
		fprintf(stderr, "vmtrace export: writing %s: %s\n", out_path, strerror(errno));
	vmt_trace_close(t);
	return ret ? 1 : 0;
}
