// SPDX-License-Identifier: GPL-2.0
/*
 * vmtrace report FILE: what vmt_trace_summarize() counts, as tables:
 * processes and their footprints, the reference (fault) rate over time,
 * the most referenced pages, and a line from each analysis (mrc, reuse,
 * wss, hmtt's DMA share); with --html, the same as one page
 * (report_html.c). What the text and the page share is util/report.c.
 */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "vmtrace/analysis.h"
#include "commands.h"
#include "report_html.h"
#include "util/analysis_command.h"
#include "util/cmd_util.h"
#include "util/filter_options.h"
#include "util/follow.h"
#include "util/report.h"

static double seconds(uint64_t ns)
{
	return (double)ns / 1e9;
}

static double span_seconds(const struct vmt_trace_summary *s)
{
	return s->records ? seconds(s->last_time - s->first_time) : 0.0;
}

static const char report_usage[] =
	"usage: vmtrace report [--buckets N] [--top N] [--html PAGE] [--follow] [filter options] FILE\n"
	"  --buckets N      time slices of the reference rate (default 10)\n"
	"  --top N          the most referenced pages to list (default 10)\n"
	"  --html PAGE      write the report as one self-contained HTML page, with\n"
	"                   gnuplot's pictures of the analyses, instead of the text\n"
	"  the filter options below narrow the records reported (--between-markers: a\n"
	"  phase the program marked)\n";

static void print_rates(const struct vmt_trace_summary *s)
{
	uint64_t most = 1;
	double slice = seconds(s->bucket_ns);

	for (uint32_t i = 0; i < s->nr_buckets; i++)
		if (s->bucket_references[i] > most)
			most = s->bucket_references[i];
	printf("\nreferences over time (%u slices of %.3f s):\n", s->nr_buckets, slice);
	for (uint32_t i = 0; i < s->nr_buckets; i++) {
		uint64_t n = s->bucket_references[i];
		int bar = (int)(40 * n / most);

		printf("  %8.3f s %10llu %12.0f/s  %.*s\n", slice * i, (unsigned long long)n,
		       slice > 0 ? (double)n / slice : 0.0, bar,
		       "########################################");
	}
}

static int print_attribution(struct vmt_trace *t, const char *path)
{
	struct vmt_trace_attribution *a;

	if (report_attribute(t, path, &a))
		return 1;
	if (!a)
		return 0;
	printf("\nreferences by mapping: %llu of %llu attributed (%.2f%%)\n",
	       (unsigned long long)a->attributed, (unsigned long long)a->references,
	       a->references ? 100.0 * (double)a->attributed / (double)a->references : 0.0);
	for (uint32_t i = 0; i < a->nr_mappings && i < 20 && a->mappings[i].references; i++)
		printf("  %12llu  %s\n", (unsigned long long)a->mappings[i].references,
		       a->mappings[i].name);
	vmt_trace_attribution_free(a);
	return 0;
}

/*
 * The processes with references, named from the trace's task records; the
 * others (a trace of every context switch names every task that ran) on
 * one line.
 */
static void print_processes(const struct vmt_trace_summary *s)
{
	uint64_t other_records, others = report_silent_processes(s, &other_records);

	printf("\nprocesses (footprint: distinct 4 KiB pages referenced):\n");
	printf("  %-8s %-16s %12s %10s %10s %12s %10s  %s\n", "pid", "name", "references",
	       "writes", "evictions", "footprint", "seconds", "executable");
	for (uint32_t i = 0; i < s->nr_processes; i++) {
		const struct vmt_trace_process *p = &s->processes[i];

		if (!p->references)
			continue;
		printf("  %-8u %-16s %12llu %10llu %10llu %6llu pages %10.3f  %s\n", p->pid,
		       p->comm[0] ? p->comm : "-", (unsigned long long)p->references,
		       (unsigned long long)p->writes, (unsigned long long)p->evictions,
		       (unsigned long long)p->pages, seconds(p->last_time - p->first_time),
		       p->exe ? p->exe : "-");
	}
	if (others)
		printf("  and %llu processes without references (%llu records)\n",
		       (unsigned long long)others, (unsigned long long)other_records);
}

enum { REPORT_MRC, REPORT_REUSE, REPORT_WSS, REPORT_DMA, REPORT_ANALYSES };

/*
 * A line from each analysis, in one more pass over the trace: the LRU
 * faults at a few sizes, the median reuse distance, the peak working set
 * in the rate's time slices, the DMA share when the trace has DMA records.
 */
