// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for HMTT's analyses (user/lib/analysis/analysis_dma.c, _v2p.c,
 * _interleave.c, _scr.c) on traces written with the trace writer: DMA
 * traffic and request sizes, virtual to physical mappings and contiguity,
 * interleaving runs, and the stream coverage rate, each against counts
 * worked out by hand or a brute-force model written plainly here.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "vmtrace/analysis.h"

#include "temp_file.h"
#include "trace_file.h"

#define PAGE	4096

static struct vmt_record dma_rec(uint64_t time, uint8_t op, uint8_t dir, uint32_t size)
{
	struct vmt_record r;

	memset(&r, 0, sizeof(r));
	r.hdr.time_ns = time;
	r.hdr.pid = r.hdr.tid = 99;
	r.hdr.type = VMT_REC_DMA;
	r.dma.op = op;
	r.dma.dir = dir;
	r.dma.size = size;
	return r;
}

/* Write @recs, run @a over them in @space, and close the trace. */
static void analyze(const struct vmt_record *recs, size_t n, enum vmt_ref_space space,
		    struct vmt_analysis **a, unsigned int nr)
{
	struct vmt_ref_options o = { .space = space, .unit = VMT_REF_PAGE };
	struct vmt_trace *t = write_trace_and_open(path, recs, n, 64 * 7, NULL);

	assert_int_equal(vmt_analyze(t, &o, a, nr, NULL), 0);
	vmt_trace_close(t);
}

/* @x is @want, give or take rounding. */
static void assert_near(double x, double want)
{
	assert_true(x > want - 1e-9 && x < want + 1e-9);
}

/* Bucket @b is [@lo, @hi] and holds @count. */
static void assert_bucket(const struct vmt_hist_bucket *b, uint64_t lo, uint64_t hi,
			  uint64_t count)
{
	assert_int_equal(b->lo, lo);
	assert_int_equal(b->hi, hi);
	assert_int_equal(b->count, count);
}

/* ---- DMA ---- */

/*
 * Intervals of 1000 ns from the first record (t = 100):
 *   [100, 1100):  refs at 100, 200 (one a huge page); map to device 4096,
 *                 alloc 65536, unmap (no traffic)
 *   [1100, 2100): map_sg from device 8192, map bidirectional 512, ref
 *   [2100, 3100): nothing
 *   [3100, 4100): ref at 3500
 */
