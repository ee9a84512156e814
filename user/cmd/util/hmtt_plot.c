// SPDX-License-Identifier: GPL-2.0
/*
 * vmtrace hmtt's interleaving a process and its figures (hmtt_plot.h;
 * docs/analysis/hmtt.md): the table of each process's runs in the merged
 * stream (HMTT's Fig. 13d), and with --plot, drawn by gnuplot, the pages
 * at their frames (Figs. 12b, 19b) and a slice of the merged stream with
 * each process in its colour (Fig. 13a); hmtt_figures.c draws the tables'
 * figures, and hmtt_plot() each figure of a section that ran.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hmtt_plot.h"

const char hmtt_plot_usage[] =
	"  --plot FILE        draw the figures with gnuplot, each section's that ran, FILE's\n"
	"                     name with the figure's before its extension (.svg or .png;\n"
	"                     out.svg: out-v2p.svg ...), from the numbers the tables print:\n"
	"                     dma-sizes (dma), each device's request sizes' CDF in one\n"
	"                     direction; v2p, each page at its last frame, a colour a\n"
	"                     process (at most 20,000 pages: beyond, every k-th in the\n"
	"                     order first seen); interleave, a slice of the merged stream,\n"
	"                     reference against address, a colour a process, and runs,\n"
	"                     each process's run-length CDF (the 12 with the most\n"
	"                     references); scr, SCR against the window in the three\n"
	"                     views, and strides, their CDF of |stride| at the first\n"
	"                     window; prefetch, the rate merged and per process; traffic,\n"
	"                     the four kinds' shares of the bytes, with their basis.\n"
	"                     A figure with nothing to draw (no frame, no DMA) is said\n"
	"                     and left out\n"
"  --plot-slice [START:]N  interleave's figure: the references START..START+N-1\n"
	"                     of the merged stream (from 0; default: the first 2000)\n";

int hmtt_parse_slice(const char *cmd, const char *arg, uint64_t *first, uint64_t *count)
{
	unsigned long long a, b = 0;
	char *end;
	bool two;

	errno = 0;
	a = strtoull(arg, &end, 10);
	two = end != arg && *end == ':';
	if (two && end[1] >= '0' && end[1] <= '9') {
		const char *rest = end + 1;

		b = strtoull(rest, &end, 10);
	}
	if (errno || *end || *arg < '0' || *arg > '9' || (two ? !b : !a) ||
	    (two ? b : a) > VMT_INTERLEAVE_MAX_SLICE || (two && a > UINT64_MAX - b)) {
		fprintf(stderr, "vmtrace %s: --plot-slice: bad slice '%s' ([START:]N, N references from 1 to %u)\n",
			cmd, arg, VMT_INTERLEAVE_MAX_SLICE);
		return -1;
	}
	*first = two ? a : 0;
	*count = two ? b : a;
	return 0;
}

/* Whether --plot's folder can be written: 0, or -1 having said why not. */
static int check_dir(const char *cmd, const char *path)
{
	const char *slash = strrchr(path, '/');
	char dir[4096];

	if (!slash)
		strcpy(dir, ".");
	else
		snprintf(dir, sizeof(dir), "%.*s", slash == path ? 1 : (int)(slash - path), path);
	if (access(dir, W_OK | X_OK)) {
		fprintf(stderr, "vmtrace %s: --plot: cannot write in %s: %s\n", cmd, dir,
			strerror(errno));
		return -1;
	}
	return 0;
}

int hmtt_plot_check(const char *cmd, const char *plot, bool figures, uint64_t *slice_count)
{
	if (*slice_count && !plot) {
		fprintf(stderr, "vmtrace %s: --plot-slice: only with --plot\n", cmd);
		return -1;
	}
	if (plot && !figures) {
		fprintf(stderr, "vmtrace %s: --plot: no section asked for has a figure (dma, v2p, interleave, scr, prefetch, traffic)\n",
			cmd);
		return -1;
	}
	if (plot && check_dir(cmd, plot))
		return -1;
	if (!*slice_count)
		*slice_count = HMTT_DEFAULT_SLICE;
	return 0;
}

