// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for the stream analyses behind `vmtrace hmtt`'s scr and
 * prefetch sections: SCR's windows a process on physical addresses and
 * several windows in one pass (user/lib/analysis/analysis_scr.c), the
 * strides of the references completing a stream, and the sequential
 * prefetcher's counts (analysis_prefetch.c); each on sequences worked out
 * by hand and against a plain recomputation of its definition on random
 * sequences.
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

/* Write @recs, run the @nr analyses @a over them, and close the trace. */
static void analyze(const struct vmt_record *recs, size_t n, struct vmt_analysis **a,
		    unsigned int nr)
{
	struct vmt_ref_options o = { .space = VMT_REF_VIRTUAL, .unit = VMT_REF_PAGE };
	struct vmt_trace *t = write_trace_and_open(path, recs, n, 64 * 7, NULL);

	assert_int_equal(vmt_analyze(t, &o, a, nr, NULL), 0);
	vmt_trace_close(t);
}

static uint64_t lcg(uint64_t *s)
{
	*s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
	return *s >> 33;
}

/* ---- SCR: three views, several windows ---- */

enum { VIRT, PHYS_PROC, PHYS, VIEWS };

static int scr_make(struct vmt_analysis **a, unsigned int view, enum vmt_ref_unit unit,
		    unsigned int window)
{
	struct vmt_ref_options o = { .space = view == VIRT ? VMT_REF_VIRTUAL : VMT_REF_PHYSICAL,
				     .unit = unit };

	return vmt_scr_create_rings(a, &o, window, view == PHYS ? VMT_SCR_RINGS_MERGED :
				    VMT_SCR_RINGS_PROCESS);
}

/*
 * pid 1's pages 10 11 12 at frames 100 205 300 (virtually a stream,
 * physically not: strides 105 and 95), pid 2's 50 51 52 at 500 501 502,
 * the two interleaved: 100 500 205 501 300 502 on the bus.
 *   W = 3: virtual 6 of 6; physical-process 3 (pid 2's); physical 0 (no
 *          three in a window of 3 step evenly)
 *   W = 5: physical 3: 500 501 502 at places 1, 3, 5 (5 - 1 < 5)
 * One pass, both windows, all three views (and the space's own windows:
 * physical's are the merged ones, virtual's a process's).
 */
static void test_scr_views(void **state)
{
	static const unsigned int windows[] = { 3, 5 };
	static const uint64_t want[2][VIEWS] = { { 6, 3, 0 }, { 6, 3, 3 } };
	struct vmt_record recs[6];
	struct vmt_analysis *a[2 * VIEWS + 2];
	struct vmt_ref_options phys = { .space = VMT_REF_PHYSICAL, .unit = VMT_REF_PAGE };
	struct vmt_ref_options virt = { .space = VMT_REF_VIRTUAL, .unit = VMT_REF_PAGE };

	(void)state;
	recs[0] = ref_rec(1, 1, 10 * PAGE, 100);
	recs[1] = ref_rec(2, 2, 50 * PAGE, 500);
	recs[2] = ref_rec(3, 1, 11 * PAGE, 205);
	recs[3] = ref_rec(4, 2, 51 * PAGE, 501);
	recs[4] = ref_rec(5, 1, 12 * PAGE, 300);
	recs[5] = ref_rec(6, 2, 52 * PAGE, 502);
	for (unsigned int w = 0; w < 2; w++)
		for (unsigned int v = 0; v < VIEWS; v++)
			assert_int_equal(scr_make(&a[w * VIEWS + v], v, VMT_REF_PAGE, windows[w]),
					 0);
	assert_int_equal(vmt_scr_create_from(&a[2 * VIEWS], &phys, 3), 0);
	assert_int_equal(vmt_scr_create_from(&a[2 * VIEWS + 1], &virt, 3), 0);
	analyze(recs, 6, a, 2 * VIEWS + 2);
	for (unsigned int w = 0; w < 2; w++) {
		for (unsigned int v = 0; v < VIEWS; v++) {
			const struct vmt_scr_result *r = vmt_scr_result(a[w * VIEWS + v]);

			assert_int_equal(r->references, 6);
			if (r->covered != want[w][v])
				fail_msg("W %u view %u: %llu covered, not %llu", windows[w], v,
					 (unsigned long long)r->covered,
					 (unsigned long long)want[w][v]);
		}
	}
	assert_true(vmt_scr_rate(a[VIRT]) == 100.0);
	assert_true(vmt_scr_rate(a[PHYS_PROC]) == 50.0);
	assert_int_equal(vmt_scr_result(a[2 * VIEWS])->covered, 0);
	assert_int_equal(vmt_scr_result(a[2 * VIEWS + 1])->covered, 6);
	/*
	 * The references completing a stream, each with its stride: virtual,
	 * pid 1's 12 and pid 2's 52 (+1 each); physical-process at 3, 502
	 * (+1); physical at 5, 502 (after 501 and 500: +1).
	 */
	assert_int_equal(vmt_scr_result(a[VIRT])->completing, 2);
	assert_int_equal(vmt_scr_strides(a[VIRT])[0].forward, 2);
	assert_int_equal(vmt_scr_result(a[PHYS_PROC])->completing, 1);
	assert_int_equal(vmt_scr_result(a[VIEWS + PHYS])->completing, 1);
	assert_int_equal(vmt_scr_strides(a[VIEWS + PHYS])[0].forward, 1);
	for (unsigned int i = 0; i < 2 * VIEWS + 2; i++)
		vmt_analysis_destroy(a[i]);
}

