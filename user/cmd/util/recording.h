/* SPDX-License-Identifier: GPL-2.0 */
/*
 * recording.c: a recording session, the collector writing a trace file,
 * which `vmtrace record` runs in the foreground (record.c) and `vmtrace
 * start` in the background (daemon.c).
 */
#ifndef VMTRACE_CMD_RECORDING_H
#define VMTRACE_CMD_RECORDING_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "vmtrace/trace.h"
#include "collect.h"
#include "relay_client.h"

struct record_job {
	struct collect_options collect;
	struct vmt_trace_writer_options writer;
	const char *path;		/* the trace file; default vmtrace.vmt */
	bool path_given;		/* -o: with --relay, a local file too */
	struct relay_options relay;	/* --relay and its options */
	const char *tee_path;		/* --tee-raw, or NULL */
	bool quiet;			/* -q: no progress, no summary */
	char **command;			/* -- COMMAND ARGS, or NULL (-p, -a) */
};

/* record's usage, as @cmd (record or start): its options and the tracer's. */
void record_print_usage(const char *cmd, FILE *out);

/*
 * Parse record's options and operands into @job: 0, or the exit status 2
 * having said what is wrong.
 */
int record_parse_args(const char *cmd, int argc, char **argv, struct record_job *job);

struct record_progress {
	double seconds;			/* since tracing started */
	uint64_t records;		/* drained */
	uint64_t lost;			/* dropped by the kernel */
	uint64_t bytes, raw_bytes;	/* written to the file, and the records in them */
};

/* What a background collector learns as it runs; any may be NULL. */
struct record_hooks {
	void (*started)(void *ctx);	/* tracing is on */
	/*
	 * About once a second, instead of the progress line on stderr, and
	 * once more when the file is finished (seconds 0, bytes the file's).
	 */
	void (*progress)(void *ctx, const struct record_progress *p);
	void *ctx;
};

/*
 * Trace into the job's file until the command or the targets exit or
 * SIGINT/SIGTERM arrives, finalize it, and print the summary (unless
 * quiet). Returns the exit status: the command's, 0, or 1 (said).
 */
int record_run(const char *cmd, struct record_job *job, const struct record_hooks *hooks);

#endif
