// SPDX-License-Identifier: GPL-2.0
/*
 * A recording (recording.h): the collector (collect.c) appending every
 * drained record to a trace file through the trace writer, whose worker
 * pool compresses the frames, so that the drain loop only copies records.
 * Progress on stderr about once a second, a summary line at the end; -q
 * silences both. The file is finalized (directory written) when the
 * command or the targets exit, or on SIGINT/SIGTERM; a killed collector
 * leaves complete frames that `verify --repair` keeps. `vmtrace record`
 * runs one in the foreground (record.c), `vmtrace start` in the
 * background (daemon.c).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cmd_util.h"
#include "recording.h"
#include "writer_options.h"

static const char record_usage[] =
	"usage: vmtrace %s [-o FILE] [-q] [-j N] [--codec model|vpc|zstd|xz|none] [--level N]\n"
	"%*s [-a] [--follow] [--protect [-n PAGES] [--policy fifo|clock]\n"
	"%*s [--reprotect-ms MS]] (-p PID ... | -a | -- COMMAND [ARGS...])\n"
	"  -o FILE          the trace file (default vmtrace.vmt; with --relay, none unless -o)\n"
	"  -q               no progress and no summary\n"
	"  -j N             threads that compress frames (default: one per CPU)\n";

void record_print_usage(const char *cmd, FILE *out)
{
	int indent = (int)strlen("usage: vmtrace ") + (int)strlen(cmd);

	fprintf(out, record_usage, cmd, indent, "", indent, "");
	fputs(collect_options_usage, out);
	fputs(writer_options_usage, out);
	fputs(relay_options_usage, out);
}

struct recording {
	const char *cmd;	/* record, or start */
	const char *path;	/* the file, or what stands for it in messages */
	bool no_file;		/* --relay without -o */
	struct relay_client *relay;
	struct vmt_trace_writer *writer;
	FILE *tee;		/* --tee-raw: every record drained, as record-raw writes it */
	const char *tee_path;
	bool quiet;
	const struct record_hooks *hooks;
	uint64_t last_records;
	double last_seconds;
	int session_err;	/* writing the session stream failed */
	bool write_failed;	/* writing the file failed, and that was said */
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
			r->write_failed = true;
			fprintf(stderr, "vmtrace %s: %s: %s\n", r->cmd, r->path,
				vmt_trace_writer_error_message(r->writer));
			return err;
		}
	}
	if (r->tee && fwrite(records, sizeof(*records), n, r->tee) != n) {
		fprintf(stderr, "vmtrace %s: writing %s: %s\n", r->cmd, r->tee_path, strerror(errno));
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

	if (r->hooks && r->hooks->progress) {
		struct record_progress p = { .seconds = seconds, .records = records,
					     .lost = collector_lost(c) };

		vmt_trace_writer_stats(r->writer, &st);
		p.bytes = st.bytes;
		p.raw_bytes = st.raw_bytes;
		r->hooks->progress(r->hooks->ctx, &p);
		return;
	}
	if (r->quiet)
		return;
	vmt_trace_writer_stats(r->writer, &st);
	format_bytes(bytes, sizeof(bytes), st.bytes);
	if (st.frames)
		snprintf(compressed, sizeof(compressed), " (%.1fx)", ratio(&st));
	fprintf(stderr, "vmtrace %s: %.0f s: %llu records (%.0f/s), %s written%s, %llu lost\n",
		r->cmd, seconds, (unsigned long long)records,
		seconds > r->last_seconds ?
			(double)(records - r->last_records) / (seconds - r->last_seconds) : 0.0,
		bytes, compressed, (unsigned long long)collector_lost(c));
	r->last_records = records;
	r->last_seconds = seconds;
}

/* Tracing is on: the session's settings go into the file before any record. */
static void started(void *ctx, const struct collector *c)
{
	struct recording *r = ctx;
	struct vmt_trace_session session;
	bool relay_failed;

	/*
	 * The module took the configuration: only now does the relay hear of
	 * the session, so that a record it refuses (busy) leaves none there.
	 */
	relay_failed = r->relay && relay_client_connect(r->relay);

	if (r->relay && !relay_failed)
		vmt_trace_writer_set_sink(r->writer, relay_client_sink, r->relay);
	collector_session(c, &session);
	r->session_err = vmt_trace_writer_add_session(r->writer, &session);
	r->write_failed = r->session_err < 0;
	if (r->session_err < 0)
		fprintf(stderr, "vmtrace %s: %s: %s\n", r->cmd, r->path,
			vmt_trace_writer_error_message(r->writer));
	else if (relay_failed)
		r->session_err = -1;	/* said; the exit status says it too */
	if (r->hooks && r->hooks->started)
		r->hooks->started(r->hooks->ctx);
}