/*
 * Strides by hand, W = 5, pid 1, page p at frame p:
 *   0 4 6 8 12: 8 completes (6 at k = 2, 4 at j = 1: +2; and 4, 0: +4),
 *   the nearest k's: +2; 12 completes (8, 4: +4; 6, 0: +6): +4.
 *   12 8 6 4 0: 4 (6, 8): -2; 0 (4, 8): -4.
 *   1 2 3 100 7 300 500 700: 3 (+1), 500 (300, 100: +200), 700 (+200).
 */
static void test_strides_by_hand(void **state)
{
	static const struct {
		uint64_t pages[8];
		size_t n;
		uint64_t completing;
		struct { unsigned int bucket; uint64_t forward, backward; } b[2];
	} cases[] = {
		{ { 0, 4, 6, 8, 12 }, 5, 2, { { 1, 1, 0 }, { 3, 1, 0 } } },
		{ { 12, 8, 6, 4, 0 }, 5, 2, { { 1, 0, 1 }, { 3, 0, 1 } } },
		/* 200 is in [128, 255]: bucket 15 + 7 - 4 = 18 */
		{ { 1, 2, 3, 100, 7, 300, 500, 700 }, 8, 3, { { 0, 1, 0 }, { 18, 2, 0 } } },
	};
	struct vmt_record recs[8];

	(void)state;
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		struct vmt_analysis *a[VIEWS];
		uint64_t seen = 0;

		for (size_t i = 0; i < cases[c].n; i++)
			recs[i] = ref_rec(10 + i, 1, (cases[c].pages[i] + 1000) * PAGE,
					  cases[c].pages[i] + 1000);
		for (unsigned int v = 0; v < VIEWS; v++)
			assert_int_equal(scr_make(&a[v], v, VMT_REF_PAGE, 5), 0);
		analyze(recs, cases[c].n, a, VIEWS);
		for (unsigned int v = 0; v < VIEWS; v++) {
			const struct vmt_scr_stride_bucket *b = vmt_scr_strides(a[v]);

			assert_int_equal(vmt_scr_result(a[v])->completing, cases[c].completing);
			for (unsigned int k = 0; k < 2; k++) {
				assert_int_equal(b[cases[c].b[k].bucket].forward,
						 cases[c].b[k].forward);
				assert_int_equal(b[cases[c].b[k].bucket].backward,
						 cases[c].b[k].backward);
			}
			seen = 0;
			for (unsigned int i = 0; i < VMT_SCR_STRIDE_BUCKETS; i++)
				seen += b[i].forward + b[i].backward;
			assert_int_equal(seen, cases[c].completing);
			vmt_analysis_destroy(a[v]);
		}
	}
}

