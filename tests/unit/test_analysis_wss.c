// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for the working-set size (user/lib/analysis/analysis_wss.c) on traces
 * whose working sets are known by construction, its percentiles against a
 * sort of the sizes done here.
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

#define MS 1000000ull

static struct vmt_analysis *run_wss(struct vmt_trace *t, uint64_t window_ns)
{
	struct vmt_ref_options ro = { 0 };
	struct vmt_analysis *a;

	assert_int_equal(vmt_wss_create(&a, window_ns), 0);
	assert_int_equal(vmt_analyze(t, &ro, &a, 1, NULL), 0);
	return a;
}

/* Window w touches k(w) distinct pages, each several times: its WSS is k(w). */
static void test_wss_pages_per_window(void **state)
{
	static const unsigned int k[] = { 3, 1, 7, 7, 2, 5, 0, 4, 6 };	/* 0: an empty window */
	struct vmt_record recs[512];
	const struct vmt_wss_window *w;
	struct vmt_trace *t;
	struct vmt_analysis *a;
	size_t n = 0, nr, expect = 0;

	(void)state;
	for (unsigned int win = 0; win < 9; win++)
		for (unsigned int i = 0; i < 3 * k[win]; i++)
			/* Pages shift each window: the same page in two windows counts in each. */
			recs[n++] = reference_record(5 * MS + win * 10 * MS + i * 100000, 7,
					   0x10000 + ((i + win) % k[win]) * 4096 + i);
	t = write_trace_and_open(path, recs, n, 64 * 64, NULL);
	a = run_wss(t, 10 * MS);
	w = vmt_wss_windows(a, &nr);
	for (unsigned int win = 0; win < 9; win++) {
		if (!k[win])
			continue;
		assert_true(expect < nr);
		assert_int_equal(w[expect].start_ns, 5 * MS + win * 10 * MS);
		assert_int_equal(w[expect].units, k[win]);
		assert_int_equal(w[expect].bytes, k[win] * 4096ull);
		assert_int_equal(w[expect].references, 3 * k[win]);
		expect++;
	}
	assert_int_equal(nr, expect);
	vmt_analysis_destroy(a);
	vmt_trace_close(t);
}

static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return a < b ? -1 : a > b;
}

/*
 * Random sizes per window (some 0), percentiles checked against the
 * nearest rank of a plain sort of every window's size, the mean against
 * their sum.
 */
static void test_wss_percentiles(void **state)
{
	static const unsigned int pcts[] = { 0, 25, 50, 75, 90, 99, 100, 33 };
	enum { WINDOWS = 97 };
	struct vmt_record *recs = malloc(WINDOWS * 40 * sizeof(*recs));
	uint64_t sizes[WINDOWS], sum = 0;
	struct vmt_wss_summary s;
	struct vmt_analysis *a;
	struct vmt_trace *t;
	size_t n = 0;

	(void)state;
	assert_non_null(recs);
	srand(18);
	for (unsigned int win = 0; win < WINDOWS; win++) {
		/* The first and last windows hold a reference: the span is WINDOWS windows. */
		sizes[win] = (unsigned int)rand() % 20 + (win == 0 || win == WINDOWS - 1);
		if (win % 7 == 3 && win != WINDOWS - 1)
			sizes[win] = 0;
		for (uint64_t p = 0; p < sizes[win]; p++) {
			recs[n++] = reference_record(win * MS + p * 1000, 1, 0x7f0000000000 + p * 4096);
			recs[n++] = reference_record(win * MS + p * 1000 + 500, 1, 0x7f0000000000 + p * 4096);
		}
		sum += sizes[win];
	}
	t = write_trace_and_open(path, recs, n, 64 * 64, NULL);
	a = run_wss(t, MS);
	assert_int_equal(vmt_wss_summarize(a, pcts, 8, &s), 0);
	qsort(sizes, WINDOWS, sizeof(sizes[0]), cmp_u64);
	assert_int_equal(s.windows, WINDOWS);
	assert_true(s.empty_windows > 0);
	for (unsigned int i = 0; i < 8; i++) {
		/* Nearest rank: the ceil(p * N / 100)-th smallest, the first for p = 0. */
		size_t rank = (pcts[i] * WINDOWS + 99) / 100;
		uint64_t want = sizes[rank ? rank - 1 : 0];

		assert_int_equal(s.units[i], want);
		assert_int_equal(s.bytes[i], want * 4096);
	}
	assert_true(s.mean_units > (double)sum / WINDOWS - 1e-9 &&
		    s.mean_units < (double)sum / WINDOWS + 1e-9);
	vmt_analysis_destroy(a);
	vmt_trace_close(t);
	free(recs);
}

