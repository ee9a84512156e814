// SPDX-License-Identifier: GPL-2.0
/*
 * vmtrace: the command. Subcommands follow perf and trace-cmd.
 * Exit status: 0 success, 1 the operation failed, 2 bad usage.
 *
 * Each command's cmd_NAME() and usage_NAME() are in user/cmd/NAME.c ('-'
 * as '_'), but for three families: start, stop and status in daemon.c
 * (the background collector), dump-raw in record_raw.c beside record-raw,
 * stats and report in stats_report.c.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "commands.h"

static const struct vmt_command commands[] = {
	{ "version", "the tools' ABI and, when the module is loaded, the module's",
	  usage_version, cmd_version },
	{ "faults", "run a command and count its user page faults (BPF)",
	  usage_faults, cmd_faults },
	{ "record", "trace a command or processes into a compressed trace file (.vmt)",
	  usage_record, cmd_record },
	{ "start", "record in the background (a daemon): record's options; returns once tracing",
	  usage_start, cmd_start },
	{ "stop", "make the background collector finish its file, wait, print its summary",
	  usage_stop, cmd_stop },
	{ "status", "the module's state and counters; the background collector's progress",
	  usage_status, cmd_status },
	{ "record-raw", "trace a command's faults into a file of raw records",
	  usage_record_raw, cmd_record_raw },
	{ "dump-raw", "print a raw record file, one record a line",
	  usage_dump_raw, cmd_dump_raw },
	{ "convert", "compress a raw record file into a trace file (.vmt)",
	  usage_convert, cmd_convert },
	{ "info", "a trace file's streams, frames and compression",
	  usage_info, cmd_info },
	{ "dump", "print a trace file, one record a line",
	  usage_dump, cmd_dump },
	{ "verify", "check every frame of a trace file; --repair rebuilds its directory",
	  usage_verify, cmd_verify },
	{ "export", "write a trace file's records back out as raw records",
	  usage_export, cmd_export },
	{ "seek", "reach entries by index or time; show the frames each seek decoded",
	  usage_seek, cmd_seek },
	{ "stats", "counts per process, CPU and record type; lost records; time span",
	  usage_stats, cmd_stats },
	{ "report", "processes, footprints, fault rates over time, top pages",
	  usage_report, cmd_report },
};
#define NR_COMMANDS (sizeof(commands) / sizeof(commands[0]))

/* vmtrace's usage: made from the table. */
static void usage(FILE *out)
{
	size_t i;

	fputs("usage: vmtrace <command> [options]\n"
	      "       vmtrace <command> --help\n"
	      "\n"
	      "commands:\n", out);
	for (i = 0; i < NR_COMMANDS; i++)
		fprintf(out, "  %-11s %s\n", commands[i].name, commands[i].summary);
	fprintf(out, "  %-11s %s\n", "help", "this text");
}

static bool is_help(const char *arg)
{
	return !strcmp(arg, "-h") || !strcmp(arg, "--help");
}

int main(int argc, char **argv)
{
	size_t i;

	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "help") || is_help(argv[1])) {
		usage(stdout);
		return 0;
	}
	for (i = 0; i < NR_COMMANDS; i++) {
		if (strcmp(argv[1], commands[i].name))
			continue;
		/*
		 * `vmtrace COMMAND -h`, as git has it; after other
		 * options, -h is the command's to judge.
		 */
		if (argc > 2 && is_help(argv[2])) {
			commands[i].usage(stdout);
			return 0;
		}
		return commands[i].run(argc - 1, argv + 1);
	}
	fprintf(stderr, "vmtrace: unknown command '%s'\n\n", argv[1]);
	usage(stderr);
	return 2;
}
