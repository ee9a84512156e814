// SPDX-License-Identifier: GPL-2.0
/*
 * The tracer's options, which record, record-raw and start take: their
 * usage lines, their parsing into a struct collect_options, and the checks
 * of their combination (collect_options.h). The collector (collect.c)
 * traces with them.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collect_options.h"

const char collect_options_usage[] =
	"  -p PID           trace this running process (up to 64 times) until they all exit\n"
	"  -a               trace every process but this one (COMMAND included);\n"
	"                   new processes are traced as they start\n"
	"  --follow         trace the processes the target forks, too (not with -a)\n"
	"  --protect        protect the target's pages: log every access to a page\n"
	"                   outside its enabled set\n"
	"  -n PAGES         pages the enabled set keeps unprotected (default 512, 0 allowed)\n"
	"  --policy P       which enabled page to protect again: fifo (default) or clock\n"
	"  --reprotect-ms MS protect every page again every MS milliseconds (default 0: never)\n"
	"  -e EVENTS        introspection events beside the references, a comma list:\n"
	"                   switch (context switches of the targets), switch-all (every\n"
	"                   one), task (fork, exec, exit, comm), vma (mmap, munmap,\n"
	"                   mremap, mprotect, brk), dma (every DMA mapping), marker\n"
	"                   (markers written to /dev/vmtrace), pagemap (each page's\n"
	"                   frame when first logged and when unmapped; needs\n"
	"                   --protect), or all (all but switch-all and pagemap);\n"
	"                   task and vma also dump the targets' tasks and mappings\n"
	"                   at start\n"
	"  --exact RANGE    exact mode: log every load and store of the target to RANGE,\n"
	"                   with its size and value (implies --protect; the target's\n"
	"                   threads are pinned to one CPU): START-END in hex, END\n"
	"                   exclusive, or a mapping as /proc/PID/maps names it (a\n"
	"                   file's path, [heap], [stack], [vdso]) or an address in an\n"
	"                   anonymous mapping, whenever it is mapped, or 'all': every\n"
	"                   mapping, code included (implies -e vma); up to 16 times\n"
	"  --exact-max-pages N  the pages the exact ranges may span together (default\n"
	"                   65536); a range past it is cut, and the pages cut counted\n"
	"  -r RECORDS       records each CPU's ring holds (a power of two; default 65536)\n"
	"  --overwrite      rings are flight recorders: the oldest records are overwritten\n"
	"  Without /dev/vmtrace, runs 'modprobe vmtrace' (the module, e.g. from vmtrace-dkms)\n";

/* A number within [0, max], or -1 with a message. */
static long parse_u32(const char *cmd, const char *what, const char *text, unsigned long max)
{
	unsigned long n;
	char *end;

	errno = 0;
	n = strtoul(text, &end, 0);
	if (errno || *end || !*text || *text == '-' || n > max) {
		fprintf(stderr, "vmtrace %s: bad %s '%s' (0..%lu)\n", cmd, what, text, max);
		return -1;
	}
	return (long)n;
}

void collect_options_init(struct collect_options *o)
{
	memset(o, 0, sizeof(*o));
	o->enabled_pages = VMT_DEFAULT_ENABLED_PAGES;
	o->policy = VMT_POLICY_FIFO;
}

static const struct {
	const char *name;
	__u32 bits;
} event_names[] = {
	{ "switch", VMT_EVENT_SWITCH },
	{ "switch-all", VMT_EVENT_SWITCH_ALL },
	{ "task", VMT_EVENT_TASK },
	{ "vma", VMT_EVENT_VMA },
	{ "dma", VMT_EVENT_DMA },
	{ "marker", VMT_EVENT_MARKER },
	{ "pagemap", VMT_EVENT_PAGEMAP },
	{ "all", VMT_EVENT_SWITCH | VMT_EVENT_TASK | VMT_EVENT_VMA | VMT_EVENT_DMA |
		 VMT_EVENT_MARKER },
};

/* -e: a comma list of event names, or -1 with a message. */
static int parse_events(const char *cmd, const char *arg, __u32 *events)
{
	const char *p = arg, *end;
	size_t i, len;

	do {
		end = strchr(p, ',');
		len = end ? (size_t)(end - p) : strlen(p);
		for (i = 0; i < sizeof(event_names) / sizeof(event_names[0]); i++)
			if (strlen(event_names[i].name) == len && !strncmp(p, event_names[i].name, len))
				break;
		if (i == sizeof(event_names) / sizeof(event_names[0])) {
			fprintf(stderr, "vmtrace %s: unknown event '%.*s' in '%s' (switch, "
				"switch-all, task, vma, dma, marker, pagemap, all)\n", cmd, (int)len, p, arg);
			return -1;
		}
		*events |= event_names[i].bits;
		p = end + 1;
	} while (end);
	return 0;
}