static int print_analyses(struct vmt_trace *t, const char *path,
			  const struct vmt_trace_summary *s)
{
	struct vmt_mrc_options mo = {
		.policies = 1u << VMT_MRC_LRU,
		.sizes = report_sizes,
		.nr_sizes = REPORT_NR_SIZES,
	};
	static const unsigned int peak = 100;
	struct vmt_analysis *a[REPORT_ANALYSES] = { NULL };
	struct vmt_ref_options ro = { 0 };
	const struct vmt_reuse_histogram *reuse;
	struct vmt_wss_summary wss;
	char n[32], n2[32];
	uint64_t faults;
	int err;

	err = vmt_mrc_create(&a[REPORT_MRC], &mo);
	if (!err)
		err = vmt_reuse_create(&a[REPORT_REUSE], 0);
	if (!err)
		err = vmt_wss_create(&a[REPORT_WSS], s->bucket_ns ? s->bucket_ns : 1);
	if (!err)
		err = vmt_dma_traffic_create(&a[REPORT_DMA], s->last_time - s->first_time + 1);
	if (!err)
		err = vmt_analyze(t, &ro, a, REPORT_ANALYSES, NULL);
	if (err) {
		fprintf(stderr, "vmtrace report: %s: the analyses: %s\n", path,
			err == -ENOMEM ? strerror(ENOMEM) : vmt_trace_error_message(t));
		goto out;
	}
	printf("\nanalyses (pages of 4 KiB, 2 MiB where huge; mrc, reuse, wss, hmtt say more):\n");
	printf("  LRU faults:");
	for (unsigned int i = 0; i < mo.nr_sizes; i++) {
		if (!report_shows_size(i, vmt_mrc_footprint(a[REPORT_MRC])))
			break;
		if (!vmt_mrc_faults(a[REPORT_MRC], VMT_MRC_LRU, i, &faults))
			printf("%s %s at %llu pages", i ? "," : "", fmt_count(faults, n),
			       (unsigned long long)vmt_mrc_size(a[REPORT_MRC], i));
	}
	printf("; %s pages referenced\n", fmt_count(vmt_mrc_footprint(a[REPORT_MRC]), n));
	reuse = vmt_reuse_distances(a[REPORT_REUSE]);
	if (reuse->count)
		printf("  reuse distance: median %s pages, mean %.1f, of %s reuses\n",
		       fmt_count(reuse->median, n), reuse->mean, fmt_count(reuse->count, n2));
	else
		printf("  reuse distance: no page was referenced twice\n");
	if (!vmt_wss_summarize(a[REPORT_WSS], &peak, 1, &wss))
		printf("  working set: peak %s pages (%.1f MiB) in a slice of %.3f s, mean %.1f\n",
		       fmt_count(wss.units[0], n), (double)wss.bytes[0] / (1 << 20),
		       seconds(wss.window_ns), wss.mean_units);
	if (vmt_dma_traffic_records(a[REPORT_DMA]))
		printf("  DMA: %.2f%% of the memory traffic (DMA bytes against pages referenced)\n",
		       vmt_dma_traffic_share(a[REPORT_DMA]));
out:
	for (unsigned int i = 0; i < REPORT_ANALYSES; i++)
		vmt_analysis_destroy(a[i]);
	return err ? 1 : 0;
}

void usage_report(FILE *out)
{
	fputs(report_usage, out);
	fputs(follow_usage, out);
	fputs(filter_options_usage, out);
}

int cmd_report(int argc, char **argv)
{
	static const struct option options[] = {
		{ "buckets", required_argument, NULL, 'b' },
		{ "top", required_argument, NULL, 't' },
		{ "html", required_argument, NULL, 'H' },
		FOLLOW_LONG_OPTION,
		FILTER_LONG_OPTIONS,
		{ NULL, 0, NULL, 0 },
	};
	struct vmt_trace_summary_options o = { 0 };
	struct filter_options filter = { 0 };
	const char *html = NULL;
	struct vmt_trace_summary *s;
	struct vmt_trace *t;
	bool elsewhere, follow = false;
	long long n;
	int opt, status;

	while ((opt = getopt_long(argc, argv, FILTER_SHORT_OPTIONS, options, NULL)) != -1) {
		if (opt == FOLLOW_OPT) {
			follow = true;
			continue;
		}
		if (opt == 'H') {
			html = optarg;
			continue;
		}
		n = parse_filter_option("report", opt, optarg, &filter);
		if (n < 0)
			return 2;
		if (n)
			continue;
		if (opt != 'b' && opt != 't') {
			usage_report(stderr);
			return 2;
		}
		n = parse_number("report", opt == 'b' ? "bucket count" : "page count", optarg, 1,
				 1000000);
		if (n < 0)
			return 2;
		if (opt == 'b')
			o.time_buckets = (uint32_t)n;
		else
			o.top_pages = (uint32_t)n;
	}
	if (optind != argc - 1) {
		usage_report(stderr);
		return 2;
	}
	if (follow && follow_until_finished("report", argv[optind]))
		return 1;
	s = report_summarize("report", argv[optind], &o, &filter, &t, &elsewhere);
	if (!s)
		return 1;
	if (html) {
		status = report_html(t, argv[optind], s, html);
		goto out;
	}
	printf("%s: %llu records over %.3f s, %llu references, %llu evictions, %llu lost\n",
	       argv[optind], (unsigned long long)s->records, span_seconds(s),
	       (unsigned long long)s->by_type[VMT_REC_REFERENCE],
	       (unsigned long long)s->by_type[VMT_REC_EVICT], (unsigned long long)s->lost);
	print_processes(s);
	printf("  all: %llu pages (%.1f MiB)\n", (unsigned long long)s->pages,
	       (double)s->pages * 4096 / (1 << 20));
	if (s->by_type[VMT_REC_REFERENCE])
		print_rates(s);
	printf("\ntop pages:\n");
	printf("  %-8s %-18s %12s %10s\n", "pid", "page", "references", "writes");
	for (uint32_t i = 0; i < s->nr_top_pages; i++)
		printf("  %-8u 0x%-16llx %12llu %10llu\n", s->top_pages[i].pid,
		       (unsigned long long)s->top_pages[i].address,
		       (unsigned long long)s->top_pages[i].references,
		       (unsigned long long)s->top_pages[i].writes);
	status = print_attribution(t, argv[optind]);
	if (!status && s->by_type[VMT_REC_REFERENCE])
		status = print_analyses(t, argv[optind], s);
out:
	vmt_trace_summary_free(s);
	vmt_trace_close(t);
	return status;
}