/* The buckets' bounds: 1..15 alone, then the powers of two, the last up to 2^64 - 1. */
static void test_stride_buckets(void **state)
{
	struct vmt_ref_options o = { .space = VMT_REF_VIRTUAL, .unit = VMT_REF_LINE };
	const struct vmt_scr_stride_bucket *b;
	struct vmt_analysis *a;

	(void)state;
	assert_int_equal(vmt_scr_create_from(&a, &o, 8), 0);
	b = vmt_scr_strides(a);
	for (unsigned int i = 0; i < 15; i++) {
		assert_int_equal(b[i].lo, i + 1);
		assert_int_equal(b[i].hi, i + 1);
	}
	assert_int_equal(b[15].lo, 16);
	assert_int_equal(b[15].hi, 31);
	assert_int_equal(b[16].lo, 32);
	assert_true(b[VMT_SCR_STRIDE_BUCKETS - 1].lo == UINT64_C(1) << 63);
	assert_true(b[VMT_SCR_STRIDE_BUCKETS - 1].hi == UINT64_MAX);
	for (unsigned int i = 1; i < VMT_SCR_STRIDE_BUCKETS; i++)
		assert_true(b[i].lo == b[i - 1].hi + 1);
	vmt_analysis_destroy(a);
}

/* The bucket of |stride| (1 or more), as the header states it, computed plainly. */
static unsigned int bucket_of(uint64_t mag)
{
	unsigned int k = 0;

	if (mag <= 15)
		return (unsigned int)mag - 1;
	while (mag >> (k + 1))
		k++;
	return 15 + (k - 4);
}

/*
 * The definition, word for word: covered references, and for each i the
 * stride a_i - a_k of the triple j < k < i (i - j < W, a_i - a_k = a_k - a_j
 * != 0) with the largest k, into @fwd and @bwd by |stride| >> @shift.
 */
static uint64_t scr_brute_force(const uint64_t *x, size_t n, unsigned int w, unsigned int shift,
				uint64_t *fwd, uint64_t *bwd)
{
	bool *in = calloc(n, sizeof(*in));
	uint64_t covered = 0;

	assert_non_null(in);
	for (size_t i = 0; i < n; i++) {
		bool strided = false;

		for (size_t k = i; k-- > 0;) {
			for (size_t j = k; j-- > 0 && i - j < w;) {
				int64_t d = (int64_t)(x[i] - x[k]);

				if (d == 0 || (int64_t)(x[k] - x[j]) != d)
					continue;
				in[i] = in[j] = in[k] = true;
				if (strided)
					continue;
				strided = true;
				if (d > 0)
					fwd[bucket_of((uint64_t)d >> shift)]++;
				else
					bwd[bucket_of((uint64_t)-d >> shift)]++;
			}
		}
	}
	for (size_t i = 0; i < n; i++)
		covered += in[i];
	free(in);
	return covered;
}

/*
 * The frame of virtual page @page: the page itself but in every other block
 * of 256 pages, where pairs of pages swap frames, so that some strides
 * differ physically.
 */
static uint64_t frame_of(uint64_t page)
{
	return page ^ (page >> 8 & 1);
}

/*
 * Random sequences of three processes, each a mix of strided runs (strides
 * of all sizes, both signs) and random jumps, in lines and in pages: each
 * view's covered references and stride histogram against the brute force
 * over the references that view puts in one window, on their virtual
 * addresses or their physical ones (frame_of()).
 */
