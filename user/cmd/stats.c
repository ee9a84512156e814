// SPDX-License-Identifier: GPL-2.0
/*
 * vmtrace stats FILE: what vmt_trace_summarize() counts, as tables: records
 * per type, CPU and process, lost records, the time span.
 */
#include <getopt.h>
#include <stdio.h>

#include "vmtrace/trace.h"
#include "commands.h"
#include "util/filter_options.h"
#include "util/follow.h"
#include "util/report.h"

static const char *const type_names[VMT_SUMMARY_TYPES] = {
	[VMT_REC_NONE] = "none", [VMT_REC_LOST] = "lost", [VMT_REC_REFERENCE] = "reference",
	[VMT_REC_EVICT] = "evict", [VMT_REC_MARKER] = "marker",
};

static const char stats_usage[] =
	"usage: vmtrace stats [--follow] [filter options] FILE\n"
	"  records per type, CPU and process; lost records; the time span; exact\n"
	"  accesses by kind\n";

/*
 * The summary's span is the record streams' (from the directory). Through
 * a filter, the span of the records that passed: their processes' first and
 * last times (lost records carry no process).
 */
static void print_time_span(const struct vmt_trace_summary *s, bool filtered)
{
	uint64_t first = s->first_time, last = s->last_time;

	if (filtered) {
		first = s->nr_processes ? UINT64_MAX : 0;
		last = 0;
		for (uint32_t i = 0; i < s->nr_processes; i++) {
			if (s->processes[i].first_time < first)
				first = s->processes[i].first_time;
			if (s->processes[i].last_time > last)
				last = s->processes[i].last_time;
		}
	}
	printf("time: %llu .. %llu ns (%.3f s)\n", (unsigned long long)first,
	       (unsigned long long)last, s->records ? (double)(last - first) / 1e9 : 0.0);
}

void usage_stats(FILE *out)
{
	fputs(stats_usage, out);
	fputs(follow_usage, out);
	fputs(filter_options_usage, out);
	fputs(filter_range_options_usage, out);
}

int cmd_stats(int argc, char **argv)
{
	static const struct option options[] = {
		FILTER_LONG_OPTIONS,
		FILTER_RANGE_LONG_OPTIONS,
		FOLLOW_LONG_OPTION,
		{ NULL, 0, NULL, 0 },
	};
	struct filter_options filter = { 0 };
	struct vmt_trace_summary *s;
	struct vmt_trace *t;
	bool elsewhere, follow = false;
	int opt, taken;

	while ((opt = getopt_long(argc, argv, FILTER_SHORT_OPTIONS, options, NULL)) != -1) {
		if (opt == FOLLOW_OPT) {
			follow = true;
			continue;
		}
		taken = parse_filter_option("stats", opt, optarg, &filter);
		if (taken < 0)
			return 2;
		if (!taken) {
			usage_stats(stderr);
			return 2;
		}
	}
	if (optind != argc - 1) {
		usage_stats(stderr);
		return 2;
	}
	if (follow && follow_until_finished("stats", argv[optind]))
		return 1;
	/* Under MPI, each process counts its part, and rank 0 prints them all. */
	s = report_summarize("stats", argv[optind], NULL, &filter, &t, &elsewhere);
	if (!s)
		return elsewhere ? 0 : 1;
	printf("records: %llu\n", (unsigned long long)s->records);
	print_time_span(s, filter.used);
	printf("lost: %llu\n", (unsigned long long)s->lost);
	printf("by type:\n");
	for (unsigned int i = 0; i < VMT_SUMMARY_TYPES; i++)
		if (s->by_type[i])
			printf("  %-10s %12llu\n", type_names[i] ? type_names[i] :
			       vmt_record_type_name(i) ? vmt_record_type_name(i) : "?",
			       (unsigned long long)s->by_type[i]);
	if (s->other_types)
		printf("  %-10s %12llu\n", "other", (unsigned long long)s->other_types);
	if (s->by_type[VMT_REC_EXACT]) {
		const uint64_t *a = s->exact_by_access;

		printf("exact accesses: %llu loads, %llu stores, %llu read-modify-writes, %llu instruction fetches, %llu other; %llu of them the kernel's\n",
		       (unsigned long long)a[VMT_ACCESS_READ], (unsigned long long)a[VMT_ACCESS_WRITE],
		       (unsigned long long)a[VMT_ACCESS_RMW], (unsigned long long)a[VMT_ACCESS_EXEC],
		       (unsigned long long)(s->by_type[VMT_REC_EXACT] - a[VMT_ACCESS_READ] -
					    a[VMT_ACCESS_WRITE] - a[VMT_ACCESS_RMW] -
					    a[VMT_ACCESS_EXEC]),
		       (unsigned long long)s->exact_kernel);
	}
	printf("by cpu:\n");
	for (uint32_t cpu = 0; cpu < s->nr_cpus; cpu++)
		if (s->by_cpu[cpu])
			printf("  cpu%-7u %12llu records, %llu lost\n", cpu,
			       (unsigned long long)s->by_cpu[cpu],
			       (unsigned long long)s->lost_by_cpu[cpu]);
	printf("by pid:\n");
	for (uint32_t i = 0; i < s->nr_processes; i++) {
		const struct vmt_trace_process *p = &s->processes[i];

		printf("  %-10u %12llu records: %llu references, %llu evictions\n", p->pid,
		       (unsigned long long)p->records, (unsigned long long)p->references,
		       (unsigned long long)p->evictions);
	}
	vmt_trace_summary_free(s);
	vmt_trace_close(t);
	return 0;
}
