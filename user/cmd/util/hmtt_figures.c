// SPDX-License-Identifier: GPL-2.0
/*
 * vmtrace hmtt's figures of its tables (hmtt_figures.h; docs/analysis/hmtt.md,
 * "Figures: --plot"), drawn by gnuplot from the numbers the tables print,
 * through the same accessors and in the same precision (the CSV's %.4f):
 * SCR against the window in three views (HMTT's Figs. 10, 11, 13b), the
 * CDF of the streams' strides (12a), each process's run-length CDF (13d),
 * the prefetch rate merged and a process at a time (13c), the CDF of DMA
 * request sizes by device and direction (16), and the four kinds of
 * traffic's shares (Table 3). A CDF's data are its rows' (bound, cumulative
 * share) pairs, each block of the data headed by a comment, its key.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hmtt_figures.h"
#include "record_print.h"

/* @name for a gnuplot string in quotes of either kind: @bad and unprintable bytes as '_'. */
static const char *clean_text(const char *name, char *buf, size_t size, const char *bad)
{
	size_t i;

	if (!name || !*name)
		return "-";
	for (i = 0; i + 1 < size && name[i]; i++) {
		unsigned char ch = (unsigned char)name[i];

		buf[i] = ch >= ' ' && ch < 0x7f && !strchr(bad, ch) ? (char)ch : '_';
	}
	buf[i] = '\0';
	return buf;
}

const char *hmtt_clean_name(const char *name, char buf[VMT_COMM_LEN + 1])
{
	return clean_text(name, buf, VMT_COMM_LEN + 1, ",'\"\\");
}

const char *hmtt_figure_path(const char *path, const char *section, char *buf, size_t size)
{
	const char *dot = strrchr(path, '.');	/* .svg or .png: parse_analysis_option() */

	snprintf(buf, size, "%.*s-%s%s", (int)(dot - path), path, section, dot);
	return buf;
}

bool hmtt_figure_writable(const char *cmd, const char *path)
{
	FILE *f = fopen(path, "w");

	if (!f) {
		fprintf(stderr, "vmtrace %s: --plot: cannot write %s: %s\n", cmd, path,
			strerror(errno));
		return false;
	}
	fclose(f);
	return true;
}

int hmtt_figure_draw(const char *cmd, const struct hmtt_figures *f, struct plot *p,
		     const char *path)
{
	if (plot_end(cmd, p, path))
		return 1;
	if (!f->quiet)
		fprintf(stderr, "vmtrace %s: wrote %s\n", cmd, path);
	return 0;
}

/* Nothing to draw: said (unless quiet), -1. */
static int no_figure(const char *cmd, const struct hmtt_figures *f, const char *figure,
		     const char *why)
{
	if (!f->quiet)
		fprintf(stderr, "vmtrace %s: --plot: %s: %s, no figure\n", cmd, figure, why);
	return -1;
}

/* A block's first line: a blank pair before all but the first, then its key as a comment. */
static void begin_block(struct plot *p, unsigned int b, const char *key)
{
	fprintf(p->data, "%s# %s\n", b ? "\n\n" : "", key);
}

/* The plot command's part for block @b: "plot " before the first. */
static void plot_block(struct plot *p, unsigned int b, const char *style, const char *key)
{
	fprintf(p->script, "%sDATA index %u using 1:2 with %s title '%s'", b ? ", " : "plot ", b,
		style, key);
}

/* A bucket's upper bound, exclusive: @hi + 1, 2^64 past the last. */
static void print_bound(FILE *f, uint64_t hi)
{
	if (hi == UINT64_MAX)
		fputs("18446744073709551616", f);
	else
		fprintf(f, "%llu", (unsigned long long)hi + 1);
}

/* A key's place: the most @weight first, ties the lower @tie. */
struct ranked {
	uint64_t weight;
	uint64_t tie;
	size_t i;
};

