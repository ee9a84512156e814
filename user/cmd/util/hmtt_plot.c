// SPDX-License-Identifier: GPL-2.0
/*
 * vmtrace hmtt's interleaving a process and its figures (hmtt_plot.h;
 * docs/analysis/hmtt.md): the table of each process's runs in the merged
 * stream (HMTT's Fig. 13d), and with --plot, drawn by gnuplot, the pages
 * at their frames (Figs. 12b, 19b) and a slice of the merged stream with
 * each process in its colour (Fig. 13a).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hmtt_plot.h"

/* A figure's legend: the processes with the most points, the rest as one entry. */
#define MAX_KEYS	12

const char hmtt_plot_usage[] =
	"  --plot FILE        draw the figures with gnuplot, one a section that has one,\n"
	"                     FILE's name with the section's before its extension\n"
	"                     (out.svg: out-v2p.svg, out-interleave.svg; .svg or .png):\n"
	"                     v2p, each page at its last frame, a colour a process (at\n"
	"                     most 20,000 pages: beyond, every k-th in the order first\n"
	"                     seen); interleave, a slice of the merged stream, reference\n"
	"                     against address, a colour a process\n"
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
		fprintf(stderr, "vmtrace %s: --plot: no section asked for has a figure (v2p, interleave)\n",
			cmd);
		return -1;
	}
	if (plot && check_dir(cmd, plot))
		return -1;
	if (!*slice_count)
		*slice_count = HMTT_DEFAULT_SLICE;
	return 0;
}

/*
 * @name fit for a CSV field or a gnuplot string, in quotes of either kind
 * (printable, no comma, quote or backslash: '_' for each), or "-" if none.
 */
static const char *clean_name(const char *name, char buf[VMT_COMM_LEN + 1])
{
	size_t i;

	if (!name || !*name)
		return "-";
	for (i = 0; i < VMT_COMM_LEN && name[i]; i++) {
		unsigned char ch = (unsigned char)name[i];

		buf[i] = ch >= ' ' && ch < 0x7f && !strchr(",'\"\\", ch) ? (char)ch : '_';
	}
	buf[i] = '\0';
	return buf;
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
		const char *nm = clean_name(p[i].comm, name);

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

/* A process in a figure: its points, and its legend entry's place (MAX_KEYS: "other"). */
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
 * The legend: the MAX_KEYS processes with the most points (ties: the
 * lower pid) each a block of their own, in that order, the others block
 * MAX_KEYS. Return: the blocks.
 */
static unsigned int figure_blocks(struct figure *f)
{
	qsort(f->procs, f->nr, sizeof(*f->procs), by_points);
	for (size_t i = 0; i < f->nr; i++)
		f->procs[i].block = i < MAX_KEYS ? (unsigned int)i : MAX_KEYS;
	return f->nr > MAX_KEYS ? MAX_KEYS + 1 : (unsigned int)f->nr;
}

static unsigned int block_of(const struct figure *f, uint32_t pid)
{
	for (size_t i = 0; i < f->nr; i++)
		if (f->procs[i].pid == pid)
			return f->procs[i].block;
	return MAX_KEYS;
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
		if (b < MAX_KEYS)
			fprintf(script, "title 'pid %u %s'", f->procs[b].pid,
				clean_name(name_of(names, f->procs[b].pid), name));
		else
			fprintf(script, "lc rgb 'gray' title '%zu other processes'",
				f->nr - MAX_KEYS);
	}
	fputc('\n', script);
}

/* @path with "-@section" before its extension, in @buf. */
static const char *figure_path(const char *path, const char *section, char *buf, size_t size)
{
	const char *dot = strrchr(path, '.');	/* .svg or .png: parse_analysis_option() */

	snprintf(buf, size, "%.*s-%s%s", (int)(dot - path), path, section, dot);
	return buf;
}

/* Whether @path can be written (gnuplot would say little), having said why not. */
static bool writable(const char *cmd, const char *path)
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

static int draw(const char *cmd, struct plot *p, const char *path)
{
	if (plot_end(cmd, p, path))
		return 1;
	fprintf(stderr, "vmtrace %s: wrote %s\n", cmd, path);
	return 0;
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
	if (!writable(cmd, path))
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
	ret = draw(cmd, &p, path);
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
	if (!writable(cmd, path))
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
	ret = draw(cmd, &p, path);
out:
	free(f.procs);
	return ret;
}

int hmtt_plot(const char *cmd, const struct hmtt_figures *f)
{
	char path[4096];
	int ret, failed = 0, drawn = 0;

	if (f->v2p) {
		ret = plot_v2p(cmd, f, figure_path(f->path, "v2p", path, sizeof(path)));
		failed |= ret > 0;
		drawn += !ret;
	}
	if (f->interleave) {
		figure_path(f->path, "interleave", path, sizeof(path));
		ret = plot_interleave(cmd, f, path);
		failed |= ret > 0;
		drawn += !ret;
	}
	if (!failed && !drawn)
		fprintf(stderr, "vmtrace %s: --plot: no figure drawn\n", cmd);
	return failed || !drawn;
}
