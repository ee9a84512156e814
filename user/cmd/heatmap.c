// SPDX-License-Identifier: GPL-2.0
/*
 * vmtrace heatmap TRACE: references over address and time, as damo's
 * heatmap: a grid of digits with its axes (0 none, 1-9 on a log scale up
 * to the busiest cell), --raw time/address/count triples, or an image
 * (--plot, gnuplot's `with image`).
 *
 * Virtual addresses are one process's: with --per-process a heatmap for
 * each; without, the process with the most references (the header says
 * which and how many others there were; --pid chooses), so a heatmap never
 * mixes address spaces. In physical space all processes share the frames.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "util/analysis_command.h"
#include "util/ranks.h"
#include "util/heatmap_plot.h"

enum { HEATMAP_OPT_RESOLUTION = 0x300, HEATMAP_OPT_RAW };

void usage_heatmap(FILE *out)
{
	fputs("usage: vmtrace heatmap [--resolution ROWSxCOLS] [--raw] [options] FILE\n"
	      "  references over address (rows) and time (columns); stretches of the address\n"
	      "  space nobody referenced (or, with VMA records, nothing mapped) are collapsed\n"
	      "  --resolution RxC   rows and columns of the grid (default 30x80)\n"
	      "  --raw              'time_s address count' for every non-empty cell\n"
	      "                     (--csv: the same comma-separated, with a header line)\n"
	      "  virtual space: one process (the one with the most references, or --pid),\n"
	      "  or each with --per-process\n",
	      out);
	fputs(analysis_options_usage, out);
	fputs(filter_options_usage, out);
}

/* "30x80": 0, or -1 having said why not. */
static int parse_resolution(const char *text, struct vmt_heatmap_options *o)
{
	unsigned long rows, cols;
	char *end;

	if (text[0] < '1' || text[0] > '9')
		goto bad;
	rows = strtoul(text, &end, 10);
	if (*end != 'x' || end[1] < '1' || end[1] > '9')
		goto bad;
	cols = strtoul(end + 1, &end, 10);
	if (*end || rows > VMT_HEATMAP_MAX_ROWS || cols > VMT_HEATMAP_MAX_COLS)
		goto bad;
	o->rows = rows;
	o->cols = cols;
	return 0;
bad:
	fprintf(stderr, "vmtrace heatmap: --resolution '%s': not ROWSxCOLS, each 1 to %u\n", text,
		VMT_HEATMAP_MAX_ROWS);
	return -1;
}

static const char digits[] = "0123456789";

/* 0 for none, 1 for one reference to 9 for @max, on a log scale. */
static char digit(uint64_t count, uint64_t max)
{
	if (!count)
		return '0';
	if (max <= 1)
		return '9';
	return digits[1 + (int)(8 * log((double)count) / log((double)max))];
}

static void print_grid(const struct vmt_analysis *h)
{
	unsigned int nr_rows, nr_segs, cols;
	const struct vmt_heatmap_row *rows = vmt_heatmap_rows(h, &nr_rows);
	const struct vmt_heatmap_segment *segs = vmt_heatmap_segments(h, &nr_segs);
	const uint64_t *counts = vmt_heatmap_counts(h, &cols, NULL);
	uint64_t first, last, max = 0;
	char max_text[32], gap[32];

	vmt_heatmap_time(h, &first, &last);
	for (size_t i = 0; i < (size_t)nr_rows * cols; i++)
		if (counts[i] > max)
			max = counts[i];
	printf("# rows: addresses; columns: %.6g s each; digits: references, 0 none, 1 one,\n"
	       "# 9 the busiest cell's %s, log scale\n", (last - first + 1) / 1e9 / cols,
	       fmt_count(max, max_text));
	printf("%-18s  %-*.3f%.3f s\n", "", cols > 8 ? cols - 8 : 0, 0.0, (last - first) / 1e9);
	for (unsigned int r = 0; r < nr_rows; r++) {
		const struct vmt_heatmap_segment *seg = &segs[rows[r].segment];

		if (r == seg->first_row && seg->gap_before)
			printf("%-18s  ~~ %s unused ~~\n", "~~~~~~~~~~~~~~~~~~",
			       fmt_bytes(seg->gap_before, gap));
		printf("0x%016llx  ", (unsigned long long)rows[r].start);
		for (unsigned int c = 0; c < cols; c++)
			putchar(digit(counts[(size_t)r * cols + c], max));
		putchar('\n');
	}
	printf("0x%016llx  (end)\n", (unsigned long long)rows[nr_rows - 1].end);
}

struct heatmap_run {
	struct vmt_heatmap_options options;
	bool raw;
	struct vmt_analysis *analysis;		/* per process in virtual space */
	bool per_process_space;
};

static int create_heatmap(void *ctx, uint32_t pid, struct vmt_analysis **analysis)
{
	const struct heatmap_run *run = ctx;

	(void)pid;
	return vmt_heatmap_create(analysis, &run->options);
}

