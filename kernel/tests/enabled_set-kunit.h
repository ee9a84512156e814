/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KUnit tests for the enabled set's policies. Included at the bottom of
 * enabled_set.c.
 */
#ifndef _VMTRACE_ENABLED_SET_KUNIT_H
#define _VMTRACE_ENABLED_SET_KUNIT_H

#include <kunit/test.h>
#include <linux/bitmap.h>

#define PG(n)	((unsigned long)(n) << PAGE_SHIFT)

struct eset_test {
	struct vmt_eset set;
	DECLARE_BITMAP(young, 64);	/* Accessed bit of page n */
	unsigned long victims[64];
};

static bool eset_test_young(void *ctx, unsigned long addr)
{
	struct eset_test *t = ctx;

	return test_and_clear_bit(addr >> PAGE_SHIFT, t->young);
}

static struct eset_test *eset_test_new(struct kunit *test, u32 slots, u32 capacity,
				       bool clock)
{
	struct eset_test *t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);
	void *storage;

	KUNIT_ASSERT_NOT_NULL(test, t);
	storage = kunit_kzalloc(test, vmt_eset_storage(slots), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, storage);
	vmt_eset_init(&t->set, storage, slots, capacity, clock);
	return t;
}

/* Admit page @n from its own instruction, so that no run pins it. */
static void eset_test_admit(struct kunit *test, struct eset_test *t, unsigned long n)
{
	KUNIT_ASSERT_TRUE(test, vmt_eset_admit(&t->set, PG(n) + 8, 1, 0x1000 + n, false));
}

static u32 eset_test_evict(struct eset_test *t)
{
	return vmt_eset_evict(&t->set, t->victims, ARRAY_SIZE(t->victims),
			      eset_test_young, t);
}

/*
 * The set {1..6} after 2 was re-admitted ({1, 3, 4, 5, 6, 2}): its pages in
 * [3, 6) are 3, 4, 5 in the set's order; with room for 2, the count is
 * still 3; nothing changes in the set.
 */
static void eset_test_pages_in_range(struct kunit *test)
{
	struct eset_test *t = eset_test_new(test, 16, 8, false);
	unsigned long n;

	for (n = 1; n <= 6; n++)
		eset_test_admit(test, t, n);
	eset_test_admit(test, t, 2);
	KUNIT_EXPECT_EQ(test, vmt_eset_pages_in(&t->set, PG(2), PG(6), t->victims, 8), 4);
	KUNIT_EXPECT_EQ(test, t->victims[0], PG(3));
	KUNIT_EXPECT_EQ(test, t->victims[1], PG(4));
	KUNIT_EXPECT_EQ(test, t->victims[2], PG(5));
	KUNIT_EXPECT_EQ(test, t->victims[3], PG(2));
	KUNIT_EXPECT_EQ(test, vmt_eset_pages_in(&t->set, PG(3), PG(6), t->victims, 2), 3);
	KUNIT_EXPECT_EQ(test, vmt_eset_pages_in(&t->set, PG(7), PG(9), t->victims, 2), 0);
	KUNIT_EXPECT_EQ(test, t->set.live, 6);
}

static void eset_test_fifo_evicts_oldest(struct kunit *test)
{
	struct eset_test *t = eset_test_new(test, 16, 2, false);

	eset_test_admit(test, t, 1);
	eset_test_admit(test, t, 2);
	KUNIT_EXPECT_EQ(test, eset_test_evict(t), 0);
	eset_test_admit(test, t, 3);
	eset_test_admit(test, t, 4);
	/* FIFO ignores the Accessed bit. */
	set_bit(1, t->young);
	KUNIT_ASSERT_EQ(test, eset_test_evict(t), 2);
	KUNIT_EXPECT_EQ(test, t->victims[0], PG(1));
	KUNIT_EXPECT_EQ(test, t->victims[1], PG(2));
	KUNIT_EXPECT_EQ(test, t->set.live, 2);
	eset_test_admit(test, t, 5);
	KUNIT_ASSERT_EQ(test, eset_test_evict(t), 1);
	KUNIT_EXPECT_EQ(test, t->victims[0], PG(3));
}

