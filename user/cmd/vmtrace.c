// SPDX-License-Identifier: GPL-2.0
/*
 * vmtrace: the command. Subcommands follow perf and trace-cmd.
 * Exit status: 0 success, 1 the operation failed, 2 bad usage.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "vmtrace/vmtrace.h"
#include "commands.h"

static const char usage_text[] =
	"usage: vmtrace <command> [options]\n"
	"\n"
	"commands:\n"
	"  version   the tools' ABI and, when the module is loaded, the module's\n"
	"  faults    run a command and count its user page faults (BPF)\n"
	"  record    trace a command or processes into a compressed trace file (.vmt)\n"
	"  start     record in the background (a daemon): record's options; returns once tracing\n"
	"  stop      make the background collector finish its file, wait, print its summary\n"
	"  status    the module's state and counters; the background collector's progress\n"
	"  record-raw  trace a command's faults into a file of raw records\n"
	"  dump-raw  print a raw record file, one record a line\n"
	"  convert   compress a raw record file into a trace file (.vmt)\n"
	"  info      a trace file's streams, frames and compression\n"
	"  dump      print a trace file, one record a line\n"
	"  verify    check every frame of a trace file; --repair rebuilds its directory\n"
	"  export    write a trace file's records back out as raw records\n"
	"  seek      reach entries by index or time; show the frames each seek decoded\n"
	"  stats     counts per process, CPU and record type; lost records; time span\n"
	"  report    processes, footprints, fault rates over time, top pages\n"
	"  help      this text\n";

int cmd_version(int argc, char **argv)
{
	struct vmt_version v;
	int fd, err;

	(void)argv;
	if (argc != 1) {
		fprintf(stderr, "vmtrace version: takes no arguments\n");
		return 2;
	}
	printf("tools: ABI %u, record %u bytes\n", VMT_ABI_VERSION, VMT_RECORD_SIZE);
	fd = vmt_device_open();
	if (fd < 0) {
		fprintf(stderr, "vmtrace version: cannot open %s: %s%s\n", VMT_DEVICE_PATH,
			strerror(-fd), fd == -ENOENT ? " (is the module loaded?)" : "");
		return 1;
	}
	err = vmt_device_version(fd, &v);
	close(fd);
	if (err) {
		fprintf(stderr, "vmtrace version: VMT_IOC_VERSION: %s\n", strerror(-err));
		return 1;
	}
	printf("module: ABI %u, record %u bytes, control page %u bytes, %u CPUs\n",
	       v.abi_version, v.record_size, v.meta_size, v.nr_cpus);
	if (v.abi_version != VMT_ABI_VERSION || v.record_size != VMT_RECORD_SIZE) {
		fprintf(stderr, "vmtrace version: the module and the tools disagree on the ABI\n");
		return 1;
	}
	return 0;
}

static const struct {
	const char *name;
	int (*run)(int argc, char **argv);
} commands[] = {
	{ "version", cmd_version },
	{ "faults", cmd_faults },
	{ "record", cmd_record },
	{ "start", cmd_start },
	{ "stop", cmd_stop },
	{ "status", cmd_status },
	{ "record-raw", cmd_record_raw },
	{ "dump-raw", cmd_dump_raw },
	{ "convert", cmd_convert },
	{ "info", cmd_info },
	{ "dump", cmd_dump },
	{ "verify", cmd_verify },
	{ "export", cmd_export },
	{ "seek", cmd_seek },
	{ "stats", cmd_stats },
	{ "report", cmd_report },
};

int main(int argc, char **argv)
{
	size_t i;

	if (argc < 2 || !strcmp(argv[1], "help") || !strcmp(argv[1], "--help") ||
	    !strcmp(argv[1], "-h")) {
		fputs(usage_text, argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].run(argc - 1, argv + 1);
	fprintf(stderr, "vmtrace: unknown command '%s'\n\n%s", argv[1], usage_text);
	return 2;
}
