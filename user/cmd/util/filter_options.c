// SPDX-License-Identifier: GPL-2.0
/*
 * The record filter's command-line options, which dump and stats share:
 * --pid, --cpu, --type (each a comma-separated list, and repeatable),
 * --from NS and --to NS; and --addr and --ip (lists of START-END ranges),
 * which the analyses, having an --addr of their own, do not take. They
 * become the trace's filter
 * (vmt_trace_set_filter()), which every cursor over it then applies.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd_util.h"
#include "filter_options.h"

const char filter_options_usage[] =
	"  --pid PID[,PID]  only these processes' records (thread group ids)\n"
	"  --cpu CPU[,CPU]  only the records of these CPUs\n"
	"  --type T[,T]     only records of these types, named as dump prints them (ref,\n"
	"                   evict, lost, marker, switch, fork, exec, exit, vma, ...) or numbered\n"
	"  --from NS        only records at or after this time (ns, as dump prints it)\n"
	"  --to NS          only records at or before this time; --from and --to seek\n"
	"                   through the trace's directory, reading no frame before --from\n"
	"  --marker ID      only each process's records from its marker ID to its next\n"
	"                   marker (or its end): a phase the program marked\n"
	"  --between-markers A,B  only each process's records from its marker A to its\n"
	"                   next marker B (or its end); the closing marker is outside\n"
	"  -j, --jobs N     decode the trace's frames on N threads (default: one a CPU);\n"
	"                   the output is the same whatever N\n";

const char filter_range_options_usage[] =
	"  --addr START-END[,START-END]  only references, evictions and exact accesses\n"
	"                   with an address in one of these ranges, [START, END) (0x:\n"
	"                   hexadecimal; an instruction fetch's address is the instruction's)\n"
	"  --ip START-END[,START-END]    only references and exact accesses of an\n"
	"                   instruction in one of these ranges (0 for the kernel's accesses)\n";

/* A record type by its name (vmt_record_type_name(): ref, evict, switch, ...) or number. */
static int parse_type(const char *cmd, const char *text, uint32_t *types)
{
	long long n;

	for (unsigned int t = 0; t < 32; t++) {
		const char *name = vmt_record_type_name(t);

		if (name && (!strcmp(text, name) ||
			     (t == VMT_REC_REFERENCE && !strcmp(text, "reference")))) {
			*types |= 1u << t;
			return 0;
		}
	}
	if (*text < '0' || *text > '9') {
		fprintf(stderr, "vmtrace %s: unknown record type '%s' (a name dump prints, such as ref, evict, lost, switch, or 0..31)\n",
			cmd, text);
		return -1;
	}
	n = parse_number(cmd, "record type", text, 0, 31);
	if (n < 0)
		return -1;
	*types |= 1u << n;
	return 0;
}