static void eset_test_zero_keeps_only_current_run(struct kunit *test)
{
	struct eset_test *t = eset_test_new(test, 16, 0, false);

	eset_test_admit(test, t, 1);
	/* The faulting instruction's own page stays until it completes. */
	KUNIT_EXPECT_EQ(test, eset_test_evict(t), 0);
	eset_test_admit(test, t, 2);
	KUNIT_ASSERT_EQ(test, eset_test_evict(t), 1);
	KUNIT_EXPECT_EQ(test, t->victims[0], PG(1));
	KUNIT_EXPECT_EQ(test, t->set.live, 1);
}

static void eset_test_run_pins_multi_page_instruction(struct kunit *test)
{
	struct eset_test *t = eset_test_new(test, 16, 0, false);
	int i;

	/* One instruction: fetch page 1, read page 2, write page 3. */
	for (i = 1; i <= 3; i++)
		KUNIT_ASSERT_TRUE(test, vmt_eset_admit(&t->set, PG(i), 7, 0x4000, false));
	KUNIT_EXPECT_EQ(test, eset_test_evict(t), 0);
	/* Another thread at the same address starts a run of its own. */
	KUNIT_ASSERT_TRUE(test, vmt_eset_admit(&t->set, PG(4), 8, 0x4000, false));
	KUNIT_ASSERT_EQ(test, eset_test_evict(t), 3);
	KUNIT_EXPECT_EQ(test, t->victims[0], PG(1));
	KUNIT_EXPECT_EQ(test, t->victims[2], PG(3));
}

static void eset_test_kernel_fault_joins_run(struct kunit *test)
{
	struct eset_test *t = eset_test_new(test, 16, 0, false);

	/* A fetch fault, then the kernel reading rseq's TLS on the way out. */
	KUNIT_ASSERT_TRUE(test, vmt_eset_admit(&t->set, PG(1), 7, 0x4000, false));
	KUNIT_ASSERT_TRUE(test, vmt_eset_admit(&t->set, PG(2), 7, 0xffffffff81000000UL, true));
	KUNIT_EXPECT_EQ(test, eset_test_evict(t), 0);
	/* Another thread's kernel-mode fault starts a run of its own. */
	KUNIT_ASSERT_TRUE(test, vmt_eset_admit(&t->set, PG(3), 8, 0xffffffff81000000UL, true));
	KUNIT_ASSERT_EQ(test, eset_test_evict(t), 2);
	KUNIT_EXPECT_EQ(test, t->victims[0], PG(1));
	KUNIT_EXPECT_EQ(test, t->victims[1], PG(2));
}

static void eset_test_run_pins_at_most_pin_max(struct kunit *test)
{
	struct eset_test *t = eset_test_new(test, 16, 0, false);
	int i;

	/* A loop faulting on page after page at one instruction. */
	for (i = 1; i <= VMT_ESET_PIN_MAX + 2; i++)
		KUNIT_ASSERT_TRUE(test, vmt_eset_admit(&t->set, PG(i), 7, 0x4000, false));
	KUNIT_ASSERT_EQ(test, eset_test_evict(t), 2);
	KUNIT_EXPECT_EQ(test, t->victims[0], PG(1));
	KUNIT_EXPECT_EQ(test, t->victims[1], PG(2));
	KUNIT_EXPECT_EQ(test, t->set.live, VMT_ESET_PIN_MAX);
}

