// SPDX-License-Identifier: GPL-2.0
/*
 * vmtrace record [-o FILE] [-q] [-j N] [codec options] [tracer options]
 *                (-p PID ... | -a | -- COMMAND [ARGS...])
 *
 * The collector in the foreground: traces like record-raw, into a trace
 * file (default ./vmtrace.vmt) through the trace writer (util/recording.c,
 * which `vmtrace start` runs in the background).
 */
#include <stdio.h>

#include "commands.h"
#include "util/recording.h"

void usage_record(FILE *out)
{
	record_print_usage("record", out);
}

int cmd_record(int argc, char **argv)
{
	struct record_job job;
	int status = record_parse_args("record", argc, argv, &job);

	return status ? status : record_run("record", &job, NULL);
}