static void test_scr_random(void **state)
{
	static const int64_t strides[] = { 1, -1, 2, 3, -7, 15, 16, -31, 100, 4096, -70000,
					   1 << 20 };
	static const struct { unsigned int window; enum vmt_ref_unit unit; } cases[] = {
		{ 3, VMT_REF_PAGE }, { 8, VMT_REF_LINE }, { 16, VMT_REF_PAGE }, { 32, VMT_REF_LINE },
	};
	const size_t n = 3000;
	struct vmt_record *recs = calloc(n, sizeof(*recs));
	uint64_t *unit = calloc(n, sizeof(*unit)), *pick = calloc(n, sizeof(*pick));
	uint64_t *phys = calloc(n, sizeof(*phys));
	uint32_t *pid = calloc(n, sizeof(*pid));
	uint64_t seed = 7;

	(void)state;
	assert_non_null(recs);
	assert_non_null(unit);
	assert_non_null(pick);
	assert_non_null(pid);
	assert_non_null(phys);
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		unsigned int shift = cases[c].unit == VMT_REF_LINE ? 6 : 12;
		uint64_t cur[3] = { UINT64_C(1) << 30, UINT64_C(2) << 30, UINT64_C(3) << 30 };
		int64_t stride[3] = { 1, 1, 1 };
		struct vmt_analysis *a[VIEWS];

		/* unit[i]: a virtual unit number; phys[i] its physical one. */
		for (size_t i = 0; i < n; i++) {
			unsigned int p = (unsigned int)(lcg(&seed) % 3);
			unsigned int r = (unsigned int)(lcg(&seed) % 8);

			if (r == 0)
				stride[p] = strides[lcg(&seed) % (sizeof(strides) / sizeof(strides[0]))];
			if (r == 1)
				cur[p] = (uint64_t)(p + 1) << 30 | (lcg(&seed) % (1 << 16));
			else
				cur[p] += (uint64_t)stride[p];
			pid[i] = p + 1;
			unit[i] = cur[p];
			if (cases[c].unit == VMT_REF_LINE) {
				phys[i] = frame_of(unit[i] >> 6) << 6 | (unit[i] & 63);
				recs[i] = ref_rec(100 + i, pid[i], unit[i] << 6, phys[i] >> 6);
			} else {
				phys[i] = frame_of(unit[i]);
				recs[i] = ref_rec(100 + i, pid[i], unit[i] << 12, phys[i]);
			}
		}
		for (unsigned int v = 0; v < VIEWS; v++)
			assert_int_equal(scr_make(&a[v], v, cases[c].unit, cases[c].window), 0);
		analyze(recs, n, a, VIEWS);
		for (unsigned int v = 0; v < VIEWS; v++) {
			uint64_t fwd[VMT_SCR_STRIDE_BUCKETS] = { 0 }, bwd[VMT_SCR_STRIDE_BUCKETS] = { 0 };
			const struct vmt_scr_stride_bucket *b = vmt_scr_strides(a[v]);
			uint64_t covered = 0, completing = 0;

			/* Per process (virtual, physical-process): each pid's references alone. */
			for (uint32_t p = 1; p <= (v == PHYS ? 1u : 3u); p++) {
				size_t m = 0;

				for (size_t i = 0; i < n; i++)
					if (v == PHYS || pid[i] == p)
						pick[m++] = (v == VIRT ? unit[i] : phys[i]) << shift;
				covered += scr_brute_force(pick, m, cases[c].window, shift, fwd, bwd);
			}
			assert_int_equal(vmt_scr_result(a[v])->covered, covered);
			print_message("W %u view %u: %llu covered\n", cases[c].window, v,
				      (unsigned long long)covered);
			assert_true(covered > n / 20 && covered < n);
			for (unsigned int i = 0; i < VMT_SCR_STRIDE_BUCKETS; i++) {
				if (b[i].forward != fwd[i] || b[i].backward != bwd[i])
					fail_msg("case %zu view %u bucket %u: %llu/%llu, not %llu/%llu",
						 c, v, i, (unsigned long long)b[i].forward,
						 (unsigned long long)b[i].backward,
						 (unsigned long long)fwd[i], (unsigned long long)bwd[i]);
				completing += fwd[i] + bwd[i];
			}
			assert_int_equal(vmt_scr_result(a[v])->completing, completing);
			vmt_analysis_destroy(a[v]);
		}
	}
	free(recs);
	free(unit);
	free(pick);
	free(pid);
	free(phys);
}

/* ---- The prefetcher ---- */

struct counts {
	uint64_t accesses, repeats, served, demand, prefetches, streams;
};

