// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for the heatmap (user/lib/analysis/analysis_heatmap.c): every cell
 * against a brute-force binning of the references done here, and the
 * address axis's collapsed stretches where the trace has gaps.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>

#include "vmtrace/analysis.h"

#include "temp_file.h"
#include "trace_file.h"

#define GIB (1ull << 30)

static struct vmt_analysis *run_heatmap(struct vmt_trace *t, unsigned int rows, unsigned int cols)
{
	struct vmt_heatmap_options o = { .rows = rows, .cols = cols };
	struct vmt_ref_options ro = { 0 };
	struct vmt_analysis *a;
	int passes = 0;

	assert_int_equal(vmt_heatmap_create(&a, &o), 0);
	while (vmt_heatmap_needs_pass(a)) {
		assert_int_equal(vmt_analyze(t, &ro, &a, 1, NULL), 0);
		passes++;
	}
	assert_true(passes == 2 || (passes == 1 && !vmt_heatmap_references(a)));
	return a;
}

/*
 * Each reference's cell found plainly: the row by a walk over the rows,
 * the column by where its time falls among cols equal slices of
 * [first, last]; the grid must hold exactly these counts.
 */
static void check_against_brute_force(const struct vmt_analysis *a, const struct vmt_record *recs,
				      size_t n)
{
	unsigned int nr_rows, cols;
	const struct vmt_heatmap_row *rows = vmt_heatmap_rows(a, &nr_rows);
	uint64_t outside, first = UINT64_MAX, last = 0, *want;
	const uint64_t *got = vmt_heatmap_counts(a, &cols, &outside);

	for (size_t i = 0; i < n; i++) {
		if (recs[i].hdr.type != VMT_REC_REFERENCE)
			continue;
		first = recs[i].hdr.time_ns < first ? recs[i].hdr.time_ns : first;
		last = recs[i].hdr.time_ns > last ? recs[i].hdr.time_ns : last;
	}
	want = calloc((size_t)nr_rows * cols, sizeof(*want));
	assert_non_null(want);
	for (size_t i = 0; i < n; i++) {
		uint64_t page = recs[i].ref.vaddr & ~4095ull;
		unsigned int r, c = 0;

		if (recs[i].hdr.type != VMT_REC_REFERENCE)
			continue;
		for (r = 0; r < nr_rows; r++)
			if (rows[r].start <= page && page < rows[r].end)
				break;
		assert_true(r < nr_rows);	/* every referenced page has a row */
		/* Column c holds first + c * span / cols <= t < first + (c + 1) * span / cols. */
		while ((double)(recs[i].hdr.time_ns - first) >=
		       (double)(c + 1) * (last - first + 1) / cols)
			c++;
		want[(size_t)r * cols + c]++;
	}
	assert_int_equal(outside, 0);
	for (size_t i = 0; i < (size_t)nr_rows * cols; i++)
		assert_int_equal(got[i], want[i]);
	free(want);
}

/*
 * Three clusters of pages, 1 GiB and 64 GiB apart, referenced at uneven
 * times: two collapsed gaps, rows only over the clusters, cells as binned.
 *
 *   0x10000000 [64 pages]  ~1 GiB~  [8 pages]  ~64 GiB~  [200 pages]
 */
static void test_heatmap_clusters(void **state)
{
	static const uint64_t base[3] = { 0x10000000, 0x10000000 + GIB, 0x10000000 + 65 * GIB };
	static const unsigned int pages[3] = { 64, 8, 200 };
	struct vmt_record recs[3000];
	const struct vmt_heatmap_segment *segs;
	unsigned int nr_segs, nr_rows;
	const struct vmt_heatmap_row *rows;
	struct vmt_analysis *a;
	struct vmt_trace *t;
	uint64_t time = 1000;
	size_t n = 0;

	(void)state;
	srand(7);
	while (n < 3000) {
		unsigned int c = (unsigned int)rand() % 3;

		time += (unsigned int)rand() % 5000;
		recs[n++] = reference_record(time, 4, base[c] + ((unsigned int)rand() % pages[c]) * 4096 +
				   (unsigned int)rand() % 4096);
	}
	t = write_trace_and_open(path, recs, n, 64 * 64, NULL);
	a = run_heatmap(t, 20, 17);
	segs = vmt_heatmap_segments(a, &nr_segs);
	rows = vmt_heatmap_rows(a, &nr_rows);
	assert_int_equal(nr_segs, 3);
	assert_true(nr_rows <= 20);
	for (unsigned int i = 0; i < 3; i++) {
		/* Each segment is its cluster: from its lowest referenced page to past its highest. */
		assert_true(segs[i].start >= base[i] && segs[i].start < base[i] + 4 * 4096);
		assert_true(segs[i].end <= base[i] + pages[i] * 4096ull &&
			    segs[i].end > base[i] + (pages[i] - 4) * 4096ull);
		assert_true(segs[i].nr_rows >= 1);
		assert_int_equal(rows[segs[i].first_row].start, segs[i].start);
		assert_int_equal(rows[segs[i].first_row + segs[i].nr_rows - 1].end, segs[i].end);
	}
	assert_int_equal(segs[0].gap_before, 0);
	assert_int_equal(segs[1].gap_before, segs[1].start - segs[0].end);
	assert_true(segs[1].gap_before >= GIB - 64 * 4096 && segs[2].gap_before >= 63 * GIB);
	/* Rows in proportion: the 200-page cluster gets the most. */
	assert_true(segs[2].nr_rows > segs[0].nr_rows && segs[0].nr_rows > segs[1].nr_rows);
	check_against_brute_force(a, recs, n);
	vmt_analysis_destroy(a);
	vmt_trace_close(t);
}

