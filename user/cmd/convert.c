// SPDX-License-Identifier: GPL-2.0
/*
 * vmtrace convert RAW -o FILE [writer options]: raw records (record-raw's
 * file) into a trace file, through the trace writer; a summary line with
 * the sizes and the ratio at the end.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "vmtrace/trace.h"
#include "commands.h"
#include "util/cmd_util.h"
#include "util/writer_options.h"

#define CONVERT_BATCH 1024

static const char convert_usage[] =
	"usage: vmtrace convert RAW -o FILE [--codec model|vpc|zstd|xz|none] [--stage2 zstd|xz]\n"
	"                       [--level N] [--frame-bytes N]\n";

static int convert_records(FILE *in, const char *raw_path, struct vmt_trace_writer *w,
			   unsigned long long *records)
{
	static struct vmt_record batch[CONVERT_BATCH];
	size_t n;
	int err;

	while ((n = fread(batch, 1, sizeof(batch), in)) > 0) {
		size_t whole = n / sizeof(batch[0]);

		for (size_t i = 0; i < whole; i++) {
			err = vmt_trace_writer_append_record(w, &batch[i]);
			if (err) {
				fprintf(stderr, "vmtrace convert: %s\n",
					vmt_trace_writer_error_message(w));
				return 1;
			}
		}
		*records += whole;
		if (n % sizeof(batch[0])) {
			fprintf(stderr,
				"vmtrace convert: %s: truncated record %llu (byte offset %llu)\n",
				raw_path, *records,
				*records * (unsigned long long)sizeof(struct vmt_record));
			return 1;
		}
	}
	if (ferror(in)) {
		fprintf(stderr, "vmtrace convert: %s: read error after record %llu\n", raw_path,
			*records);
		return 1;
	}
	return 0;
}

void usage_convert(FILE *out)
{
	fputs(convert_usage, out);
	fputs(writer_options_usage, out);
}

int cmd_convert(int argc, char **argv)
{
	static const struct option options[] = {
		{ "output", required_argument, NULL, 'o' },
		WRITER_LONG_OPTIONS,
		{ NULL, 0, NULL, 0 },
	};
	struct vmt_trace_writer_options wopts = { .codec = VMT_CODEC_MODEL };
	const char *out_path = NULL, *raw_path;
	struct vmt_trace_writer *w;
	struct vmt_trace_error err;
	unsigned long long records = 0;
	long long in_size, out_size;
	int opt, taken, status;
	FILE *in;

	while ((opt = getopt_long(argc, argv, "o:", options, NULL)) != -1) {
		if (opt == 'o') {
			out_path = optarg;
			continue;
		}
		taken = parse_writer_option("convert", opt, optarg, &wopts);
		if (taken < 0)
			return 2;
		if (!taken) {
			usage_convert(stderr);
			return 2;
		}
	}
	if (optind != argc - 1 || !out_path) {
		usage_convert(stderr);
		return 2;
	}
	raw_path = argv[optind];
	in = fopen(raw_path, "rb");
	if (!in) {
		fprintf(stderr, "vmtrace convert: cannot read %s: %s\n", raw_path, strerror(errno));
		return 1;
	}
	if (vmt_trace_writer_create(&w, out_path, &wopts, &err)) {
		fprintf(stderr, "vmtrace convert: %s\n", err.message);
		fclose(in);
		return 1;
	}
	status = convert_records(in, raw_path, w, &records);
	fclose(in);
	if (status) {
		vmt_trace_writer_abandon(w);
		return status;
	}
	if (vmt_trace_writer_close(w, &err)) {
		fprintf(stderr, "vmtrace convert: %s: %s\n", out_path, err.message);
		return 1;
	}
	in_size = file_size(raw_path);
	out_size = file_size(out_path);
	fprintf(stderr, "[ vmtrace convert: wrote %s (%llu records, %lld bytes from %lld: %.2fx, %.2f bytes a record) ]\n",
		out_path, records, out_size, in_size,
		out_size > 0 ? (double)in_size / (double)out_size : 0.0,
		records ? (double)out_size / (double)records : 0.0);
	return 0;
}