static void assert_counts(const struct vmt_prefetch_result *r, const struct counts *want,
			  const char *what)
{
	if (r->accesses != want->accesses || r->repeats != want->repeats ||
	    r->served != want->served || r->demand != want->demand ||
	    r->prefetches != want->prefetches || r->streams != want->streams)
		fail_msg("%s: accesses %llu repeats %llu served %llu demand %llu prefetches %llu streams %llu; want %llu %llu %llu %llu %llu %llu",
			 what, (unsigned long long)r->accesses, (unsigned long long)r->repeats,
			 (unsigned long long)r->served, (unsigned long long)r->demand,
			 (unsigned long long)r->prefetches, (unsigned long long)r->streams,
			 (unsigned long long)want->accesses, (unsigned long long)want->repeats,
			 (unsigned long long)want->served, (unsigned long long)want->demand,
			 (unsigned long long)want->prefetches, (unsigned long long)want->streams);
}

/* Line @line of physical memory, read by @pid (its frame, and the line's offset in it). */
static struct vmt_record line_rec(uint64_t time, uint32_t pid, uint64_t line)
{
	return ref_rec(time, pid, 0x7f0000000000 | (line & 63) << 6, line >> 6);
}

/* Run the prefetcher, merged (a[0]) and a table a process (a[1]), over @recs. */
static void prefetch_run(const struct vmt_record *recs, size_t n, enum vmt_ref_space space,
			 unsigned int trackers, unsigned int degree, struct vmt_analysis *a[2])
{
	struct vmt_ref_options o = { .space = space };

	for (unsigned int v = 0; v < 2; v++) {
		struct vmt_prefetch_config c = { .trackers = trackers, .degree = degree,
						 .per_process = v == 1 };

		assert_int_equal(vmt_prefetch_create(&a[v], &o, &c), 0);
	}
	analyze(recs, n, a, 2);
}

/*
 * A pure +1 stream of 100 lines: the first three are demand accesses (the
 * third confirms and prefetches D ahead), the 97 after are served, each
 * prefetching one more: 97 + D prefetches, rate (97 + D) / (100 + D).
 * On virtual addresses (lines of one page after another) as on physical.
 */
static void test_prefetch_stream(void **state)
{
	struct vmt_record recs[100];
	struct vmt_analysis *a[2];

	(void)state;
	for (unsigned int d = 1; d <= 8; d *= 2) {
		struct counts want = { 100, 0, 97, 3, 97 + d, 1 };

		for (unsigned int i = 0; i < 100; i++)
			recs[i] = line_rec(i, 1, 5000 + i);
		prefetch_run(recs, 100, VMT_REF_PHYSICAL, 8, d, a);
		assert_counts(vmt_prefetch_result(a[0]), &want, "stream, merged");
		assert_counts(vmt_prefetch_result(a[1]), &want, "stream, per process");
		assert_true(vmt_prefetch_rate(a[0]) == 100.0 * (97 + d) / (100 + d));
		assert_int_equal(vmt_prefetch_result(a[1])->tables, 1);
		vmt_analysis_destroy(a[0]);
		vmt_analysis_destroy(a[1]);

		for (unsigned int i = 0; i < 100; i++)
			recs[i] = ref_rec(i, 1, 0x10000 + 64 * i, 0);
		prefetch_run(recs, 100, VMT_REF_VIRTUAL, 1, d, a);
		assert_counts(vmt_prefetch_result(a[0]), &want, "virtual stream");
		vmt_analysis_destroy(a[0]);
		vmt_analysis_destroy(a[1]);
	}
	/* Physical, a trace without frames: nothing, each passed over. */
	prefetch_run(recs, 100, VMT_REF_PHYSICAL, 8, 2, a);
	assert_int_equal(vmt_prefetch_result(a[0])->accesses, 0);
	assert_int_equal(vmt_prefetch_result(a[0])->no_frame, 100);
	assert_true(vmt_prefetch_rate(a[0]) == 0.0);
	vmt_analysis_destroy(a[0]);
	vmt_analysis_destroy(a[1]);
}

