// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for LRU stack distances computed in parts and joined
 * (user/lib/analysis/lru_merge.c, PARDA's merge), against Mattson's stack
 * done plainly over the whole trace: random traces over a few units and
 * over many, cut into 1 to 8 parts at random places (empty parts among
 * them); each part's references get their distances from a plain stack of
 * the part alone, its first references theirs from the merge, and every
 * distance, and every first reference's previous time, must be the whole
 * trace's.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "analysis/lru_merge.h"

#define MAX_REFS 3000

/* Plain LRU stack: distances[i] of refs[from..to), times of the last references in last[]. */
static void plain(const uint64_t *refs, size_t from, size_t to, uint64_t *distances,
		  uint64_t *previous)
{
	static uint64_t stack[MAX_REFS];
	size_t depth = 0;

	for (size_t i = from; i < to; i++) {
		size_t d = 0;

		while (d < depth && stack[d] != refs[i])
			d++;
		distances[i] = d < depth ? d : VMT_STACK_DISTANCE_COLD;
		previous[i] = 0;
		for (size_t j = i; j-- > from;)
			if (refs[j] == refs[i]) {
				previous[i] = j + 1;	/* times are 1-based */
				break;
			}
		if (d == depth)
			depth++;
		memmove(stack + 1, stack, d * sizeof(*stack));
		stack[0] = refs[i];
	}
}

static uint64_t next(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void check(uint64_t seed, size_t n, uint64_t universe, unsigned int parts)
{
	static uint64_t refs[MAX_REFS], whole[MAX_REFS], whole_prev[MAX_REFS];
	static uint64_t local[MAX_REFS], local_prev[MAX_REFS];
	static uint64_t firsts[MAX_REFS], dist[MAX_REFS], prev[MAX_REFS];
	static struct vmt_lru_unit units[MAX_REFS];
	size_t cuts[10];
	struct vmt_lru_merge m;

	for (size_t i = 0; i < n; i++) {
		/* Skewed: half the references to a tenth of the units. */
		uint64_t u = next(&seed) % universe;

		refs[i] = next(&seed) & 1 ? u / 10 : u;
	}
	plain(refs, 0, n, whole, whole_prev);
	cuts[0] = 0;
	cuts[parts] = n;
	for (unsigned int k = 1; k < parts; k++)
		cuts[k] = next(&seed) % (n + 1);
	/* Sorted cuts (insertion sort; a repeated cut makes an empty part). */
	for (unsigned int k = 1; k < parts; k++)
		for (unsigned int j = k; j > 1 && cuts[j - 1] > cuts[j]; j--) {
			size_t t = cuts[j];

			cuts[j] = cuts[j - 1];
			cuts[j - 1] = t;
		}
	vmt_lru_merge_init(&m);
	for (unsigned int k = 0; k < parts; k++) {
		size_t nf = 0, nu = 0;

		plain(refs, cuts[k], cuts[k + 1], local, local_prev);
		for (size_t i = cuts[k]; i < cuts[k + 1]; i++) {
			if (local[i] == VMT_STACK_DISTANCE_COLD) {
				firsts[nf++] = refs[i];
				continue;
			}
			assert_int_equal(local[i], whole[i]);
			assert_int_equal(local_prev[i], whole_prev[i]);
		}
		/* The part's units, oldest last reference first: by scanning from the end. */
		for (size_t i = cuts[k + 1]; i-- > cuts[k];) {
			bool later = false;

			for (size_t j = i + 1; j < cuts[k + 1] && !later; j++)
				later = refs[j] == refs[i];
			if (!later)
				units[nu++] = (struct vmt_lru_unit){ .key = refs[i], .last = i + 1 };
		}
		for (size_t a = 0, b = nu - (nu > 0); a < b; a++, b--) {
			struct vmt_lru_unit t = units[a];

			units[a] = units[b];
			units[b] = t;
		}
		assert_int_equal(vmt_lru_merge_part(&m, firsts, nf, dist, prev, units, nu), 0);
		for (size_t i = cuts[k], f = 0; i < cuts[k + 1]; i++) {
			if (local[i] != VMT_STACK_DISTANCE_COLD)
				continue;
			assert_int_equal(dist[f], whole[i]);
			assert_int_equal(prev[f], whole_prev[i]);
			f++;
		}
	}
	vmt_lru_merge_free(&m);
}

static void test_against_plain_stack(void **state)
{
	(void)state;
	for (uint64_t seed = 1; seed <= 30; seed++)
		for (unsigned int parts = 1; parts <= 8; parts++) {
			check(seed * 7919, 600, 7, parts);
			check(seed * 104729, 1500, 300, parts);
		}
	/* Every reference a new unit, and one unit only. */
	check(99, 500, 1000000000, 5);
	check(98, 500, 1, 5);
}

static void test_empty(void **state)
{
	struct vmt_lru_merge m;
	struct vmt_lru_unit u = { .key = 5, .last = 1 };
	uint64_t key = 5, d, p;

	(void)state;
	vmt_lru_merge_init(&m);
	assert_int_equal(vmt_lru_merge_part(&m, NULL, 0, NULL, NULL, NULL, 0), 0);
	assert_int_equal(vmt_lru_merge_part(&m, &key, 1, &d, &p, &u, 1), 0);
	assert_true(d == VMT_STACK_DISTANCE_COLD);
	u.last = 9;
	assert_int_equal(vmt_lru_merge_part(&m, &key, 1, &d, &p, &u, 1), 0);
	assert_int_equal(d, 0);
	assert_int_equal(p, 1);
	vmt_lru_merge_free(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_against_plain_stack),
		cmocka_unit_test(test_empty),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
