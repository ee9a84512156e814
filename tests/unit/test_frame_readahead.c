// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for frames decoded ahead (user/lib/trace/frame_readahead.c):
 * every frame taken holds what its own decode wrote, whichever thread
 * decoded it; each queued frame is decoded once; a frame never queued is
 * not the pool's; a decode's error reaches the taker; slots are bounded,
 * and a decoded frame nobody takes gives its slot up after a while.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <cmocka.h>

#include "trace/frame_readahead.h"

#define FRAMES 600
#define FRAME_BYTES 4096

struct decoder {
	int calls[FRAMES];	/* each frame's decodes; written by one thread at a time */
	uint64_t bad_frame;	/* its decode fails */
};

/* The frame's bytes: its number's, mixed with the byte's place. */
static uint8_t byte_of(uint64_t frame_no, size_t i)
{
	return (uint8_t)(frame_no * 131 + i * 7 + (i >> 8));
}

static int decode(void *ctx, uint64_t frame_no, struct vmt_frame_buf *buf)
{
	struct decoder *d = ctx;

	__atomic_fetch_add(&d->calls[frame_no], 1, __ATOMIC_RELAXED);
	if (frame_no == d->bad_frame) {
		snprintf(buf->why, sizeof(buf->why), "frame %llu is bad",
			 (unsigned long long)frame_no);
		return -EBADMSG;
	}
	if (buf->capacity < FRAME_BYTES) {
		buf->data = realloc(buf->data, FRAME_BYTES);
		assert_non_null(buf->data);
		buf->capacity = FRAME_BYTES;
	}
	for (size_t i = 0; i < FRAME_BYTES; i++)
		buf->data[i] = byte_of(frame_no, i);
	return 0;
}

static void assert_frame(const struct vmt_frame_buf *buf, uint64_t frame_no)
{
	assert_int_equal(buf->err, 0);
	for (size_t i = 0; i < FRAME_BYTES; i++)
		if (buf->data[i] != byte_of(frame_no, i))
			fail_msg("frame %llu: byte %zu is another frame's",
				 (unsigned long long)frame_no, i);
}

/* A reader's pattern: take frame k, queue the next few, and so on. */
static void test_in_turn(void **state)
{
	static const unsigned int threads[] = { 1, 2, 4 };
	struct vmt_frame_buf buf = { 0 };
	struct decoder *d;

	(void)state;
	for (unsigned int t = 0; t < 3; t++) {
		struct vmt_readahead *ra;

		d = calloc(1, sizeof(*d));
		d->bad_frame = UINT64_MAX;
		assert_int_equal(vmt_readahead_create(&ra, threads[t], 8, decode, d), 0);
		for (uint64_t k = 0; k < FRAMES; k++) {
			if (!vmt_readahead_take(ra, k, &buf))
				buf.err = decode(d, k, &buf);
			assert_frame(&buf, k);
			for (uint64_t a = k + 1; a < k + 5 && a < FRAMES; a++)
				vmt_readahead_queue(ra, a);
		}
		for (uint64_t k = 0; k < FRAMES; k++)
			assert_int_equal(d->calls[k], 1);
		assert_int_equal(vmt_readahead_decoded(ra), FRAMES - 1);
		vmt_readahead_destroy(ra);
		free(d);
	}
	vmt_frame_buf_free(&buf);
}

static void test_not_queued_and_errors(void **state)
{
	struct vmt_frame_buf buf = { 0 };
	struct decoder d = { .bad_frame = 3 };
	struct vmt_readahead *ra;

	(void)state;
	assert_int_equal(vmt_readahead_create(&ra, 2, 4, decode, &d), 0);
	assert_int_equal(vmt_readahead_take(ra, 1, &buf), 0);
	assert_null(buf.data);
	vmt_readahead_queue(ra, 3);
	vmt_readahead_queue(ra, 3);	/* queued once */
	assert_int_equal(vmt_readahead_take(ra, 3, &buf), 1);
	assert_int_equal(buf.err, -EBADMSG);
	assert_string_equal(buf.why, "frame 3 is bad");
	assert_int_equal(d.calls[3], 1);
	/* Taken: no longer the pool's. */
	assert_int_equal(vmt_readahead_take(ra, 3, &buf), 0);
	vmt_readahead_destroy(ra);
	vmt_frame_buf_free(&buf);
}

/* Four slots: a fifth frame waits for one; a decoded frame never taken gives its slot up. */
static void test_slots(void **state)
{
	struct vmt_frame_buf buf = { 0 };
	struct decoder d = { .bad_frame = UINT64_MAX };
	struct vmt_readahead *ra;

	(void)state;
	assert_int_equal(vmt_readahead_create(&ra, 1, 4, decode, &d), 0);
	for (uint64_t k = 10; k < 14; k++)
		vmt_readahead_queue(ra, k);
	/* Until the worker has decoded them all, no slot can be had. */
	while (vmt_readahead_decoded(ra) < 4)
		sched_yield();
	/* Frame 10 was queued four queues ago: its slot goes to frame 14. */
	vmt_readahead_queue(ra, 14);
	assert_int_equal(vmt_readahead_take(ra, 10, &buf), 0);
	for (uint64_t k = 11; k < 15; k++) {
		assert_int_equal(vmt_readahead_take(ra, k, &buf), 1);
		assert_frame(&buf, k);
	}
	vmt_readahead_destroy(ra);
	vmt_frame_buf_free(&buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_in_turn),
		cmocka_unit_test(test_not_queued_and_errors),
		cmocka_unit_test(test_slots),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
