// SPDX-License-Identifier: GPL-2.0
/*
 * vmtrace record [-o FILE] [-q] [-j N] [codec options] [tracer options]
 *                (-p PID ... | -a | -- COMMAND [ARGS...])
 *
 * The collector: traces like record-raw (collect.c), and appends every
 * drained record to a trace file (default ./vmtrace.vmt) through the trace
 * writer, whose worker pool compresses the frames, so that the drain loop
 * only copies records. Progress on stderr about once a second, a summary
 * line at the end; -q silences both. The file is finalized (directory
 * written) when the command or the targets exit, or on SIGINT/SIGTERM;
 * a killed collector leaves complete frames that `verify --repair` keeps.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "collect.h"
#include "commands.h"

static const char record_usage[] =
	"usage: vmtrace record [-o FILE] [-q] [-j N] [--codec vpc|zstd|xz|none] [--level N]\n"
	"                      [-a] [--follow] [--protect [-n PAGES] [--policy fifo|clock]\n"
	"                      [--reprotect-ms MS]] (-p PID ... | -a | -- COMMAND [ARGS...])\n"
	"  -o FILE          the trace file (default vmtrace.vmt)\n"
	"  -q               no progress and no summary\n"
	"  -j N             threads that compress frames (default: one per CPU)\n";

struct recording {
	const char *path;
	struct vmt_trace_writer *writer;
	FILE *tee;		/* --tee-raw: every record drained, as record-raw writes it */
	const char *tee_path;
	bool quiet;
	uint64_t last_records;
	double last_seconds;
};

static void format_bytes(char *buf, size_t size, uint64_t bytes)
{
	if (bytes >= 10ull << 20)
		snprintf(buf, size, "%.1f MB", (double)bytes / 1e6);
	else if (bytes >= 10ull << 10)
		snprintf(buf, size, "%.1f kB", (double)bytes / 1e3);
	else
		snprintf(buf, size, "%llu bytes", (unsigned long long)bytes);
}

static double ratio(const struct vmt_trace_writer_stats *st)
{
	return st->bytes ? (double)st->raw_bytes / (double)st->bytes : 0.0;
}

static int append_records(void *ctx, const struct vmt_record *records, size_t n)
{
	struct recording *r = ctx;
	int err;

	for (size_t i = 0; i < n; i++) {
		err = vmt_trace_writer_append_record(r->writer, &records[i]);
		if (err) {
			fprintf(stderr, "vmtrace record: %s: %s\n", r->path,
				vmt_trace_writer_error_message(r->writer));
			return err;
		}
	}
	if (r->tee && fwrite(records, sizeof(*records), n, r->tee) != n) {
		fprintf(stderr, "vmtrace record: writing %s: %s\n", r->tee_path, strerror(errno));
		return -EIO;
	}
	return 0;
}

static void progress(void *ctx, const struct collector *c, double seconds)
{
	struct recording *r = ctx;
	struct vmt_trace_writer_stats st;
	uint64_t records = collector_records(c);
	char bytes[32], compressed[32] = "";

	if (r->quiet)
		return;
	vmt_trace_writer_stats(r->writer, &st);
	format_bytes(bytes, sizeof(bytes), st.bytes);
	if (st.frames)
		snprintf(compressed, sizeof(compressed), " (%.1fx)", ratio(&st));
	fprintf(stderr, "vmtrace record: %.0f s: %llu records (%.0f/s), %s written%s, %llu lost\n",
		seconds, (unsigned long long)records,
		seconds > r->last_seconds ?
			(double)(records - r->last_records) / (seconds - r->last_seconds) : 0.0,
		bytes, compressed, (unsigned long long)collector_lost(c));
	r->last_records = records;
	r->last_seconds = seconds;
}

