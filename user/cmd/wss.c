// SPDX-License-Identifier: GPL-2.0
/*
 * vmtrace wss TRACE --window T: the working-set size (distinct units
 * referenced in each window of T) over time, in all and per process: its
 * percentiles and mean as damo's `report wss` prints them, the series
 * (--series, --csv), and a plot of it (--plot).
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis_options.h"
#include "commands.h"

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

/* "100ms", "1.5s", "250us", "10000ns": nanoseconds, at least 1; 0 having said why not. */
static uint64_t parse_duration(const char *text)
{
	static const struct { const char *name; double ns; } units[] = {
		{ "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 },
	};
	double value, ns;
	char *end;

	errno = 0;
	value = strtod(text, &end);
	if (end == text || errno || !(text[0] >= '0' && text[0] <= '9') || !isfinite(value))
		goto bad;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcmp(end, units[i].name))
			continue;
		ns = value * units[i].ns;
		if (ns < 1 || ns > 1e18) {
			fprintf(stderr, "vmtrace wss: --window '%s': from 1 ns to 1e9 s\n", text);
			return 0;
		}
		return (uint64_t)ns;
	}
bad:
	fprintf(stderr, "vmtrace wss: --window '%s': not a number and a unit (ns, us, ms, s)\n",
		text);
	return 0;
}

struct wss_run {
	struct vmt_analysis *all;
	struct vmt_analysis *per_process;	/* NULL without --per-process */
	uint64_t window_ns;
	uint64_t first_ns;			/* the pass's first reference */
};

static int create_wss(void *ctx, uint32_t pid, struct vmt_analysis **analysis)
{
	const struct wss_run *run = ctx;

	(void)pid;
	return vmt_wss_create(analysis, run->window_ns);
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
static int plot_wss(const struct wss_run *run, const char *path)
{
	char *data = NULL, script[512], who[32];
	size_t len = 0;
	FILE *out = open_memstream(&data, &len);
	unsigned int n = nr_reports(run);
	int ret;

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
	ret = plot_with_gnuplot("wss", path, script, data);
	free(data);
	return ret;
}

int cmd_wss(int argc, char **argv)
{
	static const struct option options[] = {
		{ "window", required_argument, NULL, WSS_OPT_WINDOW },
		{ "series", no_argument, NULL, WSS_OPT_SERIES },
		ANALYSIS_LONG_OPTIONS,
		{ NULL, 0, NULL, 0 },
	};
	struct analysis_options o = { 0 };
	struct wss_run run = { 0 };
	struct vmt_analysis *analyses[2];
	struct vmt_analyze_stats stats;
	struct vmt_trace *t;
	bool series = false;
	char who[32];
	int opt, taken, ret = 1;

	while ((opt = getopt_long(argc, argv, "h", options, NULL)) != -1) {
		if (opt == 'h') {
			usage_wss(stdout);
			return 0;
		}
		if (opt == WSS_OPT_WINDOW) {
			run.window_ns = parse_duration(optarg);
			if (!run.window_ns)
				return 2;
			continue;
		}
		if (opt == WSS_OPT_SERIES) {
			series = true;
			continue;
		}
		taken = parse_analysis_option("wss", opt, optarg, &o);
		if (taken < 0)
			return 2;
		if (!taken) {
			usage_wss(stderr);
			return 2;
		}
	}
	if (optind != argc - 1) {
		usage_wss(stderr);
		return 2;
	}
	if (!run.window_ns) {
		fprintf(stderr, "vmtrace wss: --window T is needed (e.g. --window 100ms)\n");
		return 2;
	}
	t = analysis_open("wss", argv[optind], &o);
	if (!t)
		return 1;
	if (vmt_wss_create(&run.all, run.window_ns) ||
	    (o.per_process && vmt_per_process_create(&run.per_process, create_wss, &run))) {
		fprintf(stderr, "vmtrace wss: %s\n", strerror(ENOMEM));
		goto out;
	}
	analyses[0] = run.all;
	analyses[1] = run.per_process;
	if (analysis_run("wss", t, &o, analyses, run.per_process ? 2 : 1, &stats))
		goto out;
	run.first_ns = stats.first_ns;
	if (o.csv) {
		printf("%swindow_start_s,pages,bytes\n", o.per_process ? "process," : "");
		for (unsigned int i = 0; i < nr_reports(&run); i++) {
			const struct vmt_analysis *a = nth(&run, i, who);

			print_series(&run, o.per_process ? who : NULL, a, true);
		}
	} else {
		analysis_print_header(stdout, argv[optind], &o, &stats);
		printf("# window: %.6g s\n", run.window_ns / 1e9);
		for (unsigned int i = 0; i < nr_reports(&run); i++) {
			const struct vmt_analysis *a = nth(&run, i, who);
			char title[48];

			snprintf(title, sizeof(title), "%s%s", i ? "pid " : "", who);
			printf("%s", i ? "\n" : "");
			print_percentiles(title, a);
			if (series) {
				printf("# %s: <window start (s)> <pages> <bytes>\n", title);
				print_series(&run, NULL, a, false);
			}
		}
	}
	ret = o.plot ? plot_wss(&run, o.plot) : 0;
out:
	vmt_analysis_destroy(run.all);
	vmt_analysis_destroy(run.per_process);
	vmt_trace_close(t);
	return ret;
}
