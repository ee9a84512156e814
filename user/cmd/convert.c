// SPDX-License-Identifier: GPL-2.0
/*
 * vmtrace convert [--from raw|lackey|din] INPUT -o FILE [writer options]:
 * raw records (record-raw's file), or another tool's text trace (valgrind's
 * lackey, Dinero IV's din) made into exact records by libvmtrace's importer
 * (vmt_import_*()), into a trace file through the trace writer; a summary
 * line with the sizes at the end.
 */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "vmtrace/trace.h"
#include "commands.h"
#include "util/cmd_util.h"
#include "util/relay_client.h"
#include "util/writer_options.h"

#define CONVERT_BATCH 1024
/* The text read at a time; the importer takes lines cut across reads. */
#define IMPORT_CHUNK (1u << 20)
#define FROM_RAW 0

static const char convert_usage[] =
	"usage: vmtrace convert [--from raw|lackey|din] [--pid N] INPUT (-o FILE | --relay HOST:PORT)\n"
	"                       [--codec model|vpc|zstd|xz|none] [--stage2 zstd|xz] [--level N]\n"
	"                       [--frame-bytes N] [relay options]\n"
	"  INPUT's records into a trace file (and/or to a relay); INPUT - is standard input\n"
	"  --from raw       raw records (the default): record-raw's file, export --format raw's\n"
	"  --from lackey    what valgrind --tool=lackey --trace-mem=yes writes (give valgrind\n"
	"                   --log-file=LOG, so that the program's own output stays out of it):\n"
	"                   an exact record a line, I an instruction fetch (access X, ip its\n"
	"                   address), L a load (R), S a store (W), M a modify (RW), each load,\n"
	"                   store and modify with the ip of the I line before it; valgrind's\n"
	"                   own lines (==PID== ...) skipped\n"
	"  --from din       Dinero IV's din, 'LABEL ADDRESS [SIZE]' a line (export --format\n"
	"                   din's): label 0 a read, 1 a write, 2 an instruction fetch (ip its\n"
	"                   address), 3 an escape and 4 a cache flush (both skipped); the\n"
	"                   address in hex, 0x or not; the size in decimal, 4 when left out\n"
	"                   (Dinero IV's); a third field is the size and must be the last\n"
	"  --pid N          lackey's and din's records' pid and tid (default 1); their CPU is\n"
	"                   0, their time their index (0, 1, 2...), their value 0 (unknown)\n";
static const char convert_notes[] =
	"  lackey's and din's sizes are 1 to 4096 bytes and their lines at most 4096 bytes. A\n"
	"  line of neither format stops convert with exit status 2, naming it (INPUT:LINE) and\n"
	"  what is wrong with it; an input without an access, with 1; neither leaves FILE.\n";

static int convert_records(FILE *in, const char *in_name, struct vmt_trace_writer *w,
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
				in_name, *records,
				*records * (unsigned long long)sizeof(struct vmt_record));
			return 1;
		}
	}
	if (ferror(in)) {
		fprintf(stderr, "vmtrace convert: %s: read error after record %llu\n", in_name,
			*records);
		return 1;
	}
	return 0;
}

struct import_sink {
	struct vmt_trace_writer *writer;
	bool write_failed;
};

static int append_imported(void *arg, const struct vmt_record *record)
{
	struct import_sink *sink = arg;
	int err = vmt_trace_writer_append_record(sink->writer, record);

	if (err)
		sink->write_failed = true;
	return err;
}

/*
 * Another tool's text trace through the importer into @w. 0; 1 when the
 * operation failed, 2 for a bad line, both said; *@write_failed when it was
 * the writer that failed.
 */
static int import_text(FILE *in, const char *in_name, unsigned int format, uint32_t pid,
		       struct vmt_trace_writer *w, struct vmt_import_stats *stats,
		       bool *write_failed)
{
	struct vmt_import_options o = { .pid = pid, .tid = pid, .name = in_name };
	struct import_sink sink = { .writer = w };
	struct vmt_import *imp;
	struct vmt_trace_error err;
	char *buf;
	size_t n;
	int ret = 0;

	buf = malloc(IMPORT_CHUNK);
	if (!buf || vmt_import_create(&imp, format, &o)) {
		free(buf);
		fprintf(stderr, "vmtrace convert: %s\n", strerror(ENOMEM));
		return 1;
	}
	while (!ret && (n = fread(buf, 1, IMPORT_CHUNK, in)) > 0)
		ret = vmt_import_feed(imp, buf, n, append_imported, &sink, &err);
	vmt_import_stats(imp, stats);
	if (!ret && ferror(in)) {
		fprintf(stderr, "vmtrace convert: %s: read error after line %llu\n", in_name,
			(unsigned long long)stats->lines);
		ret = -EIO;
	} else if (!ret) {
		ret = vmt_import_finish(imp, append_imported, &sink, &err);
		vmt_import_stats(imp, stats);
	}
	vmt_import_free(imp);
	free(buf);
	*write_failed = sink.write_failed;
	if (!ret || ret == -EIO)
		return ret ? 1 : 0;
	if (sink.write_failed) {
		fprintf(stderr, "vmtrace convert: %s\n", vmt_trace_writer_error_message(w));
		return 1;
	}
	fprintf(stderr, "vmtrace convert: %s\n", err.message);
	return ret == -EINVAL ? 2 : 1;
}

void usage_convert(FILE *out)
{
	fputs(convert_usage, out);
	fputs(writer_options_usage, out);
	fputs(relay_options_usage, out);
	fputs(convert_notes, out);
}