/*
 * Two processes' streams, 100 lines each, alternating on the bus. Two
 * trackers follow both: each stream as alone (3 demand, 97 served, 97 + D
 * prefetched). One tracker: merged, each access takes it from the other
 * stream, and nothing is ever confirmed (200 demand, no prefetch); per
 * process, each has its own: as with two.
 */
static void test_prefetch_interleaved(void **state)
{
	struct counts both = { 200, 0, 194, 6, 2 * 99, 2 }, none = { 200, 0, 0, 200, 0, 0 };
	struct vmt_record recs[200];
	struct vmt_analysis *a[2];

	(void)state;
	for (unsigned int i = 0; i < 100; i++) {
		recs[2 * i] = line_rec(2 * i, 1, 1000 + i);
		recs[2 * i + 1] = line_rec(2 * i + 1, 2, 90000 + i);
	}
	prefetch_run(recs, 200, VMT_REF_PHYSICAL, 2, 2, a);
	assert_counts(vmt_prefetch_result(a[0]), &both, "two trackers, merged");
	assert_counts(vmt_prefetch_result(a[1]), &both, "two trackers, per process");
	assert_int_equal(vmt_prefetch_result(a[1])->tables, 2);
	vmt_analysis_destroy(a[0]);
	vmt_analysis_destroy(a[1]);
	prefetch_run(recs, 200, VMT_REF_PHYSICAL, 1, 2, a);
	assert_counts(vmt_prefetch_result(a[0]), &none, "one tracker, merged");
	assert_counts(vmt_prefetch_result(a[1]), &both, "one tracker, per process");
	assert_true(vmt_prefetch_rate(a[0]) == 0.0);
	assert_true(vmt_prefetch_rate(a[1]) == 100.0 * 198 / 204);
	vmt_analysis_destroy(a[0]);
	vmt_analysis_destroy(a[1]);
}

/*
 * Repeats and skips, D = 4, one process:
 *   10 10 11 11 12: 10 takes a tracker (demand), 10 again a repeat, 11 a
 *   demand advance, 11 a repeat, 12 the third line: demand, confirmed,
 *   prefetches 13..16 (4);
 *   15: in (12, 16]: served, prefetches 17..19 (3); 16: 15 + 1, served,
 *   prefetches 20 (1); 30: no tracker's: demand, a second tracker.
 * LRU, two trackers, three streams round-robin (lines 0.., 100.., 200..):
 *   each access finds its stream's tracker gone (the least recently used
 *   is always the next one wanted): all demand, nothing prefetched.
 */
static void test_prefetch_by_hand(void **state)
{
	static const uint64_t lines[] = { 10, 10, 11, 11, 12, 15, 16, 30 };
	struct counts want = { 8, 2, 2, 4, 8, 1 }, lru = { 30, 0, 0, 30, 0, 0 };
	struct counts three = { 30, 0, 21, 9, 3 * (7 + 2), 3 };
	struct vmt_record recs[30];
	struct vmt_analysis *a[2];

	(void)state;
	for (unsigned int i = 0; i < 8; i++)
		recs[i] = line_rec(i, 1, 1000 + lines[i]);
	prefetch_run(recs, 8, VMT_REF_PHYSICAL, 8, 4, a);
	assert_counts(vmt_prefetch_result(a[0]), &want, "repeats and skips");
	vmt_analysis_destroy(a[0]);
	vmt_analysis_destroy(a[1]);

	for (unsigned int i = 0; i < 30; i++)
		recs[i] = line_rec(i, 1, 1000 + 100 * (i % 3) + i / 3);
	prefetch_run(recs, 30, VMT_REF_PHYSICAL, 2, 2, a);
	assert_counts(vmt_prefetch_result(a[0]), &lru, "LRU, 2 trackers");
	vmt_analysis_destroy(a[0]);
	vmt_analysis_destroy(a[1]);
	/* Three trackers: each stream of 10 lines: 3 demand, 7 served, 7 + 2 prefetched. */
	prefetch_run(recs, 30, VMT_REF_PHYSICAL, 3, 2, a);
	assert_counts(vmt_prefetch_result(a[0]), &three, "LRU, 3 trackers");
	vmt_analysis_destroy(a[0]);
	vmt_analysis_destroy(a[1]);
}

