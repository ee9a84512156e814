// SPDX-License-Identifier: GPL-2.0
/*
 * vmtrace version: the ABI the tools were built for and, through
 * VMT_IOC_VERSION, the loaded module's; exit status 1 when they disagree.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "vmtrace/vmtrace.h"
#include "commands.h"

void usage_version(FILE *out)
{
	fputs("usage: vmtrace version\n"
	      "  the tools' ABI and, when the module is loaded, the module's\n", out);
}

int cmd_version(int argc, char **argv)
{
	struct vmt_version v;
	int fd, err;

	(void)argv;
	if (argc != 1) {
		usage_version(stderr);
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
