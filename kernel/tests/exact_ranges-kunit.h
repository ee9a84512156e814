/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KUnit tests for exact mode's table of ranges: the lookup over overlapping
 * ranges, and ranges made of mappings following them (trimmed, split,
 * resized, gaps filled, dropped at exit) under the cap and the table's
 * size. Included at the bottom of exact_ranges.c. Each case starts from an
 * empty table, and leaves one.
 */
#ifndef _VMTRACE_EXACT_RANGES_KUNIT_H
#define _VMTRACE_EXACT_RANGES_KUNIT_H

#include <kunit/test.h>

#define XP(n)	(0x7f0000000000UL + ((unsigned long)(n) << PAGE_SHIFT))

static void xr_reset(u64 max_pages)
{
	struct vmt_exact_range none = {};

	raw_spin_lock_irq(&vmt_exact_lock);
	__vmt_exact_range_op(VMT_EXACT_CLEAR, &none);
	vmt_exact_max_pages = max_pages;
	vmt_exact_left_out = 0;
	raw_spin_unlock_irq(&vmt_exact_lock);
}

static void xr_exit(struct kunit *test)
{
	xr_reset(VMT_EXACT_DEFAULT_MAX_PAGES);
}

static int xr_add(pid_t tgid, unsigned long start, unsigned long end)
{
	struct vmt_exact_range r = { .tgid = tgid, .start = start, .end = end,
				     .asked_end = end };
	int err;

	raw_spin_lock_irq(&vmt_exact_lock);
	err = __vmt_exact_range_op(VMT_EXACT_ADD, &r);
	raw_spin_unlock_irq(&vmt_exact_lock);
	return err;
}

/* A mapping name slot @name matched. */
static void xr_map_name(pid_t tgid, unsigned long start, unsigned long end, u8 name)
{
	raw_spin_lock_irq(&vmt_exact_lock);
	__vmt_exact_add_mapping(tgid, start, end, name);
	raw_spin_unlock_irq(&vmt_exact_lock);
}

static void xr_map(pid_t tgid, unsigned long start, unsigned long end)
{
	xr_map_name(tgid, start, end, 0);
}

/* VMT_EXACT_ADD_NAME or _REMOVE_NAME of @name for @tgid, as sysfs does. */
static int xr_name(u32 op, pid_t tgid, const char *name)
{
	struct vmt_exact_arg arg = { .op = op, .pid = tgid, .name_len = strlen(name) };

	return vmt_exact_control(&arg, name);
}

/* Whether page @n of @tgid is exact. */
static bool xr_page(pid_t tgid, unsigned long n)
{
	return vmt_exact_covers(tgid, XP(n), PAGE_SIZE);
}

/*
 *   tgid 5:  [1 . . 3)                  tgid 0: [32 33)
 *                [2 . . . . . . . 16)
 * Page 9 is in the second range only, found past the first; page 16 is
 * in none; tgid 0's range is every process's.
 */
static void xr_test_overlap(struct kunit *test)
{
	xr_reset(VMT_EXACT_DEFAULT_MAX_PAGES);
	KUNIT_ASSERT_EQ(test, xr_add(5, XP(2), XP(16)), 0);
	KUNIT_ASSERT_EQ(test, xr_add(5, XP(1), XP(3)), 0);
	KUNIT_ASSERT_EQ(test, xr_add(0, XP(32), XP(33)), 0);
	KUNIT_EXPECT_FALSE(test, xr_page(5, 0));
	KUNIT_EXPECT_TRUE(test, xr_page(5, 1));
	KUNIT_EXPECT_TRUE(test, xr_page(5, 9));
	KUNIT_EXPECT_TRUE(test, xr_page(5, 15));
	KUNIT_EXPECT_FALSE(test, xr_page(5, 16));
	KUNIT_EXPECT_TRUE(test, vmt_exact_covers(5, XP(1) - 1, 2));
	KUNIT_EXPECT_FALSE(test, xr_page(6, 9));
	KUNIT_EXPECT_TRUE(test, xr_page(6, 32));
	KUNIT_EXPECT_TRUE(test, xr_page(5, 32));
	KUNIT_EXPECT_EQ(test, vmt_exact_used_pages, 17ULL);
}