/*
 * The model again, plainly: a tracker keeps the lines it has prefetched
 * and not yet passed in a list; an access matches it at its last line (a
 * repeat), the line after, or a line in the list; the most recently used
 * match wins; lines in the list are served; from the third line on, each
 * of X + 1 .. X + D not in the list is prefetched.
 */
struct otracker {
	bool used;
	uint64_t last, age;
	unsigned int run, npf;
	uint64_t pf[VMT_PREFETCH_MAX_DEGREE];
};

static bool listed(const struct otracker *t, uint64_t x)
{
	for (unsigned int i = 0; i < t->npf; i++)
		if (t->pf[i] == x)
			return true;
	return false;
}

static void oracle(const uint64_t *x, const uint32_t *pid, size_t n, uint32_t only,
		   unsigned int trackers, unsigned int d, struct counts *c)
{
	struct otracker *t = calloc(trackers, sizeof(*t));
	uint64_t clock = 0;

	assert_non_null(t);
	for (size_t i = 0; i < n; i++) {
		struct otracker *best = NULL, *victim = NULL;
		unsigned int keep = 0;

		if (only && pid[i] != only)
			continue;
		c->accesses++;
		for (unsigned int k = 0; k < trackers; k++) {
			struct otracker *o = &t[k];

			if (o->used && (x[i] == o->last || x[i] == o->last + 1 || listed(o, x[i])) &&
			    (!best || o->age > best->age))
				best = o;
		}
		if (!best) {
			/* A tracker never used, else the least recently used. */
			for (unsigned int k = 0; k < trackers && !victim; k++)
				if (!t[k].used)
					victim = &t[k];
			if (!victim) {
				victim = &t[0];
				for (unsigned int k = 1; k < trackers; k++)
					if (t[k].age < victim->age)
						victim = &t[k];
			}
			*victim = (struct otracker){ .used = true, .last = x[i], .age = ++clock,
						     .run = 1 };
			c->demand++;
			continue;
		}
		best->age = ++clock;
		if (x[i] == best->last) {
			c->repeats++;
			continue;
		}
		if (listed(best, x[i]))
			c->served++;
		else
			c->demand++;
		for (unsigned int k = 0; k < best->npf; k++)
			if (best->pf[k] > x[i])
				best->pf[keep++] = best->pf[k];
		best->npf = keep;
		best->last = x[i];
		if (++best->run == 3)
			c->streams++;
		if (best->run < 3)
			continue;
		for (uint64_t y = x[i] + 1; y <= x[i] + d; y++) {
			if (listed(best, y))
				continue;
			assert_true(best->npf < VMT_PREFETCH_MAX_DEGREE);
			best->pf[best->npf++] = y;
			c->prefetches++;
		}
	}
	free(t);
}

/*
 * Random sequences of four processes, each a mix of +1 runs, repeats,
 * short skips forward and jumps, over a few thousand lines (so that
 * trackers collide): the counts, merged and per process, against the
 * oracle, for several tables and degrees. And lines drawn at random over
 * 2^30: hardly anything prefetched.
 */