static void eset_test_clock_gives_second_chance(struct kunit *test)
{
	struct eset_test *t = eset_test_new(test, 16, 2, true);

	eset_test_admit(test, t, 1);
	eset_test_admit(test, t, 2);
	eset_test_admit(test, t, 3);
	set_bit(1, t->young);
	/* Page 1 was referenced: it goes round again, page 2 leaves. */
	KUNIT_ASSERT_EQ(test, eset_test_evict(t), 1);
	KUNIT_EXPECT_EQ(test, t->victims[0], PG(2));
	KUNIT_EXPECT_FALSE(test, test_bit(1, t->young));
	eset_test_admit(test, t, 4);
	KUNIT_ASSERT_EQ(test, eset_test_evict(t), 1);
	KUNIT_EXPECT_EQ(test, t->victims[0], PG(3));
	/* Page 1's bit was cleared and it was not referenced again. */
	eset_test_admit(test, t, 5);
	KUNIT_ASSERT_EQ(test, eset_test_evict(t), 1);
	KUNIT_EXPECT_EQ(test, t->victims[0], PG(1));
}

static void eset_test_clock_all_referenced(struct kunit *test)
{
	struct eset_test *t = eset_test_new(test, 16, 2, true);
	int i;

	for (i = 1; i <= 4; i++) {
		eset_test_admit(test, t, i);
		set_bit(i, t->young);
	}
	/* One sweep clears every bit, the next evicts in the same order. */
	KUNIT_ASSERT_EQ(test, eset_test_evict(t), 2);
	KUNIT_EXPECT_EQ(test, t->victims[0], PG(1));
	KUNIT_EXPECT_EQ(test, t->victims[1], PG(2));
}

static void eset_test_readmission_moves_page(struct kunit *test)
{
	struct eset_test *t = eset_test_new(test, 16, 2, false);

	eset_test_admit(test, t, 1);
	eset_test_admit(test, t, 2);
	/* Copy-on-write fault on enabled page 1: now the newest. */
	eset_test_admit(test, t, 1);
	KUNIT_EXPECT_EQ(test, t->set.live, 2);
	eset_test_admit(test, t, 3);
	KUNIT_ASSERT_EQ(test, eset_test_evict(t), 1);
	KUNIT_EXPECT_EQ(test, t->victims[0], PG(2));
}

static void eset_test_full_compacts_then_counts(struct kunit *test)
{
	struct eset_test *t = eset_test_new(test, 8, 16, false);
	int i;

	for (i = 1; i <= 8; i++)
		eset_test_admit(test, t, i);
	/* Re-admitting leaves a hole that compaction reclaims. */
	eset_test_admit(test, t, 3);
	KUNIT_EXPECT_EQ(test, t->set.live, 8);
	KUNIT_EXPECT_EQ(test, t->set.overflows, 0);
	KUNIT_EXPECT_FALSE(test, vmt_eset_admit(&t->set, PG(9), 1, 0x9000, false));
	KUNIT_EXPECT_EQ(test, t->set.overflows, 1);
	KUNIT_EXPECT_EQ(test, t->set.live, 8);
}

static void eset_test_page_zero_is_not_admitted(struct kunit *test)
{
	struct eset_test *t = eset_test_new(test, 16, 0, false);

	/* Address 0 marks a removed entry; a NULL dereference enables nothing. */
	KUNIT_EXPECT_FALSE(test, vmt_eset_admit(&t->set, 8, 1, 0x1000, false));
	KUNIT_EXPECT_EQ(test, t->set.live, 0);
	KUNIT_EXPECT_EQ(test, t->set.overflows, 0);
}

static void eset_test_evict_stops_at_max(struct kunit *test)
{
	struct eset_test *t = eset_test_new(test, 16, 0, false);
	unsigned long v[2];
	int i;

	for (i = 1; i <= 5; i++)
		eset_test_admit(test, t, i);
	KUNIT_ASSERT_EQ(test, vmt_eset_evict(&t->set, v, 2, eset_test_young, t), 2);
	KUNIT_EXPECT_EQ(test, v[1], PG(2));
	KUNIT_ASSERT_EQ(test, vmt_eset_evict(&t->set, v, 2, eset_test_young, t), 2);
	KUNIT_EXPECT_EQ(test, v[0], PG(3));
	KUNIT_EXPECT_EQ(test, vmt_eset_evict(&t->set, v, 2, eset_test_young, t), 0);
	vmt_eset_clear(&t->set);
	KUNIT_EXPECT_EQ(test, t->set.live, 0);
}