static int by_weight(const void *a, const void *b)
{
	const struct ranked *x = a, *y = b;

	if (x->weight != y->weight)
		return x->weight < y->weight ? 1 : -1;
	return (x->tie > y->tie) - (x->tie < y->tie);
}

/* ", the 12 ... of N" when some are left out, in @buf. */
static const char *left_out(size_t n, const char *what, char *buf, size_t size)
{
	if (n <= HMTT_MAX_KEYS)
		buf[0] = '\0';
	else
		snprintf(buf, size, "\\nthe %u %s with the most %s, of %zu", HMTT_MAX_KEYS,
			 what, !strcmp(what, "processes") ? "references" : "requests", n);
	return buf;
}

int hmtt_plot_scr(const char *cmd, const struct hmtt_figures *f, const char *path)
{
	const struct hmtt_streams_options *s = f->streams;
	unsigned int order[HMTT_MAX_SCR_WINDOWS], n = s->nr_scr_windows, i, j, v, b = 0;
	bool shown[HMTT_SCR_VIEWS];
	char missing[128] = "";
	struct plot p;

	for (v = 0; v < HMTT_SCR_VIEWS; v++) {
		shown[v] = vmt_scr_result(hmtt_scr_view(f->scr, 0, v))->references;
		if (!shown[v])
			snprintf(missing + strlen(missing), sizeof(missing) - strlen(missing),
				 "%s%s", *missing ? ", " : "\\nleft out, no reference counted: ",
				 hmtt_scr_view_name(v));
		b += shown[v];
	}
	if (!b)
		return no_figure(cmd, f, "scr", "no view counted a reference");
	/* The windows in increasing order. */
	for (i = 0; i < n; i++) {
		for (j = i; j > 0 && s->scr_windows[order[j - 1]] > s->scr_windows[i]; j--)
			order[j] = order[j - 1];
		order[j] = i;
	}
	if (!hmtt_figure_writable(cmd, path) || plot_begin(cmd, &p))
		return 1;
	for (v = 0, b = 0; v < HMTT_SCR_VIEWS; v++) {
		if (!shown[v])
			continue;
		begin_block(&p, b++, hmtt_scr_view_name(v));
		for (i = 0; i < n; i++)
			fprintf(p.data, "%u %.4f\n", s->scr_windows[order[i]],
				vmt_scr_rate(hmtt_scr_view(f->scr, order[i], v)));
	}
	fprintf(p.script, "set termoption noenhanced\n"
		"set title \"stream coverage rate (SCR) against the window, in three views\\n"
		"(HMTT's Figs. 10, 11 and 13b: lost to virtual memory, virtual - physical-process;\\n"
		"to interleaving, physical-process - physical)%s\"\n"
		"set xlabel 'window (references), log2'\nset ylabel 'SCR (%%)'\n"
		"set logscale x 2\nset xrange [%g:%g]\nset yrange [0:105]\nset xtics (",
		missing, s->scr_windows[order[0]] / 1.5, s->scr_windows[order[n - 1]] * 1.5);
	for (i = 0; i < n; i++)
		fprintf(p.script, "%s%u", i ? ", " : "", s->scr_windows[order[i]]);
	fprintf(p.script, ")\nset key outside right\nset grid\n");
	for (v = 0, b = 0; v < HMTT_SCR_VIEWS; v++)
		if (shown[v])
			plot_block(&p, b++, n == 1 ? "points pt 7 ps 1.2" : "linespoints pt 7 ps 0.8",
				   hmtt_scr_view_name(v));
	fputc('\n', p.script);
	return hmtt_figure_draw(cmd, f, &p, path);
}