void hmtt_print_interleave_processes(const struct analysis_options *o,
				     const struct vmt_analysis *interleave, bool *first)
{
	const struct vmt_interleave_process *p;
	size_t n = vmt_interleave_processes(interleave, &p), i, k;
	char name[VMT_COMM_LEN + 1], c[5][32], title[160];

	snprintf(title, sizeof(title), "interleaving by process: each one's runs in the merged stream; short:\n"
		 "runs of fewer than %u references (HMTT's Fig. 13d)", VMT_INTERLEAVE_SHORT_RUN);
	print_table_title(o->csv, first, title);
	if (o->csv)
		printf("pid,name,references,runs,mean,median,longest,short_runs,short_pct\n");
	else
		printf("  %8s %-16s %14s %12s %10s %8s %12s %8s\n", "pid", "name", "references",
		       "runs", "mean", "median", "longest", "short");
	for (i = 0; i < n; i++) {
		const char *nm = hmtt_clean_name(p[i].comm, name);

		if (o->csv) {
			printf("%u,%s,%llu,%llu,%.4f,%llu,%llu,%llu,%.4f\n", p[i].pid, nm,
			       (unsigned long long)p[i].references, (unsigned long long)p[i].runs,
			       p[i].mean, (unsigned long long)p[i].median,
			       (unsigned long long)p[i].longest,
			       (unsigned long long)p[i].short_runs,
			       percent_of(p[i].short_runs, p[i].runs));
			continue;
		}
		printf("  %8u %-16s %14s %12s %10.2f %8s %12s %7.2f%%\n", p[i].pid, nm,
		       fmt_count(p[i].references, c[0]), fmt_count(p[i].runs, c[1]), p[i].mean,
		       fmt_count(p[i].median, c[2]), fmt_count(p[i].longest, c[3]),
		       percent_of(p[i].short_runs, p[i].runs));
	}
	if (!o->csv)
		return;
	/* The CDF: each process's distinct run lengths, the runs at most that long. */
	print_table_title(o->csv, first, "");
	printf("pid,run_length,runs,cumulative_runs,cumulative_pct\n");
	for (i = 0; i < n; i++) {
		const struct vmt_interleave_length *l;
		size_t nl = vmt_interleave_process_lengths(interleave, i, &l);
		uint64_t cumulative = 0;

		for (k = 0; k < nl; k++) {
			cumulative += l[k].runs;
			printf("%u,%llu,%llu,%llu,%.4f\n", p[i].pid,
			       (unsigned long long)l[k].length, (unsigned long long)l[k].runs,
			       (unsigned long long)cumulative, percent_of(cumulative, p[i].runs));
		}
	}
}

/* ---- Figures ---- */

/* A process in a figure: its points, and its legend entry's place (HMTT_MAX_KEYS: "other"). */
struct figure_process {
	uint32_t pid;
	uint64_t points;
	unsigned int block;
};

struct figure {
	struct figure_process *procs;
	size_t nr, room;
};

/* @pid's entry, made with no point when new; NULL: no memory. */
static struct figure_process *figure_process(struct figure *f, uint32_t pid)
{
	/* Processes are few: a look from the last one made, the usual case first. */
	for (size_t i = f->nr; i-- > 0;)
		if (f->procs[i].pid == pid)
			return &f->procs[i];
	if (f->nr == f->room) {
		size_t room = f->room ? 2 * f->room : 16;
		struct figure_process *grown = realloc(f->procs, room * sizeof(*grown));

		if (!grown)
			return NULL;
		f->procs = grown;
		f->room = room;
	}
	f->procs[f->nr] = (struct figure_process){ .pid = pid };
	return &f->procs[f->nr++];
}

static int by_points(const void *a, const void *b)
{
	const struct figure_process *x = a, *y = b;

	if (x->points != y->points)
		return x->points < y->points ? 1 : -1;
	return (x->pid > y->pid) - (x->pid < y->pid);
}

/*
 * The legend: the HMTT_MAX_KEYS processes with the most points (ties: the
 * lower pid) each a block of their own, in that order, the others block
 * HMTT_MAX_KEYS. Return: the blocks.
 */
static unsigned int figure_blocks(struct figure *f)
{
	qsort(f->procs, f->nr, sizeof(*f->procs), by_points);
	for (size_t i = 0; i < f->nr; i++)
		f->procs[i].block = i < HMTT_MAX_KEYS ? (unsigned int)i : HMTT_MAX_KEYS;
	return f->nr > HMTT_MAX_KEYS ? HMTT_MAX_KEYS + 1 : (unsigned int)f->nr;
}

static unsigned int block_of(const struct figure *f, uint32_t pid)
{
	for (size_t i = 0; i < f->nr; i++)
		if (f->procs[i].pid == pid)
			return f->procs[i].block;
	return HMTT_MAX_KEYS;
}