/* A mapping [0, 10) with [3, 5) unmapped: [0, 3) and [5, 10) stay. */
static void xr_test_unmap_splits(struct kunit *test)
{
	xr_reset(VMT_EXACT_DEFAULT_MAX_PAGES);
	xr_map(7, XP(0), XP(10));
	vmt_exact_unmapped(7, XP(3), XP(5));
	KUNIT_EXPECT_EQ(test, vmt_exact_nr_ranges, 2U);
	KUNIT_EXPECT_EQ(test, vmt_exact_used_pages, 8ULL);
	KUNIT_EXPECT_TRUE(test, xr_page(7, 2));
	KUNIT_EXPECT_FALSE(test, xr_page(7, 3));
	KUNIT_EXPECT_FALSE(test, xr_page(7, 4));
	KUNIT_EXPECT_TRUE(test, xr_page(7, 5));
	KUNIT_EXPECT_TRUE(test, xr_page(7, 9));
	/* Another process's unmap, or a range given by numbers: untouched. */
	KUNIT_ASSERT_EQ(test, xr_add(7, XP(20), XP(22)), 0);
	vmt_exact_unmapped(8, XP(0), XP(30));
	vmt_exact_unmapped(7, XP(20), XP(22));
	KUNIT_EXPECT_TRUE(test, xr_page(7, 0));
	KUNIT_EXPECT_TRUE(test, xr_page(7, 21));
	vmt_exact_exited(7);
	KUNIT_EXPECT_FALSE(test, xr_page(7, 0));
	KUNIT_EXPECT_FALSE(test, xr_page(7, 9));
	KUNIT_EXPECT_TRUE(test, xr_page(7, 21));
	KUNIT_EXPECT_EQ(test, vmt_exact_nr_ranges, 1U);
	KUNIT_EXPECT_EQ(test, vmt_exact_used_pages, 2ULL);
}

/* A heap that brk grows and shrinks: one range, as large as the heap. */
static void xr_test_heap_follows_brk(struct kunit *test)
{
	xr_reset(VMT_EXACT_DEFAULT_MAX_PAGES);
	xr_map(7, XP(100), XP(102));
	xr_map(7, XP(100), XP(105));
	KUNIT_EXPECT_EQ(test, vmt_exact_nr_ranges, 1U);
	KUNIT_EXPECT_EQ(test, vmt_exact_used_pages, 5ULL);
	KUNIT_EXPECT_TRUE(test, xr_page(7, 104));
	vmt_exact_unmapped(7, XP(101), XP(200));
	xr_map(7, XP(100), XP(101));
	KUNIT_EXPECT_EQ(test, vmt_exact_nr_ranges, 1U);
	KUNIT_EXPECT_EQ(test, vmt_exact_used_pages, 1ULL);
	KUNIT_EXPECT_FALSE(test, xr_page(7, 101));
}

/*
 * Under a cap of 4 pages, a 10-page heap keeps 4 and leaves 6 out; grown
 * to 12, 2 more are left out, not 8; shrunk to 2 and grown back to 4, none.
 */
