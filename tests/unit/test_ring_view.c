// SPDX-License-Identifier: GPL-2.0
/* Unit tests for the reader's side of a ring (user/lib/device/ring.c). */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "vmtrace/vmtrace.h"

#define PAGE 4096

struct fake_ring {
	unsigned char *mem;
	size_t len;
	struct vmt_ring_meta *meta;
	struct vmt_record *records;
	uint32_t nr;
};

/* Lays a ring out as the kernel's vmt_ring_init() does. */
static void fake_ring_init(struct fake_ring *r, uint32_t nr, uint32_t flags)
{
	r->nr = nr;
	r->len = PAGE + (size_t)nr * sizeof(struct vmt_record);
	r->mem = calloc(1, r->len);
	assert_non_null(r->mem);
	r->meta = (struct vmt_ring_meta *)r->mem;
	r->records = (struct vmt_record *)(r->mem + PAGE);
	r->meta->meta_size = sizeof(struct vmt_ring_meta);
	r->meta->abi_version = VMT_ABI_VERSION;
	r->meta->record_size = sizeof(struct vmt_record);
	r->meta->nr_records = nr;
	r->meta->flags = flags;
	r->meta->records_offset = PAGE;
}

/* The producer's side: record @seq goes to slot head & mask. */
static void fake_ring_produce(struct fake_ring *r, uint64_t seq)
{
	struct vmt_record *slot = &r->records[r->meta->head & (r->nr - 1)];

	memset(slot, 0, sizeof(*slot));
	slot->hdr.type = VMT_REC_REFERENCE;
	slot->ref.vaddr = seq;
	r->meta->head++;
}

static void test_reads_in_order_across_wrap(void **state)
{
	struct fake_ring r;
	struct vmt_ring_view v;
	struct vmt_record out[3];
	uint64_t written = 0, expect = 0;
	long n;

	(void)state;
	fake_ring_init(&r, 8, 0);
	assert_int_equal(vmt_ring_view_init(&v, r.mem, r.len), 0);
	assert_int_equal(v.nr_records, 8);
	while (expect < 50) {
		while (written < 50 && written - expect < 8)
			fake_ring_produce(&r, written++);
		assert_int_equal(vmt_ring_view_pending(&v), written - expect);
		n = vmt_ring_view_read(&v, out, 3, NULL);
		assert_true(n > 0 && n <= 3);
		for (long i = 0; i < n; i++)
			assert_int_equal(out[i].ref.vaddr, expect++);
	}
	assert_int_equal(r.meta->tail, 50);
	assert_int_equal(vmt_ring_view_read(&v, out, 3, NULL), 0);
	free(r.mem);
}

static void test_overwrite_skips_and_counts(void **state)
{
	struct fake_ring r;
	struct vmt_ring_view v;
	struct vmt_record out[16];
	uint64_t overwritten = 0;

	(void)state;
	fake_ring_init(&r, 8, VMT_RING_OVERWRITE);
	assert_int_equal(vmt_ring_view_init(&v, r.mem, r.len), 0);
	for (uint64_t s = 0; s < 21; s++)
		fake_ring_produce(&r, s);
	assert_int_equal(vmt_ring_view_read(&v, out, 16, &overwritten), 8);
	assert_int_equal(overwritten, 13);
	for (int i = 0; i < 8; i++)
		assert_int_equal(out[i].ref.vaddr, 13 + i);
	free(r.mem);
}

static void test_inconsistent_head_is_an_error(void **state)
{
	struct fake_ring r;
	struct vmt_ring_view v;
	struct vmt_record out[4];

	(void)state;
	fake_ring_init(&r, 8, 0);
	assert_int_equal(vmt_ring_view_init(&v, r.mem, r.len), 0);
	r.meta->head = 9;	/* more than a ring's worth unread */
	assert_int_equal(vmt_ring_view_read(&v, out, 4, NULL), -EPROTO);
	r.meta->head = 2;
	r.meta->tail = 3;	/* head behind tail */
	assert_int_equal(vmt_ring_view_read(&v, out, 4, NULL), -EPROTO);
	assert_int_equal(r.meta->tail, 3);	/* nothing released */
	free(r.mem);
}

/* Each header field that can be wrong, one at a time. */
static void test_init_rejects_bad_control_pages(void **state)
{
	static const struct {
		size_t offset;
		uint32_t value;
		int err;
	} cases[] = {
		{ offsetof(struct vmt_ring_meta, abi_version), VMT_ABI_VERSION + 1, -EPROTO },
		{ offsetof(struct vmt_ring_meta, record_size), 32, -EPROTO },
		{ offsetof(struct vmt_ring_meta, meta_size), 8, -EPROTO },
		{ offsetof(struct vmt_ring_meta, nr_records), 6, -EINVAL },
		{ offsetof(struct vmt_ring_meta, nr_records), 0, -EINVAL },
		{ offsetof(struct vmt_ring_meta, nr_records), 16, -EINVAL },	/* past len */
		{ offsetof(struct vmt_ring_meta, records_offset), 8, -EINVAL },
		{ offsetof(struct vmt_ring_meta, records_offset), 4097, -EINVAL },
		{ offsetof(struct vmt_ring_meta, records_offset), 8192, -EINVAL },
	};
	struct vmt_ring_view v;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct fake_ring r;

		fake_ring_init(&r, 8, 0);
		memcpy(r.mem + cases[i].offset, &cases[i].value, sizeof(uint32_t));
		assert_int_equal(vmt_ring_view_init(&v, r.mem, r.len), cases[i].err);
		free(r.mem);
	}
	{
		struct fake_ring r;

		fake_ring_init(&r, 8, 0);
		assert_int_equal(vmt_ring_view_init(&v, r.mem, 100), -EINVAL);
		assert_int_equal(vmt_ring_view_init(&v, NULL, r.len), -EINVAL);
		free(r.mem);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reads_in_order_across_wrap),
		cmocka_unit_test(test_overwrite_skips_and_counts),
		cmocka_unit_test(test_inconsistent_head_is_an_error),
		cmocka_unit_test(test_init_rejects_bad_control_pages),
	};

	return cmocka_run_group_tests_name("ring_view", tests, NULL, NULL);
}
