/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KUnit tests for the enabled set's policies. Included at the bottom of
 * eset.c.
 */
#ifndef _VMTRACE_ESET_KUNIT_H
#define _VMTRACE_ESET_KUNIT_H

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
	struct vmt_eset_entry *entries;

	KUNIT_ASSERT_NOT_NULL(test, t);
	entries = kunit_kcalloc(test, slots, sizeof(*entries), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, entries);
	vmt_eset_init(&t->set, entries, slots, capacity, clock);
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
	{}
};

static struct kunit_suite vmt_eset_test_suite = {
	.name = "vmtrace-eset",
	.test_cases = vmt_eset_test_cases,
};

kunit_test_suite(vmt_eset_test_suite);

#endif /* _VMTRACE_ESET_KUNIT_H */