static void test_dma_intervals(void **state)
{
	struct vmt_record recs[16];
	struct vmt_analysis *a;
	const struct vmt_dma_interval *iv;
	const struct vmt_dma_size_bucket *sizes;
	struct vmt_dma_interval total;
	double rd, wr, all;
	size_t n = 0;

	(void)state;
	recs[n++] = ref_rec(100, 1, 0x10000, 0);
	recs[n] = ref_rec(200, 1, 0x200000, 0);
	recs[n++].ref.flags = VMT_REF_HUGE;
	recs[n++] = dma_rec(300, VMT_DMA_MAP_PAGE, 1, 4096);
	recs[n++] = dma_rec(400, VMT_DMA_ALLOC, 0, 65536);
	recs[n++] = dma_rec(500, VMT_DMA_UNMAP_PAGE, 1, 4096);
	recs[n++] = dma_rec(1200, VMT_DMA_MAP_SG, 2, 8192);
	recs[n++] = dma_rec(1300, VMT_DMA_MAP_PAGE, 0, 512);
	recs[n++] = ref_rec(1400, 2, 0x30000, 0);
	recs[n++] = ref_rec(3500, 2, 0x30000, 0);

	assert_int_equal(vmt_dma_traffic_create(&a, 1000), 0);
	analyze(recs, n, VMT_REF_VIRTUAL, &a, 1);
	assert_int_equal(vmt_dma_traffic_records(a), 5);
	assert_int_equal(vmt_dma_traffic_intervals(a, &iv), 4);

	assert_int_equal(iv[0].start_ns, 100);
	assert_int_equal(iv[0].references, 2);
	assert_int_equal(iv[0].cpu_bytes, PAGE + (2 << 20));
	assert_int_equal(iv[0].read_bytes, 4096);
	assert_int_equal(iv[0].write_bytes, 0);
	assert_int_equal(iv[0].coherent_bytes, 65536);
	assert_int_equal(iv[0].maps, 2);

	assert_int_equal(iv[1].start_ns, 1100);
	assert_int_equal(iv[1].references, 1);
	assert_int_equal(iv[1].read_bytes, 512);
	assert_int_equal(iv[1].write_bytes, 8192 + 512);
	assert_int_equal(iv[1].bidirectional_bytes, 512);

	assert_int_equal(iv[2].references + iv[2].maps, 0);
	assert_int_equal(iv[3].start_ns, 3100);
	assert_int_equal(iv[3].references, 1);

	/* Shares: reads and writes of all bytes, CPU's included. */
	vmt_dma_interval_shares(&iv[1], &rd, &wr);
	all = PAGE + 512 + 8192 + 512;
	assert_near(rd, 100.0 * 512 / all);
	assert_near(wr, 100.0 * 8704 / all);
	vmt_dma_interval_shares(&iv[2], &rd, &wr);
	assert_true(rd == 0.0 && wr == 0.0);

	vmt_dma_traffic_total(a, &total);
	assert_int_equal(total.references, 4);
	assert_int_equal(total.read_bytes, 4096 + 512);
	assert_int_equal(total.write_bytes, 8704);
	all = 3.0 * PAGE + (2 << 20) + 4608 + 8704;
	assert_near(vmt_dma_traffic_share(a), 100.0 * (4608 + 8704) / all);

	/* Sizes: 4096 in [4096, 8191], 8192 in [8192, 16383], 512, 65536. */
	sizes = vmt_dma_traffic_sizes(a);
	for (unsigned int i = 0; i < VMT_DMA_SIZE_BUCKETS; i++) {
		uint64_t want_page = 0, want_sg = 0, want_alloc = 0;

		if (i)
			assert_true(sizes[i].lo == UINT64_C(1) << (i - 1) &&
				    sizes[i].hi == (UINT64_C(1) << i) - 1);
		want_page = (sizes[i].lo == 4096) + (sizes[i].lo == 512);
		want_sg = sizes[i].lo == 8192;
		want_alloc = sizes[i].lo == 65536;
		assert_int_equal(sizes[i].map_page, want_page);
		assert_int_equal(sizes[i].map_sg, want_sg);
		assert_int_equal(sizes[i].alloc, want_alloc);
	}
	vmt_analysis_destroy(a);
}

/* No window: one interval; no DMA record: nothing counted, a share of 0. */
static void test_dma_none(void **state)
{
	struct vmt_record recs[3];
	struct vmt_analysis *a;
	const struct vmt_dma_interval *iv;

	(void)state;
	recs[0] = ref_rec(10, 1, 0x1000, 0);
	recs[1] = ref_rec(1000000000, 1, 0x2000, 0);
	recs[2] = ref_rec(5000000000, 1, 0x3000, 0);
	assert_int_equal(vmt_dma_traffic_create(&a, 0), 0);
	analyze(recs, 3, VMT_REF_VIRTUAL, &a, 1);
	assert_int_equal(vmt_dma_traffic_records(a), 0);
	assert_int_equal(vmt_dma_traffic_intervals(a, &iv), 1);
	assert_int_equal(iv[0].references, 3);
	assert_true(vmt_dma_traffic_share(a) == 0.0);
	vmt_analysis_destroy(a);
}

/* ---- Virtual to physical ---- */

/*
 * pid 1: pages 0x100..0x103 at frames 0x5000..0x5003 (contiguous), pages
 * 0x104..0x107 at 0x9000, 0x8fff, 0x8ffe, 0x8ffd (descending: not);
 * then page 0x100 moves to 0x7777 and back to 0x5000 (3 mappings; frame
 * 0x5000 held page 0x100 all along: 1), page 0x103 is unmapped and seen
 * again at 0x5003 (2 mappings, and 2 for its frame); pid 2's page 0x100 at
 * 0x5001 (frame 0x5001: pid 1's 0x101, then pid 2's 0x100: 2).
 *
 *   pages:  9, mappings 3 + 2 + 6 + 1 = 12, 2 remapped
 *   frames: 9, mappings 7 + 2 + 2 = 11, 2 remapped
 *   pairs:  pid 1's (0x100, 0x101) ... (0x106, 0x107): 7; contiguous: 3
 */