static void print_import_summary(const char *out_path, unsigned int format,
				 const struct vmt_import_stats *s)
{
	long long out_size = file_size(out_path);

	fprintf(stderr, "[ vmtrace convert: wrote %s (%llu records from %llu lines of %s's: %llu fetches, %llu reads, %llu writes, %llu modifies; %llu lines skipped",
		out_path, (unsigned long long)s->records, (unsigned long long)s->lines,
		vmt_import_format_name(format), (unsigned long long)s->fetches,
		(unsigned long long)s->reads, (unsigned long long)s->writes,
		(unsigned long long)s->modifies, (unsigned long long)s->skipped);
	if (s->flushes)
		fprintf(stderr, ", %llu flushes", (unsigned long long)s->flushes);
	fprintf(stderr, "; %lld bytes, %.2f bytes a record) ]\n", out_size,
		s->records ? (double)out_size / (double)s->records : 0.0);
}

int cmd_convert(int argc, char **argv)
{
	static const struct option options[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "from", required_argument, NULL, 'F' },
		{ "pid", required_argument, NULL, 'p' },
		WRITER_LONG_OPTIONS,
		RELAY_LONG_OPTIONS,
		{ NULL, 0, NULL, 0 },
	};
	struct vmt_trace_writer_options wopts = { .codec = VMT_CODEC_MODEL };
	const char *out_path = NULL, *in_path, *in_name;
	struct vmt_import_stats stats = { 0 };
	struct vmt_trace_writer *w;
	struct vmt_trace_error err;
	unsigned long long records = 0;
	long long in_size, out_size, pid = -1;
	int opt, taken, status, format = FROM_RAW;
	bool write_failed = false;
	struct relay_options relay_opts;
	struct relay_client *relay = NULL;
	char session[64];
	FILE *in;

	relay_options_init(&relay_opts);

	while ((opt = getopt_long(argc, argv, "o:", options, NULL)) != -1) {
		switch (opt) {
		case 'o':
			out_path = optarg;
			continue;
		case 'F':
			format = strcmp(optarg, "raw") ? vmt_import_format_from_name(optarg) : FROM_RAW;
			if (format < 0) {
				fprintf(stderr, "vmtrace convert: unknown input format '%s' (raw, lackey or din)\n",
					optarg);
				return 2;
			}
			continue;
		case 'p':
			pid = parse_number("convert", "pid", optarg, 1, UINT32_MAX);
			if (pid < 0)
				return 2;
			continue;
		}
		taken = relay_parse_option("convert", opt, optarg, &relay_opts);
		if (!taken)
			taken = parse_writer_option("convert", opt, optarg, &wopts);
		if (taken < 0)
			return 2;
		if (!taken) {
			usage_convert(stderr);
			return 2;
		}
	}
	if (optind != argc - 1 || (!out_path && !relay_opts.addr)) {
		usage_convert(stderr);
		return 2;
	}
	if (pid >= 0 && format == FROM_RAW) {
		fprintf(stderr, "vmtrace convert: --pid goes with --from lackey or din (raw records have their own)\n");
		return 2;
	}
	in_path = argv[optind];
	in_name = strcmp(in_path, "-") ? in_path : "standard input";
	in = strcmp(in_path, "-") ? fopen(in_path, format == FROM_RAW ? "rb" : "r") : stdin;
	if (!in) {
		fprintf(stderr, "vmtrace convert: cannot read %s: %s\n", in_path, strerror(errno));
		return 1;
	}
	if (relay_opts.addr) {
		const char *base = out_path ? strrchr(out_path, '/') : NULL;

		base = base ? base + 1 : out_path ? out_path : "convert";
		snprintf(session, sizeof(session), "%.*s", (int)strcspn(base, "."), base);
		relay = relay_client_start("convert", &relay_opts, session[0] ? session : "convert");
		if (!relay || relay_client_connect(relay)) {
			if (relay)
				relay_client_finish(relay, true);
			if (in != stdin)
				fclose(in);
			return relay ? 1 : 2;
		}
	}
	if (vmt_trace_writer_create(&w, out_path, &wopts, &err)) {
		fprintf(stderr, "vmtrace convert: %s\n", err.message);
		if (in != stdin)
			fclose(in);
		if (relay)
			relay_client_finish(relay, true);
		return 1;
	}
	if (relay)
		vmt_trace_writer_set_sink(w, relay_client_sink, relay);
	if (format == FROM_RAW)
		status = convert_records(in, in_name, w, &records);
	else
		status = import_text(in, in_name, (unsigned int)format, pid < 0 ? 1 : (uint32_t)pid,
				     w, &stats, &write_failed);
	if (in != stdin)
		fclose(in);
	if (status) {
		vmt_trace_writer_abandon(w);
		if (relay)
			relay_client_finish(relay, true);
		/*
		 * A text that failed leaves nothing; a failed write, as with
		 * raw records, the complete frames for verify --repair.
		 */
		if (format != FROM_RAW && !write_failed)
			unlink(out_path);
		return status;
	}
	if (vmt_trace_writer_close(w, &err)) {
		fprintf(stderr, "vmtrace convert: %s: %s\n", out_path ? out_path : "relay", err.message);
		if (relay)
			relay_client_finish(relay, true);
		return 1;
	}
	if (relay && relay_client_finish(relay, false))
		return 1;
	if (!out_path)
		return 0;
	if (format != FROM_RAW) {
		print_import_summary(out_path, (unsigned int)format, &stats);
		return 0;
	}
	in_size = (long long)(records * sizeof(struct vmt_record));
	out_size = file_size(out_path);
	fprintf(stderr, "[ vmtrace convert: wrote %s (%llu records, %lld bytes from %lld: %.2fx, %.2f bytes a record) ]\n",
		out_path, records, out_size, in_size,
		out_size > 0 ? (double)in_size / (double)out_size : 0.0,
		records ? (double)out_size / (double)records : 0.0);
	return 0;
}
