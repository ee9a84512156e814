// SPDX-License-Identifier: GPL-2.0
/*
 * The trace-file commands: convert (raw records to a trace file), info,
 * dump, verify [--repair], export --format raw. They print what the library
 * reports; exit status 0 success, 1 the file or the operation failed, 2 bad
 * usage.
 */
#include <errno.h>
#include <stdbool.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "vmtrace/trace.h"
#include "cmd_util.h"
#include "commands.h"
#include "filter_options.h"
#include "record_print.h"
#include "record_diff.h"
#include "writer_options.h"

#define CONVERT_BATCH 1024

static const char convert_usage[] =
	"usage: vmtrace convert RAW -o FILE [--codec vpc|zstd|xz|none] [--stage2 zstd|xz]\n"
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
	struct vmt_trace_writer_options wopts = { .codec = VMT_CODEC_VPC };
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

static const char *kind_name(uint32_t kind)
{
	static const char *const names[] = { "opaque", "records", "order" };

	return kind < 3 ? names[kind] : "?";
}

void usage_info(FILE *out)
{
	fputs("usage: vmtrace info FILE\n"
	      "  a trace file's streams, frames and compression\n", out);
}

int cmd_info(int argc, char **argv)
{
	uint64_t total_entries = 0;
	struct vmt_trace *t;

	if (argc != 2 || argv[1][0] == '-') {
		usage_info(stderr);
		return 2;
	}
	t = open_or_say("info", argv[1], 0);
	if (!t)
		return 1;
	printf("%s: vmtrace trace, format version %u, %lld bytes, %u streams, %llu frames\n",
	       argv[1], VMT_TRACE_FORMAT_VERSION, file_size(argv[1]), vmt_trace_nr_streams(t),
	       (unsigned long long)vmt_trace_nr_frames(t));
	printf("%-4s %-14s %-8s %6s %12s %8s  %s\n", "id", "name", "kind", "size", "entries",
	       "frames", "time");
	for (uint32_t i = 0; i < vmt_trace_nr_streams(t); i++) {
		const struct vmt_trace_stream_info *info = vmt_trace_stream(t, i);
		struct vmt_trace_stream_stats st;

		vmt_trace_stream_stats(t, i, &st);
		printf("%-4u %-14s %-8s %6u %12llu %8llu", i, info->name, kind_name(info->kind),
		       info->entry_size, (unsigned long long)st.entries,
		       (unsigned long long)st.frames);
		if (info->time_offset != VMT_TRACE_NO_TIME && st.entries)
			printf("  %llu..%llu%s", (unsigned long long)st.first_time,
			       (unsigned long long)st.last_time, st.time_sorted ? "" : " (unsorted)");
		printf("\n");
		if (info->kind == VMT_STREAM_RECORDS)
			total_entries += st.entries;
	}
	printf("records: %llu\n", (unsigned long long)total_entries);
	vmt_trace_close(t);
	return 0;
}

static const char dump_usage[] =
	"usage: vmtrace dump [--order written|time] [--diff] [filter options] FILE\n"
	"  one record a line, in the order they were written (default) or by time\n"
	"  --diff           difference-encoded text, in the manner of Laplace's traces:\n"
	"                   '# vmtrace diff 1: dt pid tid cpu kind delta', then a line a\n"
	"                   record, 'DT PID TID CPU KIND DELTA':\n"
	"                   DT     ns since the previous line's record (signed; the first\n"
	"                          line's: its time)\n"
	"                   KIND   R, W or X (the access), then k if from kernel mode;\n"
	"                          E an eviction, then d if written while enabled;\n"
	"                          h after either: a huge page; L lost records (PID and TID\n"
	"                          are -, DELTA is the count); another type: its name\n"
	"                          as dump prints it (switch, fork, ...), DELTA 0\n"
	"                   DELTA  the address minus the same pid's previous one of\n"
	"                          the same kind (reference or eviction); signed decimal;\n"
	"                          a pid's first of each kind: the address\n";

/* 0, -ENOMEM, or another -errno with the message in the trace. */
static int dump_records(struct vmt_trace *t, struct vmt_trace_cursor *cursor, bool diff)
{
	static unsigned char data[VMT_MAX_DATA_LEN];
	struct record_diff *d = NULL;
	const struct vmt_record *rec;
	uint32_t stream;
	int n;

	if (diff) {
		d = record_diff_new();
		if (!d)
			return -ENOMEM;
		record_diff_header(stdout);
	}
	while ((n = vmt_trace_cursor_next(cursor, &rec, &stream)) > 0) {
		if (!d) {
			print_record(stdout, rec,
				     vmt_trace_record_data(t, rec, data, sizeof(data)) >= 0 ?
				     data : NULL);
		} else if (record_diff_print(d, stdout, rec)) {
			n = -ENOMEM;
			break;
		}
	}
	record_diff_free(d);
	return n;
}

void usage_dump(FILE *out)
{
	fputs(dump_usage, out);
	fputs(filter_options_usage, out);
}