/*
 * N = 64 evicts in batches of 2: the 65th page makes the set evict its two
 * oldest, leaving 63; the 66th fills it again, with nothing to evict; the
 * 67th evicts the next two.
 */
static void eset_test_batch_of_n_over_32(struct kunit *test)
{
	struct eset_test *t = eset_test_new(test, 128, 64, false);
	int i;

	KUNIT_EXPECT_EQ(test, t->set.batch, 2);
	for (i = 1; i <= 64; i++)
		eset_test_admit(test, t, i);
	KUNIT_EXPECT_FALSE(test, vmt_eset_over(&t->set));
	KUNIT_EXPECT_EQ(test, eset_test_evict(t), 0);
	eset_test_admit(test, t, 65);
	KUNIT_EXPECT_TRUE(test, vmt_eset_over(&t->set));
	KUNIT_ASSERT_EQ(test, eset_test_evict(t), 2);
	KUNIT_EXPECT_EQ(test, t->victims[0], PG(1));
	KUNIT_EXPECT_EQ(test, t->victims[1], PG(2));
	KUNIT_EXPECT_EQ(test, t->set.live, 63);
	eset_test_admit(test, t, 66);
	KUNIT_EXPECT_EQ(test, eset_test_evict(t), 0);
	eset_test_admit(test, t, 67);
	KUNIT_ASSERT_EQ(test, eset_test_evict(t), 2);
	KUNIT_EXPECT_EQ(test, t->victims[0], PG(3));
	KUNIT_EXPECT_EQ(test, t->victims[1], PG(4));
	/* The batch is N / 32, at least 1 and at most VMT_ESET_BATCH_MAX. */
	KUNIT_EXPECT_EQ(test, eset_test_new(test, 64, 63, false)->set.batch, 1);
	KUNIT_EXPECT_EQ(test, eset_test_new(test, 64, 0, false)->set.batch, 1);
	KUNIT_EXPECT_EQ(test, eset_test_new(test, 1024, 512, false)->set.batch, 16);
	KUNIT_EXPECT_EQ(test, eset_test_new(test, 2048, 1024, false)->set.batch, 16);
}

/*
 * The index names each live entry once, at its slot, and nothing else:
 * every live page is found where it is, and there are no other cells.
 */
static void eset_test_check_index(struct kunit *test, struct vmt_eset *set)
{
	u32 cells = 0, i;
	u64 n;

	for (i = 0; i < 2 * set->slots; i++)
		cells += !!set->index[i];
	KUNIT_ASSERT_EQ(test, cells, set->live);
	for (n = set->tail; n != set->head; n++) {
		struct vmt_eset_entry *e = vmt_eset_at(set, n);
		s64 c;

		if (!e->addr)
			continue;
		c = vmt_eset_find(set, e->addr);
		KUNIT_ASSERT_GE(test, c, 0);
		KUNIT_ASSERT_EQ(test, set->index[c] - 1, (u32)(n & (set->slots - 1)));
	}
}

/*
 * Thousands of admissions, re-admissions (of pages in the set: their old
 * entries leave holes that compaction squeezes out) and evictions of 100
 * pages through a FIFO set of 24 in 64 slots, against a plain list of the
 * pages in admission order: the victims, and the set's order, are the
 * model's, and the index stays whole.
 */
