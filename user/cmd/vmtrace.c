// SPDX-License-Identifier: GPL-2.0
/*
 * vmtrace: the command. Subcommands follow perf and trace-cmd.
 *
 * Each command's cmd_NAME() and usage_NAME() are in user/cmd/NAME.c ('-'
 * as '_'), but for two families: start, stop and status in daemon.c (the
 * background collector), dump-raw in record_raw.c beside record-raw. A
 * command may keep parts of its own in files named for it (export_csv.c,
 * report_html.c); what commands share is in user/cmd/util/, which
 * includes nothing of user/cmd/ and calls none of its functions.
 *
 * `vmtrace help` and the man page (`vmtrace help --man`, which the build
 * runs) are both made from the table below and each command's usage.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vmtrace/vmtrace.h"
#include "commands.h"
#include "util/ranks.h"

static const char about[] =
	"trace the memory references of Linux processes into compressed trace files, and read them";
static const char *const synopsis[] = { "<command> [options]", "<command> --help" };
#define NR_SYNOPSIS (sizeof(synopsis) / sizeof(synopsis[0]))
static const char exit_status[] = "0 success, 1 the operation failed, 2 bad usage";
static const char several[] =
	"dump, stats, export and the analyses (mrc, reuse, wss, heatmap, hmtt, reduce,\n"
	"cachesim) take -j N: the trace's frames decoded on N threads (default: one a\n"
	"CPU). mpirun -np K vmtrace stats|mrc|reuse|wss|heatmap|hmtt|reduce|cachesim runs\n"
	"as K processes (vmtrace-mpi, beside vmtrace) and prints what one process prints:\n"
	"the work splits where the analysis allows (docs/analysis/parallel.md), and what\n"
	"needs one pass (FIFO, CLOCK, OPT, sampled curves, hmtt, reduce) runs whole in\n"
	"process 0; the other commands refuse to run under mpirun";

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
	{ "convert", "a trace file (.vmt) of raw records, valgrind's lackey or Dinero's din",
	  usage_convert, cmd_convert },
	{ "relay", "receive traces from collectors over the network (record --relay) into DIR",
	  usage_relay, cmd_relay },
	{ "info", "a trace file's streams, frames and compression",
	  usage_info, cmd_info },
	{ "dump", "print a trace file, one record a line",
	  usage_dump, cmd_dump },
	{ "verify", "check every frame of a trace file; --repair rebuilds its directory",
	  usage_verify, cmd_verify },
	{ "export", "a trace's records as raw records, CSV, Dinero's din or Perfetto's JSON",
	  usage_export, cmd_export },
	{ "seek", "reach entries by index or time; show the frames each seek decoded",
	  usage_seek, cmd_seek },
	{ "stats", "counts per process, CPU and record type; lost records; time span",
	  usage_stats, cmd_stats },
	{ "report", "processes, footprints, fault rates, top pages, a line from each analysis",
	  usage_report, cmd_report },
	{ "mrc", "miss-ratio curves: faults against memory size under LRU, FIFO, CLOCK, OPT",
	  usage_mrc, cmd_mrc },
	{ "reuse", "reuse distances and times: histograms, mean, median, the units reused most",
	  usage_reuse, cmd_reuse },
	{ "wss", "working-set size over time: its percentiles, mean and series, per process",
	  usage_wss, cmd_wss },
	{ "heatmap", "references over address and time: a digit grid, raw triples or an image",
	  usage_heatmap, cmd_heatmap },
	{ "hmtt", "HMTT's analyses: DMA traffic, virtual to physical, interleaving, SCR",
	  usage_hmtt, cmd_hmtt },
	{ "reduce", "a shorter trace with the same LRU faults at R pages or more (SAD)",
	  usage_reduce, cmd_reduce },
	{ "profile", "a memory profile of exact accesses (after PSnAP), a few kilobytes; --show it",
	  usage_profile, cmd_profile },
	{ "synth", "a synthetic trace from a profile, deterministic for a seed", usage_synth, cmd_synth },
	{ "compare", "hit rates and locality surfaces of two traces (a trace and its synthetic twin)",
	  usage_compare, cmd_compare },
	{ "loops", "exact accesses as loops (ScalaMemTrace's RSDs and PRSDs), lossless; --show the tree",
	  usage_loops, cmd_loops },
	{ "cachesim", "cache and TLB simulation: hits, misses, the three Cs, many hierarchies at once",
	  usage_cachesim, cmd_cachesim },
};
#define NR_COMMANDS (sizeof(commands) / sizeof(commands[0]))

/* vmtrace's usage: made from the table. */
static void usage(FILE *out)
{
	size_t i;

	for (i = 0; i < NR_SYNOPSIS; i++)
		fprintf(out, "%s vmtrace %s\n", i ? "      " : "usage:", synopsis[i]);
	fprintf(out, "  %s\n\ncommands:\n", about);
	for (i = 0; i < NR_COMMANDS; i++)
		fprintf(out, "  %-11s %s\n", commands[i].name, commands[i].summary);
	fprintf(out, "  %-11s %s\n\nthreads and processes: %s\n\nexit status: %s\n", "help",
		"this text", several, exit_status);
}