static void xr_test_cap_counts_once(struct kunit *test)
{
	xr_reset(4);
	xr_map(7, XP(100), XP(110));
	KUNIT_EXPECT_EQ(test, vmt_exact_used_pages, 4ULL);
	KUNIT_EXPECT_EQ(test, vmt_exact_left_out, 6ULL);
	KUNIT_EXPECT_TRUE(test, xr_page(7, 103));
	KUNIT_EXPECT_FALSE(test, xr_page(7, 104));
	xr_map(7, XP(100), XP(112));
	KUNIT_EXPECT_EQ(test, vmt_exact_left_out, 8ULL);
	vmt_exact_unmapped(7, XP(102), XP(200));
	xr_map(7, XP(100), XP(102));
	KUNIT_EXPECT_EQ(test, vmt_exact_used_pages, 2ULL);
	xr_map(7, XP(100), XP(104));
	KUNIT_EXPECT_EQ(test, vmt_exact_used_pages, 4ULL);
	KUNIT_EXPECT_EQ(test, vmt_exact_left_out, 8ULL);
}

/*
 * A mapping [0, 10) that mprotect splits is reported in parts, [0, 3)
 * first, at the same start: the range stays whole.
 */
static void xr_test_split_keeps_range(struct kunit *test)
{
	xr_reset(VMT_EXACT_DEFAULT_MAX_PAGES);
	xr_map(7, XP(0), XP(10));
	xr_map(7, XP(0), XP(3));
	xr_map(7, XP(3), XP(10));
	KUNIT_EXPECT_EQ(test, vmt_exact_nr_ranges, 1U);
	KUNIT_EXPECT_EQ(test, vmt_exact_used_pages, 10ULL);
	KUNIT_EXPECT_TRUE(test, xr_page(7, 5));
	KUNIT_EXPECT_TRUE(test, xr_page(7, 9));
}

/*
 * Mappings [0, 2) and [4, 6) merged into [1, 8) (another start): the gaps
 * [2, 4) and [6, 8) join them, and no page is counted twice.
 */
static void xr_test_merge_fills_gaps(struct kunit *test)
{
	xr_reset(VMT_EXACT_DEFAULT_MAX_PAGES);
	xr_map(7, XP(0), XP(2));
	xr_map(7, XP(4), XP(6));
	xr_map(7, XP(1), XP(8));
	KUNIT_EXPECT_EQ(test, vmt_exact_nr_ranges, 4U);
	KUNIT_EXPECT_EQ(test, vmt_exact_used_pages, 8ULL);
	KUNIT_EXPECT_TRUE(test, xr_page(7, 3));
	KUNIT_EXPECT_TRUE(test, xr_page(7, 7));
	KUNIT_EXPECT_FALSE(test, xr_page(7, 8));
	/* The same mapping again: nothing new. */
	xr_map(7, XP(1), XP(8));
	KUNIT_EXPECT_EQ(test, vmt_exact_nr_ranges, 4U);
}

/* A full table: ADD says -ENOSPC, a mapping is counted as left out. */
static void xr_test_table_full(struct kunit *test)
{
	u32 i;

	xr_reset(VMT_EXACT_DEFAULT_MAX_PAGES);
	for (i = 0; i < VMT_EXACT_TABLE; i++)
		KUNIT_ASSERT_EQ(test, xr_add(9, XP(2 * i), XP(2 * i + 1)), 0);
	KUNIT_EXPECT_EQ(test, xr_add(9, XP(5000), XP(5001)), -ENOSPC);
	xr_map(7, XP(6000), XP(6003));
	KUNIT_EXPECT_EQ(test, vmt_exact_left_out, 3ULL);
	KUNIT_EXPECT_TRUE(test, xr_page(9, 2 * (VMT_EXACT_TABLE - 1)));
	KUNIT_EXPECT_FALSE(test, xr_page(9, 2 * (VMT_EXACT_TABLE - 1) + 1));
	KUNIT_EXPECT_FALSE(test, xr_page(7, 6000));
}

/*
 * Mappings [0, 3) and [3, 10) merged into [0, 10), reported at the first's
 * start: the first does not grow over the second, no page counts twice.
 */