/*
 * With VMA records the segments are the referenced mappings, whole:
 * [A 16 pages][B 16 pages] adjacent (one segment), C far off, D mapped but
 * never referenced (collapsed), and a reference outside every mapping (a
 * segment of its own).
 */
static void test_heatmap_mappings(void **state)
{
	struct vmt_record recs[200];
	const struct vmt_heatmap_segment *segs;
	unsigned int nr_segs;
	struct vmt_analysis *a;
	struct vmt_trace *t;
	size_t n = 0;

	(void)state;
	for (unsigned int i = 0; i < 4; i++) {
		static const uint64_t ranges[4][2] = {
			{ 0x400000, 0x410000 }, { 0x410000, 0x420000 },
			{ 0x7f0000000000, 0x7f0000200000 }, { 0x500000000, 0x600000000 },
		};

		memset(&recs[n], 0, sizeof(recs[n]));
		recs[n].hdr.type = VMT_REC_VMA;
		recs[n].hdr.pid = 9;
		recs[n].vma.op = VMT_VMA_MAP;
		recs[n].vma.start = ranges[i][0];
		recs[n++].vma.end = ranges[i][1];
	}
	for (unsigned int i = 0; i < 150; i++)
		recs[n++] = reference_record(100 + i * 10, 9, i % 3 ? 0x402000 + (i % 20) * 4096 :
					   0x7f0000100000 + i);
	recs[n++] = reference_record(2000, 9, 0x90000000);
	t = write_trace_and_open(path, recs, n, 64 * 64, NULL);
	a = run_heatmap(t, 12, 5);
	segs = vmt_heatmap_segments(a, &nr_segs);
	assert_int_equal(nr_segs, 3);
	assert_int_equal(segs[0].start, 0x400000);
	assert_int_equal(segs[0].end, 0x420000);
	assert_int_equal(segs[1].start, 0x90000000);
	assert_int_equal(segs[1].end, 0x90001000);
	assert_int_equal(segs[2].start, 0x7f0000000000);
	assert_int_equal(segs[2].end, 0x7f0000200000);
	assert_int_equal(segs[2].gap_before, 0x7f0000000000 - 0x90001000);
	check_against_brute_force(a, recs, n);
	vmt_analysis_destroy(a);
	vmt_trace_close(t);
}

/* One row, one column: every reference in the one cell. */
static void test_heatmap_one_cell(void **state)
{
	struct vmt_record recs[50];
	struct vmt_analysis *a;
	unsigned int cols, nr_rows;
	const uint64_t *counts;
	struct vmt_trace *t;

	(void)state;
	for (unsigned int i = 0; i < 50; i++)
		recs[i] = reference_record(i, 3, (uint64_t)(i % 5) * 40 * GIB);
	t = write_trace_and_open(path, recs, 50, 64 * 64, NULL);
	a = run_heatmap(t, 1, 1);
	vmt_heatmap_rows(a, &nr_rows);
	counts = vmt_heatmap_counts(a, &cols, NULL);
	assert_int_equal(nr_rows, 1);
	assert_int_equal(counts[0], 50);
	vmt_analysis_destroy(a);
	vmt_trace_close(t);
}

static void test_heatmap_bad_input(void **state)
{
	struct vmt_heatmap_options bad[] = {
		{ 0, 5 }, { 5, 0 }, { VMT_HEATMAP_MAX_ROWS + 1, 5 }, { 5, VMT_HEATMAP_MAX_COLS + 1 },
	};
	struct vmt_record recs[1] = { reference_record(1, 1, 0x1000) };
	struct vmt_analysis *a;
	unsigned int nr;
	struct vmt_trace *t;

	(void)state;
	for (unsigned int i = 0; i < 4; i++)
		assert_int_equal(vmt_heatmap_create(&a, &bad[i]), -EINVAL);
	/* No reference: one pass, nothing laid out. */
	recs[0].hdr.type = VMT_REC_EVICT;
	t = write_trace_and_open(path, recs, 1, 64 * 64, NULL);
	a = run_heatmap(t, 4, 4);
	assert_int_equal(vmt_heatmap_references(a), 0);
	vmt_heatmap_rows(a, &nr);
	assert_int_equal(nr, 0);
	vmt_analysis_destroy(a);
	vmt_trace_close(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_heatmap_clusters, setup, teardown),
		cmocka_unit_test_setup_teardown(test_heatmap_mappings, setup, teardown),
		cmocka_unit_test_setup_teardown(test_heatmap_one_cell, setup, teardown),
		cmocka_unit_test_setup_teardown(test_heatmap_bad_input, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