static void test_v2p(void **state)
{
	static const uint64_t down[4] = { 0x9000, 0x8fff, 0x8ffe, 0x8ffd };
	struct vmt_record recs[32];
	const struct vmt_v2p_result *r;
	const struct vmt_hist_bucket *b;
	struct vmt_analysis *a;
	uint64_t time = 1000;
	size_t n = 0;

	(void)state;
	for (unsigned int i = 0; i < 4; i++)
		recs[n++] = ref_rec(time++, 1, (0x100 + i) * PAGE + 8, 0x5000 + i);
	for (unsigned int i = 0; i < 4; i++)
		recs[n++] = pagemap_rec(time++, 1, (0x104 + i) * PAGE, down[i], VMT_PAGEMAP_MAP);
	recs[n++] = ref_rec(time++, 1, 0x100 * PAGE, 0x7777);
	recs[n++] = ref_rec(time++, 1, 0x100 * PAGE, 0x5000);
	recs[n++] = ref_rec(time++, 1, 0x100 * PAGE, 0x5000);
	recs[n++] = pagemap_rec(time++, 1, 0x103 * PAGE, 0x5003, VMT_PAGEMAP_UNMAP);
	recs[n++] = ref_rec(time++, 1, 0x103 * PAGE, 0x5003);
	recs[n++] = ref_rec(time++, 2, 0x100 * PAGE, 0x5001);
	recs[n++] = ref_rec(time++, 2, 0x200 * PAGE, 0);	/* no frame: not seen */

	assert_int_equal(vmt_v2p_create(&a), 0);
	analyze(recs, n, VMT_REF_VIRTUAL, &a, 1);
	r = vmt_v2p_result(a);
	assert_int_equal(r->unmaps, 1);
	assert_int_equal(r->pages, 9);
	assert_int_equal(r->page_mappings, 12);
	assert_int_equal(r->remapped_pages, 2);
	assert_int_equal(r->frames, 9);
	assert_int_equal(r->frame_mappings, 11);
	assert_int_equal(r->remapped_frames, 2);
	assert_int_equal(r->adjacent_pairs, 7);
	assert_int_equal(r->contiguous_pairs, 3);
	assert_near(vmt_v2p_contiguity(a), 300.0 / 7);

	/* Pages: 7 once, 1 twice, 1 three times. */
	assert_int_equal(vmt_v2p_page_histogram(a, &b), 3);
	assert_bucket(&b[0], 1, 1, 7);
	assert_bucket(&b[1], 2, 2, 1);
	assert_bucket(&b[2], 3, 3, 1);
	/* Frames: 7 once, 2 twice. */
	assert_int_equal(vmt_v2p_frame_histogram(a, &b), 2);
	assert_bucket(&b[0], 1, 1, 7);
	assert_bucket(&b[1], 2, 2, 2);
	vmt_analysis_destroy(a);
}

/* ---- Interleaving ---- */

/*
 * pids 1 1 1 | 2 2 | 1 | 3 3 3 3 | 1 | 2 x 40: runs 3, 2, 1, 4, 1, 40.
 * Sorted 1 1 2 3 4 40: median (the lower middle) 2; mean 51 / 6.
 */
static void test_interleave(void **state)
{
	static const uint32_t pids[] = { 1, 1, 1, 2, 2, 1, 3, 3, 3, 3, 1 };
	const struct vmt_interleave_result *r;
	const struct vmt_hist_bucket *b;
	struct vmt_record recs[64];
	struct vmt_analysis *a;
	size_t n = 0;

	(void)state;
	for (unsigned int i = 0; i < sizeof(pids) / sizeof(pids[0]); i++, n++)
		recs[n] = ref_rec(100 + n, pids[i], 0x1000 * (i + 1), 0);
	for (unsigned int i = 0; i < 40; i++, n++)
		recs[n] = ref_rec(100 + n, 2, 0x1000, 0);

	assert_int_equal(vmt_interleave_create(&a), 0);
	analyze(recs, n, VMT_REF_VIRTUAL, &a, 1);
	r = vmt_interleave_result(a);
	assert_int_equal(r->references, 51);
	assert_int_equal(r->runs, 6);
	assert_int_equal(r->switches, 5);
	assert_int_equal(r->processes, 3);
	assert_int_equal(r->longest, 40);
	assert_int_equal(r->median, 2);
	assert_near(r->mean, 8.5);
	assert_true(vmt_interleave_mean_run(a) == r->mean);
	assert_int_equal(vmt_interleave_histogram(a, &b), 5);
	assert_bucket(&b[0], 1, 1, 2);
	assert_bucket(&b[1], 2, 2, 1);
	assert_bucket(&b[2], 3, 3, 1);
	assert_bucket(&b[3], 4, 4, 1);
	assert_bucket(&b[4], 32, 63, 1);
	vmt_analysis_destroy(a);
}