/*
 * @text as roff: backslashes and '-' escaped ('-' would be a hyphen), and
 * a line that starts with '.' or an apostrophe not taken for a request.
 */
static void put_roff(FILE *out, const char *text)
{
	bool line_start = true;

	for (const char *c = text; *c; c++) {
		if (line_start && (*c == '.' || *c == '\''))
			fputs("\\&", out);
		if (*c == '\\')
			fputs("\\e", out);
		else if (*c == '-')
			fputs("\\-", out);
		else
			fputc(*c, out);
		line_start = *c == '\n';
	}
}

/* One command's section: its summary, then its usage as it prints it. */
static int put_man_command(FILE *out, const struct vmt_command *c)
{
	char *text = NULL;
	size_t len = 0;
	FILE *usage_out;

	usage_out = open_memstream(&text, &len);
	if (!usage_out)
		return -1;
	c->usage(usage_out);
	if (fclose(usage_out)) {
		free(text);
		return -1;
	}
	fputs(".SS ", out);
	put_roff(out, c->name);
	fputs("\n", out);
	put_roff(out, c->summary);
	fputs("\n.PP\n.nf\n", out);
	put_roff(out, text);
	fputs(".fi\n", out);
	free(text);
	return 0;
}

/* The man page, vmtrace(1), in roff. */
static int put_man(FILE *out)
{
	size_t i;

	fprintf(out, ".\\\" vmtrace(1), made by `vmtrace help --man` from the commands' own help\n"
		".TH VMTRACE 1 \"\" \"vmtrace (ABI %u)\" \"User Commands\"\n"
		".nh\n.ad l\n"
		".SH NAME\nvmtrace \\- ", VMT_ABI_VERSION);
	put_roff(out, about);
	fputs("\n.SH SYNOPSIS\n.nf\n", out);
	for (i = 0; i < NR_SYNOPSIS; i++) {
		fputs("\\fBvmtrace\\fR ", out);
		put_roff(out, synopsis[i]);
		fputs("\n", out);
	}
	fputs(".fi\n.SH COMMANDS\n", out);
	for (i = 0; i < NR_COMMANDS; i++)
		if (put_man_command(out, &commands[i]))
			return -1;
	fputs(".SH THREADS AND PROCESSES\n", out);
	put_roff(out, several);
	fputs("\n.SH EXIT STATUS\n", out);
	put_roff(out, exit_status);
	fputs("\n", out);
	return fflush(out) ? -1 : 0;
}

/* The commands that split their work among processes under MPI (util/ranks.h). */
static bool splits(const char *name)
{
	static const char *const splitting[] = {
		"stats", "mrc", "reuse", "wss", "heatmap", "hmtt", "reduce", "cachesim",
	};

	for (size_t i = 0; i < sizeof(splitting) / sizeof(splitting[0]); i++)
		if (!strcmp(name, splitting[i]))
			return true;
	return false;
}

static bool is_help(const char *arg)
{
	return !strcmp(arg, "-h") || !strcmp(arg, "--help");
}

int vmtrace_main(int argc, char **argv)
{
	size_t i;

	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "help") && argc == 3 && !strcmp(argv[2], "--man")) {
		if (put_man(stdout)) {
			perror("vmtrace help --man");
			return 1;
		}
		return 0;
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
		if (!splits(commands[i].name) && ranks_alone(commands[i].name))
			return 2;
		return commands[i].run(argc - 1, argv + 1);
	}
	fprintf(stderr, "vmtrace: unknown command '%s'\n\n", argv[1]);
	usage(stderr);
	return 2;
}
