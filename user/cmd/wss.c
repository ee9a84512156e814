// SPDX-License-Identifier: GPL-2.0
/*
 * vmtrace wss TRACE --window T: the working-set size (distinct units
 * referenced in each window of T) over time, in all and per process: its
 * percentiles and mean as damo's `report wss` prints them, the series
 * (--series, --csv), and a plot of it (--plot).
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "util/analysis_command.h"
#include "util/ranks.h"
#include "util/cmd_util.h"

static const unsigned int percents[] = { 0, 25, 50, 75, 90, 99, 100 };
#define NR_PERCENTS (sizeof(percents) / sizeof(percents[0]))

enum { WSS_OPT_WINDOW = 0x300, WSS_OPT_SERIES };

void usage_wss(FILE *out)
{
	fputs("usage: vmtrace wss --window T [options] FILE\n"
	      "  the working-set size: distinct pages (or lines) referenced in each window of T,\n"
	      "  the windows back to back from the first reference; its percentiles and mean\n"
	      "  --window T         the window: a number and a unit, ns, us, ms or s (\"100ms\")\n"
	      "  --series           also the series: each window's start (s), pages and bytes\n"
	      "                     (--csv prints the series alone: window_start_s,pages,bytes);\n"
	      "                     windows without a reference (0 pages) are left out of it\n",
	      out);
	fputs(analysis_options_usage, out);
	fputs(filter_options_usage, out);
}

struct wss_run {
	struct analysis_options o;
	bool series;
	uint64_t window_ns;
	uint64_t first_ns;			/* the pass's first reference */
	/* For the plot */
	const struct vmt_analysis *all;
	const struct vmt_analysis *per_process;	/* NULL without --per-process */
};

/* Under MPI, each process counts its share of the units (vmt_wss_share()). */
static int create_wss(void *ctx, uint32_t pid, struct vmt_analysis **analysis)
{
	const struct wss_run *run = ctx;
	int err;

	(void)pid;
	err = vmt_wss_create(analysis, run->window_ns);
	if (!err && ranks_size() > 1) {
		err = vmt_wss_share(*analysis, ranks_rank(), ranks_size());
		if (err)
			vmt_analysis_destroy(*analysis);
	}
	return err;
}

/* The damo-like table: "# <percentile> <wss>", the mean, a bar a row. */
static void print_percentiles(const char *who, const struct vmt_analysis *wss)
{
	struct vmt_wss_summary s;
	char pages[32], bytes[32];
	int width;

	if (vmt_wss_summarize(wss, percents, NR_PERCENTS, &s))
		return;		/* no window: a process has at least one reference */
	printf("# %s: %s windows, %s of them without a reference\n", who,
	       fmt_count(s.windows, pages), fmt_count(s.empty_windows, bytes));
	printf("# avr: %.1f pages, %s\n", s.mean_units, fmt_bytes(s.mean_bytes, bytes));
	printf("# <percentile> <wss pages> <wss bytes>\n");
	for (unsigned int i = 0; i < s.nr_percentiles; i++) {
		width = s.units[NR_PERCENTS - 1] ?
			(int)(50 * s.units[i] / s.units[NR_PERCENTS - 1]) : 0;
		printf("%3u %12s %10s |%-50.*s|\n", s.percent[i], fmt_count(s.units[i], pages),
		       fmt_bytes(s.bytes[i], bytes), width,
		       "**************************************************");
	}
}

/* The series, as text or CSV rows (with the process first when @process). */
static void print_series(const struct wss_run *run, const char *process,
			 const struct vmt_analysis *wss, bool csv)
{
	size_t nr;
	const struct vmt_wss_window *w = vmt_wss_windows(wss, &nr);
	char pages[32], bytes[32];

	for (size_t i = 0; i < nr; i++) {
		double start = (w[i].start_ns - run->first_ns) / 1e9;

		if (csv)
			printf("%s%s%.9f,%llu,%llu\n", process ? process : "", process ? "," : "",
			       start, (unsigned long long)w[i].units,
			       (unsigned long long)w[i].bytes);
		else
			printf("%14.6f %12s %10s\n", start, fmt_count(w[i].units, pages),
			       fmt_bytes(w[i].bytes, bytes));
	}
}

/* Each analysis to report: @i = 0 is all, then the processes. */
static const struct vmt_analysis *nth(const struct wss_run *run, unsigned int i, char who[32])
{
	uint32_t pid;
	const struct vmt_analysis *a;

	if (!i) {
		snprintf(who, 32, "all");
		return run->all;
	}
	a = vmt_per_process_get(run->per_process, i - 1, &pid);
	snprintf(who, 32, "%u", pid);
	return a;
}

static unsigned int nr_reports(const struct wss_run *run)
{
	return 1 + (run->per_process ? vmt_per_process_count(run->per_process) : 0);
}