int hmtt_plot_strides(const char *cmd, const struct hmtt_figures *f, const char *path)
{
	unsigned int v, b = 0;
	struct plot p;

	for (v = 0; v < HMTT_SCR_VIEWS; v++)
		b += vmt_scr_result(hmtt_scr_view(f->scr, 0, v))->completing > 0;
	if (!b)
		return no_figure(cmd, f, "strides", "no reference completes a stream");
	if (!hmtt_figure_writable(cmd, path) || plot_begin(cmd, &p))
		return 1;
	fprintf(p.script, "set termoption noenhanced\n"
		"set title \"strides of the streams (HMTT's Fig. 12a): the CDF of |stride| of the\\n"
		"references that complete a stream, at the window of %u\"\n"
		"set xlabel '|stride| in %s, log2 (at x: the share of strides below x)'\n"
		"set ylabel 'completing references, cumulative (%%)'\n"
		"set logscale x 2\nset format x '2^%%L'\nset xrange [1:*]\nset yrange [0:105]\n"
		"set key outside right\nset grid\n", f->streams->scr_windows[0],
		f->unit == VMT_REF_LINE ? "64-byte lines" : "4 KiB pages");
	for (v = 0, b = 0; v < HMTT_SCR_VIEWS; v++) {
		const struct vmt_analysis *a = hmtt_scr_view(f->scr, 0, v);
		const struct vmt_scr_stride_bucket *s = vmt_scr_strides(a);
		uint64_t all = vmt_scr_result(a)->completing, cumulative = 0;

		if (!all)
			continue;
		begin_block(&p, b, hmtt_scr_view_name(v));
		for (unsigned int i = 0; i < VMT_SCR_STRIDE_BUCKETS; i++) {
			if (!s[i].forward && !s[i].backward)
				continue;
			cumulative += s[i].forward + s[i].backward;
			print_bound(p.data, s[i].hi);
			fprintf(p.data, " %.4f\n", percent_of(cumulative, all));
		}
		plot_block(&p, b++, "linespoints pt 7 ps 0.6", hmtt_scr_view_name(v));
	}
	fputc('\n', p.script);
	return hmtt_figure_draw(cmd, f, &p, path);
}

int hmtt_plot_runs(const char *cmd, const struct hmtt_figures *f, const char *path)
{
	const struct vmt_interleave_process *procs;
	size_t n = vmt_interleave_processes(f->interleave, &procs), keys, i;
	char name[VMT_COMM_LEN + 1], key[64], note[128];
	struct ranked *r;
	struct plot p;
	int ret = 1;

	if (!n)
		return no_figure(cmd, f, "runs", "no process");
	r = malloc(n * sizeof(*r));
	if (!r) {
		fprintf(stderr, "vmtrace %s: --plot: %s\n", cmd, strerror(ENOMEM));
		return 1;
	}
	for (i = 0; i < n; i++)
		r[i] = (struct ranked){ procs[i].references, procs[i].pid, i };
	qsort(r, n, sizeof(*r), by_weight);
	keys = n < HMTT_MAX_KEYS ? n : HMTT_MAX_KEYS;
	if (!hmtt_figure_writable(cmd, path) || plot_begin(cmd, &p))
		goto out;
	fprintf(p.script, "set termoption noenhanced\n"
		"set title \"run lengths in the merged stream (HMTT's Fig. 13d): each process's CDF of\\n"
		"its runs (references of one process in a row)%s\"\n"
		"set xlabel 'run length (references), log scale'\n"
		"set ylabel 'runs at most that long, cumulative (%%)'\n"
		"set logscale x\nset format x '10^%%L'\nset xrange [0.8:*]\nset yrange [0:105]\n"
		"set key outside right\nset grid\n", left_out(n, "processes", note, sizeof(note)));
	for (i = 0; i < keys; i++) {
		const struct vmt_interleave_process *q = &procs[r[i].i];
		const struct vmt_interleave_length *l;
		size_t nl = vmt_interleave_process_lengths(f->interleave, r[i].i, &l);
		uint64_t cumulative = 0;

		snprintf(key, sizeof(key), "pid %u %s", q->pid, hmtt_clean_name(q->comm, name));
		begin_block(&p, (unsigned int)i, key);
		for (size_t k = 0; k < nl; k++) {
			cumulative += l[k].runs;
			fprintf(p.data, "%llu %.4f\n", (unsigned long long)l[k].length,
				percent_of(cumulative, q->runs));
		}
		plot_block(&p, (unsigned int)i, "linespoints pt 7 ps 0.6", key);
	}
	fputc('\n', p.script);
	ret = hmtt_figure_draw(cmd, f, &p, path);
out:
	free(r);
	return ret;
}