static void eset_test_index_follows_fifo_model(struct kunit *test)
{
	struct eset_test *t = eset_test_new(test, 64, 24, false);
	unsigned long model[64], pages[64];
	u32 len = 0, seed = 1, step, i, j, n;

	for (step = 0; step < 20000; step++) {
		unsigned long pg;

		seed = seed * 1103515245 + 12345;
		pg = 1 + (seed >> 16) % 100;
		/* A new ip each time: no run pins more than the newest page. */
		KUNIT_ASSERT_TRUE(test, vmt_eset_admit(&t->set, PG(pg), 1, 0x1000 + step, false));
		for (i = 0; i < len && model[i] != PG(pg); i++)
			;
		if (i < len)
			memmove(&model[i], &model[i + 1], (--len - i) * sizeof(model[0]));
		model[len++] = PG(pg);
		eset_test_check_index(test, &t->set);
		if (seed % 8)
			continue;
		n = eset_test_evict(t);
		KUNIT_ASSERT_EQ(test, n, len > 24 ? len - 24 : 0);
		for (j = 0; j < n; j++)
			KUNIT_ASSERT_EQ(test, t->victims[j], model[j]);
		memmove(model, &model[n], (len - n) * sizeof(model[0]));
		len -= n;
		eset_test_check_index(test, &t->set);
		KUNIT_ASSERT_EQ(test, vmt_eset_pages_in(&t->set, PG(1), PG(101), pages, 64), len);
		for (j = 0; j < len; j++)
			KUNIT_ASSERT_EQ(test, pages[j], model[j]);
	}
	KUNIT_EXPECT_EQ(test, t->set.overflows, 0);
}

/*
 * The same churn under CLOCK, half the pages accessed between evictions:
 * the second chances move entries inside the queue; the index follows
 * them, and no victim is still in the set.
 */
static void eset_test_index_follows_clock_moves(struct kunit *test)
{
	struct eset_test *t = eset_test_new(test, 64, 24, true);
	u32 seed = 7, step, j, n;
	unsigned long pg;

	for (step = 0; step < 20000; step++) {
		seed = seed * 1103515245 + 12345;
		pg = 1 + (seed >> 16) % 60;
		KUNIT_ASSERT_TRUE(test, vmt_eset_admit(&t->set, PG(pg), 1, 0x1000 + step, false));
		if (seed & 0x100)
			set_bit(pg, t->young);
		eset_test_check_index(test, &t->set);
		if (seed % 8)
			continue;
		n = eset_test_evict(t);
		KUNIT_ASSERT_LE(test, t->set.live, 24);
		for (j = 0; j < n; j++)
			KUNIT_ASSERT_LT(test, vmt_eset_find(&t->set, t->victims[j]), 0);
		eset_test_check_index(test, &t->set);
	}
	vmt_eset_clear(&t->set);
	eset_test_check_index(test, &t->set);
}

static struct kunit_case vmt_eset_test_cases[] = {
	KUNIT_CASE(eset_test_fifo_evicts_oldest),
	KUNIT_CASE(eset_test_pages_in_range),
	KUNIT_CASE(eset_test_zero_keeps_only_current_run),
	KUNIT_CASE(eset_test_run_pins_multi_page_instruction),
	KUNIT_CASE(eset_test_kernel_fault_joins_run),
	KUNIT_CASE(eset_test_run_pins_at_most_pin_max),
	KUNIT_CASE(eset_test_clock_gives_second_chance),
	KUNIT_CASE(eset_test_clock_all_referenced),
	KUNIT_CASE(eset_test_readmission_moves_page),
	KUNIT_CASE(eset_test_full_compacts_then_counts),
	KUNIT_CASE(eset_test_page_zero_is_not_admitted),
	KUNIT_CASE(eset_test_evict_stops_at_max),
	KUNIT_CASE(eset_test_batch_of_n_over_32),
	KUNIT_CASE(eset_test_index_follows_fifo_model),
	KUNIT_CASE(eset_test_index_follows_clock_moves),
	{}
};

static struct kunit_suite vmt_eset_test_suite = {
	.name = "vmtrace-eset",
	.test_cases = vmt_eset_test_cases,
};

kunit_test_suite(vmt_eset_test_suite);

#endif /* _VMTRACE_ENABLED_SET_KUNIT_H */