/* The name @names (an interleave analysis) knows @pid by, or NULL. */
static const char *name_of(const struct vmt_analysis *names, uint32_t pid)
{
	const struct vmt_interleave_process *p;
	size_t n;

	if (!names)
		return NULL;
	n = vmt_interleave_processes(names, &p);
	for (size_t i = 0; i < n; i++)
		if (p[i].pid == pid)
			return p[i].comm;
	return NULL;
}

/* The plot command: a block a legend entry, "pid N name" or "N other processes". */
static void figure_plot_command(const struct figure *f, unsigned int blocks,
				const struct vmt_analysis *names, FILE *script)
{
	char name[VMT_COMM_LEN + 1];

	fprintf(script, "plot ");
	for (unsigned int b = 0; b < blocks; b++) {
		fprintf(script, "%sDATA index %u using 1:2 with points pt 7 ps 0.5 ", b ? ", " : "",
			b);
		if (b < HMTT_MAX_KEYS)
			fprintf(script, "title 'pid %u %s'", f->procs[b].pid,
				hmtt_clean_name(name_of(names, f->procs[b].pid), name));
		else
			fprintf(script, "lc rgb 'gray' title '%zu other processes'",
				f->nr - HMTT_MAX_KEYS);
	}
	fputc('\n', script);
}

/*
 * v2p: each page (vpn, its last frame), at most HMTT_V2P_MAX_POINTS of
 * them: beyond, every k-th page in the order first seen, k the least that
 * keeps them under. 0; 1 having said why not; -1: no page, said.
 */
static int plot_v2p(const char *cmd, const struct hmtt_figures *fig, const char *path)
{
	const struct vmt_v2p_result *r = vmt_v2p_result(fig->v2p);
	uint64_t k = (r->pages + HMTT_V2P_MAX_POINTS - 1) / HMTT_V2P_MAX_POINTS, i, drawn = 0;
	struct figure f = { 0 };
	struct vmt_v2p_page page;
	unsigned int blocks;
	char c[3][32];
	struct plot p;
	size_t pos;
	int ret = 1;

	if (!r->pages) {
		fprintf(stderr, "vmtrace %s: --plot: v2p: no page seen with a frame, no figure\n",
			cmd);
		return -1;
	}
	if (!hmtt_figure_writable(cmd, path))
		return 1;
	for (pos = 0, i = 0; vmt_v2p_next_page(fig->v2p, &pos, &page); i++) {
		struct figure_process *fp;

		if (i % k)
			continue;
		fp = figure_process(&f, page.pid);
		if (!fp)
			goto nomem;
		fp->points++;
		drawn++;
	}
	blocks = figure_blocks(&f);
	if (plot_begin(cmd, &p))
		goto out;
	/* A block a legend entry, its pages in the order first seen. */
	for (unsigned int b = 0; b < blocks; b++) {
		fprintf(p.data, "%s", b ? "\n\n" : "");
		for (pos = 0, i = 0; vmt_v2p_next_page(fig->v2p, &pos, &page); i++)
			if (!(i % k) && block_of(&f, page.pid) == b)
				fprintf(p.data, "%llu %llu\n", (unsigned long long)page.vpn,
					(unsigned long long)page.pfn);
	}
	fprintf(p.script, "set termoption noenhanced\n"
		"set title \"virtual to physical: %s pages of %zu process%s, each at its last frame",
		fmt_count(drawn, c[0]), f.nr, f.nr == 1 ? "" : "es");
	if (k > 1)
		fprintf(p.script, "\\n(a sample: every %llu%s page in the order first seen, of %s)",
			(unsigned long long)k, k == 2 ? "nd" : k == 3 ? "rd" : "th",
			fmt_count(r->pages, c[1]));
	fprintf(p.script, "\"\nset xlabel 'virtual page number (4 KiB)'\n"
		"set ylabel 'physical frame number'\nset format x '0x%%x'\nset format y '0x%%x'\n"
		"set xtics rotate by -30\nset key outside right\nset grid\n"
		"set offsets graph 0.02, graph 0.02, graph 0.04, graph 0.04\n"
		/* the margins above must not reach below page and frame 0 */
		"set xrange [0:*]\nset yrange [0:*]\n");
	figure_plot_command(&f, blocks, fig->names, p.script);
	ret = hmtt_figure_draw(cmd, fig, &p, path);
	goto out;
nomem:
	fprintf(stderr, "vmtrace %s: --plot: %s\n", cmd, strerror(ENOMEM));
out:
	free(f.procs);
	return ret;
}

