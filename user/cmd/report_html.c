// SPDX-License-Identifier: GPL-2.0
/*
 * vmtrace report --html PAGE: the report as one HTML page that needs
 * nothing but itself (no script, no style sheet or font from elsewhere): the
 * summary, the processes, the references over time, the top pages and the
 * mappings as report's text has them, the analyses' lines, and gnuplot's
 * pictures (the rate, LRU's miss-ratio curve, the working set over time,
 * the busiest process's heatmap, the DMA share over time when the trace
 * has DMA records, and vmtrace hmtt's figures of its scr, prefetch and
 * traffic sections, those with something to draw), each drawn into a
 * temporary SVG and put inline.
 *
 * Every number the text shows has an element of its own (an id, or a
 * data-field in a row with data-pid or data-slice), so that a reader of
 * the page (tests/unit/report-html.sh) finds it; every string from the
 * trace (names, paths) is escaped.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "vmtrace/analysis.h"
#include "report_html.h"
#include "util/analysis_command.h"
#include "util/heatmap_plot.h"
#include "util/hmtt_figures.h"
#include "util/hmtt_streams.h"
#include "util/report.h"

#define CMD	"report"

/* The LRU curve's sizes: every power of two a size can be (vmt_mrc_create()). */
#define CURVE_SIZES	32

struct page {
	FILE *out;
	char svg_path[32];	/* where gnuplot draws, for each picture in turn */
	unsigned int figures;	/* drawn so far: each one's SVG ids get its number */
};

/* @text escaped for HTML's text and attribute values alike. */
static void put_text(FILE *out, const char *text)
{
	static const char *const entities[128] = {
		['&'] = "&amp;", ['<'] = "&lt;", ['>'] = "&gt;", ['"'] = "&quot;", ['\''] = "&#39;",
	};

	for (const unsigned char *c = (const unsigned char *)text; *c; c++) {
		if (*c < 128 && entities[*c])
			fputs(entities[*c], out);
		else if (*c < 0x20 || *c == 0x7f)
			fputs("\xef\xbf\xbd", out);	/* a control character is no text: U+FFFD */
		else
			fputc(*c, out);
	}
}

/* A table cell holding the count @n, as the text's "1,234" or "1234". */
static void cell_count(FILE *out, const char *field, uint64_t n)
{
	char buf[32];

	fprintf(out, "<td data-field=\"%s\">%s</td>", field, fmt_count(n, buf));
}

static void cell_text(FILE *out, const char *field, const char *text)
{
	fprintf(out, "<td data-field=\"%s\" class=\"text\">", field);
	put_text(out, text);
	fputs("</td>", out);
}

/* A count in the running text, in an element of id @id. */
static void span_count(FILE *out, const char *id, uint64_t n)
{
	char buf[32];

	fprintf(out, "<span id=\"%s\">%s</span>", id, fmt_count(n, buf));
}

static const char page_head[] =
	"<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
	"<title>vmtrace report: ";

static const char page_style[] =
	"</title>\n<style>\n"
	"body { font-family: sans-serif; margin: 1.5em auto; max-width: 1100px; color: #222; }\n"
	"h1 { font-size: 1.4em; } h2 { font-size: 1.15em; margin-top: 1.6em; }\n"
	"table { border-collapse: collapse; margin: 0.5em 0; }\n"
	"th, td { padding: 0.15em 0.7em; text-align: right; border-bottom: 1px solid #ddd; }\n"
	"td.text, th.text { text-align: left; }\n"
	"code, td.addr { font-family: monospace; }\n"
	"figure { margin: 1em 0; } figure svg { width: 100%; max-width: 900px; height: auto; }\n"
	"figcaption { color: #555; font-size: 0.9em; }\n"
	"</style>\n</head>\n<body>\n";

/*
 * gnuplot's SVG, inline: from <svg on (the XML prologue left out), without
 * the namespace declarations (HTML's parser gives <svg> its namespace),
 * and each id and reference to one prefixed with the picture's number, as
 * every picture of gnuplot's names its markers alike.
 */
