/* SPDX-License-Identifier: GPL-2.0 */
/*
 * collect.c: what record and record-raw share. A session with the tracer's
 * options (collect_options.h): open the device, run COMMAND (held until
 * tracing starts) or attach to PIDs, map every CPU's ring, drain them into
 * a sink until the command or the targets exit or SIGINT/SIGTERM arrives,
 * stop, drain again.
 */
#ifndef VMTRACE_CMD_COLLECT_H
#define VMTRACE_CMD_COLLECT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "vmtrace/vmtrace.h"
#include "collect_options.h"

struct collector;

/* What the drain loop feeds: negative errno stops the session. */
struct collect_sink {
	int (*records)(void *ctx, const struct vmt_record *records, size_t n);
	/* About once a second while tracing: for progress. May be NULL. */
	void (*tick)(void *ctx, const struct collector *c, double seconds);
	/* Once, when tracing is on and COMMAND runs. May be NULL. */
	void (*started)(void *ctx, const struct collector *c);
	void *ctx;
};

/*
 * Open the device and the PIDs' pidfds; on failure say why (how to load
 * the module, when it is not) and return NULL.
 */
struct collector *collector_open(const char *cmd, struct collect_options *o);
/*
 * Trace @command (NULL: the -p PIDs, or with -a all until a signal) into @sink. Returns the exit status:
 * the command's, 0 when the targets exit or a signal stops tracing, 1 on
 * failure (said).
 */
int collector_run(struct collector *c, char **command, const struct collect_sink *sink);
void collector_close(struct collector *c);

/*
 * Once tracing is on (from the sink's started()): the settings the
 * session was configured with, and now as its start time.
 */
void collector_session(const struct collector *c, struct vmt_trace_session *session);
/* Records drained so far. */
uint64_t collector_records(const struct collector *c);
/* Records the kernel dropped so far, summed over CPUs. */
uint64_t collector_lost(const struct collector *c);
/*
 * After collector_run(): "; cpu1: 5 lost, ..." for each CPU that lost or
 * overwrote records (empty when none did), and the module's counters
 * (protection, enabled sets) as extra lines, to stderr.
 */
void collector_print_lost(const struct collector *c, FILE *out);
void collector_print_counters(const struct collector *c, FILE *out);
/* The module's counters at the end of collector_run(); NULL if it did not get there. */
const struct vmt_status *collector_status(const struct collector *c);

#endif