int hmtt_plot_prefetch(const char *cmd, const struct hmtt_figures *f, const char *path)
{
	const struct vmt_prefetch_result *m =
		vmt_prefetch_result(hmtt_prefetch_view(f->prefetch, 0));
	struct plot p;

	if (!m->accesses)
		return no_figure(cmd, f, "prefetch", m->no_frame ? "no reference names a frame" :
				 "no access modelled");
	if (!hmtt_figure_writable(cmd, path) || plot_begin(cmd, &p))
		return 1;
	/* The label: the text table's %.2f of the rate, not of the CSV's %.4f. */
	for (unsigned int v = 0; v < HMTT_PREFETCH_VIEWS; v++) {
		double rate = vmt_prefetch_rate(hmtt_prefetch_view(f->prefetch, v));

		fprintf(p.data, "%u %s %.4f \"%.2f%%\"\n", v, hmtt_prefetch_view_name(v), rate,
			rate);
	}
	fprintf(p.script, "set termoption noenhanced\n"
		"set title \"prefetch rate (HMTT's formula (2) and Fig. 13c), a sequential prefetcher\\n"
		"modelled: %u trackers, %u line%s ahead; merged: every process's accesses through\\n"
		"one table (the bus), per-process: a table a process\"\n"
		"set ylabel 'prefetch rate: prefetches / DRAM accesses (%%)'\n"
		"set xrange [-0.75:1.75]\nset yrange [0:110]\nset boxwidth 0.5\n"
		"set style fill solid 0.5 border -1\nset grid ytics\nset xtics nomirror\nunset key\n"
		"plot DATA using 1:3:xtic(2) with boxes lc rgb '#4477aa', "
		"DATA using 1:3:4 with labels offset 0,1\n",
		f->streams->prefetch_trackers, f->streams->prefetch_degree,
		f->streams->prefetch_degree == 1 ? "" : "s");
	return hmtt_figure_draw(cmd, f, &p, path);
}

int hmtt_plot_dma_sizes(const char *cmd, const struct hmtt_figures *f, const char *path)
{
	const struct vmt_dma_size_bucket *sizes = vmt_dma_traffic_sizes(f->dma);
	const struct vmt_dma_device *devs;
	size_t n = vmt_dma_traffic_devices(f->dma, &devs), keys, i;
	unsigned int lo = VMT_DMA_SIZE_BUCKETS, hi = 0;
	char name[64], key[96], note[128];
	struct ranked *r;
	struct plot p;
	int ret = 1;

	if (!vmt_dma_traffic_records(f->dma))
		return no_figure(cmd, f, "dma-sizes", "no DMA records");
	if (!n)
		return no_figure(cmd, f, "dma-sizes", "no DMA request (map_page, map_sg)");
	r = malloc(n * sizeof(*r));
	if (!r) {
		fprintf(stderr, "vmtrace %s: --plot: %s\n", cmd, strerror(ENOMEM));
		return 1;
	}
	for (i = 0; i < n; i++)
		r[i] = (struct ranked){ devs[i].requests, i, i };
	qsort(r, n, sizeof(*r), by_weight);
	keys = n < HMTT_MAX_KEYS ? n : HMTT_MAX_KEYS;
	/* The buckets drawn: the x range, a power of two either side (never empty). */
	for (i = 0; i < keys; i++) {
		for (unsigned int b = 0; b < VMT_DMA_SIZE_BUCKETS; b++) {
			if (!devs[r[i].i].sizes[b])
				continue;
			lo = b < lo ? b : lo;
			hi = b > hi ? b : hi;
		}
	}
	if (!hmtt_figure_writable(cmd, path) || plot_begin(cmd, &p))
		goto out;
	fprintf(p.script, "set termoption noenhanced\n"
		"set title \"DMA request sizes (HMTT's Fig. 16): the CDF of a device's requests in\\n"
		"one direction (a map_page, or a map_sg's segments together)%s\"\n"
		"set xlabel 'request size in bytes, log2 (at x: the share of requests below x)'\n"
		"set ylabel 'requests, cumulative (%%)'\n"
		"set logscale x 2\nset format x '2^%%L'\nset xrange [%g:%g]\nset yrange [0:105]\n"
		"set key outside right\nset grid\n", left_out(n, "devices", note, sizeof(note)),
		((double)sizes[lo].hi + 1) / 2, ((double)sizes[hi].hi + 1) * 2);
	for (i = 0; i < keys; i++) {
		const struct vmt_dma_device *d = &devs[r[i].i];
		uint64_t cumulative = 0;

		snprintf(key, sizeof(key), "%s %s", clean_text(d->name, name, sizeof(name), "'\"\\"),
			 dma_dir_name(d->dir));
		begin_block(&p, (unsigned int)i, key);
		for (unsigned int b = 0; b < VMT_DMA_SIZE_BUCKETS; b++) {
			if (!d->sizes[b])
				continue;
			cumulative += d->sizes[b];
			print_bound(p.data, sizes[b].hi);
			fprintf(p.data, " %.4f\n", percent_of(cumulative, d->requests));
		}
		plot_block(&p, (unsigned int)i, "linespoints pt 7 ps 0.6", key);
	}
	fputc('\n', p.script);
	ret = hmtt_figure_draw(cmd, f, &p, path);
out:
	free(r);
	return ret;
}

