// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for the synthetic trace generator (user/lib/profile/
 * profile_synth.c) on profiles made here, against brute force:
 *
 * - reuse distances: one instruction over one span of lines, every access
 *   after its first drawn by reuse distance: first touches of the whole
 *   span first, then draws spread over the bins from 0 to past 8,000
 *   lines. Each synthetic access's distance, found on a brute-force LRU
 *   stack of lines (an array, the line moved to the front), is in a bin,
 *   and each bin holds as many accesses as the profile says, exactly. So
 *   the generator's stack (its 16-way tree of sums over words of times)
 *   finds the line at every depth asked, through its renumberings (time
 *   restarting at twice the lines) and a tree of 1, 2 and 3 levels;
 * - the same profile and seed give the same accesses, another seed others
 *   in the same bins;
 * - an access drawn at a depth where the stack holds other instructions'
 *   lines takes its own instruction's nearest line, however deep (600
 *   lines here), not a line of its span no access has touched;
 * - a sweep (an instruction that never stepped back, or never ahead, in
 *   the trace) keeps its way: its first touches one line after the other
 *   from its first, every line of its span, and its draws no line behind;
 * - a thread of 2^32 - 1 lines or more: -EFBIG and a message (the stack
 *   indexes lines with 32 bits), before its tables are allocated.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "vmtrace/profile.h"
#include "vmtrace/trace.h"
#include "profile/profile_model.h"

#include "temp_file.h"

#define FIRST_LINE	0x400000ull	/* the span's first line (addresses >> 6) */

/* A profile of one thread, one instruction, one span: every part in one place. */
struct made {
	struct vmt_profile p;
	struct pm_thread t;
	struct pm_insn in;
	struct pm_span span;
	struct pm_edge reuse[PM_REUSE_BINS + 1], next, slice;
	struct pm_edges slices;
	uint8_t mixed;
};

/*
 * @lines lines, each touched first (the instruction's first access, then
 * lines - 1 first touches), then @per_bin draws in each bin from 0 to
 * @last_bin, spread over the rest of the run.
 */
static void make(struct made *m, uint64_t lines, unsigned int last_bin, uint64_t per_bin)
{
	uint64_t draws = (uint64_t)(last_bin + 1) * per_bin, accesses = lines + draws;
	uint32_t n = 0;

	memset(m, 0, sizeof(*m));
	m->span = (struct pm_span){ .lo = FIRST_LINE, .n = lines };
	/* Visits of the reuse node: one a random access, the first access not one. */
	m->reuse[n++] = (struct pm_edge){ .to = PM_REUSE_COLD, .count = lines - 1,
					  .first = 0, .last = lines - 2 };
	for (unsigned int b = 0; b <= last_bin; b++)
		m->reuse[n++] = (struct pm_edge){ .to = b, .count = per_bin, .first = lines - 1,
						  .last = accesses - 2 };
	m->in = (struct pm_insn){
		.ip = 0x401000, .count = accesses, .reads = accesses, .size = 8, .loop = PM_NONE,
		.first = FIRST_LINE << 6, .lo = FIRST_LINE << 6,
		.hi = ((FIRST_LINE + lines) << 6) - 1, .first_token = PM_NONE,
		.random = accesses - 1,
		.reuse = { .n = n, .e = m->reuse, .visits = accesses - 1 },
		.next = { .n = 1, .e = &m->next, .visits = accesses - 1 },
	};
	m->next = (struct pm_edge){ .to = 0, .count = accesses - 1, .first = 0,
				    .last = accesses - 2 };
	m->t = (struct pm_thread){ .pid = 7, .tid = 7, .accesses = accesses, .ninsns = 1,
				   .insns = &m->in, .nspans = 1, .spans = &m->span };
	m->slice = (struct pm_edge){ .to = 0, .count = accesses };
	m->slices = (struct pm_edges){ .n = 1, .e = &m->slice, .visits = accesses };
	m->p = (struct vmt_profile){ .nthreads = 1, .threads = &m->t, .slice_len = accesses,
				     .nslices = 1, .slices = &m->slices, .mixed = &m->mixed };
}

/* The synthetic trace of @p (seed @seed) into @path, its accesses' lines into *@out. */
static uint64_t synth_lines(const struct vmt_profile *p, uint64_t seed, uint64_t **out)
{
	struct vmt_trace_writer_options o = { .codec = VMT_CODEC_NONE };
	struct vmt_profile_synth_options so = { .seed = seed };
	const struct vmt_record *r;
	struct vmt_trace_cursor *c;
	struct vmt_trace_writer *w;
	struct vmt_trace_error err;
	uint64_t written, n = 0;
	struct vmt_trace *t;
	uint32_t stream;
	uint64_t *lines;

	assert_int_equal(vmt_trace_writer_create(&w, path, &o, &err), 0);
	assert_int_equal(vmt_profile_synth(p, &so, w, &written, &err), 0);
	assert_int_equal(vmt_trace_writer_close(w, &err), 0);
	assert_int_equal(written, p->threads[0].accesses);
	lines = malloc(written * sizeof(*lines));
	assert_non_null(lines);
	assert_int_equal(vmt_trace_open(&t, path, 0, &err), 0);
	assert_int_equal(vmt_trace_cursor_create(t, VMT_ORDER_WRITTEN, &c), 0);
	while (vmt_trace_cursor_next(c, &r, &stream) == 1) {
		assert_true(n < written);
		assert_int_equal(r->hdr.type, VMT_REC_EXACT);
		assert_int_not_equal(pm_insn_find(&p->threads[0], r->exact.ip), PM_NONE);
		lines[n++] = r->exact.addr >> 6;
	}
	vmt_trace_cursor_free(c);
	vmt_trace_close(t);
	assert_int_equal(n, written);
	*out = lines;
	return n;
}