static void xr_test_grow_stops_at_next(struct kunit *test)
{
	xr_reset(VMT_EXACT_DEFAULT_MAX_PAGES);
	xr_map(7, XP(0), XP(3));
	xr_map(7, XP(3), XP(10));
	xr_map(7, XP(0), XP(12));
	KUNIT_EXPECT_EQ(test, vmt_exact_used_pages, 12ULL);
	KUNIT_EXPECT_EQ(test, vmt_exact_nr_ranges, 3U);
	KUNIT_EXPECT_TRUE(test, xr_page(7, 5));
	KUNIT_EXPECT_TRUE(test, xr_page(7, 11));
	vmt_exact_exited(7);
	KUNIT_EXPECT_EQ(test, vmt_exact_used_pages, 0ULL);
	/* Under a cap of 10, the same: nothing left out. */
	xr_reset(10);
	xr_map(7, XP(0), XP(3));
	xr_map(7, XP(3), XP(10));
	xr_map(7, XP(0), XP(10));
	KUNIT_EXPECT_EQ(test, vmt_exact_used_pages, 10ULL);
	KUNIT_EXPECT_EQ(test, vmt_exact_left_out, 0ULL);
}

/*
 * Under a cap of 4, a 10-page mapping leaves 6 out; with the cap raised,
 * the same mapping reported again takes them in: none left out.
 */
static void xr_test_grow_takes_back_left_out(struct kunit *test)
{
	xr_reset(4);
	xr_map(7, XP(100), XP(110));
	KUNIT_EXPECT_EQ(test, vmt_exact_left_out, 6ULL);
	raw_spin_lock_irq(&vmt_exact_lock);
	vmt_exact_max_pages = 64;
	raw_spin_unlock_irq(&vmt_exact_lock);
	xr_map(7, XP(100), XP(110));
	KUNIT_EXPECT_EQ(test, vmt_exact_used_pages, 10ULL);
	KUNIT_EXPECT_EQ(test, vmt_exact_left_out, 0ULL);
	KUNIT_EXPECT_TRUE(test, xr_page(7, 109));
}

/* VMT_EXACT_REMOVE of a range made of a mapping: refused, the range stays. */
static void xr_test_remove_spares_named(struct kunit *test)
{
	struct vmt_exact_range r = { .tgid = 7, .start = XP(0), .end = XP(10),
				     .asked_end = XP(10) };
	int err;

	xr_reset(VMT_EXACT_DEFAULT_MAX_PAGES);
	xr_map(7, XP(0), XP(10));
	raw_spin_lock_irq(&vmt_exact_lock);
	err = __vmt_exact_range_op(VMT_EXACT_REMOVE, &r);
	raw_spin_unlock_irq(&vmt_exact_lock);
	KUNIT_EXPECT_EQ(test, err, -EINVAL);
	KUNIT_EXPECT_TRUE(test, xr_page(7, 5));
	/* A range given by numbers over it goes, the mapping's stays. */
	KUNIT_ASSERT_EQ(test, xr_add(7, XP(0), XP(10)), 0);
	raw_spin_lock_irq(&vmt_exact_lock);
	err = __vmt_exact_range_op(VMT_EXACT_REMOVE, &r);
	raw_spin_unlock_irq(&vmt_exact_lock);
	KUNIT_EXPECT_EQ(test, err, 0);
	KUNIT_EXPECT_EQ(test, vmt_exact_nr_ranges, 1U);
	KUNIT_EXPECT_TRUE(test, xr_page(7, 5));
}

/*
 * Ranges made of a name's mappings go with the name, and all of them at
 * start (the state dump makes them anew); ranges given by numbers stay.
 */