static int put_svg(FILE *out, const char *svg, unsigned int figure)
{
	static const char *const refs[] = { "href='#", "href=\"#", "url(#" };
	const char *c = strstr(svg, "<svg");

	if (!c)
		return -EINVAL;
	while (*c) {
		bool attr_start = isspace((unsigned char)c[-1]);
		bool done = false;

		if (attr_start && !strncmp(c, "xmlns", 5)) {
			const char *q = strpbrk(c, "'\"");
			const char *end = q ? strchr(q + 1, *q) : NULL;

			if (!end)
				return -EINVAL;
			c = end + 1;
			continue;
		}
		if (attr_start && (!strncmp(c, "id='", 4) || !strncmp(c, "id=\"", 4))) {
			fprintf(out, "%.4sf%u-", c, figure);
			c += 4;
			continue;
		}
		for (unsigned int i = 0; i < sizeof(refs) / sizeof(refs[0]) && !done; i++) {
			size_t len = strlen(refs[i]);

			if (!strncmp(c, refs[i], len)) {
				fprintf(out, "%sf%u-", refs[i], figure);
				c += len;
				done = true;
			}
		}
		if (!done)
			fputc(*c++, out);
	}
	return 0;
}

/* The whole of @path's text, NUL-terminated; NULL with errno set. */
static char *read_text(const char *path)
{
	FILE *f = fopen(path, "r");
	char *text = NULL;
	size_t len = 0;
	FILE *mem;
	int c;

	if (!f)
		return NULL;
	mem = open_memstream(&text, &len);
	if (mem) {
		while ((c = getc(f)) != EOF)
			putc(c, mem);
		if (ferror(f) || fclose(mem)) {
			free(text);
			text = NULL;
		}
	}
	fclose(f);
	return text;
}

/* The picture gnuplot drew into the page's temporary SVG, as <figure id="@id">. */
static int put_drawn_figure(struct page *pg, const char *id, const char *caption)
{
	char *svg = read_text(pg->svg_path);
	int err;

	if (!svg) {
		fprintf(stderr, "vmtrace %s: --html: %s: %s\n", CMD, pg->svg_path, strerror(errno));
		return 1;
	}
	fprintf(pg->out, "<figure id=\"%s\">\n", id);
	err = put_svg(pg->out, svg, ++pg->figures);
	fprintf(pg->out, "<figcaption>%s</figcaption>\n</figure>\n", caption);
	free(svg);
	if (err)
		fprintf(stderr, "vmtrace %s: --html: gnuplot's %s is not SVG\n", CMD, id);
	return err ? 1 : 0;
}

/* @p (plot_begin()'s, filled) drawn by gnuplot, into the page: 0, or 1 having said why not. */
static int put_figure(struct page *pg, struct plot *p, const char *id, const char *caption)
{
	if (plot_end(CMD, p, pg->svg_path))
		return 1;
	return put_drawn_figure(pg, id, caption);
}

static double seconds(uint64_t ns)
{
	return (double)ns / 1e9;
}

static void put_summary(FILE *out, const char *path, const struct vmt_trace_summary *s)
{
	char buf[32];

	fputs("<h1>vmtrace report: <code id=\"trace\">", out);
	put_text(out, path);
	fputs("</code></h1>\n<p id=\"summary\">", out);
	span_count(out, "records", s->records);
	fprintf(out, " records over <span id=\"span-s\">%.3f</span> s, ",
		s->records ? seconds(s->last_time - s->first_time) : 0.0);
	span_count(out, "references", s->by_type[VMT_REC_REFERENCE]);
	fputs(" references, ", out);
	span_count(out, "evictions", s->by_type[VMT_REC_EVICT]);
	fputs(" evictions, ", out);
	span_count(out, "lost", s->lost);
	fprintf(out, " lost; all processes' footprint: <span id=\"pages\">%s</span> pages "
		"(<span id=\"pages-mib\">%.1f</span> MiB)</p>\n", fmt_count(s->pages, buf),
		(double)s->pages * 4096 / (1 << 20));
}