static int report(const struct analysis_options *o, bool raw, const struct vmt_analysis *h,
		  const char *who)
{
	char refs[32], title[96];

	snprintf(title, sizeof(title), "%s: %s references", who,
		 fmt_count(vmt_heatmap_references(h), refs));
	if (o->csv || raw) {
		if (o->csv)
			printf("time_s,address,count\n");
		else
			printf("# %s\n# time_s address count\n", title);
		heatmap_print_cells(stdout, h, o->csv ? "," : " ", false);
	} else {
		printf("# %s\n", title);
		print_grid(h);
	}
	return o->plot ? heatmap_plot("heatmap", h, o->plot, title) : 0;
}

static int parse_heatmap_option(void *ctx, int opt, const char *arg)
{
	struct heatmap_run *run = ctx;

	switch (opt) {
	case HEATMAP_OPT_RESOLUTION:
		return parse_resolution(arg, &run->options) ? -1 : 1;
	case HEATMAP_OPT_RAW:
		run->raw = true;
		return 1;
	}
	return 0;
}

int cmd_heatmap(int argc, char **argv)
{
	static const struct option options[] = {
		{ "resolution", required_argument, NULL, HEATMAP_OPT_RESOLUTION },
		{ "raw", no_argument, NULL, HEATMAP_OPT_RAW },
		ANALYSIS_LONG_OPTIONS,
		{ NULL, 0, NULL, 0 },
	};
	struct heatmap_run run = { .options = { .rows = 30, .cols = 80 } };
	struct analysis_options o = { 0 };
	struct vmt_analyze_stats stats;
	struct vmt_trace_filter one_pid;
	struct vmt_trace *t;
	const char *path;
	char who[64];
	uint32_t pid;
	int status, err, ret = 1;
	unsigned int i, chosen = 0;

	status = parse_analysis_command_line(&(struct analysis_command_line){
		"heatmap", "h", options, usage_heatmap, parse_heatmap_option, &run }, argc, argv,
		&o, &path);
	if (status >= 0)
		return status;
	t = analysis_open("heatmap", path, &o);
	if (!t)
		return failed_before_run();
	run.per_process_space = o.per_process || o.ref.space == VMT_REF_VIRTUAL;
	err = run.per_process_space ?
	      vmt_per_process_create(&run.analysis, create_heatmap, &run) :
	      vmt_heatmap_create(&run.analysis, &run.options);
	if (err) {
		fprintf(stderr, "vmtrace heatmap: %s\n", strerror(-err));
		failed_before_run();
		goto out;
	}
	if (run.per_process_space)
		vmt_per_process_set_source(run.analysis, o.ref.source);
	/*
	 * The survey. Under MPI, each process surveys the whole trace, so that
	 * all have the one layout, and counts its part of it (by time) below.
	 */
	if (ranks_size() > 1) {
		err = vmt_analyze(t, &o.ref, &run.analysis, 1, &stats);
		if (err)
			fprintf(stderr, "vmtrace heatmap: %s\n",
				stats.analysis_error || err == -ENOMEM ? strerror(-err) :
				vmt_trace_error_message(t));
		if (ranks_agree(err != 0))
			goto out;
	} else if (analysis_run("heatmap", t, &o, &run.analysis, 1, &stats)) {
		goto out;
	}
	if (run.per_process_space && !o.per_process) {
		/* Count the busiest process alone: the others' second pass is skipped. */
		chosen = heatmap_busiest(run.analysis);
		vmt_per_process_get(run.analysis, chosen, &pid);
		one_pid = o.filter.filter;
		one_pid.pids = &pid;
		one_pid.nr_pids = 1;
		if (vmt_trace_set_filter(t, &one_pid)) {
			fprintf(stderr, "vmtrace heatmap: %s\n", vmt_trace_error_message(t));
			goto out;
		}
		/* Under MPI, each process narrows this filter to its part. */
		if (ranks_size() > 1) {
			o.filter.filter = one_pid;
			o.filter.used = true;
		}
	}
	/* The count. */
	status = analysis_run("heatmap", t, &o, &run.analysis, 1, &stats);
	if (status == ANALYSIS_ELSEWHERE)
		ret = 0;
	if (status)
		goto out;
	analysis_print_header(stdout, path, &o, &stats);
	if (!run.per_process_space) {
		ret = report(&o, run.raw, run.analysis, "all processes' frames");
		goto out;
	}
	if (!o.per_process)
		printf("# pid %u: the process with the most references of %u%s\n", pid,
		       vmt_per_process_count(run.analysis),
		       vmt_per_process_count(run.analysis) > 1 ?
		       " (--per-process: each, --pid: another)" : "");
	ret = 0;
	for (i = 0; i < vmt_per_process_count(run.analysis); i++) {
		const struct vmt_analysis *h = vmt_per_process_get(run.analysis, i, &pid);

		if (!o.per_process && i != chosen)
			continue;
		snprintf(who, sizeof(who), "pid %u", pid);
		if (o.per_process && i)
			printf("\n");
		ret |= report(&o, run.raw, h, who);
	}
out:
	vmt_analysis_destroy(run.analysis);
	vmt_trace_close(t);
	return ret;
}