static void print_summary(const struct recording *r, const struct collector *c,
			  const struct vmt_trace_writer_stats *st)
{
	long long size = file_size(r->path);
	uint64_t records = collector_records(c);
	char bytes[32];

	format_bytes(bytes, sizeof(bytes), size > 0 ? (uint64_t)size : 0);
	fprintf(stderr, "[ vmtrace record: wrote %s %s (%llu records, %.2f bytes a record, %.1fx; %llu faults, %llu lost",
		bytes, r->path, (unsigned long long)records,
		records ? (double)size / (double)records : 0.0, ratio(st),
		(unsigned long long)collector_status(c)->faults,
		(unsigned long long)collector_status(c)->lost);
	collector_print_lost(c, stderr);
	fprintf(stderr, ") ]\n");
	if (st->stalls)
		fprintf(stderr, "[ the drain loop waited for the compression threads %llu times ]\n",
			(unsigned long long)st->stalls);
	collector_print_counters(c, stderr);
}

int cmd_record(int argc, char **argv)
{
	static const struct option options[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "workers", required_argument, NULL, 'j' },
		/* Debugging and tests: the raw records too, in the order drained. */
		{ "tee-raw", required_argument, NULL, 'T' },
		COLLECT_LONG_OPTIONS,
		WRITER_LONG_OPTIONS,
		{ NULL, 0, NULL, 0 },
	};
	struct vmt_trace_writer_options wopts = { .codec = VMT_CODEC_VPC };
	struct recording r = { .path = "vmtrace.vmt" };
	struct collect_sink sink = { .records = append_records, .tick = progress, .ctx = &r };
	struct vmt_trace_writer_stats st;
	struct collect_options copts;
	struct vmt_trace_error err;
	struct collector *c;
	long long workers = sysconf(_SC_NPROCESSORS_ONLN);
	int opt, taken, status;

	collect_options_init(&copts);
	while ((opt = getopt_long(argc, argv, "+o:qj:" COLLECT_SHORT_OPTIONS, options,
				  NULL)) != -1) {
		switch (opt) {
		case 'o':
			r.path = optarg;
			continue;
		case 'q':
			r.quiet = copts.quiet = true;
			continue;
		case 'j':
			workers = parse_number("record", "thread count", optarg, 1, 256);
			if (workers < 0)
				return 2;
			continue;
		case 'T':
			r.tee_path = optarg;
			continue;
		}
		taken = collect_parse_option("record", opt, optarg, &copts);
		if (!taken)
			taken = parse_writer_option("record", opt, optarg, &wopts);
		if (taken < 0)
			return 2;
		if (!taken) {
			fprintf(stderr, "%s%s%s", record_usage, collect_options_usage,
				writer_options_usage);
			return 2;
		}
	}
	if (collect_check_options("record", &copts, optind < argc)) {
		fputs(record_usage, stderr);
		return 2;
	}
	wopts.workers = workers > 0 ? (unsigned int)workers : 1;
	c = collector_open("record", &copts);
	if (!c)
		return 1;
	if (r.tee_path) {
		r.tee = fopen(r.tee_path, "wb");
		if (!r.tee) {
			fprintf(stderr, "vmtrace record: cannot write %s: %s\n", r.tee_path,
				strerror(errno));
			collector_close(c);
			return 1;
		}
	}
	if (vmt_trace_writer_create(&r.writer, r.path, &wopts, &err)) {
		fprintf(stderr, "vmtrace record: %s\n", err.message);
		if (r.tee)
			fclose(r.tee);
		collector_close(c);
		return 1;
	}
	status = collector_run(c, optind < argc ? argv + optind : NULL, &sink);
	if (vmt_trace_writer_flush(r.writer) == 0)
		vmt_trace_writer_stats(r.writer, &st);
	else
		memset(&st, 0, sizeof(st));
	if (vmt_trace_writer_close(r.writer, &err)) {
		fprintf(stderr, "vmtrace record: %s: %s\n", r.path, err.message);
		status = 1;
	}
	if (r.tee && fclose(r.tee)) {
		fprintf(stderr, "vmtrace record: closing %s: %s\n", r.tee_path, strerror(errno));
		status = 1;
	}
	if (!r.quiet && collector_status(c))
		print_summary(&r, c, &st);
	collector_close(c);
	return status;
}