static void put_processes(FILE *out, const struct vmt_trace_summary *s)
{
	uint64_t other_records, others = report_silent_processes(s, &other_records);

	fputs("<h2>Processes</h2>\n<table id=\"processes\">\n<tr><th>pid</th>"
	      "<th class=\"text\">name</th><th>references</th><th>writes</th><th>evictions</th>"
	      "<th>footprint (4 KiB pages)</th><th>seconds</th><th class=\"text\">executable</th>"
	      "</tr>\n", out);
	for (uint32_t i = 0; i < s->nr_processes; i++) {
		const struct vmt_trace_process *p = &s->processes[i];

		if (!p->references)
			continue;
		fprintf(out, "<tr data-pid=\"%u\"><td data-field=\"pid\">%u</td>", p->pid, p->pid);
		cell_text(out, "name", p->comm[0] ? p->comm : "-");
		cell_count(out, "references", p->references);
		cell_count(out, "writes", p->writes);
		cell_count(out, "evictions", p->evictions);
		cell_count(out, "footprint", p->pages);
		fprintf(out, "<td data-field=\"seconds\">%.3f</td>",
			seconds(p->last_time - p->first_time));
		cell_text(out, "executable", p->exe ? p->exe : "-");
		fputs("</tr>\n", out);
	}
	fputs("</table>\n", out);
	if (others)
		fprintf(out, "<p>and <span id=\"other-processes\">%llu</span> processes without "
			"references (<span id=\"other-records\">%llu</span> records)</p>\n",
			(unsigned long long)others, (unsigned long long)other_records);
}

/* The references over time: a picture of the rate, and its table. */
static int put_rates(struct page *pg, const struct vmt_trace_summary *s)
{
	double slice = seconds(s->bucket_ns);
	FILE *out = pg->out;
	struct plot p;
	char caption[128];

	fprintf(out, "<h2>References over time</h2>\n");
	if (plot_begin(CMD, &p))
		return 1;
	for (uint32_t i = 0; i < s->nr_buckets; i++)
		fprintf(p.data, "%.9f %.3f\n", slice * (i + 0.5),
			slice > 0 ? (double)s->bucket_references[i] / slice : 0.0);
	fprintf(p.script, "set xlabel 'time (s)'\nset ylabel 'references a second'\n"
		"set xrange [0:%.9f]\nset yrange [0:*]\nset grid\nset style fill solid 0.6\n"
		"set boxwidth %.9f\nplot DATA using 1:2 with boxes notitle\n", slice * s->nr_buckets,
		slice);
	snprintf(caption, sizeof(caption), "references a second in %u slices of %.3f s",
		 s->nr_buckets, slice);
	if (put_figure(pg, &p, "fig-rate", caption))
		return 1;
	fprintf(out, "<table id=\"rates\">\n<tr><th>from (s)</th><th>references</th>"
		"<th>a second</th></tr>\n");
	for (uint32_t i = 0; i < s->nr_buckets; i++) {
		uint64_t n = s->bucket_references[i];

		fprintf(out, "<tr data-slice=\"%u\"><td data-field=\"start\">%.3f</td>", i,
			slice * i);
		cell_count(out, "references", n);
		fprintf(out, "<td data-field=\"rate\">%.0f</td></tr>\n",
			slice > 0 ? (double)n / slice : 0.0);
	}
	fputs("</table>\n", out);
	return 0;
}

static void put_top_pages(FILE *out, const struct vmt_trace_summary *s)
{
	fputs("<h2>Top pages</h2>\n<table id=\"top-pages\">\n<tr><th>pid</th>"
	      "<th class=\"text\">page</th><th>references</th><th>writes</th></tr>\n", out);
	for (uint32_t i = 0; i < s->nr_top_pages; i++) {
		const struct vmt_trace_page *tp = &s->top_pages[i];

		fprintf(out, "<tr data-rank=\"%u\"><td data-field=\"pid\">%u</td>"
			"<td data-field=\"page\" class=\"text addr\">0x%llx</td>", i, tp->pid,
			(unsigned long long)tp->address);
		cell_count(out, "references", tp->references);
		cell_count(out, "writes", tp->writes);
		fputs("</tr>\n", out);
	}
	fputs("</table>\n", out);
}