static void xr_test_named_ranges_end(struct kunit *test)
{
	xr_reset(VMT_EXACT_DEFAULT_MAX_PAGES);
	KUNIT_ASSERT_EQ(test, xr_name(VMT_EXACT_ADD_NAME, 7, "[heap]"), 0);
	KUNIT_ASSERT_EQ(test, xr_name(VMT_EXACT_ADD_NAME, 7, "[stack]"), 0);
	KUNIT_ASSERT_EQ(test, vmt_exact_names[0].len, 6);
	xr_map_name(7, XP(100), XP(105), 0);
	xr_map_name(7, XP(200), XP(202), 1);
	KUNIT_ASSERT_EQ(test, xr_add(7, XP(300), XP(301)), 0);
	KUNIT_EXPECT_EQ(test, xr_name(VMT_EXACT_REMOVE_NAME, 7, "[heap]"), 0);
	KUNIT_EXPECT_FALSE(test, xr_page(7, 100));
	KUNIT_EXPECT_TRUE(test, xr_page(7, 200));
	KUNIT_EXPECT_EQ(test, vmt_exact_used_pages, 3ULL);
	vmt_exact_start();
	KUNIT_EXPECT_FALSE(test, xr_page(7, 200));
	KUNIT_EXPECT_TRUE(test, xr_page(7, 300));
	KUNIT_EXPECT_EQ(test, vmt_exact_nr_ranges, 1U);
	KUNIT_EXPECT_EQ(test, vmt_exact_used_pages, 1ULL);
}

/*
 * An exit drops its process's many ranges in one pass: the other
 * processes' ranges, before and after it in the table, are found as before.
 */
static void xr_test_exit_drops_all(struct kunit *test)
{
	u32 i;

	xr_reset(VMT_EXACT_DEFAULT_MAX_PAGES);
	KUNIT_ASSERT_EQ(test, xr_add(5, XP(0), XP(50)), 0);
	KUNIT_ASSERT_EQ(test, xr_add(9, XP(10), XP(40)), 0);
	KUNIT_ASSERT_EQ(test, xr_add(9, XP(12), XP(13)), 0);
	for (i = 0; i < 500; i++)
		xr_map(7, XP(2 * i), XP(2 * i + 1));
	KUNIT_ASSERT_EQ(test, xr_add(7, XP(2000), XP(2001)), 0);
	KUNIT_EXPECT_EQ(test, vmt_exact_nr_ranges, 504U);
	vmt_exact_exited(7);
	KUNIT_EXPECT_EQ(test, vmt_exact_nr_ranges, 4U);
	KUNIT_EXPECT_EQ(test, vmt_exact_used_pages, 50ULL + 30 + 1 + 1);
	KUNIT_EXPECT_FALSE(test, xr_page(7, 0));
	KUNIT_EXPECT_TRUE(test, xr_page(7, 2000));
	KUNIT_EXPECT_TRUE(test, xr_page(5, 49));
	KUNIT_EXPECT_TRUE(test, xr_page(9, 30));
	KUNIT_EXPECT_FALSE(test, xr_page(9, 40));
}

static struct kunit_case vmt_exact_ranges_test_cases[] = {
	KUNIT_CASE(xr_test_overlap),
	KUNIT_CASE(xr_test_unmap_splits),
	KUNIT_CASE(xr_test_heap_follows_brk),
	KUNIT_CASE(xr_test_cap_counts_once),
	KUNIT_CASE(xr_test_split_keeps_range),
	KUNIT_CASE(xr_test_merge_fills_gaps),
	KUNIT_CASE(xr_test_table_full),
	KUNIT_CASE(xr_test_grow_stops_at_next),
	KUNIT_CASE(xr_test_grow_takes_back_left_out),
	KUNIT_CASE(xr_test_remove_spares_named),
	KUNIT_CASE(xr_test_named_ranges_end),
	KUNIT_CASE(xr_test_exit_drops_all),
	{}
};

static struct kunit_suite vmt_exact_ranges_test_suite = {
	.name = "vmtrace-exact-ranges",
	.exit = xr_exit,
	.test_cases = vmt_exact_ranges_test_cases,
};

kunit_test_suite(vmt_exact_ranges_test_suite);

#endif /* _VMTRACE_EXACT_RANGES_KUNIT_H */