/*
 * Each access's reuse distance on a brute-force LRU stack (lines, most
 * recent first), binned: PM_REUSE_COLD for a first touch.
 */
static void bin_counts(const uint64_t *lines, uint64_t n, uint64_t span, uint64_t *count)
{
	uint64_t *stack = malloc(span * sizeof(*stack)), depth = 0;

	assert_non_null(stack);
	memset(count, 0, (PM_REUSE_BINS + 1) * sizeof(*count));
	for (uint64_t i = 0; i < n; i++) {
		uint64_t d;

		assert_true(lines[i] >= FIRST_LINE && lines[i] < FIRST_LINE + span);
		for (d = 0; d < depth && stack[d] != lines[i]; d++)
			;
		if (d == depth) {
			count[PM_REUSE_COLD]++;
			depth++;
		} else {
			count[pm_reuse_bin(d)]++;
		}
		memmove(stack + 1, stack, d * sizeof(*stack));
		stack[0] = lines[i];
	}
	free(stack);
}

static void check_bins(uint64_t lines, unsigned int last_bin, uint64_t per_bin)
{
	uint64_t count[PM_REUSE_BINS + 1], *got;
	struct made *m = malloc(sizeof(*m));
	uint64_t n;

	assert_non_null(m);
	make(m, lines, last_bin, per_bin);
	n = synth_lines(&m->p, 5, &got);
	bin_counts(got, n, lines, count);
	assert_int_equal(count[PM_REUSE_COLD], lines);
	for (unsigned int b = 0; b < PM_REUSE_BINS; b++)
		assert_int_equal(count[b], b <= last_bin ? per_bin : 0);
	free(got);
	free(m);
}

/* 200 lines: the stack's tree one level, draws 0 to 199 lines deep. */
static void test_bins_small(void **state)
{
	(void)state;
	check_bins(200, pm_reuse_bin(199), 40);
}

/* 3,000 lines (a tree of 2 levels), the time renumbered about 40 times. */
static void test_bins_renumbered(void **state)
{
	(void)state;
	check_bins(3000, pm_reuse_bin(2999), 1500);
}

/* 9,000 lines: more than 256 words of times, a tree of 3 levels; draws to 8,191 deep. */
static void test_bins_deep(void **state)
{
	(void)state;
	check_bins(9000, pm_reuse_bin(8191), 700);
}

static void test_seeds(void **state)
{
	uint64_t a_count[PM_REUSE_BINS + 1], b_count[PM_REUSE_BINS + 1];
	struct made *m = malloc(sizeof(*m));
	uint64_t *a, *a2, *b, n;

	(void)state;
	assert_non_null(m);
	make(m, 1000, pm_reuse_bin(999), 100);
	n = synth_lines(&m->p, 3, &a);
	assert_int_equal(synth_lines(&m->p, 3, &a2), n);
	assert_memory_equal(a, a2, n * sizeof(*a));
	assert_int_equal(synth_lines(&m->p, 4, &b), n);
	assert_memory_not_equal(a, b, n * sizeof(*a));
	bin_counts(a, n, 1000, a_count);
	bin_counts(b, n, 1000, b_count);
	assert_memory_equal(a_count, b_count, sizeof(a_count));
	free(a);
	free(a2);
	free(b);
	free(m);
}

/*
 * Two instructions: the second reads a span of 4 lines, first its first
 * line, then, after the first instruction's 600 first touches of its own
 * span, 10 times at distance 0 (the pattern buffer sets this order). The
 * line at depth 0, and the next 256 either side, are the first's: the
 * second's line is 600 deep, and its draws take it, every time.
 */