static int put_attribution(FILE *out, struct vmt_trace *t, const char *path)
{
	struct vmt_trace_attribution *a;

	if (report_attribute(t, path, &a))
		return 1;
	if (!a)
		return 0;
	fputs("<h2>References by mapping</h2>\n<p>", out);
	span_count(out, "attributed", a->attributed);
	fputs(" of ", out);
	span_count(out, "attributable", a->references);
	fprintf(out, " attributed (<span id=\"attributed-pct\">%.2f</span>%%)</p>\n"
		"<table id=\"mappings\">\n<tr><th>references</th><th class=\"text\">mapping</th>"
		"</tr>\n", a->references ? 100.0 * (double)a->attributed / (double)a->references :
		0.0);
	for (uint32_t i = 0; i < a->nr_mappings && i < 20 && a->mappings[i].references; i++) {
		fputs("<tr>", out);
		cell_count(out, "references", a->mappings[i].references);
		cell_text(out, "mapping", a->mappings[i].name);
		fputs("</tr>\n", out);
	}
	fputs("</table>\n", out);
	vmt_trace_attribution_free(a);
	return 0;
}

enum {
	HTML_MRC, HTML_REUSE, HTML_WSS, HTML_DMA, HTML_HEATMAP, HTML_SCR, HTML_PREFETCH,
	HTML_TRAFFIC, HTML_ANALYSES
};

static int create_heatmap(void *ctx, uint32_t pid, struct vmt_analysis **analysis)
{
	(void)pid;
	return vmt_heatmap_create(analysis, ctx);
}

/*
 * The analyses' pass, and the heatmap's second (its survey is in the
 * first): the busiest process's alone, as vmtrace heatmap draws it. The
 * heatmap of the process chosen in *@heatmap, its pid in *@pid.
 */
static int run_analyses(struct vmt_trace *t, const char *path, const struct vmt_trace_summary *s,
			const struct hmtt_streams_options *streams, struct vmt_analysis **a,
			const struct vmt_analysis **heatmap, uint32_t *pid)
{
	struct vmt_heatmap_options grid = { .rows = 64, .cols = 120 };
	uint64_t sizes[CURVE_SIZES];
	struct vmt_mrc_options mo = {
		.policies = 1u << VMT_MRC_LRU, .sizes = sizes, .nr_sizes = CURVE_SIZES,
	};
	uint64_t slice = s->bucket_ns ? s->bucket_ns : 1;
	struct vmt_ref_options ro = { 0 };
	/* hmtt's prefetcher reads frames unless told otherwise: as vmtrace hmtt's does. */
	struct vmt_ref_options po = { .space = VMT_REF_PHYSICAL };
	struct vmt_trace_filter one = { .pids = pid, .nr_pids = 1 };
	int err;

	for (unsigned int i = 0; i < CURVE_SIZES; i++)
		sizes[i] = UINT64_C(1) << i;
	err = vmt_mrc_create(&a[HTML_MRC], &mo);
	if (!err)
		err = vmt_reuse_create(&a[HTML_REUSE], 0);
	if (!err)
		err = vmt_wss_create(&a[HTML_WSS], slice);
	if (!err)
		err = vmt_dma_traffic_create(&a[HTML_DMA], slice);
	if (!err)
		err = vmt_per_process_create(&a[HTML_HEATMAP], create_heatmap, &grid);
	if (!err)
		err = hmtt_scr_create(&a[HTML_SCR], streams, &ro);
	if (!err)
		err = hmtt_prefetch_create(&a[HTML_PREFETCH], streams, &po);
	if (!err)
		err = vmt_traffic_create(&a[HTML_TRAFFIC], ro.source, 0);
	if (!err)
		err = vmt_analyze(t, &ro, a, HTML_ANALYSES, NULL);
	if (!err && vmt_per_process_count(a[HTML_HEATMAP])) {
		*heatmap = vmt_per_process_get(a[HTML_HEATMAP], heatmap_busiest(a[HTML_HEATMAP]),
					       pid);
		err = vmt_trace_set_filter(t, &one);
		if (!err)
			err = vmt_analyze(t, &ro, &a[HTML_HEATMAP], 1, NULL);
	}
	if (err)
		fprintf(stderr, "vmtrace %s: %s: the analyses: %s\n", CMD, path,
			err == -ENOMEM ? strerror(ENOMEM) : vmt_trace_error_message(t));
	return err ? 1 : 0;
}

