/* SPDX-License-Identifier: GPL-2.0 */
/* The vmtrace command's subcommands. */
#ifndef VMTRACE_CMD_COMMANDS_H
#define VMTRACE_CMD_COMMANDS_H

#include <stdio.h>

/*
 * A command of vmtrace: its name, what it does in a line (`vmtrace help`),
 * its usage (on stdout for -h and --help, on stderr with a bad option or
 * operand, exit status 2), and its entry point, which gets the command's
 * name as argv[0]. The table is vmtrace.c's; `vmtrace help` and the man
 * page are made from it.
 */
struct vmt_command {
	const char *name;
	const char *summary;
	void (*usage)(FILE *out);
	int (*run)(int argc, char **argv);
};

/* The command line's command run (vmtrace.c); main() is main.c's, or mpi_main.c's. */
int vmtrace_main(int argc, char **argv);

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
VMT_COMMAND(mrc);
VMT_COMMAND(reuse);
VMT_COMMAND(wss);
VMT_COMMAND(heatmap);
VMT_COMMAND(hmtt);
VMT_COMMAND(reduce);
VMT_COMMAND(loops);
VMT_COMMAND(cachesim);
VMT_COMMAND(profile);
VMT_COMMAND(synth);
VMT_COMMAND(compare);
VMT_COMMAND(relay);

#endif
