/* SPDX-License-Identifier: GPL-2.0 */
/* The vmtrace command's subcommands, and what they share. */
#ifndef VMTRACE_CMD_COMMANDS_H
#define VMTRACE_CMD_COMMANDS_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>
#include <linux/vmtrace.h>

#include "vmtrace/trace.h"

/*
 * A command of vmtrace: its name, what it does in a line (`vmtrace help`),
 * its usage (on stdout for -h and --help, on stderr with a bad option or
 * operand, exit status 2), and its entry point, which gets the command's
 * name as argv[0]. The table is vmtrace.c's.
 */
struct vmt_command {
	const char *name;
	const char *summary;
	void (*usage)(FILE *out);
	int (*run)(int argc, char **argv);
};

#define VMT_COMMAND(name)			\
	int cmd_##name(int argc, char **argv);	\
	void usage_##name(FILE *out)
VMT_COMMAND(version);
VMT_COMMAND(faults);
VMT_COMMAND(record);
VMT_COMMAND(start);
VMT_COMMAND(stop);
VMT_COMMAND(status);
VMT_COMMAND(record_raw);
VMT_COMMAND(dump_raw);
VMT_COMMAND(convert);
VMT_COMMAND(info);
VMT_COMMAND(dump);
VMT_COMMAND(verify);
VMT_COMMAND(export);
VMT_COMMAND(seek);
VMT_COMMAND(stats);
VMT_COMMAND(report);

/* trace_file.c: what the trace-file commands share. */
/* A number in [min, max], or -1 after saying what is wrong. */
long long parse_number(const char *cmd, const char *what, const char *text, long long min,
		       long long max);
/* A file's size in bytes, or -1. */
long long file_size(const char *path);
/* Open a trace, or say why not and return NULL. */
struct vmt_trace *open_or_say(const char *cmd, const char *path, unsigned int flags);
/* getopt_long entries of the writer's options, and their usage lines. */
#define WRITER_LONG_OPTIONS \
	{ "codec", required_argument, NULL, 'c' }, \
	{ "stage2", required_argument, NULL, 's' }, \
	{ "level", required_argument, NULL, 'l' }, \
	{ "frame-bytes", required_argument, NULL, 'f' }
extern const char writer_options_usage[];
/* 1: @opt was a writer option, taken; 0: not one; -1: a bad value (said). */
int parse_writer_option(const char *cmd, int opt, const char *arg,
			struct vmt_trace_writer_options *o);

/* filter_options.c: dump's and stats's --pid, --cpu, --type, --from, --to. */
#define FILTER_MAX_IDS	256
enum {
	FILTER_OPT_PID = 0x100,
	FILTER_OPT_CPU,
	FILTER_OPT_TYPE,
	FILTER_OPT_FROM,
	FILTER_OPT_TO,
};
#define FILTER_LONG_OPTIONS \
	{ "pid", required_argument, NULL, FILTER_OPT_PID }, \
	{ "cpu", required_argument, NULL, FILTER_OPT_CPU }, \
	{ "type", required_argument, NULL, FILTER_OPT_TYPE }, \
	{ "from", required_argument, NULL, FILTER_OPT_FROM }, \
	{ "to", required_argument, NULL, FILTER_OPT_TO }
extern const char filter_options_usage[];
struct filter_options {
	struct vmt_trace_filter filter;
	uint32_t pids[FILTER_MAX_IDS];
	uint32_t cpus[FILTER_MAX_IDS];
	bool used;		/* any of the options given */
};
/* 1: @opt was a filter option, taken; 0: not one; -1: a bad value (said). */
int parse_filter_option(const char *cmd, int opt, const char *arg, struct filter_options *o);
/* Make the options @t's filter; 0, or -1 having said why not. */
int apply_filter_options(const char *cmd, struct vmt_trace *t, struct filter_options *o);

/*
 * record_print.c: one record as one line of text (dump-raw's and dump's
 * format); @data is its hdr.data_len bytes of variable-size data, or NULL
 * when it has none or they could not be had.
 */
void print_record(FILE *out, const struct vmt_record *rec, const void *data);
/* CPUs whose records dump-raw joins with their data; records of others print alone. */
#define VMT_MAX_CPUS	8192

/*
 * spawn.c: fork COMMAND held before exec until spawn_release(); negative
 * errno on failure. spawn_abandon() lets it exit without running.
 * spawn_wait() returns its exit status, or 128 + the signal that ended it.
 */
pid_t spawn_held(char **argv, int *release_fd);
int spawn_release(int release_fd);
int spawn_abandon(pid_t pid, int release_fd);
int spawn_wait(pid_t pid);

#endif