/* Two processes, the same address: two units. A huge page counts 2 MiB. */
static void test_wss_units(void **state)
{
	struct vmt_record recs[3];
	struct vmt_analysis *a;
	const struct vmt_wss_window *w;
	struct vmt_trace *t;
	size_t nr;

	(void)state;
	recs[0] = reference_record(100, 1, 0x5000);
	recs[1] = reference_record(200, 2, 0x5000);
	recs[2] = reference_record(300, 2, 0x40000000);
	recs[2].ref.flags = VMT_REF_HUGE;
	t = write_trace_and_open(path, recs, 3, 64 * 64, NULL);
	a = run_wss(t, 1000);
	w = vmt_wss_windows(a, &nr);
	assert_int_equal(nr, 1);
	assert_int_equal(w[0].units, 3);
	assert_int_equal(w[0].bytes, 2 * 4096 + (2u << 20));
	vmt_analysis_destroy(a);
	vmt_trace_close(t);
}

static void test_wss_bad_input(void **state)
{
	static const unsigned int too_big[] = { 101 };
	struct vmt_record recs[2] = { reference_record(1, 1, 0x1000), reference_record(2, 1, 0x2000) };
	struct vmt_wss_summary s;
	struct vmt_analysis *a;
	struct vmt_trace *t;

	(void)state;
	assert_int_equal(vmt_wss_create(&a, 0), -EINVAL);
	/* A trace whose records are no references: no window. */
	recs[0].hdr.type = recs[1].hdr.type = VMT_REC_EVICT;
	t = write_trace_and_open(path, recs, 2, 64 * 64, NULL);
	a = run_wss(t, 1000);
	assert_int_equal(vmt_wss_summarize(a, too_big, 0, &s), -ENODATA);
	assert_int_equal(vmt_wss_summarize(a, too_big, 1, &s), -EINVAL);
	vmt_analysis_destroy(a);
	vmt_trace_close(t);
}

/* An analysis that fails at its second reference. */
static int failing_reference(struct vmt_analysis *a, const struct vmt_ref *ref)
{
	(void)a;
	return ref->index ? -EOVERFLOW : 0;
}

static void failing_destroy(struct vmt_analysis *a)
{
	(void)a;
}

/* vmt_analyze() says whether an error is an analysis's or the reader's. */
static void test_analyze_says_whose_error(void **state)
{
	static const struct vmt_analysis_ops ops = {
		.name = "failing", .reference = failing_reference, .destroy = failing_destroy,
	};
	struct vmt_analysis failing = { .ops = &ops }, *list[1] = { &failing };
	struct vmt_record recs[2] = { reference_record(1, 1, 0x1000),
				      reference_record(2, 1, 0x2000) };
	struct vmt_ref_options bad = { .addr_lo = 2, .addr_hi = 1 }, good = { 0 };
	struct vmt_analyze_stats stats;
	struct vmt_trace *t;

	(void)state;
	t = write_trace_and_open(path, recs, 1, 64 * 64, NULL);
	assert_int_equal(vmt_analyze(t, &good, list, 1, &stats), 0);
	assert_false(stats.analysis_error);
	assert_int_equal(vmt_analyze(t, &bad, list, 1, &stats), -EINVAL);
	assert_true(stats.analysis_error);
	vmt_trace_close(t);
	t = write_trace_and_open(path, recs, 2, 64 * 64, NULL);
	assert_int_equal(vmt_analyze(t, &good, list, 1, &stats), -EOVERFLOW);
	assert_true(stats.analysis_error);
	vmt_trace_close(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_wss_pages_per_window, setup, teardown),
		cmocka_unit_test_setup_teardown(test_wss_percentiles, setup, teardown),
		cmocka_unit_test_setup_teardown(test_wss_units, setup, teardown),
		cmocka_unit_test_setup_teardown(test_wss_bad_input, setup, teardown),
		cmocka_unit_test_setup_teardown(test_analyze_says_whose_error, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