/* ---- Stream coverage rate ---- */

static void scr_run(const struct vmt_record *recs, size_t n, unsigned int window,
		    const struct vmt_scr_result **virt, const struct vmt_scr_result **phys,
		    struct vmt_analysis *a[2])
{
	assert_int_equal(vmt_scr_create(&a[0], VMT_REF_VIRTUAL, VMT_REF_PAGE, window), 0);
	assert_int_equal(vmt_scr_create(&a[1], VMT_REF_PHYSICAL, VMT_REF_PAGE, window), 0);
	analyze(recs, n, VMT_REF_VIRTUAL, a, 2);
	*virt = vmt_scr_result(a[0]);
	*phys = vmt_scr_result(a[1]);
}

/* Page p of pid 1 at frame p: the same strides in both spaces. */
static void scr_pages(struct vmt_record *recs, const uint64_t *pages, size_t n)
{
	for (size_t i = 0; i < n; i++)
		recs[i] = ref_rec(1000 + i, 1, pages[i] * PAGE, pages[i]);
}

/* A pure stride: every reference in a stream (the first two included). */
static void test_scr_stride(void **state)
{
	const struct vmt_scr_result *v, *p;
	struct vmt_analysis *a[2];
	struct vmt_record recs[100];
	uint64_t pages[100];

	(void)state;
	for (unsigned int i = 0; i < 100; i++)
		pages[i] = 50 + 3 * i;
	scr_pages(recs, pages, 100);
	scr_run(recs, 100, 16, &v, &p, a);
	assert_int_equal(v->references, 100);
	assert_int_equal(v->covered, 100);
	assert_int_equal(p->covered, 100);
	assert_true(vmt_scr_rate(a[0]) == 100.0);
	vmt_analysis_destroy(a[0]);
	vmt_analysis_destroy(a[1]);
}

/*
 * Pages 1 2 3 100 7 300 500 700:
 *   (1, 2, 3) stride 1; (100, 300, 500) stride 200 spans i - j = 3;
 *   (300, 500, 700) stride 200. W = 4: all but 7 (7 of 8); W = 3: the
 *   middle triple is outside the window, 100 uncovered too (6 of 8).
 */
static void test_scr_mix(void **state)
{
	static const uint64_t pages[] = { 1, 2, 3, 100, 7, 300, 500, 700 };
	const struct vmt_scr_result *v, *p;
	struct vmt_analysis *a[2];
	struct vmt_record recs[8];

	(void)state;
	scr_pages(recs, pages, 8);
	scr_run(recs, 8, 4, &v, &p, a);
	assert_int_equal(v->references, 8);
	assert_int_equal(v->covered, 7);
	assert_int_equal(p->covered, 7);
	assert_true(vmt_scr_rate(a[0]) == 87.5);
	vmt_analysis_destroy(a[0]);
	vmt_analysis_destroy(a[1]);
	scr_run(recs, 8, 3, &v, &p, a);
	assert_int_equal(v->covered, 6);
	assert_int_equal(p->covered, 6);
	vmt_analysis_destroy(a[0]);
	vmt_analysis_destroy(a[1]);
}

/*
 * pid 1's 10 11 12 with pid 2's 1000 between them, W = 3: virtually each
 * process has its window (pid 1's stream is whole: 3 of 5); physically one
 * window over both, where no three form a stride (0 of 5).
 */
static void test_scr_spaces(void **state)
{
	const struct vmt_scr_result *v, *p;
	struct vmt_analysis *a[2];
	struct vmt_record recs[5];

	(void)state;
	recs[0] = ref_rec(1, 1, 10 * PAGE, 10);
	recs[1] = ref_rec(2, 2, 1000 * PAGE, 1000);
	recs[2] = ref_rec(3, 1, 11 * PAGE, 11);
	recs[3] = ref_rec(4, 2, 1000 * PAGE, 1000);
	recs[4] = ref_rec(5, 1, 12 * PAGE, 12);
	scr_run(recs, 5, 3, &v, &p, a);
	assert_int_equal(v->references, 5);
	assert_int_equal(v->covered, 3);
	assert_int_equal(p->references, 5);
	assert_int_equal(p->covered, 0);
	vmt_analysis_destroy(a[0]);
	vmt_analysis_destroy(a[1]);
}