static void test_prefetch_random(void **state)
{
	static const struct { unsigned int trackers, degree; } cases[] = {
		{ 1, 1 }, { 2, 2 }, { 4, 3 }, { 8, 2 }, { 16, 8 }, { 3, 64 },
	};
	const size_t n = 4000;
	struct vmt_record *recs = calloc(n, sizeof(*recs));
	uint64_t *x = calloc(n, sizeof(*x)), seed = 11;
	uint32_t *pid = calloc(n, sizeof(*pid));
	struct vmt_analysis *a[2];

	(void)state;
	assert_non_null(recs);
	assert_non_null(x);
	assert_non_null(pid);
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		uint64_t cur[4] = { 0 };
		struct counts merged = { 0 }, per = { 0 };

		for (size_t i = 0; i < n; i++) {
			unsigned int p = (unsigned int)(lcg(&seed) % 4), r;

			/* Runs: a process keeps the bus a while. */
			if (i && lcg(&seed) % 4)
				p = pid[i - 1] - 1;
			r = (unsigned int)(lcg(&seed) % 16);
			if (r == 0)
				cur[p] = lcg(&seed) % 3000;
			else if (r == 1)
				cur[p] += 1 + lcg(&seed) % 6;
			else if (r != 2)
				cur[p]++;
			pid[i] = p + 1;
			x[i] = 100000 + cur[p];
			recs[i] = line_rec(i, pid[i], x[i]);
		}
		prefetch_run(recs, n, VMT_REF_PHYSICAL, cases[c].trackers, cases[c].degree, a);
		oracle(x, pid, n, 0, cases[c].trackers, cases[c].degree, &merged);
		for (uint32_t p = 1; p <= 4; p++)
			oracle(x, pid, n, p, cases[c].trackers, cases[c].degree, &per);
		assert_counts(vmt_prefetch_result(a[0]), &merged, "random, merged");
		assert_counts(vmt_prefetch_result(a[1]), &per, "random, per process");
		print_message("trackers %u degree %u: merged %llu served %llu prefetched, per process %llu %llu\n",
			      cases[c].trackers, cases[c].degree,
			      (unsigned long long)merged.served, (unsigned long long)merged.prefetches,
			      (unsigned long long)per.served, (unsigned long long)per.prefetches);
		assert_true(per.prefetches > n / 10 && merged.repeats > 0 && merged.served > 0);
		vmt_analysis_destroy(a[0]);
		vmt_analysis_destroy(a[1]);
	}

	for (size_t i = 0; i < n; i++)
		recs[i] = line_rec(i, 1, lcg(&seed) % (1u << 30));
	prefetch_run(recs, n, VMT_REF_PHYSICAL, 8, 2, a);
	assert_true(vmt_prefetch_result(a[0])->prefetches <= 2);
	assert_true(vmt_prefetch_rate(a[0]) < 0.1);
	vmt_analysis_destroy(a[0]);
	vmt_analysis_destroy(a[1]);
	free(recs);
	free(x);
	free(pid);
}

/* ---- Bad input ---- */

static void test_bad_input(void **state)
{
	struct vmt_ref_options virt = { .space = VMT_REF_VIRTUAL };
	struct vmt_ref_options phys = { .space = VMT_REF_PHYSICAL };
	struct vmt_prefetch_config c = { .trackers = 8, .degree = 2 };
	struct vmt_analysis *a = NULL;

	(void)state;
	assert_int_equal(vmt_scr_create_rings(&a, &virt, 16, VMT_SCR_RINGS_MERGED), -EINVAL);
	assert_int_equal(vmt_scr_create_rings(&a, &phys, 16, (enum vmt_scr_rings)3), -EINVAL);
	assert_int_equal(vmt_scr_create_rings(&a, &phys, 2, VMT_SCR_RINGS_PROCESS), -EINVAL);
	c.trackers = 0;
	assert_int_equal(vmt_prefetch_create(&a, &phys, &c), -EINVAL);
	c.trackers = VMT_PREFETCH_MAX_TRACKERS + 1;
	assert_int_equal(vmt_prefetch_create(&a, &phys, &c), -EINVAL);
	c.trackers = 8;
	c.degree = 0;
	assert_int_equal(vmt_prefetch_create(&a, &phys, &c), -EINVAL);
	c.degree = VMT_PREFETCH_MAX_DEGREE + 1;
	assert_int_equal(vmt_prefetch_create(&a, &phys, &c), -EINVAL);
	assert_null(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_scr_views, setup, teardown),
		cmocka_unit_test_setup_teardown(test_strides_by_hand, setup, teardown),
		cmocka_unit_test(test_stride_buckets),
		cmocka_unit_test_setup_teardown(test_scr_random, setup, teardown),
		cmocka_unit_test_setup_teardown(test_prefetch_stream, setup, teardown),
		cmocka_unit_test_setup_teardown(test_prefetch_interleaved, setup, teardown),
		cmocka_unit_test_setup_teardown(test_prefetch_by_hand, setup, teardown),
		cmocka_unit_test_setup_teardown(test_prefetch_random, setup, teardown),
		cmocka_unit_test(test_bad_input),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