/* The traffic table's names (hmtt_traffic.c's; tests/unit/hmtt-plot.sh compares). */
static const char *const kind_names[VMT_TRAFFIC_KINDS] = {
	"cpu_read", "cpu_write", "dma_read", "dma_write",
};

static const char *basis_name(enum vmt_traffic_basis b)
{
	return b == VMT_TRAFFIC_OBSERVED ? "observed" :
	       b == VMT_TRAFFIC_ESTIMATED ? "estimated" : "upper bound";
}

int hmtt_plot_traffic(const char *cmd, const struct hmtt_figures *f, const char *path)
{
	const struct vmt_traffic_result *r = vmt_traffic_result(f->traffic);
	uint64_t all = 0;
	unsigned int k;
	struct plot p;

	for (k = 0; k < VMT_TRAFFIC_KINDS; k++)
		all += r->bytes[k];
	if (!all)
		return no_figure(cmd, f, "traffic", "no bytes counted");
	if (!hmtt_figure_writable(cmd, path) || plot_begin(cmd, &p))
		return 1;
	for (k = 0; k < VMT_TRAFFIC_KINDS; k++) {
		double share = percent_of(r->bytes[k], all);

		fprintf(p.data, "%u %s \"%s\" %.4f \"%.2f%%\"\n", k, kind_names[k],
			basis_name(r->basis[k]), share, share);
	}
	fprintf(p.script, "set termoption noenhanced\n"
		"set title \"memory traffic by kind (HMTT's Table 3): each kind's share of the four's\\n"
		"bytes, its basis under its name (observed: every access's bytes; estimated: a page\\n"
		"touched as its unit's bytes; upper bound: a mapping's size)\"\n"
		"set ylabel 'share of the bytes (%%)'\n"
		"set xrange [-0.75:3.75]\nset yrange [0:110]\nset boxwidth 0.5\n"
		"set style fill solid 0.5 border -1\nset grid ytics\nset xtics nomirror\nunset key\n"
		"set bmargin 5\n"
		"plot DATA using 1:4:xtic(sprintf(\"%%s\\n(%%s)\", strcol(2), strcol(3))) "
		"with boxes lc rgb '#4477aa', "
		"DATA using 1:4:5 with labels offset 0,1\n");
	return hmtt_figure_draw(cmd, f, &p, path);
}