static void print_summary(const struct recording *r, const struct collector *c,
			  const struct vmt_trace_writer_stats *st)
{
	long long size = r->no_file ? (long long)st->bytes : file_size(r->path);
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

int record_parse_args(const char *cmd, int argc, char **argv, struct record_job *job)
{
	static const struct option options[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "workers", required_argument, NULL, 'j' },
		/* Debugging and tests: the raw records too, in the order drained. */
		{ "tee-raw", required_argument, NULL, 'T' },
		RELAY_LONG_OPTIONS,
		COLLECT_LONG_OPTIONS,
		WRITER_LONG_OPTIONS,
		{ NULL, 0, NULL, 0 },
	};
	long long workers = sysconf(_SC_NPROCESSORS_ONLN);
	int opt, taken;

	memset(job, 0, sizeof(*job));
	job->writer.codec = VMT_CODEC_MODEL;
	job->path = "vmtrace.vmt";
	relay_options_init(&job->relay);
	collect_options_init(&job->collect);
	while ((opt = getopt_long(argc, argv, "+o:qj:" COLLECT_SHORT_OPTIONS, options,
				  NULL)) != -1) {
		switch (opt) {
		case 'o':
			job->path = optarg;
			job->path_given = true;
			continue;
		case 'q':
			job->quiet = job->collect.quiet = true;
			continue;
		case 'j':
			workers = parse_number(cmd, "thread count", optarg, 1, 256);
			if (workers < 0)
				return 2;
			continue;
		case 'T':
			job->tee_path = optarg;
			continue;
		}
		taken = relay_parse_option(cmd, opt, optarg, &job->relay);
		if (!taken)
			taken = collect_parse_option(cmd, opt, optarg, &job->collect);
		if (!taken)
			taken = parse_writer_option(cmd, opt, optarg, &job->writer);
		if (taken < 0)
			return 2;
		if (!taken) {
			record_print_usage(cmd, stderr);
			return 2;
		}
	}
	if (collect_check_options(cmd, &job->collect, optind < argc)) {
		record_print_usage(cmd, stderr);
		return 2;
	}
	job->writer.workers = workers > 0 ? (unsigned int)workers : 1;
	job->command = optind < argc ? argv + optind : NULL;
	return 0;
}

int record_run(const char *cmd, struct record_job *job, const struct record_hooks *hooks)
{
	struct recording r = { .cmd = cmd, .path = job->path, .tee_path = job->tee_path, .quiet = job->quiet,
			       .hooks = hooks };
	struct collect_sink sink = { .records = append_records, .tick = progress,
				     .started = started, .ctx = &r };
	struct vmt_trace_writer_stats st;
	struct vmt_trace_error err;
	struct collector *c;
	char session[64], relay_name[300];
	int status;

	c = collector_open(cmd, &job->collect);
	if (!c)
		return 1;
	if (job->relay.addr) {
		const char *base = strrchr(job->path, '/');
		time_t now = time(NULL);
		struct tm tm;

		base = base ? base + 1 : job->path;
		if (job->path_given)
			snprintf(session, sizeof(session), "%.*s", (int)strcspn(base, "."), base);
		else
			strftime(session, sizeof(session), "trace-%Y%m%d-%H%M%S",
				 localtime_r(&now, &tm));
		r.relay = relay_client_start(cmd, &job->relay, session[0] ? session : "trace");
		if (!r.relay) {
			collector_close(c);
			return 2;
		}
		r.no_file = !job->path_given;
		if (r.no_file) {
			snprintf(relay_name, sizeof(relay_name), "relay %s", job->relay.addr);
			r.path = relay_name;
		}
	}
	if (r.tee_path) {
		r.tee = fopen(r.tee_path, "wb");
		if (!r.tee) {
			fprintf(stderr, "vmtrace %s: cannot write %s: %s\n", cmd, r.tee_path,
				strerror(errno));
			collector_close(c);
			return 1;
		}
	}
	if (vmt_trace_writer_create(&r.writer, r.no_file ? NULL : r.path, &job->writer, &err)) {
		fprintf(stderr, "vmtrace %s: %s\n", cmd, err.message);
		if (r.tee)
			fclose(r.tee);
		if (r.relay)
			relay_client_finish(r.relay, true);
		collector_close(c);
		return 1;
	}
	status = collector_run(c, job->command, &sink);
	if (r.session_err < 0)
		status = 1;
	if (vmt_trace_writer_flush(r.writer) == 0)
		vmt_trace_writer_stats(r.writer, &st);
	else
		memset(&st, 0, sizeof(st));

	if (vmt_trace_writer_close(r.writer, &err)) {
		if (!r.write_failed)	/* else it is the error said already */
			fprintf(stderr, "vmtrace %s: %s: %s\n", cmd, r.path, err.message);
		status = 1;
	}
	if (r.write_failed && !r.no_file)
		fprintf(stderr, "vmtrace %s: %s keeps the frames written before the error; once "
			"there is room, 'vmtrace verify --repair %s' makes a trace of them\n",
			cmd, r.path, r.path);
	if (r.tee && fclose(r.tee)) {
		fprintf(stderr, "vmtrace %s: closing %s: %s\n", cmd, r.tee_path, strerror(errno));
		status = 1;
	}
	if (r.relay && relay_client_finish(r.relay, r.quiet))
		status = 1;
	if (hooks && hooks->progress) {
		long long size = r.no_file ? (long long)st.bytes : file_size(r.path);
		struct record_progress p = { .records = collector_records(c),
					     .lost = collector_lost(c),
					     .bytes = size > 0 ? (uint64_t)size : 0,
					     .raw_bytes = st.raw_bytes };

		hooks->progress(hooks->ctx, &p);
	}
	if (!r.quiet && collector_status(c))
		print_summary(&r, c, &st);
	collector_close(c);
	return status;
}