static void test_far_in_span(void **state)
{
	enum { X = 600, DRAWS = 10, N = 1 + X + DRAWS };
	const uint64_t y = FIRST_LINE + 100000;	/* the second's span, far above the first's */
	struct pm_edge reuse[2] = {
		{ .to = PM_REUSE_COLD, .count = X - 1, .first = 0, .last = X - 2 },
		{ .to = 0, .count = DRAWS, .first = 0, .last = DRAWS - 1 },
	};
	struct pm_edge next0[2] = { { .to = 0, .count = X - 1 }, { .to = 1, .count = 1 } };
	struct pm_edge next1[2] = { { .to = 0, .count = 1 }, { .to = 1, .count = DRAWS - 1 } };
	struct pm_span spans[2] = { { .lo = FIRST_LINE, .n = X }, { .lo = y, .n = 4 } };
	struct pm_insn in[2] = {
		{ .ip = 0x401000, .count = X, .reads = X, .size = 8, .loop = PM_NONE,
		  .first = FIRST_LINE << 6, .lo = FIRST_LINE << 6, .hi = ((FIRST_LINE + X) << 6) - 1,
		  .first_token = PM_NONE, .random = X - 1,
		  .reuse = { .n = 1, .e = &reuse[0], .visits = X - 1 },
		  .next = { .n = 2, .e = next0, .visits = X } },
		{ .ip = 0x402000, .count = 1 + DRAWS, .reads = 1 + DRAWS, .size = 8, .loop = PM_NONE,
		  .first = y << 6, .lo = y << 6, .hi = ((y + 4) << 6) - 1,
		  .first_token = PM_NONE, .random = DRAWS,
		  .reuse = { .n = 1, .e = &reuse[1], .visits = DRAWS },
		  .next = { .n = 2, .e = next1, .visits = DRAWS } },
	};
	uint32_t pattern[N];
	struct pm_thread t = { .pid = 7, .tid = 7, .accesses = N, .npattern = N,
			       .pattern = pattern, .ninsns = 2, .insns = in, .nspans = 2,
			       .spans = spans };
	struct pm_edge slice = { .to = 0, .count = N };
	struct pm_edges slices = { .n = 1, .e = &slice, .visits = N };
	uint8_t mixed = 0;
	struct vmt_profile p = { .nthreads = 1, .threads = &t, .slice_len = N, .nslices = 1,
				 .slices = &slices, .mixed = &mixed };
	uint64_t *got, n;

	(void)state;
	for (uint32_t i = 0; i < N; i++)
		pattern[i] = i >= 1 && i <= X ? 0 : 1;
	n = synth_lines(&p, 1, &got);
	assert_int_equal(n, N);
	for (uint32_t i = 1; i <= X; i++)
		assert_true(got[i] >= FIRST_LINE && got[i] < FIRST_LINE + X);
	assert_int_equal(got[0], y);
	for (uint32_t i = X + 1; i < N; i++)
		assert_int_equal(got[i], y);
	free(got);
}

/*
 * The profile of make() as a sweep up (@dir 1: its first access at its
 * lowest line, no step back) or down (-1: at its highest, no step ahead):
 * its first touches go one line after the other its way, and its draws,
 * which no line behind it may take, stay on its last line.
 */
static void check_sweep(int dir)
{
	const uint64_t lines = 200;
	struct made *m = malloc(sizeof(*m));
	uint64_t *got, n;

	assert_non_null(m);
	make(m, lines, pm_reuse_bin(lines - 1), 20);
	if (dir > 0) {
		m->in.ahead = m->in.count - 1;
	} else {
		m->in.back = m->in.count - 1;
		m->in.first = (FIRST_LINE + lines - 1) << 6;
	}
	n = synth_lines(&m->p, 5, &got);
	for (uint64_t i = 0; i < n; i++) {
		uint64_t want = i < lines ? i : lines - 1;

		assert_int_equal(got[i], dir > 0 ? FIRST_LINE + want : FIRST_LINE + lines - 1 - want);
	}
	free(got);
	free(m);
}

static void test_sweep_up(void **state)
{
	(void)state;
	check_sweep(1);
}

static void test_sweep_down(void **state)
{
	(void)state;
	check_sweep(-1);
}

/* A span of 2^32 - 1 lines: refused with a message, not allocated (16 GiB of times). */
static void test_too_many_lines(void **state)
{
	struct vmt_trace_writer_options o = { .codec = VMT_CODEC_NONE };
	struct vmt_trace_writer *w;
	struct vmt_trace_error err;
	struct made *m = malloc(sizeof(*m));
	uint64_t written = 1;

	(void)state;
	assert_non_null(m);
	make(m, 1000, 3, 10);
	m->span.n = UINT32_MAX;
	m->in.hi = ((FIRST_LINE + UINT32_MAX) << 6) - 1;
	assert_int_equal(vmt_trace_writer_create(&w, path, &o, &err), 0);
	memset(&err, 0, sizeof(err));
	assert_int_equal(vmt_profile_synth(&m->p, NULL, w, &written, &err), -EFBIG);
	assert_int_equal(written, 0);
	assert_non_null(strstr(err.message, "a thread touched more lines than synth indexes"));
	vmt_trace_writer_abandon(w);
	free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_bins_small, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bins_renumbered, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bins_deep, setup, teardown),
		cmocka_unit_test_setup_teardown(test_seeds, setup, teardown),
		cmocka_unit_test_setup_teardown(test_far_in_span, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sweep_up, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sweep_down, setup, teardown),
		cmocka_unit_test_setup_teardown(test_too_many_lines, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