static uint64_t lcg(uint64_t *s)
{
	*s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
	return *s >> 33;
}

/* The definition, word for word: every triple j < k < i with i - j < W. */
static uint64_t scr_brute_force(const uint64_t *x, size_t n, unsigned int w)
{
	bool *in = calloc(n, sizeof(*in));
	uint64_t covered = 0;

	assert_non_null(in);
	for (size_t i = 0; i < n; i++)
		for (size_t j = i >= w - 1 ? i - (w - 1) : 0; j < i; j++)
			for (size_t k = j + 1; k < i; k++)
				if (x[i] - x[k] == x[k] - x[j] && x[i] != x[k])
					in[i] = in[j] = in[k] = true;
	for (size_t i = 0; i < n; i++)
		covered += in[i];
	free(in);
	return covered;
}

/*
 * Random pages: over a wide range hardly any reference is in a stream;
 * over a few pages many are (some, not all), exactly as the brute force
 * counts, for several windows.
 */
static void test_scr_random(void **state)
{
	static const struct { unsigned int window, pages; } cases[] = {
		{ 3, 12 }, { 4, 12 }, { 5, 12 }, { 16, 96 }, { 64, 1024 },
	};
	const struct vmt_scr_result *v, *p;
	struct vmt_analysis *a[2];
	struct vmt_record *recs = calloc(3000, sizeof(*recs));
	uint64_t *pages = calloc(3000, sizeof(*pages)), seed = 42;

	(void)state;
	assert_non_null(recs);
	assert_non_null(pages);
	for (size_t i = 0; i < 3000; i++)
		pages[i] = 1 + lcg(&seed) % (1u << 24);
	scr_pages(recs, pages, 3000);
	scr_run(recs, 3000, 16, &v, &p, a);
	assert_true(vmt_scr_rate(a[0]) < 1.0);
	assert_int_equal(v->covered, scr_brute_force(pages, 3000, 16));
	vmt_analysis_destroy(a[0]);
	vmt_analysis_destroy(a[1]);

	for (unsigned int c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		uint64_t want;

		for (size_t i = 0; i < 3000; i++)
			pages[i] = 1 + lcg(&seed) % cases[c].pages;
		scr_pages(recs, pages, 3000);
		want = scr_brute_force(pages, 3000, cases[c].window);
		assert_true(want > 100 && want < 3000);
		scr_run(recs, 3000, cases[c].window, &v, &p, a);
		assert_int_equal(v->covered, want);
		assert_int_equal(p->covered, want);
		vmt_analysis_destroy(a[0]);
		vmt_analysis_destroy(a[1]);
	}
	free(recs);
	free(pages);
}

/* ---- Bad input ---- */

static void test_bad_input(void **state)
{
	struct vmt_analysis *a = NULL;

	(void)state;
	assert_int_equal(vmt_scr_create(&a, VMT_REF_VIRTUAL, VMT_REF_PAGE, 0), -EINVAL);
	assert_int_equal(vmt_scr_create(&a, VMT_REF_VIRTUAL, VMT_REF_PAGE, 2), -EINVAL);
	assert_int_equal(vmt_scr_create(&a, VMT_REF_VIRTUAL, VMT_REF_PAGE,
					VMT_SCR_MAX_WINDOW + 1), -EINVAL);
	assert_int_equal(vmt_scr_create(&a, (enum vmt_ref_space)7, VMT_REF_PAGE, 16), -EINVAL);
	assert_null(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_dma_intervals, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dma_none, setup, teardown),
		cmocka_unit_test_setup_teardown(test_v2p, setup, teardown),
		cmocka_unit_test_setup_teardown(test_interleave, setup, teardown),
		cmocka_unit_test_setup_teardown(test_scr_stride, setup, teardown),
		cmocka_unit_test_setup_teardown(test_scr_mix, setup, teardown),
		cmocka_unit_test_setup_teardown(test_scr_spaces, setup, teardown),
		cmocka_unit_test_setup_teardown(test_scr_random, setup, teardown),
		cmocka_unit_test(test_bad_input),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