/* --exact START-END (hex, with or without 0x), or a mapping: 0 or -1 said. */
static int parse_exact(const char *cmd, const char *arg, struct collect_options *o)
{
	struct collect_exact *e = &o->exact[o->nr_exact];
	unsigned long long start, end;
	int used = 0;

	if (o->nr_exact == VMT_EXACT_RANGES) {
		fprintf(stderr, "vmtrace %s: more than %u --exact\n", cmd, VMT_EXACT_RANGES);
		return -1;
	}
	*e = (struct collect_exact){ .mapping = arg };
	if (sscanf(arg, "%llx-%llx%n", &start, &end, &used) == 2 && !arg[used]) {
		if (start >= end) {
			fprintf(stderr, "vmtrace %s: --exact %s: the range is empty\n", cmd, arg);
			return -1;
		}
		*e = (struct collect_exact){ .start = start, .end = end };
	} else if (!*arg) {
		fprintf(stderr, "vmtrace %s: --exact needs START-END or a mapping\n", cmd);
		return -1;
	}
	o->nr_exact++;
	return 0;
}

int collect_parse_option(const char *cmd, int opt, const char *arg, struct collect_options *o)
{
	long n;

	switch (opt) {
	case 'a':
		o->config.flags |= VMT_CONFIG_SYSTEM_WIDE;
		return 1;
	case 'r':
		n = parse_u32(cmd, "ring size", arg, VMT_MAX_RING_RECORDS);
		if (n < 0)
			return -1;
		o->config.ring_records = (__u32)n;
		return 1;
	case 'O':
		o->config.flags |= VMT_CONFIG_OVERWRITE;
		return 1;
	case 'e':
		return parse_events(cmd, arg, &o->config.events) ? -1 : 1;
	case 'P':
		o->config.flags |= VMT_CONFIG_PROTECT;
		return 1;
	case 'F':
		o->config.flags |= VMT_CONFIG_FOLLOW;
		return 1;
	case 'n':
		o->enabled_pages = parse_u32(cmd, "page count", arg, VMT_MAX_ENABLED_PAGES);
		o->enabled_options = true;
		return o->enabled_pages < 0 ? -1 : 1;
	case 'R':
		o->reprotect_ms = parse_u32(cmd, "interval", arg, VMT_MAX_REPROTECT_MS);
		o->enabled_options = true;
		return o->reprotect_ms < 0 ? -1 : 1;
	case 'L':
		o->enabled_options = true;
		if (!strcmp(arg, "fifo")) {
			o->policy = VMT_POLICY_FIFO;
		} else if (!strcmp(arg, "clock")) {
			o->policy = VMT_POLICY_CLOCK;
		} else {
			fprintf(stderr, "vmtrace %s: bad policy '%s' (fifo or clock)\n", cmd, arg);
			return -1;
		}
		return 1;
	case 'X':
		return parse_exact(cmd, arg, o) ? -1 : 1;
	case 'M':
		o->exact_max_pages = parse_u32(cmd, "page count", arg, UINT32_MAX);
		if (o->exact_max_pages == 0)
			fprintf(stderr, "vmtrace %s: --exact-max-pages must be at least 1\n", cmd);
		return o->exact_max_pages <= 0 ? -1 : 1;
	case 'p':
		n = parse_u32(cmd, "pid", arg, INT32_MAX);
		if (n <= 0) {
			if (n == 0)
				fprintf(stderr, "vmtrace %s: bad pid '%s'\n", cmd, arg);
			return -1;
		}
		if (o->nr_pids == VMT_MAX_PIDS) {
			fprintf(stderr, "vmtrace %s: more than %u -p\n", cmd, VMT_MAX_PIDS);
			return -1;
		}
		o->pids[o->nr_pids++] = (__u32)n;
		return 1;
	}
	return 0;
}

int collect_check_options(const char *cmd, struct collect_options *o, bool have_command)
{
	bool system_wide = o->config.flags & VMT_CONFIG_SYSTEM_WIDE;

	if (system_wide && o->nr_pids) {
		fprintf(stderr, "vmtrace %s: -a traces every process; -p is for chosen ones\n", cmd);
		return -1;
	}
	if (!system_wide && have_command == !!o->nr_pids) {
		fprintf(stderr, "vmtrace %s: give -p PID, -a or a COMMAND\n", cmd);
		return -1;
	}
	if (system_wide && (o->config.flags & VMT_CONFIG_FOLLOW)) {
		fprintf(stderr, "vmtrace %s: -a traces new processes already; --follow is for one target\n",
			cmd);
		return -1;
	}
	/* Exact pages are protected pages that never enter the enabled set. */
	if (o->nr_exact)
		o->config.flags |= VMT_CONFIG_PROTECT;
	/* The module finds a mapping given by its name through the VMA events. */
	for (unsigned int i = 0; i < o->nr_exact; i++)
		if (o->exact[i].mapping)
			o->config.events |= VMT_EVENT_VMA;
	if (o->config.flags & VMT_CONFIG_PROTECT) {
		o->config.enabled_pages = (__u32)o->enabled_pages;
		o->config.policy = (__u32)o->policy;
		o->config.reprotect_ms = (__u32)o->reprotect_ms;
	} else if (o->enabled_options) {
		fprintf(stderr, "vmtrace %s: -n, --policy and --reprotect-ms need --protect\n", cmd);
		return -1;
	}
	if ((o->config.events & VMT_EVENT_PAGEMAP) && !(o->config.flags & VMT_CONFIG_PROTECT)) {
		fprintf(stderr, "vmtrace %s: -e pagemap needs --protect\n", cmd);
		return -1;
	}
	return 0;
}