/* Each comma-separated number of @arg, appended to @list. */
static int parse_list(const char *cmd, const char *what, const char *arg, uint32_t *list,
		      uint32_t *n, long long max)
{
	char copy[256], *item, *save = NULL;
	long long v;

	if (strlen(arg) >= sizeof(copy)) {
		fprintf(stderr, "vmtrace %s: --%s list too long\n", cmd, what);
		return -1;
	}
	strcpy(copy, arg);
	for (item = strtok_r(copy, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
		if (*n == FILTER_MAX_IDS) {
			fprintf(stderr, "vmtrace %s: more than %u --%s values\n", cmd,
				FILTER_MAX_IDS, what);
			return -1;
		}
		v = parse_number(cmd, what, item, 0, max);
		if (v < 0)
			return -1;
		list[(*n)++] = (uint32_t)v;
	}
	return 0;
}

/* Each comma-separated START-END of @arg, appended to @list. */
static int parse_ranges(const char *cmd, const char *what, const char *arg,
			struct vmt_trace_range *list, uint32_t *n)
{
	char copy[4096], *item, *save = NULL;

	if (strlen(arg) >= sizeof(copy)) {
		fprintf(stderr, "vmtrace %s: %s list too long\n", cmd, what);
		return -1;
	}
	strcpy(copy, arg);
	for (item = strtok_r(copy, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
		if (*n == FILTER_MAX_RANGES) {
			fprintf(stderr, "vmtrace %s: more than %u %s ranges\n", cmd,
				FILTER_MAX_RANGES, what);
			return -1;
		}
		if (parse_addr_range(cmd, what, item, &list[*n].start, &list[*n].end))
			return -1;
		(*n)++;
	}
	return 0;
}

/* --marker ID or --between-markers A,B: marker ids, 0 to 2^32 - 2. */
static int parse_markers(const char *cmd, int opt, const char *arg, struct filter_options *o)
{
	const char *name = opt == FILTER_OPT_MARKER ? "--marker" : "--between-markers";
	const char *comma = strchr(arg, ',');
	char first[32];
	long long a, b = VMT_TRACE_ANY_MARKER;

	if (o->phases) {
		fprintf(stderr, "vmtrace %s: one --marker or --between-markers\n", cmd);
		return -1;
	}
	if ((opt == FILTER_OPT_BETWEEN) != (comma != NULL) ||
	    (comma && (size_t)(comma - arg) >= sizeof(first))) {
		fprintf(stderr, "vmtrace %s: bad %s '%s' (%s)\n", cmd, name, arg,
			opt == FILTER_OPT_MARKER ? "a marker id" : "two marker ids, A,B");
		return -1;
	}
	snprintf(first, sizeof(first), "%.*s", comma ? (int)(comma - arg) : (int)strlen(arg), arg);
	a = parse_number(cmd, name, first, 0, VMT_TRACE_ANY_MARKER - 1);
	if (a >= 0 && comma)
		b = parse_number(cmd, name, comma + 1, 0, VMT_TRACE_ANY_MARKER - 1);
	if (a < 0 || b < 0)
		return -1;
	o->used = o->phases = true;
	o->first_marker = (uint32_t)a;
	o->last_marker = (uint32_t)b;
	return 0;
}

int parse_filter_option(const char *cmd, int opt, const char *arg, struct filter_options *o)
{
	struct vmt_trace_filter *f = &o->filter;
	char copy[256], *item, *save = NULL;
	long long t;

	switch (opt) {
	case FILTER_OPT_JOBS:
		t = parse_number(cmd, "-j", arg, 1, VMT_TRACE_MAX_THREADS);
		if (t < 0)
			return -1;
		o->threads = (unsigned int)t;
		return 1;
	case FILTER_OPT_PID:
		o->used = true;
		return parse_list(cmd, "pid", arg, o->pids, &f->nr_pids, UINT32_MAX) ? -1 : 1;
	case FILTER_OPT_CPU:
		o->used = true;
		return parse_list(cmd, "cpu", arg, o->cpus, &f->nr_cpus, UINT16_MAX) ? -1 : 1;
	case FILTER_OPT_TYPE:
		o->used = true;
		if (strlen(arg) >= sizeof(copy)) {
			fprintf(stderr, "vmtrace %s: --type list too long\n", cmd);
			return -1;
		}
		strcpy(copy, arg);
		for (item = strtok_r(copy, ",", &save); item; item = strtok_r(NULL, ",", &save))
			if (parse_type(cmd, item, &f->types))
				return -1;
		return 1;
	case FILTER_OPT_ADDR:
		o->used = true;
		return parse_ranges(cmd, "--addr", arg, o->addrs, &f->nr_addrs) ? -1 : 1;
	case FILTER_OPT_IP:
		o->used = true;
		return parse_ranges(cmd, "--ip", arg, o->ips, &f->nr_ips) ? -1 : 1;
	case FILTER_OPT_MARKER:
	case FILTER_OPT_BETWEEN:
		return parse_markers(cmd, opt, arg, o) ? -1 : 1;
	case FILTER_OPT_FROM:
	case FILTER_OPT_TO:
		o->used = true;
		t = parse_number(cmd, opt == FILTER_OPT_FROM ? "--from time" : "--to time", arg, 0,
				 INT64_MAX);
		if (t < 0)
			return -1;
		if (!f->time_range)
			f->to_time = UINT64_MAX;
		f->time_range = 1;
		if (opt == FILTER_OPT_FROM)
			f->from_time = (uint64_t)t;
		else
			f->to_time = (uint64_t)t;
		return 1;
	}
	return 0;
}

int set_decode_threads(const char *cmd, struct vmt_trace *t, unsigned int threads)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);

	if (!threads)
		threads = cpus < 1 ? 1 : cpus > VMT_TRACE_MAX_THREADS ? VMT_TRACE_MAX_THREADS :
			  (unsigned int)cpus;
	if (vmt_trace_set_threads(t, threads)) {
		fprintf(stderr, "vmtrace %s: %s\n", cmd, vmt_trace_error_message(t));
		return -1;
	}
	return 0;
}

int apply_filter_options(const char *cmd, struct vmt_trace *t, struct filter_options *o)
{
	if (set_decode_threads(cmd, t, o->threads))
		return -1;
	if (!o->used)
		return 0;
	o->filter.pids = o->pids;
	o->filter.cpus = o->cpus;
	o->filter.addrs = o->addrs;
	o->filter.ips = o->ips;
	if (o->phases && !o->filter.phases) {
		struct vmt_trace_phase *phases;
		int err = vmt_trace_marker_phases(t, o->first_marker, o->last_marker, &phases,
						  &o->filter.nr_phases);

		if (err == -ENOENT)
			fprintf(stderr, "vmtrace %s: no marker %u in the trace\n", cmd,
				o->first_marker);
		else if (err)
			fprintf(stderr, "vmtrace %s: finding the markers: %s\n", cmd,
				err == -ENOMEM ? strerror(ENOMEM) : vmt_trace_error_message(t));
		if (err)
			return -1;
		o->filter.phases = phases;
	}
	if (vmt_trace_set_filter(t, &o->filter)) {
		fprintf(stderr, "vmtrace %s: %s\n", cmd, vmt_trace_error_message(t));
		return -1;
	}
	return 0;
}