/* report's lines from the analyses; the same numbers, each in its element. */
static void put_analysis_lines(FILE *out, struct vmt_analysis *const *a)
{
	const struct vmt_analysis *mrc = a[HTML_MRC];
	const struct vmt_reuse_histogram *reuse = vmt_reuse_distances(a[HTML_REUSE]);
	static const unsigned int peak = 100;
	uint64_t footprint = vmt_mrc_footprint(mrc), faults;
	struct vmt_wss_summary wss;
	char buf[32];
	unsigned int shown = 0;

	fputs("<ul id=\"analyses\">\n<li>LRU faults:", out);
	for (unsigned int i = 0; i < REPORT_NR_SIZES && report_shows_size(i, footprint); i++) {
		/* The curve's sizes are the powers of two: report_sizes are among them. */
		for (unsigned int k = 0; k < CURVE_SIZES; k++) {
			if (vmt_mrc_size(mrc, k) != report_sizes[i] ||
			    vmt_mrc_faults(mrc, VMT_MRC_LRU, k, &faults))
				continue;
			fprintf(out, "%s <span data-lru-size=\"%llu\">%s</span> at %llu pages",
				shown++ ? "," : "", (unsigned long long)report_sizes[i],
				fmt_count(faults, buf), (unsigned long long)report_sizes[i]);
		}
	}
	fputs("; ", out);
	span_count(out, "footprint", footprint);
	fputs(" pages referenced</li>\n<li>reuse distance: ", out);
	if (reuse->count) {
		fputs("median ", out);
		span_count(out, "reuse-median", reuse->median);
		fprintf(out, " pages, mean <span id=\"reuse-mean\">%.1f</span>, of ", reuse->mean);
		span_count(out, "reuses", reuse->count);
		fputs(" reuses</li>\n", out);
	} else {
		fputs("no page was referenced twice</li>\n", out);
	}
	if (!vmt_wss_summarize(a[HTML_WSS], &peak, 1, &wss)) {
		fputs("<li>working set: peak ", out);
		span_count(out, "wss-peak", wss.units[0]);
		fprintf(out, " pages (<span id=\"wss-peak-mib\">%.1f</span> MiB) in a slice of "
			"<span id=\"wss-slice-s\">%.3f</span> s, mean "
			"<span id=\"wss-mean\">%.1f</span></li>\n", (double)wss.bytes[0] / (1 << 20),
			seconds(wss.window_ns), wss.mean_units);
	}
	if (vmt_dma_traffic_records(a[HTML_DMA]))
		fprintf(out, "<li>DMA: <span id=\"dma-share\">%.2f</span>%% of the memory traffic "
			"(DMA bytes against pages referenced)</li>\n",
			vmt_dma_traffic_share(a[HTML_DMA]));
	fputs("</ul>\n", out);
}

/* LRU's miss ratio against memory size, up to the first size that holds the footprint. */
static int put_mrc(struct page *pg, const struct vmt_analysis *mrc)
{
	uint64_t refs = vmt_mrc_references(mrc), faults;
	struct plot p;

	if (plot_begin(CMD, &p))
		return 1;
	for (unsigned int i = 0; !vmt_mrc_faults(mrc, VMT_MRC_LRU, i, &faults); i++) {
		fprintf(p.data, "%llu %.6f\n", (unsigned long long)vmt_mrc_size(mrc, i),
			(double)faults / (double)refs);
		if (vmt_mrc_size(mrc, i) >= vmt_mrc_footprint(mrc))
			break;
	}
	fputs("set logscale x 2\nset xlabel 'memory (pages)'\nset ylabel 'miss ratio'\n"
	      "set yrange [0:1.02]\nset grid\nplot DATA using 1:2 with linespoints title 'LRU'\n",
	      p.script);
	return put_figure(pg, &p, "fig-mrc", "miss-ratio curve: LRU's faults over references "
			  "at each memory size (vmtrace mrc has FIFO, CLOCK and OPT)");
}