/* WSS in MiB over time, a line for all and one a process; gnuplot's blocks. */
static int plot_wss(void *ctx, const struct vmt_analysis *all,
		    const struct vmt_analysis *per_process)
{
	struct wss_run *run = ctx;
	char *data = NULL, script[512], who[32];
	size_t len = 0;
	FILE *out = open_memstream(&data, &len);
	unsigned int n;
	int ret;

	run->all = all;
	run->per_process = per_process;
	n = nr_reports(run);

	if (!out) {
		fprintf(stderr, "vmtrace wss: %s\n", strerror(ENOMEM));
		return 1;
	}
	for (unsigned int i = 0; i < n; i++) {
		const struct vmt_analysis *a = nth(run, i, who);
		size_t nr;
		const struct vmt_wss_window *w = vmt_wss_windows(a, &nr);

		fprintf(out, "%s%s MiB\n", i ? "\n\n" : "", i ? who : "all");
		for (size_t k = 0; k < nr; k++) {
			uint64_t end = w[k].start_ns + run->window_ns;

			fprintf(out, "%.9f %.6f\n", (w[k].start_ns - run->first_ns) / 1e9,
				w[k].bytes / 1048576.0);
			/* Windows without a reference are not in the series: 0 until the next. */
			if (k + 1 == nr || w[k + 1].start_ns != end)
				fprintf(out, "%.9f 0\n", (end - run->first_ns) / 1e9);
		}
	}
	fclose(out);
	snprintf(script, sizeof(script),
		 "set xlabel 'time (s)'\nset ylabel 'working set (MiB), windows of %.6g s'\n"
		 "set key outside right\nset grid\n"
		 "plot for [i=0:%u] DATA index i using 1:2 with steps title columnheader(1)\n",
		 run->window_ns / 1e9, n - 1);
	ret = plot_with_gnuplot("wss", run->o.plot, script, data);
	free(data);
	return ret;
}

static void print_wss_header(void *ctx, const char *path, const struct vmt_analyze_stats *stats)
{
	struct wss_run *run = ctx;

	run->first_ns = stats->first_ns;
	if (run->o.csv) {
		printf("%swindow_start_s,pages,bytes\n", run->o.per_process ? "process," : "");
		return;
	}
	analysis_print_header(stdout, path, &run->o, stats);
	printf("# window: %.6g s\n", run->window_ns / 1e9);
}

/* One process's percentiles and series (@pid NULL: all together). */
static void print_wss(void *ctx, const struct vmt_analysis *a, const char *pid)
{
	const struct wss_run *run = ctx;
	char title[48];

	if (run->o.csv) {
		print_series(run, run->o.per_process ? (pid ? pid : "all") : NULL, a, true);
		return;
	}
	snprintf(title, sizeof(title), "%s%s", pid ? "pid " : "", pid ? pid : "all");
	printf("%s", pid ? "\n" : "");
	print_percentiles(title, a);
	if (run->series) {
		printf("# %s: <window start (s)> <pages> <bytes>\n", title);
		print_series(run, NULL, a, false);
	}
}

static int parse_wss_option(void *ctx, int opt, const char *arg)
{
	struct wss_run *run = ctx;
	int err;

	switch (opt) {
	case WSS_OPT_WINDOW:
		err = parse_duration(arg, false, &run->window_ns);
		if (err == -ERANGE)
			fprintf(stderr, "vmtrace wss: --window '%s': from 1 ns to 1e9 s\n", arg);
		else if (err)
			fprintf(stderr, "vmtrace wss: --window '%s': not a number and a unit (ns, us, ms, s)\n",
				arg);
		return err ? -1 : 1;
	case WSS_OPT_SERIES:
		run->series = true;
		return 1;
	}
	return 0;
}

int cmd_wss(int argc, char **argv)
{
	static const struct option options[] = {
		{ "window", required_argument, NULL, WSS_OPT_WINDOW },
		{ "series", no_argument, NULL, WSS_OPT_SERIES },
		ANALYSIS_LONG_OPTIONS,
		{ NULL, 0, NULL, 0 },
	};
	struct wss_run run = { 0 };
	const char *path;
	int status;

	status = parse_analysis_command_line(&(struct analysis_command_line){
		"wss", "h", options, usage_wss, parse_wss_option, &run }, argc, argv, &run.o,
		&path);
	if (status >= 0)
		return status;
	if (!run.window_ns) {
		fprintf(stderr, "vmtrace wss: --window T is needed (e.g. --window 100ms)\n");
		return 2;
	}
	run.o.split_by_units = true;
	return run_analysis(&(struct analysis_runner){ "wss", create_wss, &run, print_wss_header,
						       print_wss, plot_wss },
			    path, &run.o);
}