int cmd_dump(int argc, char **argv)
{
	static const struct option options[] = {
		{ "order", required_argument, NULL, 'O' },
		{ "diff", no_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		FILTER_LONG_OPTIONS,
		{ NULL, 0, NULL, 0 },
	};
	enum vmt_trace_order order = VMT_ORDER_WRITTEN;
	struct filter_options filter = { 0 };
	struct vmt_trace_cursor *cursor;
	struct vmt_trace *t;
	bool diff = false;
	int opt, n;

	while ((opt = getopt_long(argc, argv, "h", options, NULL)) != -1) {
		if (opt == 'O' && !strcmp(optarg, "written")) {
			order = VMT_ORDER_WRITTEN;
		} else if (opt == 'O' && !strcmp(optarg, "time")) {
			order = VMT_ORDER_TIME;
		} else if (opt == 'd') {
			diff = true;
		} else if (opt == 'h') {
			usage_dump(stdout);
			return 0;
		} else {
			n = parse_filter_option("dump", opt, optarg, &filter);
			if (n < 0)
				return 2;
			if (!n) {
				usage_dump(stderr);
				return 2;
			}
		}
	}
	if (optind != argc - 1) {
		usage_dump(stderr);
		return 2;
	}
	t = open_or_say("dump", argv[optind], 0);
	if (!t)
		return 1;
	if (apply_filter_options("dump", t, &filter)) {
		vmt_trace_close(t);
		return 1;
	}
	if (vmt_trace_cursor_create(t, order, &cursor)) {
		fprintf(stderr, "vmtrace dump: %s\n", vmt_trace_error_message(t));
		vmt_trace_close(t);
		return 1;
	}
	n = dump_records(t, cursor, diff);
	if (n < 0)
		fprintf(stderr, "vmtrace dump: %s: %s\n", argv[optind],
			n == -ENOMEM ? strerror(ENOMEM) : vmt_trace_error_message(t));
	vmt_trace_cursor_free(cursor);
	vmt_trace_close(t);
	return n < 0 ? 1 : 0;
}

/*
 * Every block read by a scan and every frame decoded; then the directory
 * read and every frame decoded through it. The two must list the same frames.
 */
static int verify_file(const char *path)
{
	uint64_t entries = 0, scanned_frames;
	struct vmt_trace *t;

	t = open_or_say("verify", path, VMT_TRACE_OPEN_SCAN);
	if (!t) {
		fprintf(stderr, "vmtrace verify: 'vmtrace verify --repair %s' keeps the blocks before the bad one\n",
			path);
		return 1;
	}
	if (vmt_trace_check(t)) {
		fprintf(stderr, "vmtrace verify: %s: %s\n", path, vmt_trace_error_message(t));
		vmt_trace_close(t);
		return 1;
	}
	scanned_frames = vmt_trace_nr_frames(t);
	vmt_trace_close(t);
	t = open_or_say("verify", path, 0);
	if (!t)
		return 1;
	if (vmt_trace_check(t)) {
		fprintf(stderr, "vmtrace verify: %s: %s\n", path, vmt_trace_error_message(t));
		vmt_trace_close(t);
		return 1;
	}
	if (vmt_trace_nr_frames(t) != scanned_frames) {
		fprintf(stderr, "vmtrace verify: %s: the directory lists %llu frames, the file holds %llu\n",
			path, (unsigned long long)vmt_trace_nr_frames(t),
			(unsigned long long)scanned_frames);
		vmt_trace_close(t);
		return 1;
	}
	for (uint32_t i = 0; i < vmt_trace_nr_streams(t); i++) {
		struct vmt_trace_stream_stats st;

		vmt_trace_stream_stats(t, i, &st);
		entries += st.entries;
	}
	printf("%s: ok: %llu frames decoded and checked, %llu entries in %u streams\n", path,
	       (unsigned long long)vmt_trace_frames_decoded(t), (unsigned long long)entries,
	       vmt_trace_nr_streams(t));
	vmt_trace_close(t);
	return 0;
}

void usage_verify(FILE *out)
{
	fputs("usage: vmtrace verify [--repair] FILE\n"
	      "  check every frame of a trace file\n"
	      "  --repair         rebuild the directory of a file whose writer died\n", out);
}

int cmd_verify(int argc, char **argv)
{
	static const struct option options[] = {
		{ "repair", no_argument, NULL, 'r' },
		{ NULL, 0, NULL, 0 },
	};
	struct vmt_trace_repair_report report;
	struct vmt_trace_error err;
	int opt, repair = 0;

	while ((opt = getopt_long(argc, argv, "", options, NULL)) != -1) {
		if (opt != 'r') {
			usage_verify(stderr);
			return 2;
		}
		repair = 1;
	}
	if (optind != argc - 1) {
		usage_verify(stderr);
		return 2;
	}
	if (repair) {
		if (vmt_trace_repair(argv[optind], &report, &err)) {
			fprintf(stderr, "vmtrace verify: %s\n", err.message);
			return 1;
		}
		printf("%s: repaired: kept %llu frames of %llu streams up to byte %llu; cut %llu bytes (%s)\n",
		       argv[optind], (unsigned long long)report.frames,
		       (unsigned long long)report.streams, (unsigned long long)report.data_end,
		       (unsigned long long)report.dropped_bytes, report.reason);
	}
	return verify_file(argv[optind]);
}

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