/* interleave: the slice, place in the stream against address, a colour a process. */
static int plot_interleave(const char *cmd, const struct hmtt_figures *fig, const char *path)
{
	const struct vmt_interleave_result *r = vmt_interleave_result(fig->interleave);
	const struct vmt_interleave_ref *refs;
	size_t n = vmt_interleave_slice(fig->interleave, &refs), i;
	uint64_t switches = 0;
	struct figure f = { 0 };
	unsigned int blocks;
	char c[4][32];
	struct plot p;
	int ret = 1;

	if (!n) {
		fprintf(stderr, "vmtrace %s: --plot: interleave: the slice starts at reference %s, past the %s references: no figure\n",
			cmd, fmt_count(fig->slice_first, c[0]), fmt_count(r->references, c[1]));
		return -1;
	}
	if (!hmtt_figure_writable(cmd, path))
		return 1;
	for (i = 0; i < n; i++) {
		struct figure_process *fp = figure_process(&f, refs[i].pid);

		if (!fp) {
			fprintf(stderr, "vmtrace %s: --plot: %s\n", cmd, strerror(ENOMEM));
			goto out;
		}
		fp->points++;
		switches += i && refs[i].pid != refs[i - 1].pid;
	}
	blocks = figure_blocks(&f);
	if (plot_begin(cmd, &p))
		goto out;
	for (unsigned int b = 0; b < blocks; b++) {
		fprintf(p.data, "%s", b ? "\n\n" : "");
		for (i = 0; i < n; i++)
			if (block_of(&f, refs[i].pid) == b)
				fprintf(p.data, "%llu %llu\n", (unsigned long long)refs[i].index,
					(unsigned long long)refs[i].addr);
	}
	fprintf(p.script, "set termoption noenhanced\n"
		"set title \"interleaving: references %s..%s of %s in the merged stream (--plot-slice %llu:%llu),\\n"
		"%zu process%s, %s switches in the slice\"\n",
		fmt_count(refs[0].index, c[0]), fmt_count(refs[n - 1].index, c[1]),
		fmt_count(r->references, c[2]), (unsigned long long)fig->slice_first,
		(unsigned long long)fig->slice_count, f.nr, f.nr == 1 ? "" : "es",
		fmt_count(switches, c[3]));
	fprintf(p.script, "set xlabel 'reference (its place in the merged stream)'\n"
		"set ylabel '%s address'\nset format y '0x%%x'\nset key outside right\nset grid\n"
		"set offsets 0, 0, graph 0.04, graph 0.04\nset yrange [0:*]\n",
		fig->space == VMT_REF_PHYSICAL ? "physical" : "virtual");
	figure_plot_command(&f, blocks, fig->names, p.script);
	ret = hmtt_figure_draw(cmd, fig, &p, path);
out:
	free(f.procs);
	return ret;
}

int hmtt_plot(const char *cmd, const struct hmtt_figures *f)
{
	/* In the sections' order; a figure when its section ran. */
	const struct {
		const char *name;
		bool ran;
		int (*draw)(const char *cmd, const struct hmtt_figures *f, const char *path);
	} figures[] = {
		{ "dma-sizes", f->dma, hmtt_plot_dma_sizes },
		{ "v2p", f->v2p, plot_v2p },
		{ "interleave", f->interleave, plot_interleave },
		{ "runs", f->interleave, hmtt_plot_runs },
		{ "scr", f->scr, hmtt_plot_scr },
		{ "strides", f->scr, hmtt_plot_strides },
		{ "prefetch", f->prefetch, hmtt_plot_prefetch },
		{ "traffic", f->traffic, hmtt_plot_traffic },
	};
	char path[4096];
	int ret, failed = 0, drawn = 0;

	for (size_t i = 0; i < sizeof(figures) / sizeof(figures[0]); i++) {
		if (!figures[i].ran)
			continue;
		ret = figures[i].draw(cmd, f, hmtt_figure_path(f->path, figures[i].name, path,
							      sizeof(path)));
		failed |= ret > 0;
		drawn += !ret;
	}
	if (!failed && !drawn)
		fprintf(stderr, "vmtrace %s: --plot: no figure drawn\n", cmd);
	return failed || !drawn;
}