/* The working set in each slice; slices without a reference are 0. */
static int put_wss(struct page *pg, const struct vmt_analysis *wss, uint64_t first_ns,
		   uint64_t slice_ns)
{
	size_t nr;
	const struct vmt_wss_window *w = vmt_wss_windows(wss, &nr);
	struct plot p;

	if (plot_begin(CMD, &p))
		return 1;
	for (size_t k = 0; k < nr; k++) {
		uint64_t end = w[k].start_ns + slice_ns;

		fprintf(p.data, "%.9f %llu\n", seconds(w[k].start_ns - first_ns),
			(unsigned long long)w[k].units);
		if (k + 1 == nr || w[k + 1].start_ns != end)
			fprintf(p.data, "%.9f 0\n", seconds(end - first_ns));
	}
	fputs("set xlabel 'time (s)'\nset ylabel 'working set (pages)'\nset yrange [0:*]\n"
	      "set grid\nplot DATA using 1:2 with steps notitle\n", p.script);
	return put_figure(pg, &p, "fig-wss", "working set: the distinct pages referenced in "
			  "each slice of the references' time");
}

/* DMA's share of the memory traffic in each slice: reads and writes. */
static int put_dma(struct page *pg, const struct vmt_analysis *dma, uint64_t first_ns)
{
	const struct vmt_dma_interval *iv;
	size_t nr = vmt_dma_traffic_intervals(dma, &iv);
	double read_pct, write_pct;
	struct plot p;

	if (plot_begin(CMD, &p))
		return 1;
	for (size_t k = 0; k < nr; k++) {
		vmt_dma_interval_shares(&iv[k], &read_pct, &write_pct);
		fprintf(p.data, "%.9f %.4f %.4f\n",
			iv[k].start_ns > first_ns ? seconds(iv[k].start_ns - first_ns) : 0.0,
			read_pct, write_pct);
	}
	fputs("set xlabel 'time (s)'\nset ylabel 'share of the bytes (%)'\nset yrange [0:100]\n"
	      "set grid\nset key top right\nplot DATA using 1:2 with steps title 'DMA reads', "
	      "DATA using 1:3 with steps title 'DMA writes'\n", p.script);
	return put_figure(pg, &p, "fig-dma", "DMA's share of the memory traffic in each slice: "
			  "bytes devices read and wrote against the CPU's pages referenced");
}

/*
 * vmtrace hmtt's figures of the sections the page runs (at hmtt's
 * defaults), those with something to draw: a trace without frames has no
 * prefetch rate (the prefetcher reads frames), one with no stream no strides.
 */
static int put_hmtt(struct page *pg, struct vmt_analysis *const *a,
		    const struct hmtt_streams_options *streams)
{
	static const struct {
		int (*plot)(const char *cmd, const struct hmtt_figures *f, const char *path);
		const char *id, *caption;
	} figs[] = {
		{ hmtt_plot_scr, "fig-scr", "stream coverage rate (SCR): the share of references "
		  "in streams, in three views (virtual addresses, physical a process, physical)" },
		{ hmtt_plot_strides, "fig-strides", "the strides of the streams SCR found, as a "
		  "CDF of |stride| in pages" },
		{ hmtt_plot_prefetch, "fig-prefetch", "a sequential prefetcher's prefetch rate "
		  "(8 stream trackers, 2 lines ahead), on the merged stream and each process's" },
		{ hmtt_plot_traffic, "fig-traffic", "the memory traffic's four kinds: each one's "
		  "share of the bytes, and its basis" },
	};
	const struct hmtt_figures f = {
		.path = pg->svg_path, .scr = a[HTML_SCR], .streams = streams,
		.unit = VMT_REF_PAGE, .prefetch = a[HTML_PREFETCH], .traffic = a[HTML_TRAFFIC],
		.quiet = true,
	};
	bool heading = false;

	for (size_t i = 0; i < sizeof(figs) / sizeof(figs[0]); i++) {
		int ret = figs[i].plot(CMD, &f, pg->svg_path);

		if (ret > 0)
			return 1;
		if (ret < 0)
			continue;	/* nothing to draw */
		if (!heading)
			fputs("<h3>HMTT's analyses</h3>\n<p>At vmtrace hmtt's defaults (a window of "
			      "32 references); vmtrace hmtt prints their tables.</p>\n", pg->out);
		heading = true;
		if (put_drawn_figure(pg, figs[i].id, figs[i].caption))
			return 1;
	}
	return 0;
}

