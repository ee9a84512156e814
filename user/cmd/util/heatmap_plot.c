// SPDX-License-Identifier: GPL-2.0
/*
 * What `vmtrace heatmap` and `report --html` share (heatmap_plot.h): a
 * heatmap's cells as text, its image drawn by gnuplot, and which process's
 * heatmap is the busiest.
 */
#include <stdbool.h>
#include <stdio.h>

#include "analysis_command.h"
#include "heatmap_plot.h"

/* Every non-empty cell (@all: every cell, for an image) as time address count. */
void heatmap_print_cells(FILE *out, const struct vmt_analysis *h, const char *sep, bool all)
{
	unsigned int nr_rows, cols;
	const struct vmt_heatmap_row *rows = vmt_heatmap_rows(h, &nr_rows);
	const uint64_t *counts = vmt_heatmap_counts(h, &cols, NULL);
	uint64_t first, last;

	vmt_heatmap_time(h, &first, &last);
	for (unsigned int r = 0; r < nr_rows; r++) {
		for (unsigned int c = 0; c < cols; c++) {
			uint64_t n = counts[(size_t)r * cols + c];
			double t = (double)(last - first + 1) * c / cols / 1e9;

			if (all)
				fprintf(out, "%.9f %u %llu\n", t, r, (unsigned long long)n);
			else if (n)
				fprintf(out, "%.9f%s%llu%s%llu\n", t, sep,
					(unsigned long long)rows[r].start, sep,
					(unsigned long long)n);
		}
		if (all)
			fputc('\n', out);
	}
}

/* The image: rows by index, the segments' first addresses as tics. */
int heatmap_plot(const char *cmd, const struct vmt_analysis *h, const char *path,
		 const char *title)
{
	unsigned int nr_segs;
	const struct vmt_heatmap_segment *segs = vmt_heatmap_segments(h, &nr_segs);
	struct plot p;

	if (plot_begin(cmd, &p))
		return 1;
	heatmap_print_cells(p.data, h, " ", true);
	fprintf(p.script, "set title '%s'\nset xlabel 'time (s)'\nset ylabel 'address'\n"
		"set cblabel '1 + log10(references); 0: none'\nset autoscale fix\nset ytics (",
		title);
	for (unsigned int i = 0; i < nr_segs; i++)
		fprintf(p.script, "%s'0x%llx' %u", i ? ", " : "", (unsigned long long)segs[i].start,
			segs[i].first_row);
	fprintf(p.script, ")\nset yrange [] reverse\nset palette rgb 21,22,23\n"
		"plot DATA using 1:2:($3 > 0 ? log10($3) + 1 : 0) with image notitle\n");
	return plot_end(cmd, &p, path);
}

/* Without --per-process, virtual space: the busiest process's heatmap alone. */
unsigned int heatmap_busiest(const struct vmt_analysis *pp)
{
	unsigned int best = 0;
	uint32_t pid;

	for (unsigned int i = 1; i < vmt_per_process_count(pp); i++)
		if (vmt_heatmap_references(vmt_per_process_get(pp, i, &pid)) >
		    vmt_heatmap_references(vmt_per_process_get(pp, best, &pid)))
			best = i;
	return best;
}
