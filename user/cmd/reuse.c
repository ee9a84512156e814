// SPDX-License-Identifier: GPL-2.0
/*
 * vmtrace reuse TRACE [--top N] [analysis options]: reuse distances and
 * times, laid out as DynamoRIO's reuse_distance prints them: the counts,
 * mean and median, the histograms (distance count percent cumulative) and
 * the units referenced most (libvmtrace's vmt_reuse_*()).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "util/analysis_command.h"
#include "util/cmd_util.h"

static const char reuse_usage[] =
	"usage: vmtrace reuse [--top N] [analysis options] [filter options] TRACE\n"
	"  reuse distances (the distinct other pages, or lines, referenced between two\n"
	"  references to one: its LRU stack distance) and reuse times (the references\n"
	"  between them): count, mean, median, histograms with each value below 16 and\n"
	"  then powers of two, and the pages referenced most\n"
	"  --top N            how many of the pages referenced most (default 10; 0: none)\n"
	"  --csv              the histograms: histogram,low,high,count,percent,cumulative\n"
	"                     (--per-process: a pid column first, 'all' for all together)\n"
	"  --plot FILE        the distance histogram's percentages\n";

struct reuse_command {
	struct analysis_options o;
	unsigned int top;
};

static int create_reuse(void *ctx, uint32_t pid, struct vmt_analysis **analysis)
{
	(void)pid;
	return vmt_reuse_create(analysis, ((struct reuse_command *)ctx)->top);
}

static void print_histogram(const struct reuse_command *c, const char *name,
			    const struct vmt_reuse_histogram *h, const char *pid)
{
	double cumulative = 0;
	char b1[32], b2[32], range[48];

	if (!c->o.csv)
		printf("\n%-24s %14s %8s %11s\n", name, "count", "percent", "cumulative");
	for (unsigned int b = 0; b < h->nr_buckets; b++) {
		double percent = h->count ? 100.0 * h->buckets[b].count / h->count : 0;

		cumulative += percent;
		if (c->o.csv) {
			if (c->o.per_process)
				printf("%s,", pid ? pid : "all");
			printf("%s,%llu,%llu,%llu,%.4f,%.4f\n", name,
			       (unsigned long long)h->buckets[b].low,
			       (unsigned long long)h->buckets[b].high,
			       (unsigned long long)h->buckets[b].count, percent, cumulative);
			continue;
		}
		if (h->buckets[b].low == h->buckets[b].high)
			snprintf(range, sizeof(range), "%s", fmt_count(h->buckets[b].low, b1));
		else
			snprintf(range, sizeof(range), "%s-%s", fmt_count(h->buckets[b].low, b1),
				 fmt_count(h->buckets[b].high, b2));
		printf("%24s %14s %7.2f%% %10.2f%%\n", range, fmt_count(h->buckets[b].count, b1),
		       percent, cumulative);
	}
}

static void print_summary(const char *what, const struct vmt_reuse_histogram *h,
			  const char *median_note)
{
	char b1[32], b2[32];

	printf("reuse %s mean: %.2f, median: %s%s, max: %s\n", what, h->mean,
	       fmt_count(h->median, b1), median_note, fmt_count(h->max, b2));
}

/* One process's results (@pid NULL: all together). */
static void print_reuse(void *ctx, const struct vmt_analysis *a, const char *pid)
{
	const struct reuse_command *c = ctx;
	const struct vmt_reuse_histogram *d = vmt_reuse_distances(a), *t = vmt_reuse_times(a);
	const struct vmt_reuse_unit *top;
	char b1[32], b2[32], b3[32];
	unsigned int n;

	if (c->o.csv) {
		print_histogram(c, "distance", d, pid);
		print_histogram(c, "time", t, pid);
		return;
	}
	printf("\n%s%s: %s references, %s units, %s reuses\n", pid ? "pid " : "",
	       pid ? pid : "all", fmt_count(vmt_reuse_references(a), b1),
	       fmt_count(vmt_reuse_footprint(a), b2), fmt_count(d->count, b3));
	if (!d->count)
		return;
	print_summary("distance", d, "");
	print_summary("time", t, " (its bucket's low end)");
	print_histogram(c, "distance", d, pid);
	print_histogram(c, "time", t, pid);
	top = vmt_reuse_top(a, &n);
	if (!n)
		return;
	printf("\ntop %u units referenced most\n%18s %8s %14s %14s\n", n, "address", "pid",
	       "references", "distant refs");
	for (unsigned int i = 0; i < n; i++)
		printf("%#18llx %8u %14s %14s\n", (unsigned long long)top[i].addr, top[i].pid,
		       fmt_count(top[i].references, b1), fmt_count(top[i].distant, b2));
	printf("(distant: at a reuse distance of %u or more)\n", VMT_REUSE_DISTANT);
}

static int plot_distances(void *ctx, const struct vmt_analysis *a,
			  const struct vmt_analysis *per_process)
{
	const struct reuse_command *c = ctx;
	const struct vmt_reuse_histogram *d = vmt_reuse_distances(a);
	char *data = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&data, &len);
	int ret;

	(void)per_process;
	if (!f) {
		fprintf(stderr, "vmtrace reuse: --plot: out of memory\n");
		return 1;
	}
	for (unsigned int b = 0; b < d->nr_buckets; b++)
		fprintf(f, "%u \"%llu\" %.4f\n", b, (unsigned long long)d->buckets[b].low,
			d->count ? 100.0 * d->buckets[b].count / d->count : 0);
	fclose(f);
	ret = plot_with_gnuplot("reuse", c->o.plot,
				"set style fill solid 0.6\nset boxwidth 0.8\n"
				"set xlabel 'reuse distance (from)'\nset ylabel 'percent of reuses'\n"
				"set xtics rotate by -45\nset grid ytics\n"
				"plot DATA using 1:3:xtic(2) with boxes notitle", data);
	free(data);
	return ret;
}

static void print_reuse_header(void *ctx, const char *path,
			       const struct vmt_analyze_stats *stats)
{
	const struct reuse_command *c = ctx;

	if (c->o.csv)
		printf("%shistogram,low,high,count,percent,cumulative\n",
		       c->o.per_process ? "pid," : "");
	else
		analysis_print_header(stdout, path, &c->o, stats);
}

void usage_reuse(FILE *out)
{
	fputs(reuse_usage, out);
	fputs(analysis_options_usage, out);
	fputs(filter_options_usage, out);
}

enum { REUSE_OPT_TOP = 0x300 };

static int parse_reuse_option(void *ctx, int opt, const char *arg)
{
	struct reuse_command *c = ctx;
	long long n;

	if (opt != REUSE_OPT_TOP)
		return 0;
	n = parse_number("reuse", "--top", arg, 0, 1000000);
	if (n < 0)
		return -1;
	c->top = n;
	return 1;
}

int cmd_reuse(int argc, char **argv)
{
	static const struct option options[] = {
		{ "top", required_argument, NULL, REUSE_OPT_TOP },
		{ "help", no_argument, NULL, 'h' },
		ANALYSIS_LONG_OPTIONS,
		{ NULL, 0, NULL, 0 },
	};
	struct reuse_command c = { .top = 10 };
	const char *path;
	int status;

	status = parse_analysis_command_line(&(struct analysis_command_line){
		"reuse", "h", options, usage_reuse, parse_reuse_option, &c }, argc, argv, &c.o,
		&path);
	if (status >= 0)
		return status;
	return run_analysis(&(struct analysis_runner){ "reuse", create_reuse, &c,
						       print_reuse_header, print_reuse,
						       plot_distances },
			    path, &c.o);
}