static int put_analyses(struct page *pg, struct vmt_trace *t, const char *path,
			const struct vmt_trace_summary *s)
{
	struct vmt_analysis *a[HTML_ANALYSES] = { NULL };
	const struct vmt_analysis *heatmap = NULL;
	struct hmtt_streams_options streams;
	char title[64], refs[32];
	uint32_t pid = 0;
	int ret = 1;

	hmtt_streams_defaults(&streams);
	if (run_analyses(t, path, s, &streams, a, &heatmap, &pid))
		goto out;
	fputs("<h2>Analyses</h2>\n<p>Pages of 4 KiB, 2 MiB where huge; vmtrace mrc, reuse, wss, "
	      "heatmap and hmtt say more.</p>\n", pg->out);
	put_analysis_lines(pg->out, a);
	if (put_mrc(pg, a[HTML_MRC]) || put_wss(pg, a[HTML_WSS], s->first_time,
						 s->bucket_ns ? s->bucket_ns : 1))
		goto out;
	if (heatmap) {
		snprintf(title, sizeof(title), "pid %u: %s references", pid,
			 fmt_count(vmt_heatmap_references(heatmap), refs));
		if (heatmap_plot(CMD, heatmap, pg->svg_path, title))
			goto out;
		fprintf(pg->out, "<p>The heatmap of pid <span id=\"heatmap-pid\">%u</span>, the "
			"process with the most references:</p>\n", pid);
		if (put_drawn_figure(pg, "fig-heatmap",
				     "references over address (rows: stretches nobody referenced "
				     "collapsed) and time; vmtrace heatmap draws any process"))
			goto out;
	}
	if (vmt_dma_traffic_records(a[HTML_DMA]) && put_dma(pg, a[HTML_DMA], s->first_time))
		goto out;
	if (put_hmtt(pg, a, &streams))
		goto out;
	ret = 0;
out:
	for (unsigned int i = 0; i < HTML_ANALYSES; i++)
		vmt_analysis_destroy(a[i]);
	return ret;
}

static int write_page(struct page *pg, struct vmt_trace *t, const char *path,
		      const struct vmt_trace_summary *s)
{
	FILE *out = pg->out;

	fputs(page_head, out);
	put_text(out, path);
	fputs(page_style, out);
	put_summary(out, path, s);
	put_processes(out, s);
	if (s->by_type[VMT_REC_REFERENCE] && put_rates(pg, s))
		return 1;
	put_top_pages(out, s);
	if (put_attribution(out, t, path))
		return 1;
	if (s->by_type[VMT_REC_REFERENCE] && put_analyses(pg, t, path, s))
		return 1;
	fputs("</body>\n</html>\n", out);
	return 0;
}

int report_html(struct vmt_trace *t, const char *path, const struct vmt_trace_summary *s,
		const char *html_path)
{
	struct page pg = { .svg_path = "/tmp/vmtrace-report-XXXXXX.svg" };
	int fd, ret;

	/* gnuplot gets the SVG's path in single quotes: mkstemps() puts none in it. */
	fd = mkstemps(pg.svg_path, 4);
	if (fd < 0) {
		fprintf(stderr, "vmtrace %s: --html: a temporary file: %s\n", CMD, strerror(errno));
		return 1;
	}
	close(fd);
	pg.out = fopen(html_path, "w");
	if (!pg.out) {
		fprintf(stderr, "vmtrace %s: %s: %s\n", CMD, html_path, strerror(errno));
		unlink(pg.svg_path);
		return 1;
	}
	ret = write_page(&pg, t, path, s);
	if (fclose(pg.out) && !ret) {
		fprintf(stderr, "vmtrace %s: %s: %s\n", CMD, html_path, strerror(errno));
		ret = 1;
	}
	if (ret)
		unlink(html_path);
	unlink(pg.svg_path);
	return ret;
}
